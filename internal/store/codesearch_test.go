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
