package pullstacks_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pullstacks"
)

var ctx = context.Background()

// setup is mona/app with a chain of pull requests a→main, b→a, c→b, d→c
// and a stack of the first two; it returns the repository.
func setup(t *testing.T) (*apitest.Env, string, *model.Repo) {
	t.Helper()
	e := apitest.New(t)
	u, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	base := "main"
	for _, head := range []string{"a", "b", "c", "d"} {
		b, _, err := gh.Repositories.GetBranch(ctx, "mona", "app", base, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := gh.Git.CreateRef(ctx, "mona", "app", github.CreateRef{Ref: "refs/heads/" + head, SHA: b.GetCommit().GetSHA()}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := gh.Repositories.CreateFile(ctx, "mona", "app", head, &github.RepositoryContentFileOptions{
			Message: github.Ptr(head), Content: []byte(head), Branch: github.Ptr(head)}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := gh.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr(head), Head: head, Base: base}); err != nil {
			t.Fatal(err)
		}
		base = head
	}
	e.Must(201, "POST", "/repos/mona/app/stacks", tok, map[string]any{"pull_requests": []int{1, 2}})
	v, err := e.Store.R().RepoByName(ctx, "mona", "app", u.ID)
	if err != nil {
		t.Fatal(err)
	}
	return e, tok, v.Repo
}

func isBusy(err error) bool {
	var he *model.HTTPError
	return errors.As(err, &he) && he.Status == 409 && he.Message == "Stack is currently being modified"
}

// A change that lands between a request's read and its write makes the
// request answer 409 instead of applying on a stale stack.
func TestConcurrentChangeConflicts(t *testing.T) {
	e, tok, repo := setup(t)
	svc := pullstacks.New(e.Store)

	pullstacks.SetBeforeWrite(svc, func() {
		e.Must(200, "POST", "/repos/mona/app/stacks/1/add", tok, map[string]any{"pull_requests": []int{3}})
	})
	// Both would put #3 or #4 on top of #2: the first to write wins.
	if _, err := svc.Add(ctx, repo, authz.Write, repo.Owner.ID, 1, []int64{3}); !isBusy(err) {
		t.Fatalf("add racing an add: %v", err)
	}
	pullstacks.SetBeforeWrite(svc, func() { e.Must(204, "POST", "/repos/mona/app/stacks/1/unstack", tok, nil) })
	if _, err := svc.Add(ctx, repo, authz.Write, repo.Owner.ID, 1, []int64{4}); !isBusy(err) {
		t.Fatalf("add racing a dissolve: %v", err)
	}
	e.Must(201, "POST", "/repos/mona/app/stacks", tok, map[string]any{"pull_requests": []int{1, 2}})
	pullstacks.SetBeforeWrite(svc, func() {
		e.Must(200, "POST", "/repos/mona/app/stacks/2/add", tok, map[string]any{"pull_requests": []int{3}})
	})
	if _, err := svc.Unstack(ctx, repo, authz.Write, repo.Owner.ID, 2); !isBusy(err) {
		t.Fatalf("unstack racing an add: %v", err)
	}
	// The winners' changes are what the stack holds; without a race the
	// service applies.
	pullstacks.SetBeforeWrite(svc, nil)
	st, err := svc.Add(ctx, repo, authz.Write, repo.Owner.ID, 2, []int64{4})
	if err != nil || len(st.Members) != 4 || st.Members[3].Number != 4 || st.Members[3].Position != 4 {
		t.Fatalf("add without a race: %+v %v", st, err)
	}
	if st, err := svc.Unstack(ctx, repo, authz.Write, repo.Owner.ID, 2); err != nil || st != nil {
		t.Fatalf("unstack without a race: %+v %v", st, err)
	}
}

// The service refuses writes below write access whatever the transport.
func TestServiceNeedsWrite(t *testing.T) {
	e, _, repo := setup(t)
	svc := pullstacks.New(e.Store)
	for name, err := range map[string]error{
		"create":  func() error { _, err := svc.Create(ctx, repo, authz.Read, 0, []int64{3, 4}); return err }(),
		"add":     func() error { _, err := svc.Add(ctx, repo, authz.Triage, 0, 1, []int64{3}); return err }(),
		"unstack": func() error { _, err := svc.Unstack(ctx, repo, authz.Read, 0, 1); return err }(),
	} {
		var he *model.HTTPError
		if !errors.As(err, &he) || he.Status != 403 {
			t.Errorf("%s with read access: %v", name, err)
		}
	}
}
