package store_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

func issueRepo(t *testing.T) (*store.Store, *model.Account, *model.Repo) {
	t.Helper()
	s := storetest.Open(t)
	ctx := context.Background()
	u := &model.Account{Login: "mona", Type: model.TypeUser}
	r := &model.Repo{Name: "hello", Visibility: model.Public, HasIssues: true}
	err := s.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateAccount(ctx, u); err != nil {
			return err
		}
		r.OwnerID = u.ID
		return tx.CreateRepo(ctx, r)
	})
	if err != nil {
		t.Fatal(err)
	}
	r.Owner = u
	return s, u, r
}

// Numbers stay dense and unique when many writers create issues at once,
// and a rolled back creation gives its number back.
func TestIssueNumbersUnderConcurrency(t *testing.T) {
	s, u, r := issueRepo(t)
	ctx := context.Background()
	const n = 60
	var wg sync.WaitGroup
	var mu sync.Mutex
	var got []int64
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var num int64
			err := s.Tx(ctx, func(tx store.Q) error {
				is := &model.Issue{RepoID: r.ID, Title: fmt.Sprint("t", i), UserID: u.ID}
				if err := tx.CreateIssue(ctx, is); err != nil {
					return err
				}
				num = is.Number
				if i%5 == 0 {
					return errRollback
				}
				return nil
			})
			if errors.Is(err, errRollback) {
				return
			}
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			got = append(got, num)
			mu.Unlock()
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	for i, v := range got {
		if v != int64(i+1) {
			t.Fatalf("numbers not dense: %v", got)
		}
	}
	if len(got) != n-n/5 {
		t.Fatalf("%d issues", len(got))
	}
	if c, _ := s.R().OpenIssueCount(ctx, r.ID); c != len(got) {
		t.Fatalf("open count %d", c)
	}
}

var errRollback = errors.New("rollback")

// The block-started deep pages of the default list hold the same rows as
// plain offsets would, in both directions and for every state.
func TestIssueListDeepPages(t *testing.T) {
	s, u, r := issueRepo(t)
	ctx := context.Background()
	const total = 1400
	err := s.Tx(ctx, func(tx store.Q) error {
		for i := 1; i <= total; i++ {
			is := &model.Issue{RepoID: r.ID, Title: fmt.Sprint("t", i), UserID: u.ID}
			if err := tx.CreateIssue(ctx, is); err != nil {
				return err
			}
			if i%3 == 0 {
				closed := *is
				closed.State = "closed"
				if err := tx.UpdateIssue(ctx, is, &closed); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := func(state string, desc bool) []int64 {
		var out []int64
		for i := 1; i <= total; i++ {
			closed := i%3 == 0
			if state == "all" || (state == "closed") == closed {
				out = append(out, int64(i))
			}
		}
		if desc {
			for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
				out[i], out[j] = out[j], out[i]
			}
		}
		return out
	}
	for _, state := range []string{"open", "closed", "all"} {
		for _, desc := range []bool{true, false} {
			all := want(state, desc)
			for _, off := range []int{0, 511, 512, 600, 900, len(all) - 5, len(all)} {
				list, n, err := s.R().ListIssues(ctx, store.IssueQuery{RepoID: r.ID, State: state, Desc: desc, Limit: 30, Offset: off})
				if err != nil {
					t.Fatal(err)
				}
				if n != len(all) {
					t.Fatalf("%s total %d, want %d", state, n, len(all))
				}
				exp := all[min(off, len(all)):min(off+30, len(all))]
				if len(list) != len(exp) {
					t.Fatalf("%s desc=%v off=%d: %d rows, want %d", state, desc, off, len(list), len(exp))
				}
				for i, is := range list {
					if is.Number != exp[i] {
						t.Fatalf("%s desc=%v off=%d: row %d is #%d, want #%d", state, desc, off, i, is.Number, exp[i])
					}
				}
			}
		}
	}
}

// SeedIssues leaves the same counts, blocks and links as issues created
// one by one would.
func TestSeedIssues(t *testing.T) {
	s, u, r := issueRepo(t)
	ctx := context.Background()
	m := &model.Milestone{RepoID: r.ID, Title: "m", State: "open"}
	l := &model.Label{RepoID: r.ID, Name: "bug", Color: "d73a4a"}
	var list []*store.SeedIssue
	for i := 1; i <= 1300; i++ {
		si := &store.SeedIssue{Issue: model.Issue{Title: fmt.Sprint("t", i), UserID: u.ID}}
		if i%4 == 0 {
			si.State = "closed"
		}
		if i%2 == 0 {
			si.LabelIDs = []int64{0}
			si.AssigneeIDs = []int64{u.ID}
		}
		list = append(list, si)
	}
	err := s.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateMilestone(ctx, m); err != nil {
			return err
		}
		if err := tx.CreateLabel(ctx, l); err != nil {
			return err
		}
		if err := tx.CreateIssue(ctx, &model.Issue{RepoID: r.ID, Title: "before", UserID: u.ID}); err != nil {
			return err
		}
		for i, si := range list {
			if i%2 == 1 {
				si.LabelIDs = []int64{l.ID}
				si.MilestoneID = m.ID
			} else if si.LabelIDs != nil {
				si.LabelIDs = []int64{l.ID}
			}
		}
		return tx.SeedIssues(ctx, r.ID, list)
	})
	if err != nil {
		t.Fatal(err)
	}
	q := s.R()
	page, total, err := q.ListIssues(ctx, store.IssueQuery{RepoID: r.ID, State: "open", Desc: true, Limit: 30, Offset: 900})
	if err != nil || total != 1+1300-325 || len(page) != 30 {
		t.Fatalf("open: total %d, %d rows, %v", total, len(page), err)
	}
	if err := q.IssueDetails(ctx, page, false); err != nil {
		t.Fatal(err)
	}
	labelled := 0
	for _, is := range page {
		if is.Number%4 == 1 { // seeded issue i = number-1; closed when i%4 == 0
			t.Fatalf("closed issue #%d in the open list", is.Number)
		}
		if len(is.Labels) > 0 {
			labelled++
		}
	}
	if labelled == 0 {
		t.Fatal("no labels linked")
	}
	_, n, _ := q.ListIssues(ctx, store.IssueQuery{RepoID: r.ID, State: "all", Labels: []string{"BUG"}, Limit: 1})
	if n != 650 {
		t.Fatalf("labelled %d", n)
	}
	got, _ := q.MilestoneByNumber(ctx, r.ID, m.Number)
	if got.OpenIssues+got.ClosedIssues != 650 || got.ClosedIssues != 325 {
		t.Fatalf("milestone %d/%d", got.OpenIssues, got.ClosedIssues)
	}
	if last, _ := q.LastIssueNumber(ctx, r.ID); last != 1301 {
		t.Fatalf("last number %d", last)
	}
}
