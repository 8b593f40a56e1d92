package store_test

import (
	"context"
	"sort"
	"sync"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// Runs of one workflow made by concurrent transactions (pushes handled by
// several workers at once) each get their own run number, one after the
// other, and none fails on the unique (workflow, run number) key.
func TestCreateRunNumbersConcurrently(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t)
	var repo *model.Repo
	var wf *model.Workflow
	err := s.Tx(ctx, func(tx store.Q) error {
		a := &model.Account{Login: "mona", Type: model.TypeUser}
		if err := tx.CreateAccount(ctx, a); err != nil {
			return err
		}
		repo = &model.Repo{OwnerID: a.ID, Owner: a, Name: "app", Visibility: model.Public}
		if err := tx.CreateRepo(ctx, repo); err != nil {
			return err
		}
		var err error
		wf, err = tx.EnsureWorkflow(ctx, repo.ID, ".github/workflows/ci.yml", "CI")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	numbers := make([]int, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			errs <- s.Tx(ctx, func(tx store.Q) error {
				r := &model.WorkflowRun{RepoID: repo.ID, WorkflowID: wf.ID, Name: "CI", DisplayTitle: "CI", Event: "push",
					Status: "queued", Ref: "refs/heads/main", HeadSHA: "aaa", ActorID: repo.OwnerID, TriggeringActorID: repo.OwnerID}
				if err := tx.CreateRun(ctx, r); err != nil {
					return err
				}
				numbers[i] = int(r.RunNumber)
				return nil
			})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a concurrent run: %v", err)
		}
	}
	sort.Ints(numbers)
	for i, got := range numbers {
		if got != i+1 {
			t.Fatalf("run numbers %v, want 1..%d", numbers, n)
		}
	}
}
