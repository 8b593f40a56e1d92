package graphql_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
)

const suitesQuery = `query($n: Int!, $filter: CheckSuiteFilter, $runs: CheckRunFilter) { repository(owner: "mona", name: "app") {
	pullRequest(number: $n) { commits(first: 10) { nodes { commit { oid
	checkSuites(first: 10, filterBy: $filter) { totalCount pageInfo { hasNextPage endCursor } nodes {
		id databaseId status conclusion createdAt updatedAt
		app { id databaseId name slug }
		branch { name }
		commit { oid }
		repository { nameWithOwner }
		workflowRun { databaseId runNumber event workflow { name } checkSuite { databaseId } }
		checkRuns(first: 10, filterBy: $runs) { totalCount nodes { databaseId name status conclusion title summary
			checkSuite { databaseId status } } } } } } } } } } }`

// TestCommitCheckSuites: Commit.checkSuites lists a commit's suites, oldest
// first — the suite of no app a push makes, which the check runs posted
// through the API join, and the suite of each workflow run (GitHub Actions, with its run) — with
// their state, branch, commit and check runs; filterBy narrows both
// lists; a batch of commits costs the same queries whatever their number.
func TestCommitCheckSuites(t *testing.T) {
	w := newWorld(t)
	gh := w.e.GitHub(w.monaTok)
	if _, _, err := gh.Repositories.CreateFile(ctx, "mona", "app", ".github/workflows/ci.yml", &github.RepositoryContentFileOptions{
		Message: github.Ptr("CI"), Branch: github.Ptr("main"),
		Content: []byte("name: CI\non: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n")}); err != nil {
		t.Fatal(err)
	}
	pr := openPull(t, w, "suites", "Suites")
	sha := pr.GetHead().GetSHA()
	// The push's workflow run and its job's check run (queued: no runner
	// takes it here).
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if err := w.e.Deps.Jobs.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		runs, _, err := gh.Checks.ListCheckRunsForRef(ctx, "mona", "app", sha, nil)
		if err != nil {
			t.Fatal(err)
		}
		if runs.GetTotal() == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no check run of the workflow's job: %+v", runs)
		}
	}
	check := func(name, conclusion string) {
		t.Helper()
		if _, _, err := gh.Checks.CreateCheckRun(ctx, "mona", "app", github.CreateCheckRunOptions{Name: name, HeadSHA: sha,
			Status: github.Ptr("completed"), Conclusion: github.Ptr(conclusion),
			Output: &github.CheckRunOutput{Title: github.Ptr(name + " title"), Summary: github.Ptr(name + " summary")}}); err != nil {
			t.Fatal(err)
		}
	}
	check("lint", "failure")
	check("lint", "success") // a re-run: the newest of the name counts
	check("vet", "neutral")

	suites := func(vars map[string]any) map[string]any {
		t.Helper()
		vars["n"] = pr.GetNumber()
		r := post(t, w.e, w.melTok, suitesQuery, vars)
		nodes := dig(mustData(t, r), "repository", "pullRequest", "commits", "nodes").([]any)
		return dig(nodes[len(nodes)-1], "commit", "checkSuites").(map[string]any)
	}
	all := suites(map[string]any{})
	nodes := all["nodes"].([]any)
	if all["totalCount"] != json.Number("2") || len(nodes) != 2 {
		t.Fatalf("checkSuites: %v", all)
	}
	// The push made the commit's suite of no app first, then the
	// workflow run its own.
	api, actions := nodes[0], nodes[1]
	if dig(actions, "app", "slug") != "github-actions" || dig(actions, "workflowRun", "workflow", "name") != "CI" ||
		dig(actions, "workflowRun", "event") != "push" || dig(actions, "branch", "name") != "suites" ||
		dig(actions, "commit", "oid") != sha || dig(actions, "repository", "nameWithOwner") != "mona/app" ||
		dig(actions, "workflowRun", "checkSuite", "databaseId") != dig(actions, "databaseId") {
		t.Errorf("the workflow run's suite: %v", actions)
	}
	runs := dig(actions, "checkRuns", "nodes").([]any)
	if len(runs) != 1 || dig(runs[0], "name") != "build" || dig(runs[0], "checkSuite", "databaseId") != dig(actions, "databaseId") {
		t.Errorf("the workflow run's check runs: %v", dig(actions, "checkRuns"))
	}
	if dig(api, "app") != nil || dig(api, "workflowRun") != nil || dig(api, "status") != "COMPLETED" || dig(api, "conclusion") != "NEUTRAL" ||
		dig(api, "checkRuns", "totalCount") != json.Number("2") {
		t.Errorf("the API's suite: %v", api)
	}
	runs = dig(api, "checkRuns", "nodes").([]any)
	if len(runs) != 2 || dig(runs[0], "name") != "lint" || dig(runs[0], "conclusion") != "SUCCESS" || dig(runs[0], "title") != "lint title" ||
		dig(runs[1], "summary") != "vet summary" || dig(runs[1], "checkSuite", "status") != "COMPLETED" {
		t.Errorf("the API suite's runs: %v", runs)
	}

	// Filters: every run of a name, by conclusion, suites by name and app.
	got := suites(map[string]any{"runs": map[string]any{"checkType": "ALL", "checkName": "lint"}})
	if n := dig(got["nodes"].([]any)[0], "checkRuns", "totalCount"); n != json.Number("2") {
		t.Errorf("every lint run: %v", n)
	}
	got = suites(map[string]any{"runs": map[string]any{"checkType": "ALL", "conclusions": []string{"FAILURE"}}})
	if r := dig(got["nodes"].([]any)[0], "checkRuns", "nodes").([]any); len(r) != 1 || dig(r[0], "conclusion") != "FAILURE" {
		t.Errorf("failed runs: %v", r)
	}
	got = suites(map[string]any{"filter": map[string]any{"checkName": "vet"}})
	if got["totalCount"] != json.Number("1") || dig(got["nodes"].([]any)[0], "app") != nil {
		t.Errorf("suites with a vet run: %v", got)
	}
	appID := dig(actions, "app", "databaseId")
	got = suites(map[string]any{"filter": map[string]any{"appId": appID}})
	if got["totalCount"] != json.Number("1") || dig(got["nodes"].([]any)[0], "app", "databaseId") != appID {
		t.Errorf("suites of GitHub Actions: %v", got)
	}

	// Queries: the same for a pull request of 1 commit as of 5, every
	// commit with its own suites and runs.
	commits := func() []any {
		t.Helper()
		r := post(t, w.e, w.melTok, suitesQuery, map[string]any{"n": pr.GetNumber()})
		return dig(mustData(t, r), "repository", "pullRequest", "commits", "nodes").([]any)
	}
	reads := func() int64 { return w.e.LeastReads(func() { commits() }) }
	// No background job may touch the repository (and its cached row)
	// while a measurement runs: jobs run only when drained below.
	w.e.Deps.Jobs.Stop()
	one := reads()
	for i := 0; i < 4; i++ {
		c, _, err := gh.Repositories.CreateFile(ctx, "mona", "app", fmt.Sprintf("more%d.txt", i), &github.RepositoryContentFileOptions{
			Message: github.Ptr("more"), Content: []byte("more\n"), Branch: github.Ptr("suites")})
		if err != nil {
			t.Fatal(err)
		}
		sha = c.Commit.GetSHA()
		check("lint", "success")
	}
	if err := w.e.Deps.Jobs.Drain(ctx); err != nil { // the pull request's new head
		t.Fatal(err)
	}
	list := commits()
	if len(list) != 5 {
		t.Fatalf("the pull request has %d commits", len(list))
	}
	for _, c := range list {
		if n := dig(c, "commit", "checkSuites", "totalCount"); n == json.Number("0") {
			t.Fatalf("commit %v has no suite", dig(c, "commit", "oid"))
		}
	}
	if five := reads(); five != one {
		t.Fatalf("queries for 1 commit %d, for 5 %d", one, five)
	}
}

// TestStatusCheckRollupBatched: the rollups of many pull requests' heads
// (gh pr list --json statusCheckRollup) cost the same queries for 2 pull
// requests as for 5, and each rollup has its own commit's checks.
func TestStatusCheckRollupBatched(t *testing.T) {
	w := newWorld(t)
	gh := w.e.GitHub(w.monaTok)
	q := `{ repository(owner: "mona", name: "app") { pullRequests(first: 10) { nodes { number
		commits(last: 1) { nodes { commit { statusCheckRollup { state contexts(first: 10) { totalCount
		nodes { __typename ... on CheckRun { name conclusion } ... on StatusContext { context state } } } } } } } } } } }`
	open := func(i int, conclusion string) {
		t.Helper()
		pr := openPull(t, w, fmt.Sprintf("b%d", i), fmt.Sprintf("PR %d", i))
		sha := pr.GetHead().GetSHA()
		if _, _, err := gh.Checks.CreateCheckRun(ctx, "mona", "app", github.CreateCheckRunOptions{Name: fmt.Sprintf("check%d", i),
			HeadSHA: sha, Status: github.Ptr("completed"), Conclusion: github.Ptr(conclusion)}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := gh.Repositories.CreateStatus(ctx, "mona", "app", sha, github.RepoStatus{State: github.Ptr("pending"),
			Context: github.Ptr(fmt.Sprintf("ci%d", i))}); err != nil {
			t.Fatal(err)
		}
	}
	rollups := func() map[string]any {
		t.Helper()
		out := map[string]any{}
		for _, n := range dig(mustData(t, post(t, w.e, w.melTok, q, nil)), "repository", "pullRequests", "nodes").([]any) {
			c := dig(n, "commits", "nodes").([]any)
			out[fmt.Sprint(dig(n, "number"))] = dig(c[0], "commit", "statusCheckRollup")
		}
		return out
	}
	open(1, "success")
	open(2, "failure")
	w.e.RunJobs()
	got := rollups()
	one, two := got["1"], got["2"]
	if dig(one, "state") != "PENDING" || dig(one, "contexts", "totalCount") != json.Number("2") ||
		dig(dig(one, "contexts", "nodes").([]any)[0], "name") != "check1" ||
		dig(dig(one, "contexts", "nodes").([]any)[1], "context") != "ci1" || dig(two, "state") != "FAILURE" {
		t.Fatalf("rollups: %v", got)
	}
	reads := func() int64 { return w.e.LeastReads(func() { rollups() }) }
	w.e.Deps.Jobs.Stop() // jobs run only when drained, never during a measurement
	small := reads()
	for i := 3; i <= 5; i++ {
		open(i, "success")
	}
	if err := w.e.Deps.Jobs.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if got := rollups(); len(got) != 5 || dig(got["5"], "contexts", "totalCount") != json.Number("2") {
		t.Fatalf("rollups of 5: %v", got)
	}
	if large := reads(); large != small {
		t.Fatalf("queries for 2 pull requests %d, for 5 %d", small, large)
	}
}

// TestCheckSuitesNeedChecks: a fine-grained token reads a commit's suites
// with the checks permission, as REST's checks/list-suites-for-ref; one
// without it gets FORBIDDEN there while the rest of the document answers.
func TestCheckSuitesNeedChecks(t *testing.T) {
	w := newWorld(t)
	q := `{ repository(owner: "mona", name: "app") { defaultBranchRef { target { ... on Commit { oid
		checkSuites(first: 5) { totalCount } } } } } }`
	token := func(perms map[string]string) string {
		var tok struct {
			Token string `json:"token"`
		}
		w.e.Must(201, "POST", "/admin/users/mona/personal-access-tokens", w.monaTok, map[string]any{"name": fmt.Sprint(len(perms)),
			"repositories": []string{"app"}, "permissions": perms}).JSON(t, &tok)
		return tok.Token
	}
	r := post(t, w.e, token(map[string]string{"contents": "read"}), q, nil)
	forbiddenAt(t, r, "Resource not accessible by personal access token", "repository", "defaultBranchRef", "target", "checkSuites")
	if dig(r.Data, "repository", "defaultBranchRef", "target", "oid") == nil {
		t.Fatalf("the rest of the document: %s", r.Raw)
	}
	d := mustData(t, post(t, w.e, token(map[string]string{"contents": "read", "checks": "read"}), q, nil))
	if dig(d, "repository", "defaultBranchRef", "target", "checkSuites", "totalCount") == nil {
		t.Fatalf("with checks: %v", d)
	}
}
