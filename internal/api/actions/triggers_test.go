package actions_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
)

// runsOf waits until the repository has n runs of event (all completed
// when done) and returns them, newest first.
func (f *fixture) runsOf(t *testing.T, event string, n int, done bool) []*github.WorkflowRun {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var list *github.WorkflowRuns
	for time.Now().Before(deadline) {
		var err error
		if list, _, err = f.gh.Actions.ListRepositoryWorkflowRuns(ctx, "mona", "app", &github.ListWorkflowRunsOptions{Event: event}); err != nil {
			t.Fatal(err)
		}
		ok := len(list.WorkflowRuns) >= n
		for _, r := range list.WorkflowRuns {
			ok = ok && (!done || r.GetStatus() == "completed")
		}
		if ok {
			return list.WorkflowRuns
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%d %s runs (done %v) did not appear: %d", n, event, done, len(list.WorkflowRuns))
	return nil
}

// pushTo commits files (path → content) and pushes the commit to branch;
// it returns the new head.
func (f *fixture) pushTo(t *testing.T, branch, msg string, files map[string]string) string {
	t.Helper()
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(f.dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.git(t, "add", "-A")
	f.git(t, "commit", "-q", "-m", msg)
	f.git(t, "push", "-q", "origin", "HEAD:"+branch)
	return f.git(t, "rev-parse", "HEAD")
}

// waitStatus waits until a run has status.
func (f *fixture) waitStatus(t *testing.T, id int64, status string) *github.WorkflowRun {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		run, _, err := f.gh.Actions.GetWorkflowRunByID(ctx, "mona", "app", id)
		if err != nil {
			t.Fatal(err)
		}
		if run.GetStatus() == status || time.Now().After(deadline) {
			if run.GetStatus() != status {
				t.Fatalf("run %d is %s/%s, not %s", id, run.GetStatus(), run.GetConclusion(), status)
			}
			return run
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func accepted(t *testing.T, err error) {
	t.Helper()
	if _, ok := err.(*github.AcceptedError); err != nil && !ok {
		t.Fatal(err)
	}
}

const echoJob = "jobs:\n  show:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo \"event=${{ github.event_name }} ref=$GITHUB_REF sha=$GITHUB_SHA head=$GITHUB_HEAD_REF\"\n"

// A pull request runs the pull_request workflows on its merge commit (with
// the pull request in the run's pull_requests) and the
// pull_request_target ones on the base; issues, comments, releases,
// repository dispatches and completed runs trigger theirs, with their
// types: filters.
func TestEventTriggers(t *testing.T) {
	f := newFixture(t)
	f.push(t, "workflows", map[string]string{
		".github/workflows/pr.yml":     "name: PR\non:\n  pull_request:\n    branches: [main]\n    paths: ['src/**']\n" + echoJob,
		".github/workflows/target.yml": "name: Target\non:\n  pull_request_target:\n    types: [opened]\n" + echoJob,
		".github/workflows/after.yml": "name: After\non:\n  workflow_run:\n    workflows: [PR]\n    types: [completed]\n" +
			"jobs:\n  show:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo \"after ${{ github.event.workflow_run.name }} ${{ github.event.workflow_run.conclusion }}\"\n",
		".github/workflows/dispatch.yml": "name: Dispatch\non:\n  repository_dispatch:\n    types: [deploy]\n" + echoJob,
		".github/workflows/issues.yml":   "name: Issues\non:\n  issues:\n    types: [opened]\n  issue_comment:\n  release:\n    types: [published]\n" + echoJob,
	})
	// A branch whose change is outside paths: no pull_request run; then
	// one inside.
	f.git(t, "checkout", "-q", "-b", "feature")
	f.pushTo(t, "feature", "docs", map[string]string{"README.md": "docs\n"})
	pr, _, err := f.gh.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("Feature"), Head: "feature",
		Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	target := f.runsOf(t, "pull_request_target", 1, true)
	if target[0].GetHeadBranch() != "main" || len(target[0].PullRequests) != 1 || target[0].PullRequests[0].GetNumber() != pr.GetNumber() {
		t.Errorf("pull_request_target run %+v", target[0])
	}
	if runs, _, _ := f.gh.Actions.ListRepositoryWorkflowRuns(ctx, "mona", "app", &github.ListWorkflowRunsOptions{Event: "pull_request"}); runs.GetTotalCount() != 0 {
		t.Fatalf("a change outside paths: ran %d pull_request runs", runs.GetTotalCount())
	}
	head := f.pushTo(t, "feature", "code", map[string]string{"src/main.go": "package main\n"})
	runs := f.runsOf(t, "pull_request", 1, true)
	run := runs[0]
	if run.GetHeadSHA() != head || run.GetHeadBranch() != "feature" || run.GetConclusion() != "success" || len(run.PullRequests) != 1 ||
		run.PullRequests[0].GetNumber() != pr.GetNumber() || run.PullRequests[0].GetHead().GetSHA() != head {
		t.Fatalf("pull_request run %+v", run)
	}
	j := f.jobs(t, run.GetID())["show"]
	if l := f.jobLog(t, j.GetID()); !strings.Contains(l, fmt.Sprintf("event=pull_request ref=refs/pull/%d/merge", pr.GetNumber())) ||
		strings.Contains(l, "sha="+head) || !strings.Contains(l, "head=feature") {
		t.Errorf("pull_request job log:\n%s", l)
	}
	// The check run of the job is on the pull request's head.
	checks, _, err := f.gh.Checks.ListCheckRunsForRef(ctx, "mona", "app", head, nil)
	if err != nil || checks.GetTotal() == 0 {
		t.Errorf("check runs of the head: %v %+v", err, checks)
	}
	// exclude_pull_requests leaves them out.
	var got struct {
		Runs []struct {
			PullRequests []any `json:"pull_requests"`
		} `json:"workflow_runs"`
	}
	json.Unmarshal(f.e.Must(200, "GET", "/repos/mona/app/actions/runs?event=pull_request&exclude_pull_requests=true", f.token, nil).Body, &got)
	if len(got.Runs) != 1 || len(got.Runs[0].PullRequests) != 0 {
		t.Errorf("exclude_pull_requests: %+v", got)
	}
	// The completed PR run triggers After (workflow_run).
	after := f.runsOf(t, "workflow_run", 1, true)
	if after[0].GetName() != "After" || after[0].GetHeadBranch() != "main" {
		t.Errorf("workflow_run run %+v", after[0])
	}
	if l := f.jobLog(t, f.jobs(t, after[0].GetID())["show"].GetID()); !strings.Contains(l, "after PR success") {
		t.Errorf("workflow_run job log:\n%s", l)
	}

	// repository_dispatch: only the types listed.
	for _, typ := range []string{"other", "deploy"} {
		payload := json.RawMessage(`{"env":"prod"}`)
		if _, _, err := f.gh.Repositories.Dispatch(ctx, "mona", "app", github.DispatchRequestOptions{EventType: typ, ClientPayload: &payload}); err != nil {
			t.Fatal(err)
		}
	}
	f.runsOf(t, "repository_dispatch", 1, true)
	f.e.Must(422, "POST", "/repos/mona/app/dispatches", f.token, map[string]any{"client_payload": map[string]any{}})
	f.e.Must(400, "POST", "/repos/mona/app/dispatches", f.token, "{")

	// issues (opened), issue_comment (any type), release (published).
	is, _, err := f.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "Bug"})
	if err != nil {
		t.Fatal(err)
	}
	f.runsOf(t, "issues", 1, false)
	if _, _, err := f.gh.Issues.CreateComment(ctx, "mona", "app", is.GetNumber(), github.IssueCommentRequest{Body: "me too"}); err != nil {
		t.Fatal(err)
	}
	f.runsOf(t, "issue_comment", 1, false)
	if _, _, err := f.gh.Repositories.CreateRelease(ctx, "mona", "app", github.CreateReleaseRequest{TagName: "v1.0.0"}); err != nil {
		t.Fatal(err)
	}
	f.runsOf(t, "release", 1, true)
	// Closing the issue: not a type the workflow lists.
	if _, _, err := f.gh.Issues.Update(ctx, "mona", "app", is.GetNumber(), github.UpdateIssueRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if runs := f.runsOf(t, "issues", 1, true); len(runs) != 1 {
		t.Errorf("issues runs: %d", len(runs))
	}
}

// A fork's pull request by a first-time contributor waits for approval
// (conclusion action_required) and runs once approved, with a read-only
// GITHUB_TOKEN whatever its permissions: say, and no OIDC token.
func TestForkApproval(t *testing.T) {
	f := newFixture(t)
	f.push(t, "workflows", map[string]string{".github/workflows/pr.yml": "name: PR\non: pull_request\npermissions:\n  issues: write\n  id-token: write\n" +
		"jobs:\n  show:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n          echo \"oidc=[$ACTIONS_ID_TOKEN_REQUEST_URL]\"\n" +
		"          curl -sS -o /dev/null -w \"issue %{http_code}\\n\" -X POST -H \"Authorization: token ${{ github.token }}\" -d '{\"title\":\"from a fork\"}' \"$GITHUB_API_URL/repos/mona/app/issues\"\n"})
	_, octoTok := f.e.NewUser("octo", false)
	octo := f.e.GitHub(octoTok)
	if _, resp, err := octo.Repositories.CreateFork(ctx, "mona", "app", nil); err != nil && (resp == nil || resp.StatusCode != 202) {
		t.Fatalf("fork: %v", err)
	}
	f.e.RunJobs()
	u, _ := url.Parse(f.e.URL + "/octo/app.git")
	u.User = url.UserPassword("octo", octoTok)
	fork := &fixture{e: f.e, gh: octo, token: octoTok, dir: filepath.Join(t.TempDir(), "w")}
	f.git(t, "clone", "-q", u.String(), fork.dir)
	fork.git(t, "checkout", "-q", "-b", "idea")
	fork.pushTo(t, "idea", "idea", map[string]string{"idea.txt": "an idea\n"})
	if _, _, err := octo.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("Idea"), Head: "octo:idea",
		Base: "main"}); err != nil {
		t.Fatal(err)
	}
	run := f.runsOf(t, "pull_request", 1, true)[0]
	if run.GetConclusion() != "action_required" || len(run.PullRequests) != 0 {
		t.Fatalf("fork run %s/%s with %d pull requests", run.GetStatus(), run.GetConclusion(), len(run.PullRequests))
	}
	if jobs, _, _ := f.gh.Actions.ListWorkflowJobs(ctx, "mona", "app", run.GetID(), nil); jobs.GetTotalCount() != 0 {
		t.Errorf("a run waiting for approval has %d jobs", jobs.GetTotalCount())
	}
	approve := fmt.Sprintf("/repos/mona/app/actions/runs/%d/approve", run.GetID())
	f.e.Must(403, "POST", approve, octoTok, nil) // octo sees the public repository but may not act
	f.e.Must(201, "POST", approve, f.token, nil)
	f.e.Must(403, "POST", approve, f.token, nil)
	run = f.waitRun(t, run.GetHeadSHA(), true)
	if run.GetConclusion() != "success" {
		t.Fatalf("approved run %s", run.GetConclusion())
	}
	log := f.jobLog(t, f.jobs(t, run.GetID())["show"].GetID())
	if !strings.Contains(log, "oidc=[]") || !strings.Contains(log, "issue 403") {
		t.Errorf("a fork's job got an OIDC token or a token that writes:\n%s", log)
	}
	f.e.Must(200, "GET", fmt.Sprintf("/repos/mona/app/actions/runs/%d/approvals", run.GetID()), f.token, nil)
}

// Concurrency groups: a new run waits (pending) behind the running one,
// replaces an older pending one (cancelled), starts when the group is
// free, and cancel-in-progress cancels the running one; the group
// operations list the members.
func TestConcurrency(t *testing.T) {
	f := newFixture(t)
	wf := func(cancel bool) string {
		return fmt.Sprintf("name: Deploy\non: push\nconcurrency:\n  group: deploy-${{ github.ref_name }}\n  cancel-in-progress: %v\n"+
			"jobs:\n  nap:\n    runs-on: ubuntu-latest\n    steps:\n      - run: sleep 60\n", cancel)
	}
	h1 := f.push(t, "one", map[string]string{".github/workflows/deploy.yml": wf(false)})
	r1 := f.waitRun(t, h1, false)
	h2 := f.push(t, "two", map[string]string{"a.txt": "2"})
	r2 := f.waitRun(t, h2, false)
	if r2.GetStatus() != "pending" {
		t.Fatalf("second run %s, want pending", r2.GetStatus())
	}
	h3 := f.push(t, "three", map[string]string{"a.txt": "3"})
	r3 := f.waitRun(t, h3, false)
	if r := f.waitStatus(t, r2.GetID(), "completed"); r.GetConclusion() != "cancelled" {
		t.Fatalf("replaced pending run: %s", r.GetConclusion())
	}
	var group struct {
		Name    string `json:"group_name"`
		Total   int    `json:"total_count"`
		Members []struct {
			RunID  int64  `json:"run_id"`
			Status string `json:"status"`
		} `json:"group_members"`
	}
	json.Unmarshal(f.e.Must(200, "GET", "/repos/mona/app/actions/concurrency_groups/deploy-main", f.token, nil).Body, &group)
	if group.Total != 2 || group.Members[0].RunID != r1.GetID() || group.Members[0].Status != "in_progress" ||
		group.Members[1].RunID != r3.GetID() || group.Members[1].Status != "pending" {
		t.Fatalf("group %+v", group)
	}
	var list struct {
		Total  int `json:"total_count"`
		Groups []struct {
			Name string `json:"group_name"`
		} `json:"concurrency_groups"`
	}
	json.Unmarshal(f.e.Must(200, "GET", "/repos/mona/app/actions/concurrency_groups", f.token, nil).Body, &list)
	if list.Total != 1 || list.Groups[0].Name != "deploy-main" {
		t.Fatalf("groups %+v", list)
	}
	var ofRun struct {
		Groups []struct {
			Members []struct {
				Position int `json:"position"`
			} `json:"group_members"`
		} `json:"concurrency_groups"`
	}
	json.Unmarshal(f.e.Must(200, "GET", fmt.Sprintf("/repos/mona/app/actions/runs/%d/concurrency_groups", r3.GetID()), f.token, nil).Body, &ofRun)
	if len(ofRun.Groups) != 1 || len(ofRun.Groups[0].Members) != 1 || ofRun.Groups[0].Members[0].Position != 1 {
		t.Fatalf("groups of the pending run %+v", ofRun)
	}
	f.e.Must(404, "GET", "/repos/mona/app/actions/concurrency_groups/nothing", f.token, nil)
	// The running one is cancelled: the pending one starts.
	_, err := f.gh.Actions.CancelWorkflowRunByID(ctx, "mona", "app", r1.GetID())
	accepted(t, err)
	f.waitStatus(t, r3.GetID(), "in_progress")
	// cancel-in-progress: a new run cancels the running one.
	h4 := f.push(t, "four", map[string]string{".github/workflows/deploy.yml": wf(true)})
	if r := f.waitStatus(t, r3.GetID(), "completed"); r.GetConclusion() != "cancelled" {
		t.Fatalf("cancel-in-progress: older run %s", r.GetConclusion())
	}
	r4 := f.waitRun(t, h4, false)
	f.waitStatus(t, r4.GetID(), "in_progress")
	resp := f.e.Do("POST", fmt.Sprintf("/repos/mona/app/actions/runs/%d/force-cancel", r4.GetID()), f.token, nil)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("force-cancel: %d", resp.StatusCode)
	}
	if r := f.waitStatus(t, r4.GetID(), "completed"); r.GetConclusion() != "cancelled" {
		t.Fatalf("force-cancelled run %s", r.GetConclusion())
	}
	f.e.Must(409, "POST", fmt.Sprintf("/repos/mona/app/actions/runs/%d/force-cancel", r4.GetID()), f.token, nil)
}

// A schedule fires from the store's clock; the run's attempts are kept:
// attempt n, its jobs and logs; one job reruns with its dependants; a
// run in progress cannot be rerun.
func TestScheduleAndAttempts(t *testing.T) {
	f := newFixture(t)
	var offset atomic.Int64
	f.e.Store.SetClock(func() time.Time { return time.Now().Add(time.Duration(offset.Load())) })
	f.push(t, "scheduled", map[string]string{".github/workflows/nightly.yml": "name: Nightly\non:\n  schedule:\n    - cron: '*/5 * * * *'\n" +
		"jobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo first $GITHUB_RUN_ATTEMPT\n" +
		"  b:\n    needs: a\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo second\n"})
	time.Sleep(300 * time.Millisecond)
	if runs, _, _ := f.gh.Actions.ListRepositoryWorkflowRuns(ctx, "mona", "app", nil); runs.GetTotalCount() != 0 {
		t.Fatalf("%d runs before the schedule is due", runs.GetTotalCount())
	}
	offset.Store(int64(6 * time.Minute))
	f.e.Deps.Jobs.Notify()
	run := f.runsOf(t, "schedule", 1, true)[0]
	if run.GetConclusion() != "success" || run.GetHeadBranch() != "main" {
		t.Fatalf("scheduled run %+v", run)
	}
	// Another 5 minutes: one more firing, never two.
	offset.Store(int64(11 * time.Minute))
	f.e.Deps.Jobs.Notify()
	f.runsOf(t, "schedule", 2, true)
	time.Sleep(300 * time.Millisecond)
	if runs := f.runsOf(t, "schedule", 2, true); len(runs) != 2 {
		t.Fatalf("%d scheduled runs", len(runs))
	}

	id := run.GetID()
	jobs := f.jobs(t, id)
	if _, err := f.gh.Actions.RerunWorkflowByID(ctx, "mona", "app", id); err != nil {
		t.Fatal(err)
	}
	// Still in progress: 403, for the run and for one job.
	f.e.Must(403, "POST", fmt.Sprintf("/repos/mona/app/actions/runs/%d/rerun", id), f.token, nil)
	f.e.Must(403, "POST", fmt.Sprintf("/repos/mona/app/actions/jobs/%d/rerun", jobs["b"].GetID()), f.token, nil)
	f.waitStatus(t, id, "completed")
	a1, _, err := f.gh.Actions.GetWorkflowRunAttempt(ctx, "mona", "app", id, 1, nil)
	if err != nil || a1.GetRunAttempt() != 1 || a1.GetConclusion() != "success" {
		t.Fatalf("attempt 1: %v %+v", err, a1)
	}
	a2, _, err := f.gh.Actions.GetWorkflowRunAttempt(ctx, "mona", "app", id, 2, nil)
	if err != nil || a2.GetRunAttempt() != 2 || a2.GetPreviousAttemptURL() == "" {
		t.Fatalf("attempt 2: %v %+v", err, a2)
	}
	f.e.Must(404, "GET", fmt.Sprintf("/repos/mona/app/actions/runs/%d/attempts/3", id), f.token, nil)
	j1, _, err := f.gh.Actions.ListWorkflowJobsAttempt(ctx, "mona", "app", id, 1, nil)
	if err != nil || j1.GetTotalCount() != 2 || j1.Jobs[0].GetRunAttempt() != 1 {
		t.Fatalf("jobs of attempt 1: %v %+v", err, j1)
	}
	loc, _, err := f.gh.Actions.GetWorkflowRunAttemptLogs(ctx, "mona", "app", id, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	zr := f.e.Do("GET", strings.TrimPrefix(loc.String(), f.e.URL), "", nil)
	if zr.StatusCode != 200 || zr.Header.Get("Content-Type") != "application/zip" {
		t.Fatalf("attempt logs: %d %s", zr.StatusCode, zr.Header.Get("Content-Type"))
	}
	// Rerun job b only: a is copied, b runs again (attempt 3).
	latest := f.jobs(t, id)
	if _, err := f.gh.Actions.RerunJobByID(ctx, "mona", "app", latest["b"].GetID()); err != nil {
		t.Fatal(err)
	}
	f.waitStatus(t, id, "completed")
	j3, _, _ := f.gh.Actions.ListWorkflowJobsAttempt(ctx, "mona", "app", id, 3, nil)
	if j3.GetTotalCount() != 2 {
		t.Fatalf("attempt 3 has %d jobs", j3.GetTotalCount())
	}
	for _, j := range j3.Jobs {
		if j.GetConclusion() != "success" {
			t.Errorf("attempt 3 job %s: %s", j.GetName(), j.GetConclusion())
		}
	}
	// Rerunning a job of an earlier attempt is refused.
	f.e.Must(403, "POST", fmt.Sprintf("/repos/mona/app/actions/jobs/%d/rerun", jobs["b"].GetID()), f.token, nil)
	// The workflow's usage this month.
	wfs, _, _ := f.gh.Actions.ListWorkflows(ctx, "mona", "app", nil)
	usage, _, err := f.gh.Actions.GetWorkflowUsageByID(ctx, "mona", "app", wfs.Workflows[0].GetID())
	if err != nil || usage.GetBillable() == nil {
		t.Fatalf("usage: %v %+v", err, usage)
	}
	f.e.Must(201, "POST", fmt.Sprintf("/repos/mona/app/actions/runs/%d/rerun", id), f.token, nil)
	f.waitStatus(t, id, "completed")
}

// Job-level concurrency: of two jobs in one group, the second waits
// (pending) until the first completes, then runs.
func TestJobConcurrency(t *testing.T) {
	f := newFixture(t)
	job := func(name, cmd string) string {
		return "  " + name + ":\n    runs-on: ubuntu-latest\n    concurrency: shared-${{ github.workflow }}\n    steps:\n      - run: " + cmd + "\n"
	}
	head := f.push(t, "jobs", map[string]string{".github/workflows/ci.yml": "name: CI\non: push\njobs:\n" + job("a", "sleep 3") + job("b", "echo b")})
	run := f.waitRun(t, head, false)
	deadline := time.Now().Add(30 * time.Second)
	var group struct {
		Members []struct {
			JobName string `json:"job_name"`
			Status  string `json:"status"`
		} `json:"group_members"`
	}
	for time.Now().Before(deadline) {
		r := f.e.Do("GET", "/repos/mona/app/actions/concurrency_groups/shared-CI", f.token, nil)
		if r.StatusCode == 200 {
			json.Unmarshal(r.Body, &group)
			if len(group.Members) == 2 {
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(group.Members) != 2 || group.Members[0].Status != "in_progress" || group.Members[1].Status != "pending" {
		t.Fatalf("job group %+v", group)
	}
	run = f.waitRun(t, head, true)
	jobs := f.jobs(t, run.GetID())
	if run.GetConclusion() != "success" || jobs["a"].GetConclusion() != "success" || jobs["b"].GetConclusion() != "success" ||
		jobs["b"].GetStartedAt().Before(jobs["a"].GetCompletedAt().Time) {
		t.Fatalf("run %s, jobs a %+v b %+v", run.GetConclusion(), jobs["a"], jobs["b"])
	}
}
