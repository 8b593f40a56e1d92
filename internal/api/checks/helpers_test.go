package checks_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// fixture is mona/app (public, auto-initialised) with a branch "feature"
// one commit ahead of main, and mona/secret (private).
type fixture struct {
	e             *apitest.Env
	gh            *github.Client
	token         string
	repoID        int64
	main, feature string // commit ids
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	f := &fixture{e: e, gh: e.GitHub(tok), token: tok}
	repo, _, err := f.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	f.repoID = repo.GetID()
	b, _, err := f.gh.Repositories.GetBranch(ctx, "mona", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	f.main = b.GetCommit().GetSHA()
	if _, _, err := f.gh.Git.CreateRef(ctx, "mona", "app", github.CreateRef{Ref: "refs/heads/feature", SHA: f.main}); err != nil {
		t.Fatal(err)
	}
	fc, _, err := f.gh.Repositories.CreateFile(ctx, "mona", "app", "f.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("feature work"), Content: []byte("f\n"), Branch: github.Ptr("feature")})
	if err != nil {
		t.Fatal(err)
	}
	f.feature = fc.GetSHA()
	if _, _, err := f.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	return f
}

// user makes another user, a collaborator with perm on mona/app when perm
// is above none.
func (f *fixture) user(t *testing.T, login string, perm authz.Permission) string {
	t.Helper()
	u, tok := f.e.NewUser(login, false)
	if perm > authz.None {
		if err := f.e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, f.repoID, u.ID, perm) }); err != nil {
			t.Fatal(err)
		}
	}
	return tok
}

// run creates a check run on mona/app.
func (f *fixture) run(t *testing.T, opts github.CreateCheckRunOptions) *github.CheckRun {
	t.Helper()
	r, resp, err := f.gh.Checks.CreateCheckRun(ctx, "mona", "app", opts)
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("create check run %s: %v", opts.Name, err)
	}
	return r
}

// events are the payload actions of the domain events of one type of
// mona/app, oldest first.
func (f *fixture) events(t *testing.T, typ string) []string {
	t.Helper()
	list, err := f.e.Store.R().EventsAfter(ctx, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list {
		if e.Type == typ && e.RepoID == f.repoID {
			out = append(out, eventAction(t, e.Payload))
		}
	}
	return out
}

func eventAction(t *testing.T, payload []byte) string {
	t.Helper()
	var p struct {
		Action string `json:"action"`
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		t.Fatal(err)
	}
	return p.Action
}

func mustAccount(t *testing.T, f *fixture, login string) *model.Account {
	t.Helper()
	a, err := f.e.Store.R().AccountByLogin(ctx, login)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
