package hooks_test

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v92/github"
)

// TestDeletionPayloads: deletions whose subject is gone when the payload
// is built (a comment, a milestone, a label, an issue, the repository)
// are delivered with the object as it was, from the copy their event
// keeps, valid against GitHub's webhook schemas. The repository's own
// hooks go with it, so an organization hook gets them.
func TestDeletionPayloads(t *testing.T) {
	f := newFixture(t)
	f.e.Must(http.StatusCreated, "POST", "/admin/organizations", f.e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	const secret = "gone"
	if _, _, err := f.gh.Organizations.CreateHook(ctx, "acme", &github.Hook{Name: github.Ptr("web"),
		Config: &github.HookConfig{URL: github.Ptr(f.recv.URL), ContentType: github.Ptr("json"), Secret: github.Ptr(secret)},
		Events: []string{"issues", "issue_comment", "milestone", "label", "repository"}}); err != nil {
		t.Fatal(err)
	}
	f.recv.WaitFor(t, "ping", "")
	if _, _, err := f.gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("tools"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	ms, _, err := f.gh.Issues.CreateMilestone(ctx, "acme", "tools", github.CreateMilestoneRequest{Title: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.gh.Issues.CreateLabel(ctx, "acme", "tools", github.CreateIssueLabelRequest{Name: "flaky", Color: github.Ptr("d73a4a"),
		Description: github.Ptr("Something is wrong")}); err != nil {
		t.Fatal(err)
	}
	is, _, err := f.gh.Issues.Create(ctx, "acme", "tools", github.CreateIssueRequest{Title: "doomed", Body: github.Ptr("body"),
		Labels: []string{"flaky"}, Milestone: ms.Number})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := f.gh.Issues.CreateComment(ctx, "acme", "tools", is.GetNumber(), github.IssueCommentRequest{Body: "soon gone"})
	if err != nil {
		t.Fatal(err)
	}

	if _, err := f.gh.Issues.DeleteComment(ctx, "acme", "tools", c.GetID()); err != nil {
		t.Fatal(err)
	}
	d := f.recv.WaitFor(t, "issue_comment", "deleted")
	f.check(d, secret)
	if m := d.Map(t); m["comment"].(map[string]any)["body"] != "soon gone" || m["issue"].(map[string]any)["title"] != "doomed" {
		t.Errorf("issue_comment deleted: %.500s", d.Payload)
	}
	if _, err := f.gh.Issues.DeleteLabel(ctx, "acme", "tools", "flaky"); err != nil {
		t.Fatal(err)
	}
	d = f.recv.WaitFor(t, "label", "deleted")
	f.check(d, secret)
	if l := d.Map(t)["label"].(map[string]any); l["name"] != "flaky" || l["description"] != "Something is wrong" {
		t.Errorf("label deleted: %.500s", d.Payload)
	}
	if _, err := f.gh.Issues.DeleteMilestone(ctx, "acme", "tools", ms.GetNumber()); err != nil {
		t.Fatal(err)
	}
	d = f.recv.WaitFor(t, "milestone", "deleted")
	f.check(d, secret)
	if m := d.Map(t)["milestone"].(map[string]any); m["title"] != "v1" || m["number"] != float64(ms.GetNumber()) {
		t.Errorf("milestone deleted: %.500s", d.Payload)
	}
	// Issues are deleted through GraphQL (REST has no such operation).
	r := f.e.Must(http.StatusOK, "POST", f.e.URL+"/api/graphql", f.token, map[string]any{
		"query":     `mutation($id: ID!) { deleteIssue(input: {issueId: $id}) { clientMutationId } }`,
		"variables": map[string]any{"id": is.GetNodeID()}})
	if m := r.Map(t); m["errors"] != nil {
		t.Fatalf("deleteIssue: %s", r.Body)
	}
	d = f.recv.WaitFor(t, "issues", "deleted")
	f.check(d, secret)
	if m := d.Map(t)["issue"].(map[string]any); m["title"] != "doomed" || m["number"] != float64(is.GetNumber()) || m["body"] != "body" {
		t.Errorf("issues deleted: %.500s", d.Payload)
	}
	if _, err := f.gh.Repositories.Delete(ctx, "acme", "tools"); err != nil {
		t.Fatal(err)
	}
	d = f.recv.WaitFor(t, "repository", "deleted")
	f.check(d, secret)
	if m := d.Map(t); m["repository"].(map[string]any)["full_name"] != "acme/tools" || m["organization"].(map[string]any)["login"] != "acme" {
		t.Errorf("repository deleted: %.500s", d.Payload)
	}
}
