package graphql_test

import (
	"encoding/json"
	"testing"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/projects"
)

// TestIssueProjectItems: Issue.projectItems lists the issue's items in
// projects the viewer may read, with the project and the item's Status;
// a private project's items are not there for others.
func TestIssueProjectItems(t *testing.T) {
	w := newWorld(t)
	seedIssues(t, w, 2)
	s := projects.New(w.e.Store)
	c := &authz.Caller{Kind: authz.ClassicPAT, User: w.mona, Scopes: authz.ParseScopes("project,repo")}
	p, err := s.Create(ctx, c, w.mona, "Plan")
	if err != nil {
		t.Fatal(err)
	}
	is, _, err := s.FindIssue(ctx, c, 0, "mona", "app", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	it, err := s.AddIssue(ctx, c, p, is)
	if err != nil {
		t.Fatal(err)
	}
	fields, err := w.e.Store.R().ProjectFields(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fields {
		if f.Name == "Status" {
			if err := s.SetValues(ctx, c, p, it, []projects.Value{{FieldID: f.ID, Value: f.Options[1].ID}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	q := `{ repository(owner: "mona", name: "app") { issue(number: 1) { projectItems(first: 10) { totalCount
		nodes { id project { id title number url closed resourcePath }
		status: fieldValueByName(name: "Status") { ... on ProjectV2ItemFieldSingleSelectValue { name optionId } } } } } } }`
	// Projects need a token with read:project.
	tok := w.e.Token(w.mona, "repo,read:project")
	d := mustData(t, post(t, w.e, w.monaTok, q, nil))
	if n := dig(d, "repository", "issue", "projectItems", "totalCount").(json.Number).String(); n != "0" {
		t.Fatalf("a token without read:project sees %s items", n)
	}
	d = mustData(t, post(t, w.e, tok, q, nil))
	items := dig(d, "repository", "issue", "projectItems")
	nodes, _ := dig(items, "nodes").([]any)
	if dig(items, "totalCount").(json.Number).String() != "1" || len(nodes) != 1 {
		t.Fatalf("items: %v", items)
	}
	if dig(nodes[0], "project", "title") != "Plan" || dig(nodes[0], "status", "name") != "In Progress" || dig(nodes[0], "project", "resourcePath") != "/users/mona/projects/1" {
		t.Fatalf("item: %v", nodes[0])
	}
	// The project is private: a stranger reads the public issue but not
	// its project items.
	d = mustData(t, post(t, w.e, w.strTok, q, nil))
	if n := dig(d, "repository", "issue", "projectItems", "totalCount").(json.Number).String(); n != "0" {
		t.Fatalf("stranger sees %s items", n)
	}
	// Issue 2 is in no project.
	d = mustData(t, post(t, w.e, tok, `{ repository(owner: "mona", name: "app") { issue(number: 2) { projectItems(first: 5) { totalCount } } } }`, nil))
	if n := dig(d, "repository", "issue", "projectItems", "totalCount").(json.Number).String(); n != "0" {
		t.Fatalf("issue 2 items: %s", n)
	}
}
