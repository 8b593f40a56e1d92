package store_test

import (
	"context"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// The pull request list's totals come from counters that follow creation,
// conversion, closing and reopening; filtered lists count their rows.
func TestPullCounts(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	var repoID int64
	err := s.Tx(ctx, func(tx store.Q) error {
		u := &model.Account{Login: "mona", Type: model.TypeUser}
		if err := tx.CreateAccount(ctx, u); err != nil {
			return err
		}
		r := &model.Repo{OwnerID: u.ID, Name: "app", Visibility: model.Public, DefaultBranch: "main"}
		if err := tx.CreateRepo(ctx, r); err != nil {
			return err
		}
		repoID = r.ID
		for i, head := range []string{"a", "b", "c"} {
			is := &model.Issue{RepoID: repoID, IsPull: true, Title: head}
			if err := tx.CreateIssue(ctx, is); err != nil {
				return err
			}
			base := "main"
			if i == 2 {
				base = "dev"
			}
			if err := tx.CreatePull(ctx, &model.Pull{Issue: is, BaseRef: base, HeadRepoID: repoID, HeadRef: head}); err != nil {
				return err
			}
		}
		return tx.CreateIssue(ctx, &model.Issue{RepoID: repoID, Title: "just an issue"})
	})
	if err != nil {
		t.Fatal(err)
	}
	count := func(state, base string) int {
		t.Helper()
		list, total, err := s.R().ListPulls(ctx, store.PullQuery{RepoID: repoID, State: state, BaseRef: base, Limit: 30})
		if err != nil {
			t.Fatal(err)
		}
		if base == "" && state != "closed" && len(list) != total {
			t.Fatalf("%s: %d rows, total %d", state, len(list), total)
		}
		return total
	}
	if count("open", "") != 3 || count("closed", "") != 0 || count("all", "") != 3 || count("open", "dev") != 1 {
		t.Fatalf("after creation: %d %d %d %d", count("open", ""), count("closed", ""), count("all", ""), count("open", "dev"))
	}
	// Close #1 (through the issue row, as PATCH /issues does too).
	err = s.Tx(ctx, func(tx store.Q) error {
		before, err := tx.IssueByNumber(ctx, repoID, 1)
		if err != nil {
			return err
		}
		after := *before
		after.State = "closed"
		return tx.UpdateIssue(ctx, before, &after)
	})
	if err != nil {
		t.Fatal(err)
	}
	if count("open", "") != 2 || count("closed", "") != 1 || count("all", "") != 3 {
		t.Fatalf("after closing: %d %d %d", count("open", ""), count("closed", ""), count("all", ""))
	}
	// The issue becomes a pull request.
	err = s.Tx(ctx, func(tx store.Q) error {
		is, err := tx.IssueByNumber(ctx, repoID, 4)
		if err != nil {
			return err
		}
		if err := tx.MarkIssuePull(ctx, is.ID); err != nil {
			return err
		}
		is.IsPull = true
		return tx.CreatePull(ctx, &model.Pull{Issue: is, BaseRef: "main", HeadRepoID: repoID, HeadRef: "d"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if count("open", "") != 3 || count("all", "") != 4 {
		t.Fatalf("after conversion: %d %d", count("open", ""), count("all", ""))
	}
}
