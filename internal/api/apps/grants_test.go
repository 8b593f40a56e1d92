package apps_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/actions"
	appsvc "github.com/hubd/hubd/internal/apps"
)

// The reported cases (issue 25): an installation token of an app installed
// only on acme's repositories, and a workflow job's GITHUB_TOKEN of
// acme/widgets, open an issue, comment and react through go-github. On
// another user's public repository (bob/pub) they read but every write
// answers GitHub's 403 "Resource not accessible by integration" and leaves
// nothing behind; on the repository they are installed on or scoped to,
// the same calls answer 201.
func TestTokensWriteOnlyInsideTheirGrant(t *testing.T) {
	w := newWorld(t)
	bob := w.e.GitHub(w.bobTok)
	bobIssue, _, err := bob.Issues.Create(ctx, "bob", "pub", github.CreateIssueRequest{Title: "bob's own"})
	if err != nil {
		t.Fatal(err)
	}
	widgets, err := w.e.Store.R().RepoByName(ctx, "acme", "widgets", 0)
	if err != nil {
		t.Fatal(err)
	}
	jobs := &actions.Tokens{Apps: &appsvc.Service{Store: w.e.Store}}
	jobTok, _, err := jobs.Mint(ctx, widgets.Repo, map[string]string{"issues": "write", "contents": "read", "metadata": "read"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, token string }{
		{"installation token", w.token(nil).GetToken()},
		{"job token", jobTok},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gh := w.e.GitHub(tc.token)
			// Reading another account's public repository is allowed.
			if _, _, err := gh.Issues.Get(ctx, "bob", "pub", bobIssue.GetNumber()); err != nil {
				t.Fatalf("read bob/pub's issue: %v", err)
			}
			refused := func(what string, err error) {
				t.Helper()
				var er *github.ErrorResponse
				if !errors.As(err, &er) || er.Response.StatusCode != http.StatusForbidden || er.Message != "Resource not accessible by integration" {
					t.Fatalf("%s on bob/pub: %v, want 403 Resource not accessible by integration", what, err)
				}
			}
			_, _, err := gh.Issues.Create(ctx, "bob", "pub", github.CreateIssueRequest{Title: "planted"})
			refused("open an issue", err)
			_, _, err = gh.Issues.CreateComment(ctx, "bob", "pub", bobIssue.GetNumber(), github.IssueCommentRequest{Body: "planted"})
			refused("comment", err)
			_, _, err = gh.Reactions.CreateIssueReaction(ctx, "bob", "pub", bobIssue.GetNumber(), "heart")
			refused("react", err)

			// Inside the grant the same calls succeed.
			is, resp, err := gh.Issues.Create(ctx, "acme", "widgets", github.CreateIssueRequest{Title: "inside"})
			if err != nil || resp.StatusCode != http.StatusCreated {
				t.Fatalf("open an issue on acme/widgets: %v", err)
			}
			if _, resp, err := gh.Issues.CreateComment(ctx, "acme", "widgets", is.GetNumber(), github.IssueCommentRequest{Body: "inside"}); err != nil || resp.StatusCode != http.StatusCreated {
				t.Fatalf("comment on acme/widgets: %v", err)
			}
			if _, resp, err := gh.Reactions.CreateIssueReaction(ctx, "acme", "widgets", is.GetNumber(), "heart"); err != nil || resp.StatusCode != http.StatusCreated {
				t.Fatalf("react on acme/widgets: %v", err)
			}
		})
	}
	// Nothing was written to bob/pub.
	list, _, err := bob.Issues.ListByRepo(ctx, "bob", "pub", nil)
	if err != nil || len(list) != 1 {
		t.Fatalf("bob/pub's issues after: %d %v", len(list), err)
	}
	got, _, err := bob.Issues.Get(ctx, "bob", "pub", bobIssue.GetNumber())
	if err != nil || got.GetComments() != 0 || got.GetReactions().GetTotalCount() != 0 {
		t.Fatalf("bob/pub's issue after: %d comments, %d reactions, %v", got.GetComments(), got.GetReactions().GetTotalCount(), err)
	}
}
