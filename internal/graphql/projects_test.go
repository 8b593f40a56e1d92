package graphql_test

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/projects"
	"github.com/hubd/hubd/internal/store"
)

func itoa(n int) string { return strconv.Itoa(n) }

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

// TestProjectV2Items: User.projectV2 and projectsV2, a project's items
// with their content (issue, draft) and field values with their fields;
// the page of items with every value costs the same number of queries
// whatever its size.
func TestProjectV2Items(t *testing.T) {
	w := newWorld(t)
	seedIssues(t, w, 1)
	s := projects.New(w.e.Store)
	c := &authz.Caller{Kind: authz.ClassicPAT, User: w.mona, Scopes: authz.ParseScopes("project,repo")}
	p, err := s.Create(ctx, c, w.mona, "Board")
	if err != nil {
		t.Fatal(err)
	}
	est, err := s.CreateField(ctx, c, p, projects.FieldInput{Name: "Estimate", DataType: "number"})
	if err != nil {
		t.Fatal(err)
	}
	note, err := s.CreateField(ctx, c, p, projects.FieldInput{Name: "Note", DataType: "text"})
	if err != nil {
		t.Fatal(err)
	}
	due, err := s.CreateField(ctx, c, p, projects.FieldInput{Name: "Due", DataType: "date"})
	if err != nil {
		t.Fatal(err)
	}
	is, _, err := s.FindIssue(ctx, c, 0, "mona", "app", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.AddIssue(ctx, c, p, is)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		it := first
		if i > 0 {
			if it, err = s.AddDraft(ctx, c, p, "draft "+itoa(i), "body"); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SetValues(ctx, c, p, it, []projects.Value{{FieldID: est.ID, Value: float64(i)}, {FieldID: note.ID, Value: "n" + itoa(i)}, {FieldID: due.ID, Value: "2026-05-01"}}); err != nil {
			t.Fatal(err)
		}
	}
	tok := w.e.Token(w.mona, "repo,read:project")
	q := `query($n: Int!) { user(login: "mona") { projectsV2(first: 5) { totalCount nodes { title number } }
		projectV2(number: 1) { title public closed shortDescription items(first: $n) { totalCount pageInfo { hasNextPage endCursor }
		nodes { id databaseId type isArchived content { __typename ... on Issue { number title } ... on DraftIssue { id title body } }
		fieldValues(first: 20) { totalCount nodes { __typename
			... on ProjectV2ItemFieldNumberValue { number field { ... on ProjectV2Field { name dataType } } }
			... on ProjectV2ItemFieldTextValue { text field { ... on ProjectV2Field { name } } }
			... on ProjectV2ItemFieldDateValue { date }
			... on ProjectV2ItemFieldSingleSelectValue { name field { ... on ProjectV2SingleSelectField { name options { id name color } } } } } } } } } } }`
	d := mustData(t, post(t, w.e, tok, q, map[string]any{"n": 2}))
	if dig(d, "user", "projectsV2", "totalCount").(json.Number).String() != "1" {
		t.Fatalf("projectsV2: %v", dig(d, "user", "projectsV2"))
	}
	items := dig(d, "user", "projectV2", "items")
	nodes := dig(items, "nodes").([]any)
	if dig(items, "totalCount").(json.Number).String() != "30" || len(nodes) != 2 || dig(items, "pageInfo", "hasNextPage") != true {
		t.Fatalf("items: %v", items)
	}
	if dig(nodes[0], "type") != "ISSUE" || dig(nodes[0], "content", "__typename") != "Issue" || dig(nodes[0], "content", "number").(json.Number).String() != "1" {
		t.Fatalf("first item: %v", nodes[0])
	}
	if dig(nodes[1], "type") != "DRAFT_ISSUE" || dig(nodes[1], "content", "title") != "draft 1" {
		t.Fatalf("second item: %v", nodes[1])
	}
	vals := dig(nodes[1], "fieldValues", "nodes").([]any)
	got := map[string]any{}
	for _, v := range vals {
		got[dig(v, "__typename").(string)] = v
	}
	if dig(got["ProjectV2ItemFieldNumberValue"], "number").(json.Number).String() != "1" ||
		dig(got["ProjectV2ItemFieldNumberValue"], "field", "dataType") != "NUMBER" ||
		dig(got["ProjectV2ItemFieldTextValue"], "text") != "n1" || dig(got["ProjectV2ItemFieldDateValue"], "date") != "2026-05-01" {
		t.Fatalf("values: %v", vals)
	}
	// Another user sees no private project.
	r := post(t, w.e, w.strTok, `{ user(login: "mona") { projectV2(number: 1) { title } projectsV2(first: 5) { totalCount } } }`, nil)
	if len(r.Errors) == 0 || r.Errors[0].Type != "NOT_FOUND" {
		t.Fatalf("stranger: %s", r.Raw)
	}
	// The query count does not grow with the page.
	cost := func(n int) int64 {
		if err := w.e.Store.Tx(ctx, func(store.Q) error { return nil }); err != nil {
			t.Fatal(err)
		}
		before := w.e.Store.Reads()
		mustData(t, post(t, w.e, tok, q, map[string]any{"n": n}))
		return w.e.Store.Reads() - before
	}
	cost(1)
	if one, many := cost(2), cost(29); one != many {
		t.Errorf("a page of 2 items costs %d queries, a page of 29 costs %d", one, many)
	}
}
