package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// TestSearchCodeWordPlans finds words the three ways a word's files are
// found on SQLite (through its rarest trigrams then LIKE; through a phrase
// of all its trigrams when each is common, or when it is not ASCII), and
// with ILIKE on PostgreSQL: the same files every way.
func TestSearchCodeWordPlans(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	mona := &model.Account{Login: "mona", Type: model.TypeUser}
	repo := &model.Repo{Name: "app", Visibility: model.Public}
	err := s.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAccount(ctx, mona); err != nil {
			return err
		}
		repo.OwnerID, repo.Owner = mona.ID, mona
		if err := tx.CreateRepo(ctx, repo); err != nil {
			return err
		}
		var files []store.CodeFile
		for _, f := range [][2]string{
			{"a.go", "func Handler42(x int) {}"},
			{"b.go", "// handler42( in a comment, HANDLER42( shouted"},
			{"c.go", "handler4 2( and handler42 without its paren"},
			{"docs/handler42(.md", "the path holds it"},
			{"d.go", "Grüße aus handler"},
			{"e.go", "50% of 100_000"},
		} {
			files = append(files, store.CodeFile{Path: f[0], Name: f[0], Extension: "go", Language: "Go", SHA: "0", Size: int64(len(f[1])), Content: f[1]})
		}
		return tx.ApplyCodeIndex(ctx, store.CodeIndexUpdate{RepoID: repo.ID, Branch: "main", Commit: "c0", Reset: true, Files: files})
	})
	if err != nil {
		t.Fatal(err)
	}
	search := func(t *testing.T, word string, neg bool) []string {
		t.Helper()
		c := store.SearchCond{Op: store.CondLeaf, Field: "text", Text: word, In: []string{"file", "path"}}
		if neg {
			c = store.CondAll(store.CondNeg(c), store.SearchCond{Op: store.CondLeaf, Field: "text", Text: ".go", In: []string{"path"}})
		}
		hits, total, err := s.R().SearchCode(ctx, store.CodeSearch{Viewer: store.Viewer{UserID: mona.ID}, Cond: c, Limit: 30})
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, h := range hits {
			paths = append(paths, h.File.Path)
		}
		if total != len(paths) {
			t.Fatalf("%q: total %d, %d hits", word, total, len(paths))
		}
		slices.Sort(paths)
		return paths
	}
	cases := []struct {
		word string
		neg  bool
		want []string
	}{
		{"handler42(", false, []string{"a.go", "b.go", "docs/handler42(.md"}},
		{"HANDLER42(", false, []string{"a.go", "b.go", "docs/handler42(.md"}},
		{"handler42(", true, []string{"c.go", "d.go", "e.go"}},
		{"grüße", false, []string{"d.go"}},
		{"50%", false, []string{"e.go"}},
		{"0_0", false, []string{"e.go"}},
		{"zanzibar", false, nil},
	}
	for _, capRows := range []int{20_000, 1} { // 1: every trigram too common
		undo := store.SetRareTrigramCap(capRows)
		for _, c := range cases {
			if got := search(t, c.word, c.neg); !slices.Equal(got, c.want) {
				t.Errorf("cap %d: %q (negated %v): %v, want %v", capRows, c.word, c.neg, got, c.want)
			}
		}
		undo()
	}
}

// TestSearchCodePagesAndAccess pages a code search (best match and sort
// indexed, both directions) the two ways it runs: every match's keys read
// at once then the page by id, and, past the keys' cap, a count and a page
// in SQL. Both keep what the viewer may see: an organization's private
// repository by its default permission for a member (not when it is
// none); and a scoped search (repo: with extension:) tests its word file
// by file.
func TestSearchCodePagesAndAccess(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	mona := &model.Account{Login: "mona", Type: model.TypeUser}
	hubot := &model.Account{Login: "hubot", Type: model.TypeUser}
	open := &model.Account{Login: "open", Type: model.TypeOrganization, DefaultRepoPermission: "read"}
	closed := &model.Account{Login: "closed", Type: model.TypeOrganization, DefaultRepoPermission: "none"}
	var app, inner, secret *model.Repo
	index := func(tx store.Q, r *model.Repo, files ...[2]string) error {
		var fs []store.CodeFile
		for _, f := range files {
			fs = append(fs, store.CodeFile{Path: f[0], Name: f[0], Extension: strings.TrimPrefix(filepath.Ext(f[0]), "."),
				Language: "Go", SHA: "0", Size: int64(len(f[1])), Content: f[1]})
		}
		return tx.ApplyCodeIndex(ctx, store.CodeIndexUpdate{RepoID: r.ID, Branch: "main", Commit: "c0", Reset: true, Files: fs})
	}
	err := s.Tx(ctx, func(tx store.Q) error {
		for _, a := range []*model.Account{mona, hubot, open, closed} {
			if err := tx.CreateAccount(ctx, a); err != nil {
				return err
			}
		}
		for _, org := range []*model.Account{open, closed} {
			if err := tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: hubot.ID, Role: model.RoleMember, State: store.StateActive}); err != nil {
				return err
			}
		}
		app = &model.Repo{OwnerID: mona.ID, Owner: mona, Name: "app", Visibility: model.Public}
		inner = &model.Repo{OwnerID: open.ID, Owner: open, Name: "inner", Visibility: model.Private}
		secret = &model.Repo{OwnerID: closed.ID, Owner: closed, Name: "secret", Visibility: model.Private}
		for _, r := range []*model.Repo{app, inner, secret} {
			if err := tx.CreateRepo(ctx, r); err != nil {
				return err
			}
		}
		if err := index(tx, app, [2]string{"a.go", "needle one"}, [2]string{"b.md", "needle two"}, [2]string{"c.go", "needle three"},
			[2]string{"d.go", "no match"}, [2]string{"e.go", "NEEDLE four"}); err != nil {
			return err
		}
		if err := index(tx, inner, [2]string{"x.go", "the needle inside"}); err != nil {
			return err
		}
		return index(tx, secret, [2]string{"y.go", "a needle hidden"})
	})
	if err != nil {
		t.Fatal(err)
	}
	word := store.SearchCond{Op: store.CondLeaf, Field: "text", Text: "needle", In: []string{"file", "path"}}
	search := func(t *testing.T, c store.SearchCond, sort string, desc bool, limit, offset int) ([]string, int) {
		t.Helper()
		hits, total, err := s.R().SearchCode(ctx, store.CodeSearch{Viewer: store.Viewer{UserID: hubot.ID}, Cond: c,
			Sort: sort, Desc: desc, Limit: limit, Offset: offset})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, fmt.Sprintf("%d:%s", h.File.RepoID, h.File.Path))
		}
		return out, total
	}
	a, in := fmt.Sprint(app.ID, ":"), fmt.Sprint(inner.ID, ":")
	asc := []string{a + "a.go", a + "b.md", a + "c.go", a + "e.go", in + "x.go"}
	descending := slices.Clone(asc)
	slices.Reverse(descending)
	scoped := store.CondAll(word, store.SearchCond{Op: store.CondLeaf, Field: "repo", IDs: []int64{app.ID}},
		store.SearchCond{Op: store.CondLeaf, Field: "extension", Text: "go"})
	for _, keysCap := range []int{10_000, 2} {
		undo := store.SetCodeKeysCap(keysCap)
		for _, o := range []struct {
			sort string
			desc bool
			want []string
		}{{"", false, asc}, {"indexed", false, asc}, {"indexed", true, descending}} {
			if o.sort == "indexed" {
				// The repositories may have been indexed in different
				// seconds: the order is by indexed_at, then id.
				full, _ := search(t, word, o.sort, o.desc, 30, 0)
				if len(full) != len(o.want) {
					t.Fatalf("cap %d, sort %s desc %v: %v, want the files of %v", keysCap, o.sort, o.desc, full, o.want)
				}
				o.want = full
			}
			var got []string
			for offset := 0; offset < 8; offset += 2 {
				page, total := search(t, word, o.sort, o.desc, 2, offset)
				if total != len(asc) {
					t.Errorf("cap %d, sort %q desc %v offset %d: total %d, want %d", keysCap, o.sort, o.desc, offset, total, len(asc))
				}
				got = append(got, page...)
			}
			if !slices.Equal(got, o.want) {
				t.Errorf("cap %d, sort %q desc %v: pages %v, want %v", keysCap, o.sort, o.desc, got, o.want)
			}
		}
		if got, total := search(t, scoped, "", false, 30, 0); total != 3 || !slices.Equal(got, []string{a + "a.go", a + "c.go", a + "e.go"}) {
			t.Errorf("cap %d: scoped %v (%d)", keysCap, got, total)
		}
		undo()
	}
}

// TestSearchCodeTrigramCounts follows PostgreSQL's trigram counts (kept
// by the index job, read to choose a word's rarest trigrams) through a
// first index, a push changing, adding and removing files, a second
// repository added, a re-index from scratch and a repository deleted: at
// each step they equal a count made then, and searches find the same
// files whether the counts call every trigram rare or none. The words
// include one shorter than a trigram, one made only of common trigrams,
// one whose only trigram is a run's end ("42(") and one a push adds; a
// file holds every trigram of a word but not the word.
func TestSearchCodeTrigramCounts(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	mona := &model.Account{Login: "mona", Type: model.TypeUser}
	app := &model.Repo{Name: "app", Visibility: model.Public}
	lib := &model.Repo{Name: "lib", Visibility: model.Public}
	file := func(path, content string) store.CodeFile {
		return store.CodeFile{Path: path, Name: filepath.Base(path), Extension: "go", Language: "Go", SHA: "0",
			Size: int64(len(content)), Content: content}
	}
	apply := func(t *testing.T, u store.CodeIndexUpdate) {
		t.Helper()
		if err := s.Tx(ctx, func(tx store.Q) error { return tx.ApplyCodeIndex(ctx, u) }); err != nil {
			t.Fatal(err)
		}
	}
	drift := func(t *testing.T, step string) {
		t.Helper()
		d, err := s.R().CodeTrigramDrift(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(d) > 0 {
			t.Fatalf("%s: counts differ from the files (trigram repo kept counted): %v", step, d)
		}
	}
	search := func(t *testing.T, word string) []string {
		t.Helper()
		c := store.SearchCond{Op: store.CondLeaf, Field: "text", Text: word, In: []string{"file", "path"}}
		hits, total, err := s.R().SearchCode(ctx, store.CodeSearch{Viewer: store.Viewer{UserID: mona.ID}, Cond: c, Limit: 30})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			r := "app"
			if h.File.RepoID == lib.ID {
				r = "lib"
			}
			out = append(out, r+"/"+h.File.Path)
		}
		if total != len(out) {
			t.Fatalf("%q: total %d, %d hits", word, total, len(out))
		}
		slices.Sort(out)
		return out
	}
	check := func(t *testing.T, step string, want map[string][]string) {
		t.Helper()
		drift(t, step)
		for _, capN := range []int{1_000_000, 1} { // every trigram rare; none
			undo := store.SetRareTrigramCap(capN)
			for word, w := range want {
				if got := search(t, word); !slices.Equal(got, w) {
					t.Errorf("%s, cap %d: %q found %v, want %v", step, capN, word, got, w)
				}
			}
			undo()
		}
	}
	err := s.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAccount(ctx, mona); err != nil {
			return err
		}
		app.OwnerID, app.Owner, lib.OwnerID, lib.Owner = mona.ID, mona, mona.ID, mona
		return tx.CreateRepo(ctx, app)
	})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, store.CodeIndexUpdate{RepoID: app.ID, Branch: "main", Commit: "c1", Reset: true, Files: []store.CodeFile{
		file("a.go", "func Handler42(x int) {}"),
		file("b.go", "return handler42(y) // and then"),
		file("c.go", "return nothing and then"),
		file("handler42(.go", "the path holds it"),
		// Every trigram of handler42( and each of its substrings that
		// find one, but not the word.
		file("decoy.go", "order42(x) then handler4 then cher42 er4"),
	}})
	check(t, "first index", map[string][]string{
		"handler42(": {"app/a.go", "app/b.go", "app/handler42(.go"},
		"42(":        {"app/a.go", "app/b.go", "app/decoy.go", "app/handler42(.go"},
		"42":         {"app/a.go", "app/b.go", "app/decoy.go", "app/handler42(.go"},
		"return":     {"app/b.go", "app/c.go"},
		"and then":   {"app/b.go", "app/c.go"},
		"zanzibar":   nil,
	})
	// A push: b.go loses the word, c.go gains it, a.go goes, d.go comes.
	apply(t, store.CodeIndexUpdate{RepoID: app.ID, Branch: "main", Commit: "c2", Removed: []string{"a.go"}, Files: []store.CodeFile{
		file("b.go", "return handler4(y) // and then"),
		file("c.go", "return Handler42(z) and then"),
		file("d.go", "zanzibar"),
	}})
	check(t, "push", map[string][]string{
		"handler42(": {"app/c.go", "app/handler42(.go"},
		"42(":        {"app/c.go", "app/decoy.go", "app/handler42(.go"},
		"return":     {"app/b.go", "app/c.go"},
		"zanzibar":   {"app/d.go"},
	})
	if err := s.Tx(ctx, func(tx store.Q) error { return tx.CreateRepo(ctx, lib) }); err != nil {
		t.Fatal(err)
	}
	apply(t, store.CodeIndexUpdate{RepoID: lib.ID, Branch: "main", Commit: "l1", Reset: true, Files: []store.CodeFile{
		file("x.go", "HANDLER42( and zanzibar"),
	}})
	check(t, "second repository", map[string][]string{
		"handler42(": {"app/c.go", "app/handler42(.go", "lib/x.go"},
		"zanzibar":   {"app/d.go", "lib/x.go"},
	})
	// A history rewritten: the repository indexed again from scratch.
	apply(t, store.CodeIndexUpdate{RepoID: app.ID, Branch: "main", Commit: "c3", Reset: true, Files: []store.CodeFile{
		file("e.go", "zanzibar handler42()"),
	}})
	check(t, "re-index", map[string][]string{
		"handler42(": {"app/e.go", "lib/x.go"},
		"zanzibar":   {"app/e.go", "lib/x.go"},
		"return":     nil,
	})
	if err := s.Tx(ctx, func(tx store.Q) error { return tx.DeleteRepo(ctx, lib.ID) }); err != nil {
		t.Fatal(err)
	}
	check(t, "repository deleted", map[string][]string{
		"handler42(": {"app/e.go"},
		"zanzibar":   {"app/e.go"},
	})
}

// TestMigrateCodeTrigramCounts opens an index an older hubd wrote (no
// trigram counts) with the migration that adds them: on PostgreSQL it
// counts the files already indexed, so the counts equal a count made
// after, and a search through them finds what it found before.
func TestMigrateCodeTrigramCounts(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.Empty(t)
	n := store.MigrationWith("CREATE TABLE code_trigrams")
	if n == 0 {
		t.Fatal("no migration adds code_trigrams")
	}
	old, err := store.OpenMigratedTo(ctx, dsn, n-1)
	if err != nil {
		t.Fatal(err)
	}
	mona := &model.Account{Login: "mona", Type: model.TypeUser}
	repo := &model.Repo{Name: "app", Visibility: model.Public}
	err = old.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAccount(ctx, mona); err != nil {
			return err
		}
		repo.OwnerID, repo.Owner = mona.ID, mona
		return tx.CreateRepo(ctx, repo)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO code_index (repo_id, branch, commit_sha, indexed_at) VALUES (?, 'main', 'c1', 1)`,
		`INSERT INTO code_files (repo_id, path, name, extension, language, sha, size, content) VALUES (?, 'a.go', 'a.go', 'go', 'Go', '0', 1, 'func Handler42(x int)')`,
		`INSERT INTO code_files (repo_id, path, name, extension, language, sha, size, content) VALUES (?, 'b.go', 'b.go', 'go', 'Go', '0', 1, 'order42(x) handler4')`,
	} {
		if err := store.Exec(ctx, old, q, repo.ID); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Without the backfill every trigram of the two files would differ.
	d, err := s.R().CodeTrigramDrift(ctx)
	if err != nil || len(d) > 0 {
		t.Fatalf("counts after the migration differ from the files: %v %v", d, err)
	}
	undo := store.SetRareTrigramCap(1_000_000)
	defer undo()
	hits, total, err := s.R().SearchCode(ctx, store.CodeSearch{Viewer: store.Viewer{UserID: mona.ID},
		Cond: store.SearchCond{Op: store.CondLeaf, Field: "text", Text: "handler42(", In: []string{"file", "path"}}, Limit: 30})
	if err != nil || total != 1 || len(hits) != 1 || hits[0].File.Path != "a.go" {
		t.Fatalf("search after the migration: %v %d %v", hits, total, err)
	}
}
