package graphql_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/google/go-github/v92/github"
)

func numbersOf(v any) []string {
	var out []string
	nodes, _ := v.([]any)
	for _, n := range nodes {
		out = append(out, fmt.Sprint(n.(map[string]any)["number"]))
	}
	return out
}

// PullRequest.closingIssuesReferences and
// Issue.closedByPullRequestsReferences: the issues a pull request's body
// closes and back, paginated, batched over lists; closed unmerged pull
// requests only with includeClosedPrs; userLinkedOnly lists none.
func TestClosingReferences(t *testing.T) {
	w := newWorld(t)
	gh := w.e.GitHub(w.monaTok)
	for _, title := range []string{"a", "b"} {
		if _, _, err := gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: title}); err != nil {
			t.Fatal(err)
		}
	}
	one := openPull(t, w, "one", "One")
	two := openPull(t, w, "two", "Two")
	// In order: links list oldest first.
	for _, e := range []struct {
		pr   int
		body string
	}{{one.GetNumber(), "Fixes #1, fixes #2 and closes octo/core#1"}, {two.GetNumber(), "resolves #1"}} {
		if _, _, err := gh.PullRequests.Edit(ctx, "mona", "app", e.pr, &github.PullRequest{Body: github.Ptr(e.body)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := gh.PullRequests.Edit(ctx, "mona", "app", two.GetNumber(), &github.PullRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	q := `query($n: Int!) { repository(owner: "mona", name: "app") {
  pullRequest(number: $n) { closingIssuesReferences(first: 1) { totalCount nodes { number repository { nameWithOwner } } pageInfo { hasNextPage endCursor } } }
  pullRequests(first: 10) { nodes { number closingIssuesReferences(first: 10) { totalCount nodes { number } } } }
  issue(number: 1) {
    open: closedByPullRequestsReferences(first: 10) { totalCount nodes { number state } }
    all: closedByPullRequestsReferences(first: 10, includeClosedPrs: true) { totalCount nodes { number } }
    linked: closedByPullRequestsReferences(first: 10, userLinkedOnly: true) { totalCount }
  }
} }`
	d := mustData(t, post(t, w.e, w.monaTok, q, map[string]any{"n": one.GetNumber()}))
	refs := dig(d, "repository", "pullRequest", "closingIssuesReferences")
	if fmt.Sprint(dig(refs, "totalCount")) != "2" || fmt.Sprint(numbersOf(dig(refs, "nodes"))) != "[1]" || dig(refs, "pageInfo", "hasNextPage") != true {
		t.Fatalf("closingIssuesReferences %v", refs)
	}
	after := dig(refs, "pageInfo", "endCursor").(string)
	d2 := mustData(t, post(t, w.e, w.monaTok, `query($n: Int!, $after: String) { repository(owner: "mona", name: "app") {
  pullRequest(number: $n) { closingIssuesReferences(first: 5, after: $after) { nodes { number } }
    tail: closingIssuesReferences(last: 1) { totalCount nodes { number } } } } }`, map[string]any{"n": one.GetNumber(), "after": after}))
	if got := numbersOf(dig(d2, "repository", "pullRequest", "closingIssuesReferences", "nodes")); fmt.Sprint(got) != "[2]" {
		t.Fatalf("second page %v", got)
	}
	// Pages are cut in SQL: the last page too.
	if tail := dig(d2, "repository", "pullRequest", "tail"); fmt.Sprint(numbersOf(dig(tail, "nodes"))) != "[2]" || fmt.Sprint(dig(tail, "totalCount")) != "2" {
		t.Fatalf("last page %v", tail)
	}
	lists := map[string][]string{}
	for _, n := range dig(d, "repository", "pullRequests", "nodes").([]any) {
		m := n.(map[string]any)
		lists[fmt.Sprint(m["number"])] = numbersOf(dig(m, "closingIssuesReferences", "nodes"))
	}
	if fmt.Sprint(lists[strconv.Itoa(one.GetNumber())]) != "[1 2]" || fmt.Sprint(lists[strconv.Itoa(two.GetNumber())]) != "[1]" {
		t.Fatalf("batched lists %v", lists)
	}
	is := dig(d, "repository", "issue")
	if got := numbersOf(dig(is, "open", "nodes")); fmt.Sprint(got) != fmt.Sprint([]int{one.GetNumber()}) {
		t.Errorf("closedByPullRequestsReferences %v", got)
	}
	if got := numbersOf(dig(is, "all", "nodes")); fmt.Sprint(got) != fmt.Sprint([]int{one.GetNumber(), two.GetNumber()}) {
		t.Errorf("with closed pull requests %v", got)
	}
	if fmt.Sprint(dig(is, "linked", "totalCount")) != "0" {
		t.Errorf("userLinkedOnly %v", dig(is, "linked"))
	}
}
