package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Lists of issues without pull requests (GraphQL's Repository.issues) hold
// the same rows on every page, deep ones included, whether the repository
// has pull requests or not; ListIssueIDs agrees with ListIssues and follows
// writes at once.
func TestIssueListNoPulls(t *testing.T) {
	s, u, r := issueRepo(t)
	ctx := context.Background()
	const total = 1200
	pulls := map[int64]bool{}
	closed := func(n int64) bool { return n%3 == 0 }
	create := func(from, to int64, pull func(int64) bool) {
		t.Helper()
		err := s.Tx(ctx, func(tx store.Q) error {
			for n := from; n <= to; n++ {
				is := &model.Issue{RepoID: r.ID, Title: fmt.Sprint("t", n), UserID: u.ID, IsPull: pull(n)}
				if err := tx.CreateIssue(ctx, is); err != nil {
					return err
				}
				if is.IsPull {
					pulls[is.Number] = true
					if err := tx.CreatePull(ctx, &model.Pull{Issue: is, BaseRef: "main", HeadRepoID: r.ID, HeadRef: fmt.Sprint("b", n)}); err != nil {
						return err
					}
				}
				if closed(is.Number) {
					after := *is
					after.State = "closed"
					if err := tx.UpdateIssue(ctx, is, &after); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	want := func(last int64, state string, desc bool) []int64 {
		var out []int64
		for n := int64(1); n <= last; n++ {
			if !pulls[n] && (state == "all" || (state == "closed") == closed(n)) {
				out = append(out, n)
			}
		}
		if desc {
			for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
				out[i], out[j] = out[j], out[i]
			}
		}
		return out
	}
	check := func(last int64) {
		t.Helper()
		for _, state := range []string{"open", "closed", "all"} {
			for _, desc := range []bool{true, false} {
				all := want(last, state, desc)
				for _, off := range []int{0, 30, 511, 512, 600, len(all) - 5, len(all)} {
					f := store.IssueQuery{RepoID: r.ID, NoPulls: true, State: state, Desc: desc, Limit: 30, Offset: off}
					list, n, err := s.R().ListIssues(ctx, f)
					if err != nil {
						t.Fatal(err)
					}
					ids, m, err := s.R().ListIssueIDs(ctx, f)
					if err != nil {
						t.Fatal(err)
					}
					if n != len(all) || m != len(all) {
						t.Fatalf("%s desc=%v: totals %d and %d, want %d", state, desc, n, m, len(all))
					}
					exp := all[min(off, len(all)):min(off+30, len(all))]
					if len(list) != len(exp) || len(ids) != len(exp) {
						t.Fatalf("%s desc=%v off=%d: %d and %d rows, want %d", state, desc, off, len(list), len(ids), len(exp))
					}
					for i, is := range list {
						if is.Number != exp[i] || ids[i] != is.ID {
							t.Fatalf("%s desc=%v off=%d: row %d is #%d (id %d, ListIssueIDs %d), want #%d", state, desc, off, i, is.Number, is.ID, ids[i], exp[i])
						}
					}
				}
			}
		}
	}
	// No pull request yet: the lists start deep pages from the blocks.
	create(1, total, func(int64) bool { return false })
	check(total)
	// Pull requests in both states, then more issues: every list leaves
	// them out, and the cached pages follow the writes.
	create(total+1, total+100, func(n int64) bool { return n%4 != 1 })
	check(total + 100)
	create(total+101, total+102, func(int64) bool { return false })
	check(total + 102)
}

// DetailedIssues answers issues in the order asked, with their labels and
// authors, and follows writes at once.
func TestDetailedIssues(t *testing.T) {
	s, u, r := issueRepo(t)
	ctx := context.Background()
	l := &model.Label{RepoID: r.ID, Name: "bug", Color: "d73a4a"}
	var ids []int64
	err := s.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateLabel(ctx, l); err != nil {
			return err
		}
		for i := 0; i < 3; i++ {
			is := &model.Issue{RepoID: r.ID, Title: fmt.Sprint("t", i), UserID: u.ID}
			if err := tx.CreateIssue(ctx, is); err != nil {
				return err
			}
			ids = append(ids, is.ID)
		}
		_, err := tx.AddIssueLabel(ctx, ids[1], l.ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	get := func(ids ...int64) []*model.Issue {
		t.Helper()
		list, err := s.R().DetailedIssues(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		return list
	}
	list := get(ids[2], ids[1], ids[0], 1<<40)
	if len(list) != 3 || list[0].ID != ids[2] || list[1].ID != ids[1] || list[2].ID != ids[0] {
		t.Fatalf("order: %+v", list)
	}
	if len(list[1].Labels) != 1 || list[1].Labels[0].Name != "bug" || len(list[0].Labels) != 0 || list[0].User == nil || list[0].User.Login != "mona" {
		t.Fatalf("details: %+v", list[1])
	}
	if err := s.Tx(ctx, func(tx store.Q) error { _, err := tx.RemoveIssueLabel(ctx, ids[1], l.ID); return err }); err != nil {
		t.Fatal(err)
	}
	if after := get(ids[1]); len(after[0].Labels) != 0 {
		t.Fatalf("labels after the write: %+v", after[0].Labels)
	}
}

// Concurrent readers of a cold page (they share one load) all get it whole.
func TestIssuePageConcurrentReaders(t *testing.T) {
	s, u, r := issueRepo(t)
	ctx := context.Background()
	err := s.Tx(ctx, func(tx store.Q) error {
		for i := 0; i < 40; i++ {
			if err := tx.CreateIssue(ctx, &model.Issue{RepoID: r.ID, Title: fmt.Sprint("t", i), UserID: u.ID}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f := store.IssueQuery{RepoID: r.ID, NoPulls: true, Desc: true, Limit: 30}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids, total, err := s.R().ListIssueIDs(ctx, f)
			if err != nil {
				errs <- err
				return
			}
			list, err := s.R().DetailedIssues(ctx, ids)
			if err != nil {
				errs <- err
				return
			}
			if total != 40 || len(list) != 30 || list[0].Number != 40 || list[29].Number != 11 || list[5].User == nil {
				errs <- fmt.Errorf("total %d, %d issues", total, len(list))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
