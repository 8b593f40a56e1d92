package graphql_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
)

func nodeID(t *testing.T, w *world, path string) string {
	t.Helper()
	return w.e.Must(200, "GET", path, w.monaTok, nil).Map(t)["node_id"].(string)
}

// TestIssueMutations: gh's issue create/close/reopen/edit/comment go
// through the same service as REST: same checks, same events.
func TestIssueMutations(t *testing.T) {
	w := newWorld(t)
	seedIssues(t, w, 2) // labels "kind: bug", milestone v1
	repoID := nodeID(t, w, "/repos/mona/app")
	bug := nodeID(t, w, "/repos/mona/app/labels/kind:%20bug")
	ms := nodeID(t, w, "/repos/mona/app/milestones/1")
	mona := nodeID(t, w, "/users/mona")

	create := `mutation($in: CreateIssueInput!) { createIssue(input: $in) { clientMutationId issue {
		number title body state url author { login } labels(first: 5) { nodes { name } } assignees(first: 5) { nodes { login } } milestone { title }
	} } }`
	r := post(t, w.e, w.monaTok, create, map[string]any{"in": map[string]any{"repositoryId": repoID, "title": "From GraphQL",
		"body": "made by a mutation", "labelIds": []string{bug}, "assigneeIds": []string{mona}, "milestoneId": ms, "clientMutationId": "c1"}})
	d := mustData(t, r)
	is := dig(d, "createIssue", "issue").(map[string]any)
	if dig(d, "createIssue", "clientMutationId") != "c1" || is["number"].(json.Number).String() != "3" || is["state"] != "OPEN" ||
		dig(is, "labels", "nodes").([]any)[0].(map[string]any)["name"] != "kind: bug" || dig(is, "milestone", "title") != "v1" ||
		dig(is, "assignees", "nodes").([]any)[0].(map[string]any)["login"] != "mona" {
		t.Fatalf("createIssue: %s", r.Raw)
	}
	// REST sees the same issue, and the same events were written.
	rest, _, err := w.e.GitHub(w.monaTok).Issues.Get(ctx, "mona", "app", 3)
	if err != nil || rest.GetBody() != "made by a mutation" || len(rest.Labels) != 1 {
		t.Fatalf("REST view: %+v %v", rest, err)
	}
	events, _, err := w.e.GitHub(w.monaTok).Issues.ListIssueEvents(ctx, "mona", "app", 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.GetEvent())
	}
	if strings.Join(kinds, ",") != "milestoned,labeled,assigned" {
		t.Fatalf("events: %v", kinds)
	}
	// A reader may open issues but not label them: labels are dropped, as REST does.
	r = post(t, w.e, w.melTok, create, map[string]any{"in": map[string]any{"repositoryId": repoID, "title": "From mel", "labelIds": []string{bug}}})
	if n := len(dig(mustData(t, r), "createIssue", "issue", "labels", "nodes").([]any)); n != 0 {
		t.Fatalf("reader's labels: %s", r.Raw)
	}
	// Bad input: GitHub's error types, nothing written.
	r = post(t, w.e, w.monaTok, create, map[string]any{"in": map[string]any{"repositoryId": repoID, "title": "  "}})
	if len(r.Errors) != 1 || r.Errors[0].Type != "UNPROCESSABLE" || dig(r.Data, "createIssue") != nil {
		t.Fatalf("empty title: %s", r.Raw)
	}
	secret := nodeID(t, w, "/repos/mona/secret")
	r = post(t, w.e, w.strTok, create, map[string]any{"in": map[string]any{"repositoryId": secret, "title": "sneaky"}})
	if len(r.Errors) != 1 || r.Errors[0].Type != "NOT_FOUND" {
		t.Fatalf("hidden repository: %s", r.Raw)
	}
	if n, _, _ := w.e.GitHub(w.monaTok).Issues.ListByRepo(ctx, "mona", "secret", nil); len(n) != 0 {
		t.Fatalf("an issue was written: %v", n)
	}

	issue3 := nodeID(t, w, "/repos/mona/app/issues/3")
	r = post(t, w.e, w.monaTok, `mutation($id: ID!) { closeIssue(input: {issueId: $id, stateReason: NOT_PLANNED}) { issue { state stateReason closed } } }`,
		map[string]any{"id": issue3})
	if dig(mustData(t, r), "closeIssue", "issue", "stateReason") != "NOT_PLANNED" || dig(r.Data, "closeIssue", "issue", "closed") != true {
		t.Fatalf("closeIssue: %s", r.Raw)
	}
	// mel (read) may not close mona's issue.
	r = post(t, w.e, w.melTok, `mutation($id: ID!) { reopenIssue(input: {issueId: $id}) { issue { state } } }`, map[string]any{"id": issue3})
	if len(r.Errors) != 1 || r.Errors[0].Type != "FORBIDDEN" {
		t.Fatalf("reader reopening: %s", r.Raw)
	}
	r = post(t, w.e, w.monaTok, `mutation($id: ID!) { reopenIssue(input: {issueId: $id}) { issue { state stateReason } } }`, map[string]any{"id": issue3})
	if dig(mustData(t, r), "reopenIssue", "issue", "stateReason") != "REOPENED" {
		t.Fatalf("reopenIssue: %s", r.Raw)
	}
	r = post(t, w.e, w.monaTok, `mutation($id: ID!) { updateIssue(input: {id: $id, title: "Renamed", labelIds: [], milestoneId: null}) {
		actor { login } issue { title labels(first: 5) { totalCount } milestone { title } } } }`, map[string]any{"id": issue3})
	if dig(mustData(t, r), "updateIssue", "issue", "title") != "Renamed" || dig(r.Data, "updateIssue", "issue", "milestone") != nil ||
		dig(r.Data, "updateIssue", "issue", "labels", "totalCount").(json.Number).String() != "0" || dig(r.Data, "updateIssue", "actor", "login") != "mona" {
		t.Fatalf("updateIssue: %s", r.Raw)
	}
	r = post(t, w.e, w.monaTok, `mutation($id: ID!, $l: [ID!]!) { addLabelsToLabelable(input: {labelableId: $id, labelIds: $l}) {
		labelable { ... on Issue { labels(first: 5) { nodes { name } } } } } }`, map[string]any{"id": issue3, "l": []string{bug}})
	if len(dig(mustData(t, r), "addLabelsToLabelable", "labelable", "labels", "nodes").([]any)) != 1 {
		t.Fatalf("addLabelsToLabelable: %s", r.Raw)
	}
	r = post(t, w.e, w.monaTok, `mutation($id: ID!, $l: [ID!]!) { removeLabelsFromLabelable(input: {labelableId: $id, labelIds: $l}) {
		labelable { labels(first: 5) { totalCount } } } }`, map[string]any{"id": issue3, "l": []string{bug}})
	if dig(mustData(t, r), "removeLabelsFromLabelable", "labelable", "labels", "totalCount").(json.Number).String() != "0" {
		t.Fatalf("removeLabelsFromLabelable: %s", r.Raw)
	}
	r = post(t, w.e, w.monaTok, `mutation($id: ID!, $u: [ID!]!) { addAssigneesToAssignable(input: {assignableId: $id, assigneeIds: $u}) {
		assignable { assignees(first: 5) { nodes { login } } } } }`, map[string]any{"id": issue3, "u": []string{mona}})
	if len(dig(mustData(t, r), "addAssigneesToAssignable", "assignable", "assignees", "nodes").([]any)) != 1 {
		t.Fatalf("addAssigneesToAssignable: %s", r.Raw)
	}
	// mel cannot be assigned in mona/app (no push): REST's 422.
	r = post(t, w.e, w.monaTok, `mutation($id: ID!, $u: [ID!]!) { addAssigneesToAssignable(input: {assignableId: $id, assigneeIds: $u}) { clientMutationId } }`,
		map[string]any{"id": issue3, "u": []string{nodeID(t, w, "/users/mel")}})
	if len(r.Errors) != 1 || r.Errors[0].Type != "UNPROCESSABLE" {
		t.Fatalf("unassignable user: %s", r.Raw)
	}
	r = post(t, w.e, w.monaTok, `mutation($id: ID!, $u: [ID!]!) { removeAssigneesFromAssignable(input: {assignableId: $id, assigneeIds: $u}) {
		assignable { assignees(first: 5) { totalCount } } } }`, map[string]any{"id": issue3, "u": []string{mona}})
	if dig(mustData(t, r), "removeAssigneesFromAssignable", "assignable", "assignees", "totalCount").(json.Number).String() != "0" {
		t.Fatalf("removeAssigneesFromAssignable: %s", r.Raw)
	}
	// A reader comments; the comment is the issue's, in REST too.
	r = post(t, w.e, w.melTok, `mutation($id: ID!) { addComment(input: {subjectId: $id, body: "hello @mona"}) {
		commentEdge { cursor node { body author { login } } } subject { id ... on Issue { comments { totalCount } } } } }`, map[string]any{"id": issue3})
	if dig(mustData(t, r), "addComment", "commentEdge", "node", "author", "login") != "mel" ||
		dig(r.Data, "addComment", "subject", "comments", "totalCount").(json.Number).String() != "1" {
		t.Fatalf("addComment: %s", r.Raw)
	}
	comments, _, err := w.e.GitHub(w.monaTok).Issues.ListComments(ctx, "mona", "app", 3, nil)
	if err != nil || len(comments) != 1 || comments[0].GetBody() != "hello @mona" {
		t.Fatalf("REST comments: %v %v", comments, err)
	}
	// A locked conversation refuses readers, as REST does.
	if _, err := w.e.GitHub(w.monaTok).Issues.Lock(ctx, "mona", "app", 3, &github.LockIssueOptions{}); err != nil {
		t.Fatal(err)
	}
	r = post(t, w.e, w.melTok, `mutation($id: ID!) { addComment(input: {subjectId: $id, body: "more"}) { clientMutationId } }`, map[string]any{"id": issue3})
	if len(r.Errors) != 1 || r.Errors[0].Type != "FORBIDDEN" {
		t.Fatalf("locked: %s", r.Raw)
	}
}
