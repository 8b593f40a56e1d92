package graphql_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/graphql/engine"
)

// corpus reads a query gh 2.100.0 sends, as captured in testdata.
func corpus(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "gh-queries", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// openPull pushes a commit to branch and opens a pull request into main.
func openPull(t *testing.T, w *world, branch, title string) *github.PullRequest {
	t.Helper()
	gh := w.e.GitHub(w.monaTok)
	b, _, err := gh.Repositories.GetBranch(ctx, "mona", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Git.CreateRef(ctx, "mona", "app", github.CreateRef{Ref: "refs/heads/" + branch, SHA: b.GetCommit().GetSHA()}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateFile(ctx, "mona", "app", branch+".txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("add " + branch), Content: []byte(branch + "\n"), Branch: github.Ptr(branch)}); err != nil {
		t.Fatal(err)
	}
	pr, _, err := gh.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr(title), Head: branch, Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	return pr
}

func TestPullRequests(t *testing.T) {
	w := newWorld(t)
	seedIssues(t, w, 1)
	one := openPull(t, w, "feature", "Add a feature")
	two := openPull(t, w, "other", "Another change")
	gh := w.e.GitHub(w.monaTok)
	w.e.RunJobs()
	if _, _, err := gh.PullRequests.Merge(ctx, "mona", "app", two.GetNumber(), "", &github.PullRequestOptions{MergeMethod: "squash"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Reactions.CreateIssueReaction(ctx, "mona", "app", one.GetNumber(), "heart"); err != nil {
		t.Fatal(err)
	}
	w.e.RunJobs() // mergeability after the merge moved main

	// gh pr list, as gh sends it (open by default).
	r := post(t, w.e, w.melTok, corpus(t, "pr-list.graphql"), map[string]any{"owner": "mona", "repo": "app", "limit": 30})
	prs := dig(mustData(t, r), "repository", "pullRequests").(map[string]any)
	nodes := prs["nodes"].([]any)
	if prs["totalCount"].(json.Number).String() != "1" || len(nodes) != 1 || dig(nodes[0], "headRefName") != "feature" ||
		dig(nodes[0], "state") != "OPEN" || dig(nodes[0], "isCrossRepository") != false || dig(nodes[0], "headRepositoryOwner", "login") != "mona" {
		t.Fatalf("pr list: %s", r.Raw)
	}
	// --state merged, and all of them by head branch.
	r = post(t, w.e, w.melTok, corpus(t, "pr-list.graphql"), map[string]any{"owner": "mona", "repo": "app", "limit": 30, "state": []string{"MERGED"}})
	nodes = dig(mustData(t, r), "repository", "pullRequests", "nodes").([]any)
	if len(nodes) != 1 || dig(nodes[0], "state") != "MERGED" || dig(nodes[0], "title") != "Another change" {
		t.Fatalf("merged: %s", r.Raw)
	}
	r = post(t, w.e, w.melTok, corpus(t, "pr-list.graphql"), map[string]any{"owner": "mona", "repo": "app", "limit": 30,
		"state": []string{"OPEN", "CLOSED", "MERGED"}, "headBranch": "other"})
	if n := dig(mustData(t, r), "repository", "pullRequests", "totalCount").(json.Number).String(); n != "1" {
		t.Fatalf("by head: %s", r.Raw)
	}

	// One pull request with what pr view shows of it.
	r = post(t, w.e, w.melTok, `query($n: Int!) { repository(owner: "mona", name: "app") { pullRequest(number: $n) {
		id databaseId number title url state isDraft merged mergedAt mergedBy { login } baseRefName headRefName headRefOid
		additions deletions changedFiles mergeable mergeStateStatus maintainerCanModify
		headRepository { nameWithOwner } author { login } labels(first: 10) { totalCount }
		comments(first: 10) { totalCount } reactionGroups { content users { totalCount } }
	} } }`, map[string]any{"n": two.GetNumber()})
	pr := dig(mustData(t, r), "repository", "pullRequest").(map[string]any)
	if pr["id"] != two.GetNodeID() || pr["state"] != "MERGED" || pr["merged"] != true || dig(pr, "mergedBy", "login") != "mona" ||
		pr["headRefOid"] != two.GetHead().GetSHA() || pr["additions"].(json.Number).String() != "1" || pr["mergeable"] != "UNKNOWN" ||
		pr["url"] != w.e.URL+"/mona/app/pull/3" || dig(pr, "headRepository", "nameWithOwner") != "mona/app" {
		t.Fatalf("pull request: %s", r.Raw)
	}
	r = post(t, w.e, w.melTok, `{ repository(owner: "mona", name: "app") { pullRequest(number: 2) { mergeable mergeStateStatus } nope: pullRequest(number: 1) { number } } }`, nil)
	if dig(r.Data, "repository", "pullRequest", "mergeable") != "MERGEABLE" || len(r.Errors) != 1 ||
		r.Errors[0].Message != "Could not resolve to a PullRequest with the number of 1." {
		t.Fatalf("mergeable and a number that is an issue: %s", r.Raw)
	}

	// gh issue view's IssueByNumber on an issue and on a pull request.
	q := corpus(t, "issue-view.2.graphql")
	r = post(t, w.e, w.melTok, q, map[string]any{"owner": "mona", "repo": "app", "number": 1})
	is := dig(mustData(t, r), "repository", "issue").(map[string]any)
	if is["__typename"] != "Issue" || is["title"] != "issue 1" || is["issueType"] != nil ||
		dig(is, "subIssuesSummary", "total").(json.Number).String() != "0" || len(is["reactionGroups"].([]any)) != 8 {
		t.Fatalf("issue view on an issue: %s", r.Raw)
	}
	r = post(t, w.e, w.melTok, q, map[string]any{"owner": "mona", "repo": "app", "number": one.GetNumber()})
	is = dig(mustData(t, r), "repository", "issue").(map[string]any)
	if is["__typename"] != "PullRequest" || is["state"] != "OPEN" || is["url"] != one.GetHTMLURL() {
		t.Fatalf("issue view on a pull request: %s", r.Raw)
	}
	var heart map[string]any
	for _, g := range is["reactionGroups"].([]any) {
		if dig(g, "content") == "HEART" {
			heart = g.(map[string]any)
		}
	}
	if heart == nil || dig(heart, "users", "totalCount").(json.Number).String() != "1" {
		t.Fatalf("reaction groups: %s", r.Raw)
	}
	r = post(t, w.e, w.melTok, `query($n: Int!) { repository(owner: "mona", name: "app") { issueOrPullRequest(number: $n) {
		... on PullRequest { reactionGroups { content users(first: 5) { nodes { login } edges { reactedAt node { login } } } } } } } }`,
		map[string]any{"n": one.GetNumber()})
	for _, g := range dig(mustData(t, r), "repository", "issueOrPullRequest", "reactionGroups").([]any) {
		users := dig(g, "users", "nodes").([]any)
		if (dig(g, "content") == "HEART") != (len(users) == 1) || (len(users) == 1 && dig(users[0], "login") != "mona") {
			t.Fatalf("reactors: %s", r.Raw)
		}
	}
	r = post(t, w.e, w.melTok, `{ repository(owner: "mona", name: "app") { issueOrPullRequest(number: 99) { __typename } } }`, nil)
	if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "number of 99") || r.Errors[0].Type != "NOT_FOUND" {
		t.Fatalf("missing number: %s", r.Raw)
	}
}

// TestGhQueriesValidate: every query gh 2.100.0 was seen sending for the
// commands hubd answers over GraphQL validates against the served schema.
func TestGhQueriesValidate(t *testing.T) {
	for _, name := range []string{"auth-login.graphql", "repo-view.graphql", "repo-clone.graphql", "issue-list.graphql",
		"issue-view.2.graphql", "label-list.graphql", "pr-list.graphql"} {
		q := corpus(t, name)
		var vars map[string]any
		if b, err := os.ReadFile(filepath.Join("testdata", "gh-queries", strings.TrimSuffix(name, ".graphql")+".json")); err == nil {
			json.Unmarshal(b, &vars)
		}
		if _, bad := served.Prepare(&engine.Request{Query: q, Variables: vars}); bad != nil {
			t.Errorf("%s: %v", name, bad.Errors[0].Message)
		}
	}
}
