package commitcomments_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// world: mona owns the public mona/hello and the private mona/secret,
// both with a first commit; hubot writes to both, rita reads hello and
// eve is an outsider.
type world struct {
	e                      *apitest.Env
	monaT, hubotT, ritaT   string
	eveT                   string
	mg, hg, rg, eg         *github.Client
	helloSHA, secretSHA    string
	helloID, secretID      int64
	mona, hubot, rita, eve *model.Account
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{e: apitest.New(t)}
	e := w.e
	w.mona, w.monaT = e.NewUser("mona", false)
	w.hubot, w.hubotT = e.NewUser("hubot", false)
	w.rita, w.ritaT = e.NewUser("rita", false)
	w.eve, w.eveT = e.NewUser("eve", false)
	w.mg, w.hg, w.rg, w.eg = e.GitHub(w.monaT), e.GitHub(w.hubotT), e.GitHub(w.ritaT), e.GitHub(w.eveT)
	for _, name := range []string{"hello", "secret"} {
		repo, _, err := w.mg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr(name),
			Private: github.Ptr(name == "secret"), AutoInit: github.Ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		var c struct{ SHA string }
		e.Must(200, "GET", "/repos/mona/"+name+"/commits/"+repo.GetDefaultBranch(), w.monaT, nil).JSON(t, &c)
		if len(c.SHA) != 40 {
			t.Fatalf("head of %s: %q", name, c.SHA)
		}
		if name == "hello" {
			w.helloSHA, w.helloID = c.SHA, repo.GetID()
		} else {
			w.secretSHA, w.secretID = c.SHA, repo.GetID()
		}
	}
	w.collab(t, w.helloID, w.hubot, authz.Write)
	w.collab(t, w.secretID, w.hubot, authz.Write)
	w.collab(t, w.helloID, w.rita, authz.Read)
	return w
}

func (w *world) collab(t *testing.T, repoID int64, u *model.Account, p authz.Permission) {
	t.Helper()
	if err := w.e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, repoID, u.ID, p) }); err != nil {
		t.Fatal(err)
	}
}

// comment creates a comment on hello's first commit with client c.
func (w *world) comment(t *testing.T, c *github.Client, body string) *github.RepositoryComment {
	t.Helper()
	cc, _, err := c.Repositories.CreateComment(ctx, "mona", "hello", w.helloSHA, github.CreateCommitCommentRequest{Body: body})
	if err != nil {
		t.Fatalf("create %q: %v", body, err)
	}
	return cc
}

// state is what the database holds: the bodies of every commit comment
// and the number of commit_comment events.
func (w *world) state(t *testing.T) (bodies []string, events int) {
	t.Helper()
	for _, id := range []int64{w.helloID, w.secretID} {
		list, _, err := w.e.Store.R().ListCommitComments(ctx, store.CommitCommentQuery{RepoID: id, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range list {
			bodies = append(bodies, c.Body)
		}
	}
	evs, err := w.e.Store.R().EventsAfter(ctx, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if strings.HasPrefix(ev.Type, "commit_comment.") {
			events++
		}
	}
	return bodies, events
}
