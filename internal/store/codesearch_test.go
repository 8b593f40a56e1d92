package store_test

import (
	"context"
	"slices"
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
