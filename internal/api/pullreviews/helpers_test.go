package pullreviews_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// world: mona owns the public mona/app whose main holds a.txt (l1..l10);
// hubot (write) opened pull request #1 from feature, which changes line 5
// and adds line 11. rita reads mona/app, eve is an outsider (public repos
// are open to her reviews).
type world struct {
	e                    *apitest.Env
	repoID               int64
	mg, hg, rg, eg, anon *github.Client
	monaT, hubotT        string
	ritaT, eveT          string
	mona, hubot          *model.Account
	rita, eve            *model.Account
	head                 string // the pull request's head commit
}

const mainText = "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n"
const featureText = "l1\nl2\nl3\nl4\nL5 changed\nl6\nl7\nl8\nl9\nl10\nl11 new\n"

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{e: apitest.New(t)}
	e := w.e
	w.mona, w.monaT = e.NewUser("mona", false)
	w.hubot, w.hubotT = e.NewUser("hubot", false)
	w.rita, w.ritaT = e.NewUser("rita", false)
	w.eve, w.eveT = e.NewUser("eve", false)
	w.mg, w.hg, w.rg, w.eg, w.anon = e.GitHub(w.monaT), e.GitHub(w.hubotT), e.GitHub(w.ritaT), e.GitHub(w.eveT), e.GitHub("")
	repo, _, err := w.mg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	w.repoID = repo.GetID()
	w.collab(t, w.hubot, authz.Write)
	w.collab(t, w.rita, authz.Read)
	w.write(t, w.mg, "main", "a.txt", mainText)
	b, _, err := w.mg.Repositories.GetBranch(ctx, "mona", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.mg.Git.CreateRef(ctx, "mona", "app", github.CreateRef{Ref: "refs/heads/feature", SHA: b.GetCommit().GetSHA()}); err != nil {
		t.Fatal(err)
	}
	w.head = w.write(t, w.hg, "feature", "a.txt", featureText)
	pr, resp, err := w.hg.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("Change a"), Head: "feature", Base: "main"})
	if err != nil || resp.StatusCode != http.StatusCreated || pr.GetNumber() != 1 {
		t.Fatalf("open pull: %v", err)
	}
	e.RunJobs()
	return w
}

func (w *world) collab(t *testing.T, u *model.Account, p authz.Permission) {
	t.Helper()
	if err := w.e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, w.repoID, u.ID, p) }); err != nil {
		t.Fatal(err)
	}
}

// write commits path on branch with client c and returns the commit id.
func (w *world) write(t *testing.T, c *github.Client, branch, path, content string) string {
	t.Helper()
	opts := &github.RepositoryContentFileOptions{Message: github.Ptr("write " + path), Content: []byte(content), Branch: github.Ptr(branch)}
	if fc, _, _, err := c.Repositories.GetContents(ctx, "mona", "app", path, &github.RepositoryContentGetOptions{Ref: branch}); err == nil && fc != nil {
		opts.SHA = fc.SHA
	}
	res, _, err := c.Repositories.CreateFile(ctx, "mona", "app", path, opts)
	if err != nil {
		t.Fatalf("write %s on %s: %v", path, branch, err)
	}
	return res.GetSHA()
}

// comment makes a line comment on the RIGHT side with client c.
func (w *world) comment(t *testing.T, c *github.Client, line int, body string) *github.PullRequestComment {
	t.Helper()
	pc, _, err := c.PullRequests.CreateComment(ctx, "mona", "app", 1, github.CreatePullRequestCommentRequest{
		Body: body, CommitID: w.head, Path: "a.txt", Line: github.Ptr(line), Side: github.Ptr("RIGHT")})
	if err != nil {
		t.Fatalf("comment on line %d: %v", line, err)
	}
	return pc
}

// events counts the domain events of a type prefix.
func (w *world) events(t *testing.T, prefix string) int {
	t.Helper()
	evs, err := w.e.Store.R().EventsAfter(ctx, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range evs {
		if strings.HasPrefix(ev.Type, prefix) {
			n++
		}
	}
	return n
}

func message(err error) string {
	var er *github.ErrorResponse
	if errors.As(err, &er) {
		// Review operations answer "Unprocessable Entity" with the
		// reason as a string in errors[].
		// and the review comment endpoint names the field in a Validation
		// Failed entry.
		if (er.Message == "Unprocessable Entity" || er.Message == "Validation Failed") && len(er.Errors) == 1 && er.Errors[0].Message != "" {
			return er.Errors[0].Message
		}
		return er.Message
	}
	return ""
}
