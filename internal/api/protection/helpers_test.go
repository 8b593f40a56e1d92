package protection_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/protection"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// fixture is mona/app (public, auto-initialised, branches main and
// feature) and mona/secret (private).
type fixture struct {
	e      *apitest.Env
	gh     *github.Client
	token  string
	repoID int64
	svc    *protection.Service
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	f := &fixture{e: e, gh: e.GitHub(tok), token: tok, svc: protection.New(e.Store, e.Deps.Git)}
	repo, _, err := f.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	f.repoID = repo.GetID()
	if _, _, err := f.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	f.branch(t, "feature")
	return f
}

// user makes another user, a collaborator of mona/app with perm when perm
// is above none.
func (f *fixture) user(t *testing.T, login string, perm authz.Permission) (int64, string) {
	t.Helper()
	u, tok := f.e.NewUser(login, false)
	if perm > authz.None {
		if err := f.e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, f.repoID, u.ID, perm) }); err != nil {
			t.Fatal(err)
		}
	}
	return u.ID, tok
}

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

// write commits a new file on branch and returns the commit id.
func (f *fixture) write(t *testing.T, branch, path string) string {
	t.Helper()
	res, _, err := f.gh.Repositories.CreateFile(ctx, "mona", "app", path, &github.RepositoryContentFileOptions{
		Message: github.Ptr("write " + path), Content: []byte(path + "\n"), Branch: github.Ptr(branch)})
	if err != nil {
		t.Fatalf("write %s on %s: %v", path, branch, err)
	}
	return res.GetSHA()
}

func (f *fixture) repo(t *testing.T) *model.Repo {
	t.Helper()
	v, err := f.e.Store.R().RepoByID(ctx, f.repoID, 0)
	if err != nil {
		t.Fatal(err)
	}
	return v.Repo
}

// pull reads a pull request as stored, after the queued jobs ran.
func (f *fixture) pull(t *testing.T, n int64) *model.Pull {
	t.Helper()
	f.e.RunJobs()
	p, err := f.e.Store.R().PullByNumber(ctx, f.repoID, n)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (f *fixture) requiredContexts(t *testing.T, branch string) []string {
	t.Helper()
	list, err := f.e.Store.R().RequiredContexts(ctx, f.repoID, branch)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// protectionPath is the API path of a branch's protection (escaped).
func protectionPath(repo, branch string) string {
	return "/repos/mona/" + repo + "/branches/" + url.PathEscape(branch) + "/protection"
}

// status is the HTTP status and message of a go-github error.
func status(err error) (int, string) {
	if errors.Is(err, github.ErrBranchNotProtected) {
		return http.StatusNotFound, "Branch not protected" // go-github's sentinel for that 404
	}
	var ge *github.ErrorResponse
	if errors.As(err, &ge) {
		return ge.Response.StatusCode, ge.Message
	}
	if err == nil {
		return http.StatusOK, ""
	}
	return 0, err.Error()
}
