package graphql_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

// TestIssueTypes: an organization's owners manage its issue types over
// REST; its repositories offer the enabled ones in GraphQL; triagers set
// an issue's type on creation and later.
func TestIssueTypes(t *testing.T) {
	w := newWorld(t)
	e := w.e
	// REST: owners create, update and delete; members list; others do not find them.
	bug := e.Must(200, "POST", "/orgs/octo/issue-types", w.olgaTok, map[string]any{"name": "Bug", "is_enabled": true, "color": "red",
		"description": "Something is wrong"}).Map(t)
	e.Must(200, "POST", "/orgs/octo/issue-types", w.olgaTok, map[string]any{"name": "Feature", "is_enabled": true})
	old := e.Must(200, "POST", "/orgs/octo/issue-types", w.olgaTok, map[string]any{"name": "Old", "is_enabled": true}).Map(t)
	e.Must(422, "POST", "/orgs/octo/issue-types", w.olgaTok, map[string]any{"name": "bug", "is_enabled": true})
	e.Must(403, "POST", "/orgs/octo/issue-types", w.melTok, map[string]any{"name": "Task", "is_enabled": true})
	e.Must(404, "GET", "/orgs/octo/issue-types", w.strTok, nil)
	e.Must(200, "PUT", fmt.Sprintf("/orgs/octo/issue-types/%v", old["id"]), w.olgaTok, map[string]any{"name": "Older", "is_enabled": false})
	list := listOf(t, e.Must(200, "GET", "/orgs/octo/issue-types", w.melTok, nil))
	if len(list) != 3 || list[0]["name"] != "Bug" || list[0]["color"] != "red" || list[2]["name"] != "Older" || list[2]["is_enabled"] != false {
		t.Fatalf("org issue types: %v", list)
	}
	repoTypes := listOf(t, e.Must(200, "GET", "/repos/octo/core/issue-types", w.melTok, nil))
	if len(repoTypes) != 2 {
		t.Fatalf("repository issue types: %v", repoTypes)
	}

	// GraphQL: gh's RepositoryIssueTypes query.
	r := post(t, e, w.melTok, `query RepositoryIssueTypes($owner: String!, $name: String!) {
		repository(owner: $owner, name: $name) { issueTypes(first: 50) { nodes { id, name, description, color } } } }`,
		map[string]any{"owner": "octo", "name": "core"})
	nodes := dig(mustData(t, r), "repository", "issueTypes", "nodes").([]any)
	if len(nodes) != 2 || dig(nodes[0], "name") != "Bug" || dig(nodes[0], "color") != "RED" || dig(nodes[1], "color") != "GRAY" {
		t.Fatalf("issueTypes: %s", r.Raw)
	}
	bugID := dig(nodes[0], "id").(string)
	if bugID != bug["node_id"] {
		t.Fatalf("node ids differ: %s %v", bugID, bug["node_id"])
	}
	// A user's repository has none.
	r = post(t, e, w.monaTok, `{ repository(owner: "mona", name: "app") { issueTypes(first: 5) { nodes { name } } } }`, nil)
	if v := dig(mustData(t, r), "repository", "issueTypes"); v != nil {
		t.Fatalf("user repository's types: %s", r.Raw)
	}

	// createIssue with a type; updateIssueIssueType changes and clears it.
	repoID := e.Must(200, "GET", "/repos/octo/core", w.olgaTok, nil).Map(t)["node_id"]
	r = post(t, e, w.olgaTok, `mutation($in: CreateIssueInput!) { createIssue(input: $in) { issue { id number issueType { name color } } } }`,
		map[string]any{"in": map[string]any{"repositoryId": repoID, "title": "Broken", "issueTypeId": bugID}})
	d := mustData(t, r)
	if dig(d, "createIssue", "issue", "issueType", "name") != "Bug" {
		t.Fatalf("createIssue with a type: %s", r.Raw)
	}
	issueID := dig(d, "createIssue", "issue", "id").(string)
	feature := dig(nodes[1], "id").(string)
	set := `mutation($in: UpdateIssueIssueTypeInput!) { updateIssueIssueType(input: $in) { clientMutationId issue { issueType { name } } } }`
	r = post(t, e, w.olgaTok, set, map[string]any{"in": map[string]any{"issueId": issueID, "issueTypeId": feature, "clientMutationId": "t1"}})
	if d := mustData(t, r); dig(d, "updateIssueIssueType", "issue", "issueType", "name") != "Feature" || dig(d, "updateIssueIssueType", "clientMutationId") != "t1" {
		t.Fatalf("updateIssueIssueType: %s", r.Raw)
	}
	// A reader may not; a disabled type is not offered.
	r = post(t, e, w.melTok, set, map[string]any{"in": map[string]any{"issueId": issueID, "issueTypeId": bugID}})
	if errType(r) != "FORBIDDEN" {
		t.Fatalf("reader sets a type: %s", r.Raw)
	}
	r = post(t, e, w.olgaTok, set, map[string]any{"in": map[string]any{"issueId": issueID, "issueTypeId": old["node_id"]}})
	if errType(r) != "NOT_FOUND" {
		t.Fatalf("disabled type: %s", r.Raw)
	}
	r = post(t, e, w.olgaTok, set, map[string]any{"in": map[string]any{"issueId": issueID, "issueTypeId": nil}})
	if v := dig(mustData(t, r), "updateIssueIssueType", "issue", "issueType"); v != nil {
		t.Fatalf("clearing the type: %s", r.Raw)
	}
	events := listOf(t, e.Must(200, "GET", "/repos/octo/core/issues/1/events", w.olgaTok, nil))
	var kinds []string
	for _, ev := range events {
		kinds = append(kinds, ev["event"].(string))
	}
	if got := strings.Join(kinds, ","); got != "issue_type_added,issue_type_changed,issue_type_removed" {
		t.Fatalf("events: %s", got)
	}
	// Deleting a type takes it off its issues.
	post(t, e, w.olgaTok, set, map[string]any{"in": map[string]any{"issueId": issueID, "issueTypeId": bugID}})
	e.Must(204, "DELETE", fmt.Sprintf("/orgs/octo/issue-types/%v", bug["id"]), w.olgaTok, nil)
	r = post(t, e, w.olgaTok, `{ repository(owner: "octo", name: "core") { issue(number: 1) { issueType { name } } } }`, nil)
	if v := dig(mustData(t, r), "repository", "issue", "issueType"); v != nil {
		t.Fatalf("type of a deleted type: %s", r.Raw)
	}
	e.Must(404, "DELETE", fmt.Sprintf("/orgs/octo/issue-types/%v", bug["id"]), w.olgaTok, nil)
}

func listOf(t *testing.T, r *apitest.Response) []map[string]any {
	t.Helper()
	var out []map[string]any
	r.JSON(t, &out)
	return out
}
