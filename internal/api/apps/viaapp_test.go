package apps_test

import (
	"strconv"
	"testing"

	"github.com/google/go-github/v92/github"
)

// Issues and comments an installation token writes carry the app in
// performed_via_github_app (schema-validated by the harness), in single
// answers and lists; what users write carries null.
func TestPerformedViaGitHubApp(t *testing.T) {
	w := newWorld(t)
	bot := w.e.GitHub(w.token(nil).GetToken())
	issue, _, err := bot.Issues.Create(ctx, "acme", "widgets", github.CreateIssueRequest{Title: "from the app"})
	if err != nil {
		t.Fatal(err)
	}
	if got := issue.GetPerformedViaGithubApp().GetSlug(); got != w.app.Slug {
		t.Fatalf("created issue performed_via_github_app %q, want %q", got, w.app.Slug)
	}
	if _, _, err := bot.Issues.CreateComment(ctx, "acme", "widgets", issue.GetNumber(), github.IssueCommentRequest{Body: "noted"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.e.GitHub(w.aliceTok).Issues.CreateComment(ctx, "acme", "widgets", issue.GetNumber(), github.IssueCommentRequest{Body: "by alice"}); err != nil {
		t.Fatal(err)
	}
	alice := w.e.GitHub(w.aliceTok)
	got, _, err := alice.Issues.Get(ctx, "acme", "widgets", issue.GetNumber())
	if err != nil {
		t.Fatal(err)
	}
	app := got.GetPerformedViaGithubApp()
	if app.GetID() != w.app.ID || app.GetOwner().GetLogin() != "acme" || app.GetName() != "Triage Bot" {
		t.Fatalf("performed_via_github_app %+v", app)
	}
	list, _, err := alice.Issues.ListByRepo(ctx, "acme", "widgets", nil)
	if err != nil || len(list) != 1 || list[0].GetPerformedViaGithubApp().GetSlug() != w.app.Slug {
		t.Fatalf("issue list: %v %v", err, list)
	}
	comments, _, err := alice.Issues.ListComments(ctx, "acme", "widgets", issue.GetNumber(), nil)
	if err != nil || len(comments) != 2 {
		t.Fatalf("comments: %v %d", err, len(comments))
	}
	if comments[0].GetPerformedViaGithubApp().GetSlug() != w.app.Slug || comments[1].PerformedViaGithubApp != nil {
		t.Fatalf("comments' performed_via_github_app: %v, %v", comments[0].PerformedViaGithubApp, comments[1].PerformedViaGithubApp)
	}
}

// Events an installation token causes (closing an issue) carry the app.
func TestPerformedViaGitHubAppEvents(t *testing.T) {
	w := newWorld(t)
	bot := w.e.GitHub(w.token(nil).GetToken())
	issue, _, err := bot.Issues.Create(ctx, "acme", "widgets", github.CreateIssueRequest{Title: "to close"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := bot.Issues.Update(ctx, "acme", "widgets", issue.GetNumber(), github.UpdateIssueRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	events, _, err := w.e.GitHub(w.aliceTok).Issues.ListIssueEvents(ctx, "acme", "widgets", issue.GetNumber(), nil)
	if err != nil || len(events) == 0 {
		t.Fatalf("events: %v %d", err, len(events))
	}
	for _, e := range events {
		if e.GetPerformedViaGithubApp().GetSlug() != w.app.Slug {
			t.Errorf("%s event: performed_via_github_app %v", e.GetEvent(), e.PerformedViaGithubApp)
		}
	}
	var timeline []map[string]any
	w.e.Must(200, "GET", "/repos/acme/widgets/issues/"+strconv.Itoa(issue.GetNumber())+"/timeline", w.aliceTok, nil).JSON(t, &timeline)
	if len(timeline) == 0 || timeline[len(timeline)-1]["performed_via_github_app"] == nil {
		t.Errorf("timeline %v", timeline)
	}
}
