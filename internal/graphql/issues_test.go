package graphql_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
)

// issueFragment is gh's `issue list` fragment (api.IssueGraphQL with the
// list's default fields, author and assignees).
const issueFragment = `fragment issue on Issue {
	number,title,url,state,updatedAt,stateReason,
	labels(first:100){nodes{id,name,description,color},totalCount},
	author{login,...on User{id,name}},
	assignees(first:100){nodes{id,login,name,databaseId},totalCount},
	milestone{number,title,description,dueOn},
	comments{totalCount}
}`

// gh's IssueList query.
const issueList = issueFragment + `
query IssueList($owner: String!, $repo: String!, $limit: Int, $endCursor: String, $states: [IssueState!] = OPEN, $assignee: String, $author: String, $mention: String) {
	repository(owner: $owner, name: $repo) {
		hasIssuesEnabled
		issues(first: $limit, after: $endCursor, orderBy: {field: CREATED_AT, direction: DESC}, states: $states, filterBy: {assignee: $assignee, createdBy: $author, mentioned: $mention}) {
			totalCount
			nodes { ...issue }
			pageInfo { hasNextPage endCursor }
		}
	}
}`

func seedIssues(t *testing.T, w *world, n int) {
	t.Helper()
	gh := w.e.GitHub(w.monaTok)
	if _, _, err := gh.Issues.CreateLabel(ctx, "mona", "app", github.CreateIssueLabelRequest{Name: "kind: bug", Color: github.Ptr("d73a4a"), Description: github.Ptr("Something is wrong")}); err != nil {
		t.Fatal(err)
	}
	ms, _, err := gh.Issues.CreateMilestone(ctx, "mona", "app", github.CreateMilestoneRequest{Title: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		req := github.CreateIssueRequest{Title: fmt.Sprintf("issue %d", i), Body: github.Ptr("body")}
		if i%2 == 0 {
			req.Labels = []string{"kind: bug"}
			req.Assignees = []string{"mona"}
			req.Milestone = ms.Number
		}
		if _, _, err := gh.Issues.Create(ctx, "mona", "app", req); err != nil {
			t.Fatal(err)
		}
	}
}

func TestIssueList(t *testing.T) {
	w := newWorld(t)
	seedIssues(t, w, 7)
	gh := w.e.GitHub(w.monaTok)
	if _, _, err := gh.Issues.Update(ctx, "mona", "app", 1, github.UpdateIssueRequest{State: github.Ptr("closed"), StateReason: github.Ptr("not_planned")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Issues.CreateComment(ctx, "mona", "app", 4, github.IssueCommentRequest{Body: "first"}); err != nil {
		t.Fatal(err)
	}

	vars := map[string]any{"owner": "mona", "repo": "app", "limit": 4}
	// No job worker reads (or empties the read cache) while the queries
	// are counted: the queued jobs run now, the rest of the test runs
	// without workers.
	w.e.RunJobs()
	w.e.Deps.Jobs.Stop()
	// Nor do the events log's consumers (activity events, webhooks): they
	// catch up first.
	syncOutbox(t, w)
	var r *gqlResult
	queries := w.e.LeastReads(func() { r = post(t, w.e, w.melTok, issueList, vars) })
	d := mustData(t, r)
	issues := dig(d, "repository", "issues").(map[string]any)
	if n, _ := issues["totalCount"].(json.Number).Int64(); n != 6 {
		t.Fatalf("totalCount %v (6 open issues): %s", issues["totalCount"], r.Raw)
	}
	nodes := issues["nodes"].([]any)
	if len(nodes) != 4 || dig(nodes[0], "number").(json.Number).String() != "7" || dig(issues, "pageInfo", "hasNextPage") != true {
		t.Fatalf("first page: %s", r.Raw)
	}
	six := nodes[1].(map[string]any)
	if dig(six, "labels", "totalCount").(json.Number).String() != "1" || dig(six, "labels", "nodes").([]any)[0].(map[string]any)["name"] != "kind: bug" ||
		dig(six, "labels", "nodes").([]any)[0].(map[string]any)["description"] != "Something is wrong" ||
		dig(six, "assignees", "nodes").([]any)[0].(map[string]any)["login"] != "mona" || dig(six, "milestone", "title") != "v1" ||
		dig(six, "author", "login") != "mona" || dig(six, "state") != "OPEN" || dig(six, "url") != w.e.URL+"/mona/app/issues/6" {
		t.Fatalf("issue 6: %s", r.Raw)
	}
	if dig(nodes[3], "comments", "totalCount").(json.Number).String() != "1" {
		t.Fatalf("issue 4 comments: %s", r.Raw)
	}
	// The query count does not grow with the page: one query per kind of
	// data with the read caches off (the token and its user, the repository,
	// the issue blocks and pull request counters, the page's ids, then the
	// issue rows, their label and assignee links, milestones, labels,
	// issue types, authors and associations).
	if queries > 14 {
		t.Fatalf("IssueList ran %d queries", queries)
	}
	// A longer page costs no more.
	longer := w.e.LeastReads(func() { post(t, w.e, w.melTok, issueList, map[string]any{"owner": "mona", "repo": "app", "limit": 6}) })
	if longer > queries {
		t.Fatalf("IssueList of 6 issues ran %d queries, of 4 %d", longer, queries)
	}
	// Next page through the cursor.
	vars["endCursor"] = dig(issues, "pageInfo", "endCursor")
	r = post(t, w.e, w.melTok, issueList, vars)
	nodes = dig(mustData(t, r), "repository", "issues", "nodes").([]any)
	if len(nodes) != 2 || dig(nodes[1], "number").(json.Number).String() != "2" ||
		dig(r.Data, "repository", "issues", "pageInfo", "hasNextPage") != false {
		t.Fatalf("second page: %s", r.Raw)
	}
	// Closed ones, with their reason; filters by assignee and author.
	r = post(t, w.e, w.melTok, issueList, map[string]any{"owner": "mona", "repo": "app", "limit": 10, "states": []string{"CLOSED"}})
	nodes = dig(mustData(t, r), "repository", "issues", "nodes").([]any)
	if len(nodes) != 1 || dig(nodes[0], "stateReason") != "NOT_PLANNED" || dig(nodes[0], "state") != "CLOSED" {
		t.Fatalf("closed: %s", r.Raw)
	}
	r = post(t, w.e, w.melTok, issueList, map[string]any{"owner": "mona", "repo": "app", "limit": 10, "assignee": "mona"})
	if n := dig(mustData(t, r), "repository", "issues", "totalCount").(json.Number).String(); n != "3" {
		t.Fatalf("assigned to mona: %s", r.Raw)
	}
	r = post(t, w.e, w.melTok, issueList, map[string]any{"owner": "mona", "repo": "app", "limit": 10, "author": "nobody-at-all"})
	if n := dig(mustData(t, r), "repository", "issues", "totalCount").(json.Number).String(); n != "0" {
		t.Fatalf("unknown author: %s", r.Raw)
	}
	// last: the newest page from the end.
	r = post(t, w.e, w.melTok, `{ repository(owner: "mona", name: "app") { issues(last: 2, states: [OPEN, CLOSED]) {
		totalCount edges { cursor node { number } } pageInfo { hasPreviousPage hasNextPage startCursor } } } }`, nil)
	edges := dig(mustData(t, r), "repository", "issues", "edges").([]any)
	if len(edges) != 2 || dig(edges[0], "node", "number").(json.Number).String() != "6" ||
		dig(r.Data, "repository", "issues", "pageInfo", "hasPreviousPage") != true {
		t.Fatalf("last 2: %s", r.Raw)
	}
}

func TestPaginationErrors(t *testing.T) {
	w := newWorld(t)
	// totalCount alone needs no bounds (gh asks `commits { totalCount }`).
	r := post(t, w.e, w.monaTok, `{ repository(owner: "mona", name: "app") { issues { totalCount } } }`, nil)
	if dig(mustData(t, r), "repository", "issues", "totalCount") == nil {
		t.Fatalf("totalCount: %s", r.Raw)
	}
	for _, c := range []struct{ args, typ, msg string }{
		{``, "MISSING_PAGINATION_BOUNDARIES", "You must provide a `first` or `last` value to properly paginate the `issues` connection."},
		{`(first: 101)`, "EXCESSIVE_PAGINATION", "Requesting 101 records on the `issues` connection exceeds the `first` limit of 100 records."},
		{`(first: 1, after: "bm9wZQ==")`, "INVALID_CURSOR_ARGUMENTS", "`bm9wZQ==` does not appear to be a valid cursor."},
	} {
		r := post(t, w.e, w.monaTok, `{ repository(owner: "mona", name: "app") { name issues`+c.args+` { totalCount nodes { number } } } }`, nil)
		if len(r.Errors) != 1 || r.Errors[0].Type != c.typ || r.Errors[0].Message != c.msg {
			t.Errorf("%s: %s", c.args, r.Raw)
		}
		// The connection is non-null: the error nulls the repository.
		if dig(r.Data, "repository") != nil {
			t.Errorf("%s: repository should be null: %s", c.args, r.Raw)
		}
	}
}

func TestIssueAndLabels(t *testing.T) {
	w := newWorld(t)
	seedIssues(t, w, 2)
	gh := w.e.GitHub(w.monaTok)
	for _, b := range []string{"one", "two", "three"} {
		if _, _, err := gh.Issues.CreateComment(ctx, "mona", "app", 2, github.IssueCommentRequest{Body: b}); err != nil {
			t.Fatal(err)
		}
	}
	r := post(t, w.e, w.melTok, `query($n: Int!) { repository(owner: "mona", name: "app") {
		issue(number: $n) { id databaseId number title body closed locked authorAssociation viewerCanClose viewerCanLabel
			repository { nameWithOwner }
			comments(last: 2) { totalCount nodes { body author { login } authorAssociation viewerDidAuthor url } }
		}
		missing: issue(number: 99) { number }
		labels(first: 3, query: "bug") { totalCount nodes { name color isDefault url } }
		bug: label(name: "KIND: BUG") { name }
		nolabel: label(name: "nope") { name }
	} }`, map[string]any{"n": 2})
	d := r.Data
	is := dig(d, "repository", "issue").(map[string]any)
	comments := dig(is, "comments", "nodes").([]any)
	if is["title"] != "issue 2" || is["authorAssociation"] != "OWNER" || is["viewerCanClose"] != false || is["viewerCanLabel"] != false ||
		dig(is, "comments", "totalCount").(json.Number).String() != "3" || len(comments) != 2 || dig(comments[0], "body") != "two" {
		t.Fatalf("issue: %s", r.Raw)
	}
	labels := dig(d, "repository", "labels", "nodes").([]any)
	if len(labels) != 2 || dig(d, "repository", "bug", "name") != "kind: bug" || dig(d, "repository", "nolabel") != nil {
		// the default "bug" label and "kind: bug"
		t.Fatalf("labels: %s", r.Raw)
	}
	if len(r.Errors) != 1 || r.Errors[0].Message != "Could not resolve to an Issue with the number of 99." {
		t.Fatalf("errors: %s", r.Raw)
	}
	// The REST node_id and id of the issue are GraphQL's.
	rest := w.e.Must(200, "GET", "/repos/mona/app/issues/2", w.melTok, nil).Map(t)
	if is["id"] != rest["node_id"] || is["databaseId"].(json.Number).String() != fmt.Sprint(rest["id"]) {
		t.Fatalf("ids: %v %v vs %v %v", is["id"], is["databaseId"], rest["node_id"], rest["id"])
	}
	r = post(t, w.e, w.melTok, `query($id: ID!) { node(id: $id) { ... on Issue { number repository { name } } } }`, map[string]any{"id": rest["node_id"]})
	if dig(mustData(t, r), "node", "number").(json.Number).String() != "2" {
		t.Fatalf("node: %s", r.Raw)
	}
	// An issue of a private repository is no node for a stranger.
	if _, _, err := gh.Issues.Create(ctx, "mona", "secret", github.CreateIssueRequest{Title: "hidden"}); err != nil {
		t.Fatal(err)
	}
	hidden := w.e.Must(200, "GET", "/repos/mona/secret/issues/1", w.monaTok, nil).Map(t)
	r = post(t, w.e, w.strTok, `query($id: ID!) { node(id: $id) { id } }`, map[string]any{"id": hidden["node_id"]})
	if dig(r.Data, "node") != nil || len(r.Errors) != 1 || r.Errors[0].Type != "NOT_FOUND" || !strings.Contains(r.Errors[0].Message, "global id") {
		t.Fatalf("hidden node: %s", r.Raw)
	}
}

// syncOutbox lets the events log's consumers catch up, so that their reads
// and writes (which empty the read cache) do not fall in a request's count.
func syncOutbox(t *testing.T, w *world) {
	t.Helper()
	if err := w.e.Deps.Outbox.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}
