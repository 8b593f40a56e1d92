package issues_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// world is a test's cast: mona owns the public repository mona/hello and
// the private mona/secret; hubot has write access to both, rita reads
// hello, tina triages it, and eve is an outsider.
type world struct {
	e                            *apitest.Env
	mona, hubot, rita, tina, eve *model.Account
	monaT, hubotT, ritaT, tinaT  string
	eveT                         string
	mg, hg, rg, tg, eg           *github.Client
	hello, secret                *github.Repository
	helloID                      int64
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{e: apitest.New(t)}
	e := w.e
	w.mona, w.monaT = e.NewUser("mona", false)
	w.hubot, w.hubotT = e.NewUser("hubot", false)
	w.rita, w.ritaT = e.NewUser("rita", false)
	w.tina, w.tinaT = e.NewUser("tina", false)
	w.eve, w.eveT = e.NewUser("eve", false)
	w.mg, w.hg, w.rg, w.tg, w.eg = e.GitHub(w.monaT), e.GitHub(w.hubotT), e.GitHub(w.ritaT), e.GitHub(w.tinaT), e.GitHub(w.eveT)
	var err error
	if w.hello, _, err = w.mg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("hello")}); err != nil {
		t.Fatal(err)
	}
	if w.secret, _, err = w.mg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	w.helloID = w.hello.GetID()
	w.collab(t, "hello", w.hubot, authz.Write)
	w.collab(t, "secret", w.hubot, authz.Write)
	w.collab(t, "hello", w.rita, authz.Read)
	w.collab(t, "hello", w.tina, authz.Triage)
	return w
}

func (w *world) collab(t *testing.T, repo string, u *model.Account, p authz.Permission) {
	t.Helper()
	v, err := w.e.Store.R().RepoByName(ctx, "mona", repo, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, v.Repo.ID, u.ID, p) }); err != nil {
		t.Fatal(err)
	}
}

// issue creates an issue in mona/hello as mona.
func (w *world) issue(t *testing.T, title string, req ...github.CreateIssueRequest) *github.Issue {
	t.Helper()
	r := github.CreateIssueRequest{Title: title}
	if len(req) > 0 {
		r = req[0]
		r.Title = title
	}
	is, resp, err := w.mg.Issues.Create(ctx, "mona", "hello", r)
	if err != nil {
		t.Fatalf("create %q: %v", title, err)
	}
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: status %d", resp.StatusCode)
	}
	return is
}

func numbers(list []*github.Issue) []int {
	out := []int{}
	for _, is := range list {
		out = append(out, is.GetNumber())
	}
	return out
}

func labelNames(list []*github.Label) []string {
	out := []string{}
	for _, l := range list {
		out = append(out, l.GetName())
	}
	return out
}
