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

	// Repository.issues counts and lists issues only (the counters that
	// make its total cheap hold pull requests too).
	r0 := post(t, w.e, w.melTok, `{ repository(owner: "mona", name: "app") {
		all: issues(first: 10, states: [OPEN, CLOSED]) { totalCount nodes { number } }
		open: issues(first: 10) { totalCount }
		closed: issues(first: 10, states: [CLOSED]) { totalCount }
	} }`, nil)
	if dig(mustData(t, r0), "repository", "all", "totalCount").(json.Number).String() != "1" ||
		len(dig(r0.Data, "repository", "all", "nodes").([]any)) != 1 ||
		dig(r0.Data, "repository", "open", "totalCount").(json.Number).String() != "1" ||
		dig(r0.Data, "repository", "closed", "totalCount").(json.Number).String() != "0" {
		t.Fatalf("issues beside pull requests: %s", r0.Raw)
	}
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

	// OPEN with one kind of closed: open or merged, open or closed unmerged.
	for _, c := range []struct {
		states []string
		want   string
	}{{[]string{"OPEN", "MERGED"}, "2"}, {[]string{"OPEN", "CLOSED"}, "1"}, {[]string{"CLOSED"}, "0"}} {
		r = post(t, w.e, w.melTok, corpus(t, "pr-list.graphql"), map[string]any{"owner": "mona", "repo": "app", "limit": 30, "state": c.states})
		if n := dig(mustData(t, r), "repository", "pullRequests", "totalCount").(json.Number).String(); n != c.want {
			t.Fatalf("states %v: %s", c.states, r.Raw)
		}
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
		"issue-view.2.graphql", "label-list.graphql", "pr-list.graphql", "repo-list.2.graphql"} {
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

// TestRepositoryList is gh repo list (viewer) and gh repo list OWNER.
func TestRepositoryList(t *testing.T) {
	w := newWorld(t)
	q := corpus(t, "repo-list.2.graphql")
	r := post(t, w.e, w.monaTok, q, map[string]any{"perPage": 1})
	repos := dig(mustData(t, r), "repositoryOwner", "repositories").(map[string]any)
	if repos["totalCount"].(json.Number).String() != "2" || len(repos["nodes"].([]any)) != 1 || dig(repos, "pageInfo", "hasNextPage") != true {
		t.Fatalf("viewer's repositories: %s", r.Raw)
	}
	r = post(t, w.e, w.monaTok, q, map[string]any{"perPage": 10, "privacy": "PRIVATE"})
	nodes := dig(mustData(t, r), "repositoryOwner", "repositories", "nodes").([]any)
	if len(nodes) != 1 || dig(nodes[0], "nameWithOwner") != "mona/secret" || dig(nodes[0], "visibility") != "PRIVATE" {
		t.Fatalf("private: %s", r.Raw)
	}
	// Another owner's list holds what the viewer may see: mel sees octo's
	// private core (base read), a stranger sees nothing of octo.
	owner := `query($login: String!) { repositoryOwner(login: $login) { __typename login repositories(first: 10, orderBy: {field: NAME, direction: ASC}) { totalCount nodes { name viewerPermission } } } }`
	r = post(t, w.e, w.melTok, owner, map[string]any{"login": "octo"})
	if dig(mustData(t, r), "repositoryOwner", "__typename") != "Organization" ||
		dig(r.Data, "repositoryOwner", "repositories", "totalCount").(json.Number).String() != "1" {
		t.Fatalf("octo for mel: %s", r.Raw)
	}
	r = post(t, w.e, w.strTok, owner, map[string]any{"login": "octo"})
	if dig(mustData(t, r), "repositoryOwner", "repositories", "totalCount").(json.Number).String() != "0" {
		t.Fatalf("octo for a stranger: %s", r.Raw)
	}
	r = post(t, w.e, w.strTok, owner, map[string]any{"login": "mona"})
	if n := dig(mustData(t, r), "repositoryOwner", "repositories", "totalCount").(json.Number).String(); n != "1" {
		t.Fatalf("mona for a stranger: %s", r.Raw)
	}
	r = post(t, w.e, w.strTok, owner, map[string]any{"login": "ghost-of-nobody"})
	if len(r.Errors) != 1 || r.Errors[0].Message != "Could not resolve to a RepositoryOwner with the login of 'ghost-of-nobody'." {
		t.Fatalf("unknown owner: %s", r.Raw)
	}
}

// TestPullMutations: gh pr create/edit/close/reopen/merge run the pulls
// service, as REST does.
func TestPullMutations(t *testing.T) {
	w := newWorld(t)
	seedIssues(t, w, 1)
	gh := w.e.GitHub(w.monaTok)
	b, _, err := gh.Repositories.GetBranch(ctx, "mona", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Git.CreateRef(ctx, "mona", "app", github.CreateRef{Ref: "refs/heads/topic", SHA: b.GetCommit().GetSHA()}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateFile(ctx, "mona", "app", "topic.txt", &github.RepositoryContentFileOptions{
		Message: github.Ptr("topic"), Content: []byte("topic\n"), Branch: github.Ptr("topic")}); err != nil {
		t.Fatal(err)
	}
	repoID := nodeID(t, w, "/repos/mona/app")
	create := `mutation($in: CreatePullRequestInput!) { createPullRequest(input: $in) { clientMutationId pullRequest { id number url state isDraft headRefName baseRefName } } }`
	// A reader of a public repository may open pull requests from its branches.
	r := post(t, w.e, w.melTok, create, map[string]any{"in": map[string]any{"repositoryId": repoID, "baseRefName": "main",
		"headRefName": "topic", "title": "A topic", "body": "From GraphQL", "draft": true, "clientMutationId": "x"}})
	pr := dig(mustData(t, r), "createPullRequest", "pullRequest").(map[string]any)
	if pr["number"].(json.Number).String() != "2" || pr["isDraft"] != true || pr["state"] != "OPEN" || pr["headRefName"] != "topic" {
		t.Fatalf("createPullRequest: %s", r.Raw)
	}
	rest, _, err := gh.PullRequests.Get(ctx, "mona", "app", 2)
	if err != nil || rest.GetNodeID() != pr["id"] || rest.GetBody() != "From GraphQL" || rest.GetUser().GetLogin() != "mel" {
		t.Fatalf("REST view: %+v %v", rest, err)
	}
	// The same branch twice: the service's 422.
	r = post(t, w.e, w.monaTok, create, map[string]any{"in": map[string]any{"repositoryId": repoID, "baseRefName": "main", "headRefName": "topic", "title": "again"}})
	if len(r.Errors) != 1 || r.Errors[0].Type != "UNPROCESSABLE" || !strings.Contains(r.Errors[0].Message, "already exists") {
		t.Fatalf("duplicate: %s", r.Raw)
	}
	id := pr["id"].(string)
	bug := nodeID(t, w, "/repos/mona/app/labels/kind:%20bug")
	r = post(t, w.e, w.monaTok, `mutation($id: ID!, $l: [ID!]) { updatePullRequest(input: {pullRequestId: $id, title: "Renamed topic", labelIds: $l}) {
		actor { login } pullRequest { title labels(first: 5) { nodes { name } } } } }`, map[string]any{"id": id, "l": []string{bug}})
	if dig(mustData(t, r), "updatePullRequest", "pullRequest", "title") != "Renamed topic" ||
		len(dig(r.Data, "updatePullRequest", "pullRequest", "labels", "nodes").([]any)) != 1 {
		t.Fatalf("updatePullRequest: %s", r.Raw)
	}
	// A stranger may not close mel's pull request.
	r = post(t, w.e, w.strTok, `mutation($id: ID!) { closePullRequest(input: {pullRequestId: $id}) { pullRequest { state } } }`, map[string]any{"id": id})
	if len(r.Errors) != 1 || r.Errors[0].Type != "FORBIDDEN" {
		t.Fatalf("stranger closing: %s", r.Raw)
	}
	r = post(t, w.e, w.melTok, `mutation($id: ID!) { closePullRequest(input: {pullRequestId: $id}) { pullRequest { state closed } } }`, map[string]any{"id": id})
	if dig(mustData(t, r), "closePullRequest", "pullRequest", "state") != "CLOSED" {
		t.Fatalf("closePullRequest: %s", r.Raw)
	}
	r = post(t, w.e, w.melTok, `mutation($id: ID!) { reopenPullRequest(input: {pullRequestId: $id}) { pullRequest { state } } }`, map[string]any{"id": id})
	if dig(mustData(t, r), "reopenPullRequest", "pullRequest", "state") != "OPEN" {
		t.Fatalf("reopenPullRequest: %s", r.Raw)
	}
	// Only writers merge; a draft is not mergeable until it is ready.
	merge := `mutation($id: ID!) { mergePullRequest(input: {pullRequestId: $id, mergeMethod: SQUASH, commitHeadline: "Squashed topic"}) { actor { login } pullRequest { state merged } } }`
	r = post(t, w.e, w.melTok, merge, map[string]any{"id": id})
	if len(r.Errors) != 1 || r.Errors[0].Type != "FORBIDDEN" {
		t.Fatalf("reader merging: %s", r.Raw)
	}
	// A draft is not merged (GitHub: "Pull Request is still a draft").
	w.e.RunJobs()
	r = post(t, w.e, w.monaTok, merge, map[string]any{"id": id})
	if len(r.Errors) != 1 || r.Errors[0].Type != "UNPROCESSABLE" || dig(r.Data, "mergePullRequest") != nil {
		t.Fatalf("merging a draft: %s", r.Raw)
	}
	t.Logf("draft merge refused: %s", r.Errors[0].Message)
	// A ready one is.
	r = post(t, w.e, w.monaTok, `mutation($id: ID!) { closePullRequest(input: {pullRequestId: $id}) { pullRequest { state } } }`, map[string]any{"id": id})
	mustData(t, r)
	r = post(t, w.e, w.monaTok, create, map[string]any{"in": map[string]any{"repositoryId": repoID, "baseRefName": "main", "headRefName": "topic", "title": "Ready topic"}})
	ready := dig(mustData(t, r), "createPullRequest", "pullRequest", "id").(string)
	w.e.RunJobs()
	r = post(t, w.e, w.monaTok, merge, map[string]any{"id": ready})
	if dig(mustData(t, r), "mergePullRequest", "pullRequest", "merged") != true || dig(r.Data, "mergePullRequest", "actor", "login") != "mona" {
		t.Fatalf("mergePullRequest: %s", r.Raw)
	}
	main, _, err := gh.Repositories.GetBranch(ctx, "mona", "app", "main", 0)
	if err != nil || !strings.HasPrefix(main.GetCommit().GetCommit().GetMessage(), "Squashed topic") {
		t.Fatalf("main after the squash: %q %v", main.GetCommit().GetCommit().GetMessage(), err)
	}
}

// TestPullRequestView: what gh pr view shows of checks and reviews.
func TestPullRequestView(t *testing.T) {
	w := newWorld(t)
	pr := openPull(t, w, "feature", "Checked change")
	gh := w.e.GitHub(w.monaTok)
	sha := pr.GetHead().GetSHA()
	if _, _, err := gh.Repositories.CreateStatus(ctx, "mona", "app", sha, github.RepoStatus{State: github.Ptr("success"), Context: github.Ptr("ci/lint"),
		Description: github.Ptr("lint passed"), TargetURL: github.Ptr("https://ci.example/1")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Checks.CreateCheckRun(ctx, "mona", "app", github.CreateCheckRunOptions{Name: "build", HeadSHA: sha, Status: github.Ptr("in_progress")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.PullRequests.CreateReview(ctx, "mona", "app", pr.GetNumber(), &github.PullRequestReviewRequest{Body: github.Ptr("Looks fine"), Event: github.Ptr("COMMENT")}); err != nil {
		t.Fatal(err)
	}
	q := corpus(t, "pr-view.graphql")
	r := post(t, w.e, w.melTok, q, map[string]any{"owner": "mona", "repo": "app", "pr_number": pr.GetNumber()})
	p := dig(mustData(t, r), "repository", "pullRequest").(map[string]any)
	if p["autoMergeRequest"] != nil || dig(p, "commits", "totalCount").(json.Number).String() != "1" {
		t.Fatalf("pr view: %s", r.Raw)
	}
	reviews := dig(p, "reviews", "nodes").([]any)
	if len(reviews) != 1 || dig(reviews[0], "state") != "COMMENTED" || dig(reviews[0], "body") != "Looks fine" ||
		dig(reviews[0], "commit", "oid") != sha || dig(reviews[0], "author", "login") != "mona" {
		t.Fatalf("reviews: %s", r.Raw)
	}
	commits := dig(p, "statusCheckRollup", "nodes").([]any)
	contexts := dig(commits[0], "commit", "statusCheckRollup", "contexts", "nodes").([]any)
	if len(commits) != 1 || len(contexts) != 2 || dig(contexts[0], "__typename") != "CheckRun" || dig(contexts[0], "status") != "IN_PROGRESS" ||
		dig(contexts[0], "checkSuite", "workflowRun") != nil || dig(contexts[1], "__typename") != "StatusContext" || dig(contexts[1], "state") != "SUCCESS" ||
		dig(contexts[1], "targetUrl") != "https://ci.example/1" {
		t.Fatalf("checks: %s", r.Raw)
	}
	r = post(t, w.e, w.melTok, `query($n: Int!) { repository(owner: "mona", name: "app") { pullRequest(number: $n) {
		projectItems(first: 10) { totalCount nodes { id } }
		commits(first: 5) { nodes { commit { oid url statusCheckRollup { state } } } } } } }`, map[string]any{"n": pr.GetNumber()})
	c := dig(mustData(t, r), "repository", "pullRequest", "commits", "nodes").([]any)[0]
	if dig(c, "commit", "oid") != sha || dig(c, "commit", "statusCheckRollup", "state") != "PENDING" ||
		dig(r.Data, "repository", "pullRequest", "projectItems", "totalCount").(json.Number).String() != "0" {
		t.Fatalf("rollup state: %s", r.Raw)
	}
}

// TestSearch: Query.search runs REST's search (same syntax and visibility).
func TestSearch(t *testing.T) {
	w := newWorld(t)
	seedIssues(t, w, 3)
	openPull(t, w, "feature", "Feature for the widget")
	q := `query($q: String!, $type: SearchType!, $n: Int) { search(query: $q, type: $type, first: $n) {
		issueCount repositoryCount userCount pageInfo { hasNextPage endCursor }
		nodes { __typename ... on Issue { number title labels(first: 5) { nodes { name } } } ... on PullRequest { number headRefName }
			... on Repository { nameWithOwner } ... on User { login } }
	} }`
	r := post(t, w.e, w.melTok, q, map[string]any{"q": "repo:mona/app is:issue label:\"kind: bug\"", "type": "ISSUE", "n": 10})
	s := dig(mustData(t, r), "search").(map[string]any)
	nodes := s["nodes"].([]any)
	if s["issueCount"].(json.Number).String() != "1" || len(nodes) != 1 || dig(nodes[0], "number").(json.Number).String() != "2" ||
		s["repositoryCount"].(json.Number).String() != "0" {
		t.Fatalf("issues: %s", r.Raw)
	}
	r = post(t, w.e, w.melTok, q, map[string]any{"q": "repo:mona/app is:pr widget", "type": "ISSUE", "n": 10})
	nodes = dig(mustData(t, r), "search", "nodes").([]any)
	if len(nodes) != 1 || dig(nodes[0], "__typename") != "PullRequest" || dig(nodes[0], "headRefName") != "feature" {
		t.Fatalf("pull requests: %s", r.Raw)
	}
	r = post(t, w.e, w.melTok, q, map[string]any{"q": "repo:mona/app", "type": "ISSUE", "n": 2})
	if dig(mustData(t, r), "search", "issueCount").(json.Number).String() != "4" || dig(r.Data, "search", "pageInfo", "hasNextPage") != true {
		t.Fatalf("paging: %s", r.Raw)
	}
	// Private repositories stay hidden: mel sees octo/core, a stranger does not.
	r = post(t, w.e, w.melTok, q, map[string]any{"q": "core", "type": "REPOSITORY", "n": 10})
	if dig(mustData(t, r), "search", "repositoryCount").(json.Number).String() != "1" {
		t.Fatalf("repositories for mel: %s", r.Raw)
	}
	r = post(t, w.e, w.strTok, q, map[string]any{"q": "core", "type": "REPOSITORY", "n": 10})
	if dig(mustData(t, r), "search", "repositoryCount").(json.Number).String() != "0" {
		t.Fatalf("repositories for a stranger: %s", r.Raw)
	}
	r = post(t, w.e, w.strTok, q, map[string]any{"q": "mon type:user", "type": "USER", "n": 10})
	if dig(mustData(t, r), "search", "userCount").(json.Number).String() != "1" {
		t.Fatalf("users: %s", r.Raw)
	}
	// A query the service refuses is GitHub's error, data null.
	r = post(t, w.e, w.melTok, q, map[string]any{"q": "repo:nobody/nothing", "type": "ISSUE", "n": 10})
	if len(r.Errors) != 1 || r.Errors[0].Type != "UNPROCESSABLE" || dig(r.Data, "search") != nil {
		t.Fatalf("refused query: %s", r.Raw)
	}
}

// TestReleases: gh release list's query and release(tagName).
func TestReleases(t *testing.T) {
	w := newWorld(t)
	gh := w.e.GitHub(w.monaTok)
	for _, r := range []github.CreateReleaseRequest{
		{TagName: "v1.0.0", Name: github.Ptr("First")},
		{TagName: "v1.1.0", Name: github.Ptr("Second"), Body: github.Ptr("Notes")},
		{TagName: "v2.0.0-rc1", Prerelease: github.Ptr(true)},
		{TagName: "v3.0.0", Draft: github.Ptr(true)},
	} {
		if _, _, err := gh.Repositories.CreateRelease(ctx, "mona", "app", r); err != nil {
			t.Fatal(err)
		}
	}
	q := `query($dir: OrderDirection!) { repository(owner: "mona", name: "app") {
		releases(first: 10, orderBy: {field: CREATED_AT, direction: $dir}) { totalCount nodes { name tagName isDraft isLatest isPrerelease createdAt publishedAt url } }
		release(tagName: "v1.1.0") { name description isLatest author { login } }
		latestRelease { tagName }
		nope: release(tagName: "v9") { name }
	} }`
	r := post(t, w.e, w.melTok, q, map[string]any{"dir": "DESC"})
	d := mustData(t, r)
	nodes := dig(d, "repository", "releases", "nodes").([]any)
	if dig(d, "repository", "releases", "totalCount").(json.Number).String() != "3" || len(nodes) != 3 {
		t.Fatalf("a reader sees the three published releases: %s", r.Raw)
	}
	if dig(d, "repository", "release", "description") != "Notes" || dig(d, "repository", "latestRelease", "tagName") != "v1.1.0" ||
		dig(d, "repository", "release", "isLatest") != true || dig(d, "repository", "nope") != nil {
		t.Fatalf("release: %s", r.Raw)
	}
	latest := 0
	for _, n := range nodes {
		if dig(n, "isLatest") == true {
			latest++
			if dig(n, "tagName") != "v1.1.0" {
				t.Fatalf("latest: %s", r.Raw)
			}
		}
	}
	if latest != 1 {
		t.Fatalf("one latest release: %s", r.Raw)
	}
	// The owner sees the draft too; ascending order reverses the list.
	r = post(t, w.e, w.monaTok, q, map[string]any{"dir": "ASC"})
	nodes = dig(mustData(t, r), "repository", "releases", "nodes").([]any)
	desc := post(t, w.e, w.monaTok, q, map[string]any{"dir": "DESC"})
	dnodes := dig(mustData(t, desc), "repository", "releases", "nodes").([]any)
	if len(nodes) != 4 || len(dnodes) != 4 || dig(nodes[0], "tagName") != dig(dnodes[3], "tagName") || dig(nodes[3], "tagName") != dig(dnodes[0], "tagName") {
		t.Fatalf("owner's releases ASC %s / DESC %s", r.Raw, desc.Raw)
	}
}

// TestPeopleLists: viewer.organizations, assignableUsers and milestones.
func TestPeopleLists(t *testing.T) {
	w := newWorld(t)
	seedIssues(t, w, 1) // milestone v1
	r := post(t, w.e, w.melTok, `{
		viewer { organizations(first: 10) { totalCount nodes { login } } }
		olga: user(login: "olga") { organizations(first: 10) { totalCount } }
		repository(owner: "mona", name: "app") {
			assignableUsers(first: 10) { totalCount nodes { login } }
			milestones(first: 10, states: [OPEN]) { totalCount nodes { title number state } }
		}
	}`, nil)
	d := mustData(t, r)
	if dig(d, "viewer", "organizations", "totalCount").(json.Number).String() != "1" ||
		dig(d, "viewer", "organizations", "nodes").([]any)[0].(map[string]any)["login"] != "octo" {
		t.Fatalf("viewer's organizations: %s", r.Raw)
	}
	// olga's membership of octo is not public: others do not see it.
	if dig(d, "olga", "organizations", "totalCount").(json.Number).String() != "0" {
		t.Fatalf("another user's private memberships: %s", r.Raw)
	}
	if dig(d, "repository", "assignableUsers", "totalCount").(json.Number).String() != "1" ||
		dig(d, "repository", "milestones", "nodes").([]any)[0].(map[string]any)["title"] != "v1" {
		t.Fatalf("assignable users and milestones: %s", r.Raw)
	}
}
