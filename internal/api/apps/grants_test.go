package apps_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/actions"
	appsvc "github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
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

// A token reaches no repository outside its grant through another one
// inside it: Triage Bot (installed on acme/widgets and gadgets) may not
// make an issue of acme/lib a sub-issue of one of widgets'; an app
// installed on all of acme may, but alice's user access token of it, as a
// maintainer of acme/lib, may not push to the head branch of a pull
// request from bob's fork (update-branch) although bob lets maintainers
// modify it, which alice's classic token may.
func TestGrantHoldsAcrossRepositories(t *testing.T) {
	w := newWorld(t)
	alice, bob := w.e.GitHub(w.aliceTok), w.e.GitHub(w.bobTok)
	var app createdApp
	w.e.Must(201, "POST", "/admin/apps", w.e.AdminToken, map[string]any{"owner": "acme", "name": "Maintainer",
		"default_permissions": map[string]string{"issues": "write", "pull_requests": "write", "contents": "write"}}).JSON(t, &app)
	var in struct {
		ID int64 `json:"id"`
	}
	w.e.Must(201, "POST", "/admin/apps/maintainer/installations", w.e.AdminToken, map[string]any{"account": "acme"}).JSON(t, &in)
	now := w.now().Unix()
	jwt := signJWT(t, app.PEM, "RS256", map[string]any{"iat": now - 30, "exp": now + 300, "iss": app.ID})
	tok, _, err := w.e.GitHub(jwt).Apps.CreateInstallationToken(ctx, in.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	bot := w.e.GitHub(tok.GetToken())
	forbidden := func(what string, err error) {
		t.Helper()
		var er *github.ErrorResponse
		if !errors.As(err, &er) || er.Response.StatusCode != http.StatusForbidden || er.Message != "Resource not accessible by integration" {
			t.Fatalf("%s: %v, want 403 Resource not accessible by integration", what, err)
		}
	}

	// Sub-issues: Triage Bot is installed on acme/widgets and gadgets only;
	// acme/lib is public, of the same owner, outside its grant.
	if _, _, err := alice.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("lib"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	parent, _, err := alice.Issues.Create(ctx, "acme", "widgets", github.CreateIssueRequest{Title: "parent"})
	if err != nil {
		t.Fatal(err)
	}
	outside, _, err := alice.Issues.Create(ctx, "acme", "lib", github.CreateIssueRequest{Title: "lib's"})
	if err != nil {
		t.Fatal(err)
	}
	triage := w.e.GitHub(w.token(nil).GetToken())
	_, _, err = triage.SubIssue.Add(ctx, "acme", "widgets", int64(parent.GetNumber()), github.SubIssueRequest{SubIssueID: outside.GetID()})
	forbidden("sub-issue from acme/lib", err)
	if got, _, err := alice.Issues.Get(ctx, "acme", "lib", outside.GetNumber()); err != nil || got.GetParentIssueURL() != "" {
		t.Fatalf("acme/lib's issue after: %+v %v", got, err)
	}
	if _, _, err := bot.SubIssue.Add(ctx, "acme", "widgets", int64(parent.GetNumber()), github.SubIssueRequest{SubIssueID: outside.GetID()}); err != nil {
		t.Fatalf("an app installed on all of acme makes it a sub-issue: %v", err)
	}

	// update-branch of a pull request from bob's fork of acme/lib.
	var accepted *github.AcceptedError
	if _, _, err := bob.Repositories.CreateFork(ctx, "acme", "lib", nil); err != nil && !errors.As(err, &accepted) {
		t.Fatal(err)
	}
	var main *github.Reference
	for i := 0; ; i++ {
		if main, _, err = bob.Git.GetRef(ctx, "bob", "lib", "heads/main"); err == nil {
			break
		} else if i == 100 {
			t.Fatalf("bob's fork was not copied: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, _, err := bob.Git.CreateRef(ctx, "bob", "lib", github.CreateRef{Ref: "refs/heads/topic", SHA: main.GetObject().GetSHA()}); err != nil {
		t.Fatal(err)
	}
	put := func(gh *github.Client, owner, branch, path string) {
		t.Helper()
		if _, _, err := gh.Repositories.CreateFile(ctx, owner, "lib", path, &github.RepositoryContentFileOptions{
			Message: github.Ptr("add " + path), Content: []byte(path + "\n"), Branch: github.Ptr(branch)}); err != nil {
			t.Fatal(err)
		}
	}
	put(bob, "bob", "topic", "topic.txt")
	pr, _, err := bob.PullRequests.Create(ctx, "acme", "lib", github.CreatePullRequest{Title: github.Ptr("topic"),
		Head: "bob:topic", Base: "main", MaintainerCanModify: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	put(alice, "acme", "main", "base.txt")
	before, _, err := bob.Git.GetRef(ctx, "bob", "lib", "heads/topic")
	if err != nil {
		t.Fatal(err)
	}
	// update-branch takes user tokens only: alice's ghu_ of the app
	// installed on all of acme.
	exp := w.now().Add(time.Hour)
	var ghu string
	if err := w.e.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		ghu, _, err = tx.CreateClientToken(ctx, authz.UserToServer, w.alice.ID, app.ClientID, app.ID, nil, &exp)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	_, _, err = w.e.GitHub(ghu).PullRequests.UpdateBranch(ctx, "acme", "lib", pr.GetNumber(), nil)
	forbidden("update-branch into bob's fork", err)
	w.e.RunJobs()
	if after, _, err := bob.Git.GetRef(ctx, "bob", "lib", "heads/topic"); err != nil || after.GetObject().GetSHA() != before.GetObject().GetSHA() {
		t.Fatalf("bob's topic branch moved: %v", err)
	}
	// The same as alice, a maintainer of acme/lib with a classic token.
	if _, resp, err := alice.PullRequests.UpdateBranch(ctx, "acme", "lib", pr.GetNumber(), nil); resp == nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("alice updates the branch: %v", err)
	}
}
