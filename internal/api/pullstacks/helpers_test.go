package pullstacks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// fixture is mona/app (public, auto-initialised with a README on main) and
// mona/secret (private).
type fixture struct {
	e      *apitest.Env
	gh     *github.Client
	token  string
	repoID int64
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
	if _, _, err := f.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	return f
}

// sha is the head commit of branch.
func (f *fixture) sha(t *testing.T, branch string) string {
	t.Helper()
	b, _, err := f.gh.Repositories.GetBranch(ctx, "mona", "app", branch, 0)
	if err != nil {
		t.Fatalf("branch %s: %v", branch, err)
	}
	return b.GetCommit().GetSHA()
}

// pull makes branch head from base with one commit of its own and opens a
// pull request head → base; it returns the pull request's number.
func (f *fixture) pull(t *testing.T, head, base string) int {
	t.Helper()
	if _, _, err := f.gh.Git.CreateRef(ctx, "mona", "app", github.CreateRef{Ref: "refs/heads/" + head, SHA: f.sha(t, base)}); err != nil {
		t.Fatalf("branch %s: %v", head, err)
	}
	if _, _, err := f.gh.Repositories.CreateFile(ctx, "mona", "app", head+".txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("work on " + head), Content: []byte(head + "\n"), Branch: github.Ptr(head)}); err != nil {
		t.Fatalf("commit on %s: %v", head, err)
	}
	pr, resp, err := f.gh.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("PR " + head), Head: head, Base: base})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("open %s → %s: %v", head, base, err)
	}
	return pr.GetNumber()
}

// chain opens pull requests for the branches, each on the previous one
// (the first on main), and returns their numbers bottom first.
func (f *fixture) chain(t *testing.T, branches ...string) []int {
	t.Helper()
	base := "main"
	out := make([]int, len(branches))
	for i, b := range branches {
		out[i] = f.pull(t, b, base)
		base = b
	}
	return out
}

// user makes another user, a collaborator with perm on mona/app when perm
// is above none, and returns its token.
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

// stack is a decoded stack response (both shapes).
type stack struct {
	ID        int64  `json:"id"`
	Number    int64  `json:"number"`
	NodeID    string `json:"node_id"`
	URL       string `json:"url"`
	Open      bool   `json:"open"`
	CreatedAt string `json:"created_at"`
	Base      struct {
		Ref string `json:"ref"`
	} `json:"base"`
	PullRequests []struct {
		ID       int64   `json:"id"`
		Number   int     `json:"number"`
		Title    string  `json:"title"`
		State    string  `json:"state"`
		Draft    bool    `json:"draft"`
		MergedAt *string `json:"merged_at"`
		URL      string  `json:"url"`
		HTMLURL  string  `json:"html_url"`
		User     *struct {
			Login string `json:"login"`
		} `json:"user"`
		Head struct {
			Ref, SHA string
			Repo     *struct{ Name string } `json:"repo"`
		} `json:"head"`
		Base struct {
			Ref, SHA string
		} `json:"base"`
	} `json:"pull_requests"`
}

// numbers are the stack's pull request numbers, bottom first.
func (s stack) numbers() []int {
	out := make([]int, len(s.PullRequests))
	for i, p := range s.PullRequests {
		out[i] = p.Number
	}
	return out
}

func (f *fixture) create(t *testing.T, numbers ...int) stack {
	t.Helper()
	var s stack
	f.e.Must(201, "POST", "/repos/mona/app/stacks", f.token, map[string]any{"pull_requests": numbers}).JSON(t, &s)
	return s
}

func (f *fixture) get(t *testing.T, n int64) stack {
	t.Helper()
	var s stack
	f.e.Must(200, "GET", "/repos/mona/app/stacks/"+strconv.FormatInt(n, 10), f.token, nil).JSON(t, &s)
	return s
}

// events counts the pull_request_stack domain events of mona/app by action.
func (f *fixture) events(t *testing.T) map[string]int {
	t.Helper()
	list, err := f.e.Store.R().EventsAfter(ctx, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, e := range list {
		if e.Type == "pull_request_stack" && e.RepoID == f.repoID {
			var p struct{ Action string }
			if err := json.Unmarshal(e.Payload, &p); err != nil {
				t.Fatal(err)
			}
			out[p.Action]++
		}
	}
	return out
}
