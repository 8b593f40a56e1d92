package pulls_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// fixture is mona/app (public, auto-initialised with a README on main).
type fixture struct {
	e      *apitest.Env
	gh     *github.Client
	token  string
	repoID int64
}

func newFixture(t *testing.T, opts ...apitest.Options) *fixture {
	t.Helper()
	e := apitest.New(t, opts...)
	_, tok := e.NewUser("mona", false)
	f := &fixture{e: e, gh: e.GitHub(tok), token: tok}
	repo, _, err := f.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	f.repoID = repo.GetID()
	return f
}

// branch creates branch from main's head.
func (f *fixture) branch(t *testing.T, name string) {
	t.Helper()
	b, _, err := f.gh.Repositories.GetBranch(ctx, "mona", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.gh.Git.CreateRef(ctx, "mona", "app", github.CreateRef{Ref: "refs/heads/" + name, SHA: b.GetCommit().GetSHA()}); err != nil {
		t.Fatal(err)
	}
}

// write commits path with content on branch (creating or replacing it) and
// returns the new commit id.
func (f *fixture) write(t *testing.T, branch, path, content string) string {
	t.Helper()
	opts := &github.RepositoryContentFileOptions{Message: github.Ptr("write " + path), Content: []byte(content), Branch: github.Ptr(branch)}
	if fc, _, _, err := f.gh.Repositories.GetContents(ctx, "mona", "app", path, &github.RepositoryContentGetOptions{Ref: branch}); err == nil && fc != nil {
		opts.SHA = fc.SHA
	}
	res, _, err := f.gh.Repositories.CreateFile(ctx, "mona", "app", path, opts)
	if err != nil {
		t.Fatalf("write %s on %s: %v", path, branch, err)
	}
	return res.GetSHA()
}

// open opens a pull request from head into main.
func (f *fixture) open(t *testing.T, head, title string) *github.PullRequest {
	t.Helper()
	pr, resp, err := f.gh.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr(title), Head: head, Base: "main"})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("open %s: %v", head, err)
	}
	return pr
}

// get reads a pull request after the queued jobs ran.
func (f *fixture) get(t *testing.T, n int) *github.PullRequest {
	t.Helper()
	f.e.RunJobs()
	pr, _, err := f.gh.PullRequests.Get(ctx, "mona", "app", n)
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

func (f *fixture) ref(t *testing.T, name string) string {
	t.Helper()
	sha, err := f.e.Deps.Git.Open(f.repoID).ResolveRef(ctx, name)
	if err != nil {
		t.Fatalf("ref %s: %v", name, err)
	}
	return sha
}

// user makes another user, a collaborator with perm on mona/app when perm
// is above none.
func (f *fixture) user(t *testing.T, login string, perm authz.Permission) (*github.Client, string) {
	t.Helper()
	u, tok := f.e.NewUser(login, false)
	if perm > authz.None {
		if err := f.e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, f.repoID, u.ID, perm) }); err != nil {
			t.Fatal(err)
		}
	}
	return f.e.GitHub(tok), tok
}

type storeQ = store.Q

func itoa(n int) string { return strconv.Itoa(n) }
