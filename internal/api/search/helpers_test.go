package search_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// world is what the search tests search: mona's public mona/app (topics
// go and cli, labels, a milestone, issues, a draft pull request asking
// hubot for a review) and private mona/secret, which hubot may not see.
type world struct {
	e                 *apitest.Env
	mona, hubot       *model.Account
	monaTok, hubotTok string
	gh, hubotGH, anon *github.Client
	app, secret       *github.Repository
}

func newWorld(t *testing.T) *world {
	t.Helper()
	l := ratelimit.DefaultLimits()
	l.Anonymous, l.Authenticated, l.Search, l.SearchAnon = 1_000_000, 1_000_000, 1_000_000, 1_000_000
	e := apitest.New(t, apitest.Options{Limits: &l})
	w := &world{e: e}
	w.mona, w.monaTok = e.NewUser("mona", false)
	w.hubot, w.hubotTok = e.NewUser("hubot", false)
	w.gh, w.hubotGH, w.anon = e.GitHub(w.monaTok), e.GitHub(w.hubotTok), e.GitHub("")
	must := func(_ any, _ *github.Response, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	var err error
	w.app, _, err = w.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true),
		Description: github.Ptr("A tool for widgets")})
	if err != nil {
		t.Fatal(err)
	}
	w.secret, _, err = w.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true),
		Description: github.Ptr("Hidden crash reports")})
	if err != nil {
		t.Fatal(err)
	}
	must(w.gh.Repositories.ReplaceAllTopics(ctx, "mona", "app", []string{"go", "cli"}))
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, w.app.GetID(), w.hubot.ID, authz.Write) }); err != nil {
		t.Fatal(err)
	}
	ms, _, err := w.gh.Issues.CreateMilestone(ctx, "mona", "app", github.CreateMilestoneRequest{Title: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	issue := func(gh *github.Client, repo string, req github.CreateIssueRequest) *github.Issue {
		t.Helper()
		is, _, err := gh.Issues.Create(ctx, "mona", repo, req)
		if err != nil {
			t.Fatalf("issue %q: %v", req.Title, err)
		}
		return is
	}
	// #1 crash, #2 dark mode, #3 old bug (closed, not planned), #4 locked
	issue(w.gh, "app", github.CreateIssueRequest{Title: "Crash on startup", Body: github.Ptr("The app crashes when widgets load. cc @hubot"),
		Labels: []string{"bug"}, Assignees: []string{"hubot"}})
	dark := issue(w.gh, "app", github.CreateIssueRequest{Title: "Add dark mode", Body: github.Ptr("A feature request"),
		Labels: []string{"enhancement"}, Milestone: ms.Number})
	must(w.hubotGH.Issues.CreateComment(ctx, "mona", "app", dark.GetNumber(), github.IssueCommentRequest{Body: "shipit"}))
	old := issue(w.hubotGH, "app", github.CreateIssueRequest{Title: "Old bug", Body: github.Ptr("Nobody will fix this"), Labels: []string{"bug"}})
	must(w.gh.Issues.Update(ctx, "mona", "app", old.GetNumber(), github.UpdateIssueRequest{State: github.Ptr("closed"), StateReason: github.Ptr("not_planned")}))
	locked := issue(w.gh, "app", github.CreateIssueRequest{Title: "Heated thread", Body: github.Ptr("Calm down")})
	if _, err := w.gh.Issues.Lock(ctx, "mona", "app", locked.GetNumber(), nil); err != nil {
		t.Fatal(err)
	}
	issue(w.gh, "secret", github.CreateIssueRequest{Title: "Secret crash", Body: github.Ptr("Only mona sees this")})

	// #5: a draft pull request from feature, hubot asked to review.
	b, _, err := w.gh.Repositories.GetBranch(ctx, "mona", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	must(w.gh.Git.CreateRef(ctx, "mona", "app", github.CreateRef{Ref: "refs/heads/feature", SHA: b.GetCommit().GetSHA()}))
	must(w.gh.Repositories.CreateFile(ctx, "mona", "app", "speed.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("speed"), Content: []byte("fast\n"), Branch: github.Ptr("feature")}))
	pr, _, err := w.gh.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("Widget speedup"),
		Head: "feature", Base: "main", Body: github.Ptr("Makes widgets fast"), Draft: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	must(w.gh.PullRequests.RequestReviewers(ctx, "mona", "app", pr.GetNumber(), github.ReviewersRequest{Reviewers: []string{"hubot"}}))
	return w
}

// issues searches as gh and returns the titles found, in order, failing
// on an error.
func issues(t *testing.T, gh *github.Client, q string, opts *github.SearchOptions) []string {
	t.Helper()
	res, _, err := gh.Search.Issues(ctx, q, opts)
	if err != nil {
		t.Fatalf("search issues %q: %v", q, err)
	}
	var out []string
	for _, is := range res.Issues {
		out = append(out, is.GetTitle())
	}
	if res.GetTotal() < len(out) || res.GetIncompleteResults() {
		t.Fatalf("search issues %q: total %d for %d items, incomplete %v", q, res.GetTotal(), len(out), res.GetIncompleteResults())
	}
	return out
}

func sorted(list []string) []string {
	out := slices.Clone(list)
	slices.Sort(out)
	return out
}

// want compares found titles with the expected ones, in any order.
func want(t *testing.T, q string, got []string, titles ...string) {
	t.Helper()
	if strings.Join(sorted(got), "|") != strings.Join(sorted(titles), "|") {
		t.Errorf("%q found %q, want %q", q, got, titles)
	}
}

// refused checks a search's 422: status, and the message of its first
// error (or its message when it has no errors).
func refused(t *testing.T, e *apitest.Env, path, token, message string) {
	t.Helper()
	r := e.Do("GET", path, token, nil)
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("GET %s: %d, want 422: %s", path, r.StatusCode, r.Body)
	}
	var body struct {
		Message string `json:"message"`
		Errors  []struct {
			Resource, Field, Code, Message string
		} `json:"errors"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	got := body.Message
	if len(body.Errors) > 0 {
		got = body.Errors[0].Message
		if body.Message != "Validation Failed" || body.Errors[0].Resource != "Search" {
			t.Errorf("GET %s: %s", path, r.Body)
		}
	}
	if got != message {
		t.Errorf("GET %s: message %q, want %q", path, got, message)
	}
}
