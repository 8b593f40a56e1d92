package protection_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/protection"
	"github.com/hubd/hubd/internal/store"
)

// The store functions the branches list and rename need (their callers are
// in other packages).
func TestStoreForBranches(t *testing.T) {
	f := newFixture(t)
	f.branch(t, "dev")
	for b, contexts := range map[string][]string{"main": {"ci"}, "dev": {"a", "b"}} {
		if _, _, err := f.gh.Repositories.UpdateBranchProtection(ctx, "mona", "app", b, &github.ProtectionRequest{
			RequiredStatusChecks: &github.RequiredStatusChecks{Contexts: &contexts}, EnforceAdmins: b == "dev"}); err != nil {
			t.Fatal(err)
		}
	}
	q := f.e.Store.R()
	names, err := q.ProtectedBranchNames(ctx, f.repoID)
	if err != nil || !slices.Equal(names, []string{"dev", "main"}) {
		t.Fatalf("names: %v %v", names, err)
	}
	got, err := q.BranchProtections(ctx, f.repoID, []string{"main", "dev", "feature"})
	if err != nil || len(got) != 2 || !slices.Equal(got["dev"].RequiredContexts, []string{"a", "b"}) || !got["dev"].EnforceAdmins ||
		!slices.Equal(got["main"].RequiredContexts, []string{"ci"}) || got["feature"] != nil {
		t.Fatalf("batch: %+v %v", got, err)
	}
	var moved bool
	err = f.e.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		moved, err = tx.RenameBranchProtection(ctx, f.repoID, "dev", "develop")
		return err
	})
	if err != nil || !moved {
		t.Fatalf("rename: %v %v", moved, err)
	}
	if bp, err := q.BranchProtection(ctx, f.repoID, "develop"); err != nil || bp == nil || !slices.Equal(bp.RequiredContexts, []string{"a", "b"}) {
		t.Fatalf("renamed: %+v %v", bp, err)
	}
	if bp, err := q.BranchProtection(ctx, f.repoID, "dev"); err != nil || bp != nil || len(f.requiredContexts(t, "dev")) != 0 {
		t.Fatalf("old name: %+v %v", bp, err)
	}
	// Onto a protected name: nothing moves.
	err = f.e.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		moved, err = tx.RenameBranchProtection(ctx, f.repoID, "develop", "main")
		return err
	})
	if err != nil || moved || !slices.Equal(f.requiredContexts(t, "main"), []string{"ci"}) {
		t.Fatalf("rename onto main: %v %v", moved, err)
	}
}

// The Changed hook runs inside every change's transaction, with the
// branch; a failing hook undoes the change.
func TestChangedHook(t *testing.T) {
	f := newFixture(t)
	var seen []string
	f.svc.Changed = func(_ context.Context, _ store.Q, repoID int64, branch string) error {
		if repoID != f.repoID {
			t.Errorf("repo %d", repoID)
		}
		seen = append(seen, branch)
		return nil
	}
	repo := f.repo(t)
	if _, err := f.svc.Update(ctx, repo, authz.Admin, 0, "main", protection.UpdateInput{EnforceAdmins: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SetEnforceAdmins(ctx, repo, authz.Admin, 0, "main", false); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Delete(ctx, repo, authz.Admin, 0, "main"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []string{"main", "main", "main"}) {
		t.Fatalf("hook calls: %v", seen)
	}
	f.svc.Changed = func(context.Context, store.Q, int64, string) error { return errors.New("no") }
	if _, err := f.svc.Update(ctx, repo, authz.Admin, 0, "main", protection.UpdateInput{}); err == nil {
		t.Fatal("hook error ignored")
	}
	if bp, err := f.e.Store.R().BranchProtection(ctx, f.repoID, "main"); bp != nil || err != nil {
		t.Fatalf("stored despite the hook: %+v %v", bp, err)
	}
	// The service refuses non-admins itself too.
	if _, err := f.svc.Update(ctx, repo, authz.Maintain, 0, "main", protection.UpdateInput{}); err == nil || !strings.Contains(err.Error(), "admin rights") {
		t.Fatalf("maintainer: %v", err)
	}
}
