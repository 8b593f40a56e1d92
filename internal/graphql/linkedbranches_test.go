package graphql_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
)

// names is the ref names of a linkedBranches connection's nodes,
// comma-joined.
func names(v any) string {
	var out []string
	list, _ := dig(v, "nodes").([]any)
	for _, n := range list {
		out = append(out, dig(n, "ref", "name").(string))
	}
	return strings.Join(out, ",")
}

// TestLinkedBranches: createLinkedBranch creates a branch (through the
// ref service REST's git refs run) and links it to the issue;
// Issue.linkedBranches pages the links across issues; deleteLinkedBranch
// removes a link and keeps the branch; a deleted branch leaves the list;
// a branch in a repository the viewer may not see is left out.
func TestLinkedBranches(t *testing.T) {
	w := newWorld(t)
	seedIssues(t, w, 3)
	gh := w.e.GitHub(w.monaTok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("hidden"), Private: github.Ptr(true), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	sha := func(repo, branch string) string {
		t.Helper()
		b, _, err := gh.Repositories.GetBranch(ctx, "mona", repo, branch, 0)
		if err != nil {
			t.Fatal(err)
		}
		return b.GetCommit().GetSHA()
	}
	main, hiddenMain := sha("app", "main"), sha("hidden", "main")
	i1, i2 := nodeID(t, w, "/repos/mona/app/issues/1"), nodeID(t, w, "/repos/mona/app/issues/2")
	hidden := nodeID(t, w, "/repos/mona/hidden")

	// gh issue develop checks that the type exists.
	r := post(t, w.e, w.monaTok, `{ LinkedBranch: __type(name: "LinkedBranch") { fields { name } } }`, nil)
	if f, _ := dig(mustData(t, r), "LinkedBranch", "fields").([]any); len(f) != 2 {
		t.Fatalf("LinkedBranch by introspection: %s", r.Raw)
	}

	create := `mutation($in: CreateLinkedBranchInput!) { createLinkedBranch(input: $in) { clientMutationId
		issue { number } linkedBranch { id ref { name prefix repository { nameWithOwner } target { oid } } } } }`
	in := func(m map[string]any) map[string]any { return map[string]any{"in": m} }
	// The name defaults to the issue's number and title.
	r = post(t, w.e, w.monaTok, create, in(map[string]any{"issueId": i1, "oid": main, "clientMutationId": "c1"}))
	d := mustData(t, r)
	lb := dig(d, "createLinkedBranch", "linkedBranch")
	if dig(d, "createLinkedBranch", "clientMutationId") != "c1" || dig(d, "createLinkedBranch", "issue", "number").(json.Number).String() != "1" ||
		dig(lb, "ref", "name") != "1-issue-1" || dig(lb, "ref", "prefix") != "refs/heads/" || dig(lb, "ref", "target", "oid") != main ||
		dig(lb, "ref", "repository", "nameWithOwner") != "mona/app" {
		t.Fatalf("createLinkedBranch: %s", r.Raw)
	}
	first := dig(lb, "id").(string)
	// REST sees the branch, as created through git refs.
	ref := w.e.Must(200, "GET", "/repos/mona/app/git/ref/heads/1-issue-1", w.monaTok, nil).Map(t)
	if ref["object"].(map[string]any)["sha"] != main {
		t.Fatalf("REST ref: %v", ref)
	}
	for _, name := range []string{"two", "three"} {
		r = post(t, w.e, w.monaTok, create, in(map[string]any{"issueId": i1, "oid": main, "name": name}))
		mustData(t, r)
	}
	// In another repository (repositoryId), one a reader may not see.
	r = post(t, w.e, w.monaTok, create, in(map[string]any{"issueId": i2, "oid": hiddenMain, "name": "secret-work", "repositoryId": hidden}))
	if dig(mustData(t, r), "createLinkedBranch", "linkedBranch", "ref", "repository", "nameWithOwner") != "mona/hidden" {
		t.Fatalf("createLinkedBranch in another repository: %s", r.Raw)
	}
	r = post(t, w.e, w.monaTok, create, in(map[string]any{"issueId": i2, "oid": main, "name": "open-work"}))
	mustData(t, r)

	// Refusals.
	for _, c := range []struct {
		name, token string
		in          map[string]any
		typ, msg    string
	}{
		{"existing name", w.monaTok, map[string]any{"issueId": i1, "oid": main, "name": "main"}, "UNPROCESSABLE", `A ref named "refs/heads/main" already exists in the repository.`},
		{"unknown oid", w.monaTok, map[string]any{"issueId": i1, "oid": strings.Repeat("ab", 20)}, "UNPROCESSABLE", "Could not resolve to a commit with the oid"},
		{"bad name", w.monaTok, map[string]any{"issueId": i1, "oid": main, "name": "a..b"}, "UNPROCESSABLE", "is not a valid ref name"},
		{"reader", w.melTok, map[string]any{"issueId": i1, "oid": main, "name": "mels"}, "FORBIDDEN", "mel does not have the correct permissions to execute `CreateLinkedBranch`"},
		{"invisible repository", w.melTok, map[string]any{"issueId": i1, "oid": main, "name": "mels", "repositoryId": hidden}, "NOT_FOUND", "Could not resolve to a node"},
		{"unknown issue", w.monaTok, map[string]any{"issueId": "I_nope", "oid": main}, "NOT_FOUND", "Could not resolve to a node"},
	} {
		r = post(t, w.e, c.token, create, in(c.in))
		if errType(r) != c.typ || !strings.Contains(r.Errors[0].Message, c.msg) {
			t.Errorf("%s: %s", c.name, r.Raw)
		}
	}
	if _, _, err := gh.Git.GetRef(ctx, "mona", "app", "refs/heads/mels"); err == nil {
		t.Fatal("a refused createLinkedBranch left a branch")
	}

	// linkedBranches: oldest first, paged, across a batch of issues.
	list := `query($after: String) { repository(owner: "mona", name: "app") { issues(first: 3, orderBy: {field: CREATED_AT, direction: ASC}) { nodes { number
		linkedBranches(first: 2, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { cursor } nodes { id ref { name } } } } } } }`
	r = post(t, w.e, w.monaTok, list, nil)
	nodes := dig(mustData(t, r), "repository", "issues", "nodes").([]any)
	if len(nodes) != 3 || names(dig(nodes[0], "linkedBranches")) != "1-issue-1,two" || dig(nodes[0], "linkedBranches", "totalCount").(json.Number).String() != "3" ||
		dig(nodes[0], "linkedBranches", "pageInfo", "hasNextPage") != true || names(dig(nodes[1], "linkedBranches")) != "secret-work,open-work" ||
		names(dig(nodes[2], "linkedBranches")) != "" || dig(nodes[0], "linkedBranches", "nodes").([]any)[0].(map[string]any)["id"] != first {
		t.Fatalf("linkedBranches: %s", r.Raw)
	}
	cursor := dig(nodes[0], "linkedBranches", "pageInfo", "endCursor")
	r = post(t, w.e, w.monaTok, list, map[string]any{"after": cursor})
	if got := names(dig(dig(mustData(t, r), "repository", "issues", "nodes").([]any)[0], "linkedBranches")); got != "three" {
		t.Fatalf("after %v: %q in %s", cursor, got, r.Raw)
	}
	last := `{ repository(owner: "mona", name: "app") { issue(number: 1) { linkedBranches(last: 1) { nodes { ref { name } } } } } }`
	if got := names(dig(mustData(t, post(t, w.e, w.monaTok, last, nil)), "repository", "issue", "linkedBranches")); got != "three" {
		t.Fatalf("last: 1: %q", got)
	}
	// A reader does not see the branch in mona/hidden.
	two := `{ repository(owner: "mona", name: "app") { issue(number: 2) { linkedBranches(first: 10) { totalCount nodes { ref { name } } } } } }`
	if got := names(dig(mustData(t, post(t, w.e, w.melTok, two, nil)), "repository", "issue", "linkedBranches")); got != "open-work" {
		t.Fatalf("mel sees %q", got)
	}
	// totalCount alone needs no first or last, as GitHub answers it.
	r = post(t, w.e, w.monaTok, `{ repository(owner: "mona", name: "app") { issue(number: 1) { linkedBranches { totalCount } } } }`, nil)
	if dig(mustData(t, r), "repository", "issue", "linkedBranches", "totalCount").(json.Number).String() != "3" {
		t.Fatalf("totalCount alone: %s", r.Raw)
	}

	// node(id:) resolves a LinkedBranch.
	r = post(t, w.e, w.monaTok, `query($id: ID!) { node(id: $id) { __typename ... on LinkedBranch { ref { name } } } }`, map[string]any{"id": first})
	if d := mustData(t, r); dig(d, "node", "__typename") != "LinkedBranch" || dig(d, "node", "ref", "name") != "1-issue-1" {
		t.Fatalf("node: %s", r.Raw)
	}

	// A branch deleted (through REST) is no longer linked.
	if _, err := gh.Git.DeleteRef(ctx, "mona", "app", "refs/heads/two"); err != nil {
		t.Fatal(err)
	}
	one := `{ repository(owner: "mona", name: "app") { issue(number: 1) { linkedBranches(first: 10) { totalCount nodes { id ref { name } } } } } }`
	r = post(t, w.e, w.monaTok, one, nil)
	if lbs := dig(mustData(t, r), "repository", "issue", "linkedBranches"); names(lbs) != "1-issue-1,three" || dig(lbs, "totalCount").(json.Number).String() != "2" {
		t.Fatalf("after deleting two: %s", r.Raw)
	}

	// deleteLinkedBranch removes the link, not the branch; a reader may not.
	del := `mutation($in: DeleteLinkedBranchInput!) { deleteLinkedBranch(input: $in) { clientMutationId issue { number } } }`
	r = post(t, w.e, w.melTok, del, in(map[string]any{"linkedBranchId": first}))
	if errType(r) != "FORBIDDEN" {
		t.Fatalf("a reader's deleteLinkedBranch: %s", r.Raw)
	}
	r = post(t, w.e, w.monaTok, del, in(map[string]any{"linkedBranchId": first, "clientMutationId": "d1"}))
	if d := mustData(t, r); dig(d, "deleteLinkedBranch", "clientMutationId") != "d1" || dig(d, "deleteLinkedBranch", "issue", "number").(json.Number).String() != "1" {
		t.Fatalf("deleteLinkedBranch: %s", r.Raw)
	}
	if _, _, err := gh.Git.GetRef(ctx, "mona", "app", "refs/heads/1-issue-1"); err != nil {
		t.Fatalf("the branch went with its link: %v", err)
	}
	if got := names(dig(mustData(t, post(t, w.e, w.monaTok, one, nil)), "repository", "issue", "linkedBranches")); got != "three" {
		t.Fatalf("after deleteLinkedBranch: %q", got)
	}
	r = post(t, w.e, w.monaTok, del, in(map[string]any{"linkedBranchId": first}))
	if errType(r) != "NOT_FOUND" {
		t.Fatalf("deleting a deleted link: %s", r.Raw)
	}
}

// TestCreateRef: createRef runs the ref service REST's git refs run: REST
// sees the ref it creates; a taken name, a missing object, a name outside
// refs/ and a reader are refused.
func TestCreateRef(t *testing.T) {
	w := newWorld(t)
	gh := w.e.GitHub(w.monaTok)
	b, _, err := gh.Repositories.GetBranch(ctx, "mona", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	main := b.GetCommit().GetSHA()
	repo := nodeID(t, w, "/repos/mona/app")
	create := `mutation($in: CreateRefInput!) { createRef(input: $in) { clientMutationId ref { id name prefix target { oid } } } }`
	r := post(t, w.e, w.monaTok, create, map[string]any{"in": map[string]any{"repositoryId": repo, "name": "refs/heads/topic", "oid": main, "clientMutationId": "r1"}})
	if d := mustData(t, r); dig(d, "createRef", "clientMutationId") != "r1" || dig(d, "createRef", "ref", "name") != "topic" ||
		dig(d, "createRef", "ref", "prefix") != "refs/heads/" || dig(d, "createRef", "ref", "target", "oid") != main {
		t.Fatalf("createRef: %s", r.Raw)
	}
	if ref := w.e.Must(200, "GET", "/repos/mona/app/git/ref/heads/topic", w.monaTok, nil).Map(t); ref["object"].(map[string]any)["sha"] != main {
		t.Fatalf("REST ref: %v", ref)
	}
	for _, c := range []struct {
		name, token, ref, oid, typ, msg string
	}{
		{"taken", w.monaTok, "refs/heads/topic", main, "UNPROCESSABLE", `A ref named "refs/heads/topic" already exists in the repository.`},
		{"no object", w.monaTok, "refs/heads/x", strings.Repeat("0a", 20), "UNPROCESSABLE", "Could not resolve to a commit with the oid"},
		{"short name", w.monaTok, "x", main, "UNPROCESSABLE", "Reference name must start with 'refs/'"},
		{"reader", w.melTok, "refs/heads/mels", main, "FORBIDDEN", "mel does not have the correct permissions to execute `CreateRef`"},
	} {
		r = post(t, w.e, c.token, create, map[string]any{"in": map[string]any{"repositoryId": repo, "name": c.ref, "oid": c.oid}})
		if errType(r) != c.typ || !strings.Contains(r.Errors[0].Message, c.msg) {
			t.Errorf("%s: %s", c.name, r.Raw)
		}
	}
}
