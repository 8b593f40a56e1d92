package interactions_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	svc "github.com/hubd/hubd/internal/interactions"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// t0 is the fixture's "now"; the clock is fixed there and moved by tests.
var t0 = time.Date(2030, 3, 1, 12, 0, 0, 0, time.UTC)

// fixture: mona owns the public mona/app and the private mona/secret, and
// the organization acme with the public acme/site; all auto-initialised.
// Its users were all created two days before t0 unless a test makes new
// ones.
type fixture struct {
	e     *apitest.Env
	svc   *svc.Service
	mona  *model.Account
	tok   string
	gh    *github.Client
	org   *model.Account
	app   int64 // mona/app's id
	site  int64 // acme/site's id
	clock time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	e := apitest.New(t)
	f := &fixture{e: e, svc: svc.New(e.Store)}
	f.at(t0.Add(-48 * time.Hour))
	f.mona, f.tok = e.NewUser("mona", false)
	f.gh = e.GitHub(f.tok)
	f.org = store.NewOrg("acme")
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateOrg(ctx, f.org, f.mona.ID) }); err != nil {
		t.Fatal(err)
	}
	f.app = f.repo(t, "", "app", false)
	f.repo(t, "", "secret", true)
	f.site = f.repo(t, "acme", "site", false)
	f.at(t0)
	return f
}

// at sets the store's clock.
func (f *fixture) at(now time.Time) {
	f.clock = now
	f.e.Store.SetClock(func() time.Time { return f.clock })
}

func (f *fixture) repo(t *testing.T, org, name string, private bool) int64 {
	t.Helper()
	r, _, err := f.gh.Repositories.Create(ctx, org, &github.Repository{Name: github.Ptr(name), AutoInit: github.Ptr(true), Private: github.Ptr(private)})
	if err != nil {
		t.Fatal(err)
	}
	return r.GetID()
}

// user makes a user created at the clock's time, with a token.
func (f *fixture) user(t *testing.T, login string) (*model.Account, string) {
	t.Helper()
	return f.e.NewUser(login, false)
}

// oldUser makes a user created two days before the clock.
func (f *fixture) oldUser(t *testing.T, login string) (*model.Account, string) {
	t.Helper()
	now := f.clock
	f.at(now.Add(-48 * time.Hour))
	defer f.at(now)
	return f.e.NewUser(login, false)
}

func (f *fixture) collab(t *testing.T, repoID, userID int64, perm authz.Permission) {
	t.Helper()
	if err := f.e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, repoID, userID, perm) }); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) uncollab(t *testing.T, repoID, userID int64) {
	t.Helper()
	if err := f.e.Store.Tx(ctx, func(tx store.Q) error { _, err := tx.RemoveCollaborator(ctx, repoID, userID); return err }); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) member(t *testing.T, u *model.Account, role model.OrgRole) {
	t.Helper()
	m := &model.Membership{OrgID: f.org.ID, UserID: u.ID, Role: role, State: store.StateActive}
	if err := f.e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetMembership(ctx, m) }); err != nil {
		t.Fatal(err)
	}
}

// openPull has u (token tok) open a pull request from a new branch of
// owner/name: u is made a write collaborator for it and then loses the
// grant, so they end up an outsider with an open pull request.
func (f *fixture) openPull(t *testing.T, u *model.Account, tok, owner, name string, repoID int64, branch string, draft bool) int {
	t.Helper()
	f.collab(t, repoID, u.ID, authz.Write)
	defer f.uncollab(t, repoID, u.ID)
	gh := f.e.GitHub(tok)
	b, _, err := gh.Repositories.GetBranch(ctx, owner, name, "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Git.CreateRef(ctx, owner, name, github.CreateRef{Ref: "refs/heads/" + branch, SHA: b.GetCommit().GetSHA()}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateFile(ctx, owner, name, branch+".txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr(branch), Content: []byte(branch + "\n"), Branch: github.Ptr(branch)}); err != nil {
		t.Fatal(err)
	}
	pr, _, err := gh.PullRequests.Create(ctx, owner, name, github.CreatePullRequest{Title: github.Ptr(branch), Head: branch,
		Base: "main", Draft: github.Ptr(draft)})
	if err != nil {
		t.Fatal(err)
	}
	return pr.GetNumber()
}

// repoOf loads a repository as the service sees it.
func (f *fixture) repoOf(t *testing.T, id int64) *model.Repo {
	t.Helper()
	v, err := f.e.Store.R().RepoByID(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	return v.Repo
}

// may is MayInteract's answer as a status: 0 when allowed, else the
// error's HTTP status.
func (f *fixture) may(t *testing.T, repoID, userID int64, kind string) int {
	t.Helper()
	err := f.svc.MayInteract(ctx, f.repoOf(t, repoID), userID, kind)
	if err == nil {
		return 0
	}
	if he, ok := err.(*model.HTTPError); ok {
		return he.Status
	}
	t.Fatalf("MayInteract: %v", err)
	return -1
}

// events counts domain events of a type.
func (f *fixture) events(t *testing.T, typ string) int {
	t.Helper()
	list, err := f.e.Store.R().EventsAfter(ctx, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range list {
		if ev.Type == typ {
			n++
		}
	}
	return n
}
