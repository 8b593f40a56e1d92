package graphql_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/projects"
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
	// The project's fields and owner.
	d = mustData(t, post(t, w.e, tok, `{ user(login: "mona") { projectV2(number: 1) { owner { __typename ... on User { login } }
		fields(first: 50) { totalCount nodes { __typename ... on ProjectV2Field { name dataType } ... on ProjectV2SingleSelectField { name options { name } } } } } } }`, nil))
	pv := dig(d, "user", "projectV2")
	if dig(pv, "owner", "login") != "mona" || dig(pv, "fields", "totalCount").(json.Number).String() != "13" {
		t.Fatalf("owner and fields: %v", pv)
	}
	// Another user sees no private project.
	r := post(t, w.e, w.strTok, `{ user(login: "mona") { projectV2(number: 1) { title } projectsV2(first: 5) { totalCount } } }`, nil)
	if len(r.Errors) == 0 || r.Errors[0].Type != "NOT_FOUND" {
		t.Fatalf("stranger: %s", r.Raw)
	}
	// The query count does not grow with the page.
	cost := func(n int) int64 {
		for range 2 { // the items' events consumed, and the jobs they queued run (nothing reads beside the request)
			if err := w.e.Deps.Outbox.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			w.e.RunJobs()
		}
		return w.e.LeastReads(func() { mustData(t, post(t, w.e, tok, q, map[string]any{"n": n})) })
	}
	if one, many := cost(2), cost(29); one != many {
		t.Errorf("a page of 2 items costs %d queries, a page of 29 costs %d", one, many)
	}
}

// TestProjectV2Mutations: createProjectV2, addProjectV2DraftIssue,
// addProjectV2ItemById, updateProjectV2ItemFieldValue,
// clearProjectV2ItemFieldValue, archiveProjectV2Item,
// deleteProjectV2Item, updateProjectV2 and deleteProjectV2, state read
// back over REST; a stranger may not touch the project.
func TestProjectV2Mutations(t *testing.T) {
	w := newWorld(t)
	seedIssues(t, w, 1)
	tok := w.e.Token(w.mona, "repo,project")
	me := mustData(t, post(t, w.e, tok, `{ viewer { id } repository(owner: "mona", name: "app") { issue(number: 1) { id } } }`, nil))
	userID, issueID := dig(me, "viewer", "id").(string), dig(me, "repository", "issue", "id").(string)
	d := mustData(t, post(t, w.e, tok, `mutation($o: ID!) { createProjectV2(input: {ownerId: $o, title: "Launch", clientMutationId: "m1"}) { clientMutationId projectV2 { id number title } } }`, map[string]any{"o": userID}))
	pid := dig(d, "createProjectV2", "projectV2", "id").(string)
	if dig(d, "createProjectV2", "projectV2", "title") != "Launch" || dig(d, "createProjectV2", "clientMutationId") != "m1" {
		t.Fatalf("create: %v", d)
	}
	d = mustData(t, post(t, w.e, tok, `mutation($p: ID!) { addProjectV2DraftIssue(input: {projectId: $p, title: "Plan", body: "b"}) { projectItem { id type content { ... on DraftIssue { title } } } } }`, map[string]any{"p": pid}))
	draft := dig(d, "addProjectV2DraftIssue", "projectItem", "id").(string)
	d = mustData(t, post(t, w.e, tok, `mutation($p: ID!, $c: ID!) { addProjectV2ItemById(input: {projectId: $p, contentId: $c}) { item { id type } } }`, map[string]any{"p": pid, "c": issueID}))
	item := dig(d, "addProjectV2ItemById", "item", "id").(string)
	if dig(d, "addProjectV2ItemById", "item", "type") != "ISSUE" {
		t.Fatalf("add item: %v", d)
	}
	// The fields come from REST (GitHub's own REST shape carries node ids).
	var fields []map[string]any
	w.e.Must(http.StatusOK, "GET", "/users/mona/projectsV2/1/fields", tok, nil).JSON(t, &fields)
	var status map[string]any
	for _, f := range fields {
		if f["name"] == "Status" {
			status = f
		}
	}
	optID := status["options"].([]any)[2].(map[string]any)["id"].(string)
	upd := `mutation($p: ID!, $i: ID!, $f: ID!, $v: ProjectV2FieldValue!) { updateProjectV2ItemFieldValue(input: {projectId: $p, itemId: $i, fieldId: $f, value: $v}) {
		projectV2Item { fieldValues(first: 10) { nodes { ... on ProjectV2ItemFieldSingleSelectValue { name } } } } } }`
	d = mustData(t, post(t, w.e, tok, upd, map[string]any{"p": pid, "i": item, "f": status["node_id"], "v": map[string]any{"singleSelectOptionId": optID}}))
	// The item's values: Title and Repository from the issue, and Status.
	var selected []any
	for _, v := range dig(d, "updateProjectV2ItemFieldValue", "projectV2Item", "fieldValues", "nodes").([]any) {
		if n := dig(v, "name"); n != nil {
			selected = append(selected, n)
		}
	}
	if len(selected) != 1 || selected[0] != "Done" {
		t.Fatalf("update value: %v", d)
	}
	r := post(t, w.e, tok, upd, map[string]any{"p": pid, "i": item, "f": status["node_id"], "v": map[string]any{"singleSelectOptionId": "nope"}})
	if len(r.Errors) == 0 {
		t.Fatalf("an unknown option was taken: %s", r.Raw)
	}
	mustData(t, post(t, w.e, tok, `mutation($p: ID!, $i: ID!, $f: ID!) { clearProjectV2ItemFieldValue(input: {projectId: $p, itemId: $i, fieldId: $f}) { projectV2Item { id } } }`,
		map[string]any{"p": pid, "i": item, "f": status["node_id"]}))
	var items []map[string]any
	w.e.Must(http.StatusOK, "GET", "/users/mona/projectsV2/1/items?fields="+strconv.FormatInt(int64(status["id"].(float64)), 10), tok, nil).JSON(t, &items)
	if len(items) != 2 || items[1]["fields"].([]any)[0].(map[string]any)["value"] != nil {
		t.Fatalf("cleared value: %v", items)
	}
	// A stranger may not add to it (it is private: not there for them).
	stranger := post(t, w.e, w.strTok, `mutation($p: ID!) { addProjectV2DraftIssue(input: {projectId: $p, title: "x"}) { projectItem { id } } }`, map[string]any{"p": pid})
	if len(stranger.Errors) == 0 || stranger.Errors[0].Type != "NOT_FOUND" {
		t.Fatalf("stranger: %s", stranger.Raw)
	}
	mustData(t, post(t, w.e, tok, `mutation($p: ID!, $i: ID!) { archiveProjectV2Item(input: {projectId: $p, itemId: $i}) { item { isArchived } } }`, map[string]any{"p": pid, "i": draft}))
	d = mustData(t, post(t, w.e, tok, `mutation($p: ID!, $i: ID!) { deleteProjectV2Item(input: {projectId: $p, itemId: $i}) { deletedItemId } }`, map[string]any{"p": pid, "i": draft}))
	if dig(d, "deleteProjectV2Item", "deletedItemId") != draft {
		t.Fatalf("delete item: %v", d)
	}
	d = mustData(t, post(t, w.e, tok, `mutation($p: ID!) { updateProjectV2(input: {projectId: $p, closed: true, public: true, shortDescription: "s"}) { projectV2 { closed public shortDescription } } }`, map[string]any{"p": pid}))
	if dig(d, "updateProjectV2", "projectV2", "closed") != true || dig(d, "updateProjectV2", "projectV2", "public") != true {
		t.Fatalf("update: %v", d)
	}
	var got map[string]any
	w.e.Must(http.StatusOK, "GET", "/users/mona/projectsV2/1", tok, nil).JSON(t, &got)
	if got["state"] != "closed" || got["public"] != true {
		t.Fatalf("REST after update: %v", got)
	}
	mustData(t, post(t, w.e, tok, `mutation($p: ID!) { deleteProjectV2(input: {projectId: $p}) { projectV2 { id } } }`, map[string]any{"p": pid}))
	w.e.Must(http.StatusNotFound, "GET", "/users/mona/projectsV2/1", tok, nil)
}
