package graphql_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
)

// numbers is the issue numbers of a connection's nodes, comma-joined.
func numbers(v any) string {
	var out []string
	list, _ := dig(v, "nodes").([]any)
	for _, n := range list {
		out = append(out, fmt.Sprint(dig(n, "number")))
	}
	return strings.Join(out, ",")
}

// TestIssueRelationMutations: gh's comment --edit-last, lock/unlock,
// sub-issues and blocked-by run the issue service with REST's rules, and
// the issue's fields show the result.
func TestIssueRelationMutations(t *testing.T) {
	w := newWorld(t)
	seedIssues(t, w, 4)
	gh := w.e.GitHub(w.monaTok)
	c, _, err := gh.Issues.CreateComment(ctx, "mona", "app", 1, github.IssueCommentRequest{Body: "first words"})
	if err != nil {
		t.Fatal(err)
	}
	id := func(n int) string { return nodeID(t, w, fmt.Sprintf("/repos/mona/app/issues/%d", n)) }
	i1, i2, i3, i4 := id(1), id(2), id(3), id(4)

	// updateIssueComment: the author edits; a reader who did not write it may not.
	edit := `mutation($in: UpdateIssueCommentInput!) { updateIssueComment(input: $in) { clientMutationId issueComment { body url issue { number } } } }`
	r := post(t, w.e, w.monaTok, edit, map[string]any{"in": map[string]any{"id": c.GetNodeID(), "body": "second words", "clientMutationId": "e1"}})
	if d := mustData(t, r); dig(d, "updateIssueComment", "issueComment", "body") != "second words" || dig(d, "updateIssueComment", "clientMutationId") != "e1" {
		t.Fatalf("updateIssueComment: %s", r.Raw)
	}
	if got, _, _ := gh.Issues.GetComment(ctx, "mona", "app", c.GetID()); got.GetBody() != "second words" {
		t.Fatalf("REST sees %q", got.GetBody())
	}
	r = post(t, w.e, w.melTok, edit, map[string]any{"in": map[string]any{"id": c.GetNodeID(), "body": "mel's"}})
	if errType(r) != "FORBIDDEN" {
		t.Fatalf("reader edits another's comment: %s", r.Raw)
	}

	// lockLockable / unlockLockable: write access.
	lock := `mutation($in: LockLockableInput!) { lockLockable(input: $in) { actor { login } lockedRecord { locked activeLockReason ... on Issue { number } } } }`
	r = post(t, w.e, w.monaTok, lock, map[string]any{"in": map[string]any{"lockableId": i1, "lockReason": "TOO_HEATED"}})
	if d := mustData(t, r); dig(d, "lockLockable", "lockedRecord", "locked") != true || dig(d, "lockLockable", "lockedRecord", "activeLockReason") != "TOO_HEATED" ||
		dig(d, "lockLockable", "actor", "login") != "mona" {
		t.Fatalf("lockLockable: %s", r.Raw)
	}
	if is, _, _ := gh.Issues.Get(ctx, "mona", "app", 1); !is.GetLocked() || is.GetActiveLockReason() != "too heated" {
		t.Fatalf("REST sees locked=%v reason=%q", is.GetLocked(), is.GetActiveLockReason())
	}
	r = post(t, w.e, w.melTok, lock, map[string]any{"in": map[string]any{"lockableId": i2}})
	if errType(r) != "FORBIDDEN" {
		t.Fatalf("reader locks: %s", r.Raw)
	}
	unlock := `mutation($in: UnlockLockableInput!) { unlockLockable(input: $in) { unlockedRecord { locked } } }`
	r = post(t, w.e, w.monaTok, unlock, map[string]any{"in": map[string]any{"lockableId": i1}})
	if dig(mustData(t, r), "unlockLockable", "unlockedRecord", "locked") != false {
		t.Fatalf("unlockLockable: %s", r.Raw)
	}

	// pinIssue / unpinIssue: write access, at most three per repository.
	pin := `mutation($in: PinIssueInput!) { pinIssue(input: $in) { issue { number isPinned } } }`
	for _, is := range []string{i1, i2, i3} {
		r = post(t, w.e, w.monaTok, pin, map[string]any{"in": map[string]any{"issueId": is}})
		if dig(mustData(t, r), "pinIssue", "issue", "isPinned") != true {
			t.Fatalf("pinIssue: %s", r.Raw)
		}
	}
	r = post(t, w.e, w.monaTok, pin, map[string]any{"in": map[string]any{"issueId": i4}})
	if errType(r) != "UNPROCESSABLE" || !strings.Contains(string(r.Raw), "already has 3 pinned issues") {
		t.Fatalf("a fourth pin: %s", r.Raw)
	}
	r = post(t, w.e, w.melTok, `mutation($in: UnpinIssueInput!) { unpinIssue(input: $in) { issue { isPinned } } }`, map[string]any{"in": map[string]any{"issueId": i1}})
	if errType(r) != "FORBIDDEN" {
		t.Fatalf("reader unpins: %s", r.Raw)
	}
	r = post(t, w.e, w.monaTok, `mutation($in: UnpinIssueInput!) { unpinIssue(input: $in) { id issue { isPinned } } }`, map[string]any{"in": map[string]any{"issueId": i2}})
	if dig(mustData(t, r), "unpinIssue", "issue", "isPinned") != false {
		t.Fatalf("unpinIssue: %s", r.Raw)
	}
	r = post(t, w.e, w.melTok, `{ repository(owner: "mona", name: "app") { pinnedIssues(first: 3) { totalCount nodes { pinnedBy { login } issue { number } } } } }`, nil)
	pins := dig(mustData(t, r), "repository", "pinnedIssues", "nodes").([]any)
	if len(pins) != 2 || fmt.Sprint(dig(pins[0], "issue", "number")) != "1" || dig(pins[1], "pinnedBy", "login") != "mona" {
		t.Fatalf("pinnedIssues: %s", r.Raw)
	}

	// Sub-issues: 2 and 3 under 1, reordered; a cycle is refused.
	add := `mutation($in: AddSubIssueInput!) { addSubIssue(input: $in) { issue { number subIssues(first: 10) { totalCount nodes { number } } subIssuesSummary { total } } subIssue { number parent { number } } } }`
	for _, sub := range []string{i2, i3} {
		r = post(t, w.e, w.monaTok, add, map[string]any{"in": map[string]any{"issueId": i1, "subIssueId": sub}})
		mustData(t, r)
	}
	if d := mustData(t, r); numbers(dig(d, "addSubIssue", "issue", "subIssues")) != "2,3" || fmt.Sprint(dig(d, "addSubIssue", "subIssue", "parent", "number")) != "1" {
		t.Fatalf("addSubIssue: %s", r.Raw)
	}
	r = post(t, w.e, w.monaTok, add, map[string]any{"in": map[string]any{"issueId": i2, "subIssueId": i1}})
	if errType(r) != "UNPROCESSABLE" || !strings.Contains(string(r.Raw), "its own sub-issue") {
		t.Fatalf("cycle: %s", r.Raw)
	}
	r = post(t, w.e, w.melTok, add, map[string]any{"in": map[string]any{"issueId": i4, "subIssueId": i2}})
	if errType(r) != "FORBIDDEN" {
		t.Fatalf("reader adds a sub-issue: %s", r.Raw)
	}
	// By URL, as GitHub's subIssueUrl.
	r = post(t, w.e, w.monaTok, add, map[string]any{"in": map[string]any{"issueId": i1, "subIssueUrl": w.e.URL + "/mona/app/issues/4"}})
	if numbers(dig(mustData(t, r), "addSubIssue", "issue", "subIssues")) != "2,3,4" {
		t.Fatalf("addSubIssue by URL: %s", r.Raw)
	}
	move := `mutation($in: ReprioritizeSubIssueInput!) { reprioritizeSubIssue(input: $in) { issue { subIssues(first: 10) { nodes { number } } } } }`
	r = post(t, w.e, w.monaTok, move, map[string]any{"in": map[string]any{"issueId": i1, "subIssueId": i4, "beforeId": i2}})
	if numbers(dig(mustData(t, r), "reprioritizeSubIssue", "issue", "subIssues")) != "4,2,3" {
		t.Fatalf("reprioritizeSubIssue: %s", r.Raw)
	}
	remove := `mutation($in: RemoveSubIssueInput!) { removeSubIssue(input: $in) { issue { subIssues(first: 10) { nodes { number } } } subIssue { parent { number } } } }`
	r = post(t, w.e, w.monaTok, remove, map[string]any{"in": map[string]any{"issueId": i1, "subIssueId": i2}})
	if d := mustData(t, r); numbers(dig(d, "removeSubIssue", "issue", "subIssues")) != "4,3" || dig(d, "removeSubIssue", "subIssue", "parent") != nil {
		t.Fatalf("removeSubIssue: %s", r.Raw)
	}
	if subs, _, err := w.e.GitHub(w.monaTok).SubIssue.ListByIssue(ctx, "mona", "app", 1, nil); err != nil || len(subs) != 2 {
		t.Fatalf("REST sub-issues: %d %v", len(subs), err)
	}

	// Blocked-by: 2 is blocked by 3 and 4; no cycles; removal.
	block := `mutation($in: AddBlockedByInput!) { addBlockedBy(input: $in) { issue { number blockedBy(first: 5) { totalCount nodes { number } } } blockingIssue { number blocking(first: 5) { nodes { number } } } } }`
	for _, b := range []string{i3, i4} {
		r = post(t, w.e, w.monaTok, block, map[string]any{"in": map[string]any{"issueId": i2, "blockingIssueId": b}})
		mustData(t, r)
	}
	if d := mustData(t, r); numbers(dig(d, "addBlockedBy", "issue", "blockedBy")) != "3,4" || numbers(dig(d, "addBlockedBy", "blockingIssue", "blocking")) != "2" {
		t.Fatalf("addBlockedBy: %s", r.Raw)
	}
	r = post(t, w.e, w.monaTok, block, map[string]any{"in": map[string]any{"issueId": i3, "blockingIssueId": i2}})
	if errType(r) != "UNPROCESSABLE" || !strings.Contains(string(r.Raw), "Circular dependencies are not allowed.") {
		t.Fatalf("circular: %s", r.Raw)
	}
	unblock := `mutation($in: RemoveBlockedByInput!) { removeBlockedBy(input: $in) { issue { blockedBy(first: 5) { nodes { number } } } blockingIssue { number } } }`
	r = post(t, w.e, w.monaTok, unblock, map[string]any{"in": map[string]any{"issueId": i2, "blockingIssueId": i3}})
	if numbers(dig(mustData(t, r), "removeBlockedBy", "issue", "blockedBy")) != "4" {
		t.Fatalf("removeBlockedBy: %s", r.Raw)
	}
	r = post(t, w.e, w.monaTok, unblock, map[string]any{"in": map[string]any{"issueId": i2, "blockingIssueId": i3}})
	if errType(r) != "NOT_FOUND" {
		t.Fatalf("removing a missing dependency: %s", r.Raw)
	}
	// The events REST lists for the blocked issue.
	events, _, err := gh.Issues.ListIssueEvents(ctx, "mona", "app", 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.GetEvent())
	}
	if got := strings.Join(kinds, ","); !strings.Contains(got, "pinned,unpinned") || !strings.Contains(got, "blocked_by_added,blocked_by_added,blocked_by_removed") {
		t.Fatalf("events of #2: %s", got)
	}
}
