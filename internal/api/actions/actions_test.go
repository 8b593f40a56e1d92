package actions_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
	"github.com/hubd/hubd/internal/apitest"
)

var ctx = context.Background()

// TestMain doubles as `hubd actions-worker`: the runner starts this test
// binary for each workflow job.
func TestMain(m *testing.M) { apitest.MainWithActionsWorker(m) }

type fixture struct {
	e     *apitest.Env
	gh    *github.Client
	token string
	dir   string // a clone of mona/app
}

func newFixture(t *testing.T, opts ...apitest.Options) *fixture {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var o apitest.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	o.ActionsWorker = []string{exe}
	e := apitest.New(t, o)
	_, tok := e.NewUser("mona", false)
	f := &fixture{e: e, gh: e.GitHub(tok), token: tok, dir: t.TempDir()}
	if _, _, err := f.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(e.URL + "/mona/app.git")
	u.User = url.UserPassword("mona", tok)
	f.git(t, "clone", "-q", u.String(), ".")
	return f
}

// git runs git in the clone with no user or system configuration.
func (f *fixture) git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Mona", "-c", "user.email=mona@example.com"}, args...)...)
	cmd.Dir = f.dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_ASKPASS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// push commits files (path → content) and pushes main; it returns the
// new head.
func (f *fixture) push(t *testing.T, msg string, files map[string]string) string {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(f.dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f.git(t, "add", "-A")
	f.git(t, "commit", "-q", "-m", msg)
	f.git(t, "push", "-q", "origin", "HEAD:main")
	return f.git(t, "rev-parse", "HEAD")
}

// waitRun waits until the repository has a run of head and it completed.
func (f *fixture) waitRun(t *testing.T, head string, done bool) *github.WorkflowRun {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		runs, _, err := f.gh.Actions.ListRepositoryWorkflowRuns(ctx, "mona", "app", &github.ListWorkflowRunsOptions{HeadSHA: head})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs.WorkflowRuns) > 0 && (!done || runs.WorkflowRuns[0].GetStatus() == "completed") {
			return runs.WorkflowRuns[0]
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no run of %s completed", head)
	return nil
}

// jobs lists a run's jobs by name.
func (f *fixture) jobs(t *testing.T, runID int64) map[string]*github.WorkflowJob {
	t.Helper()
	list, _, err := f.gh.Actions.ListWorkflowJobs(ctx, "mona", "app", runID, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*github.WorkflowJob{}
	for _, j := range list.Jobs {
		out[j.GetName()] = j
	}
	return out
}

// jobLog follows a job's log redirect and reads the text.
func (f *fixture) jobLog(t *testing.T, jobID int64) string {
	t.Helper()
	u, _, err := f.gh.Actions.GetWorkflowJobLogs(ctx, "mona", "app", jobID, 0)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(u.String()) // the URL needs no credentials
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("log download: %d %s", resp.StatusCode, b)
	}
	return string(b)
}

const ciWorkflow = `name: CI
on:
  push:
    branches: [main]
    paths-ignore: ['docs/**']
jobs:
  build:
    runs-on: ubuntu-latest
    outputs:
      greeting: ${{ steps.say.outputs.greeting }}
    steps:
      - uses: actions/checkout@v4
      - id: say
        run: echo "greeting=hello-from-build" >> "$GITHUB_OUTPUT"
      - run: echo "FOO=bar" >> "$GITHUB_ENV"
      - run: echo "foo is $FOO at $(git rev-parse HEAD) with $(cat .github/workflows/ci.yml | head -1)"
      - name: may fail
        run: exit 3
        continue-on-error: true
  test:
    needs: build
    runs-on: ubuntu-latest
    strategy:
      matrix:
        n: [1, 2]
    steps:
      - run: echo "got ${{ needs.build.outputs.greeting }} n=${{ matrix.n }}"
  fail:
    runs-on: ubuntu-latest
    steps:
      - run: echo boom; exit 1
  after:
    needs: fail
    runs-on: ubuntu-latest
    steps:
      - run: echo never
`

// A git push of a workflow runs it: outputs cross needs, a matrix makes a
// job per combination, continue-on-error keeps a job green, a failing job
// fails the run and skips its dependants; logs hold the steps' output.
func TestPushRunsWorkflow(t *testing.T) {
	f := newFixture(t)
	head := f.push(t, "add CI", map[string]string{".github/workflows/ci.yml": ciWorkflow})
	run := f.waitRun(t, head, true)
	if run.GetConclusion() != "failure" || run.GetEvent() != "push" || run.GetHeadBranch() != "main" || run.GetName() != "CI" ||
		run.GetRunNumber() != 1 || run.GetPath() != ".github/workflows/ci.yml" || run.GetActor().GetLogin() != "mona" ||
		run.GetHeadCommit().GetMessage() != "add CI" {
		t.Fatalf("run %+v", run)
	}
	jobs := f.jobs(t, run.GetID())
	want := map[string]string{"build": "success", "test (1)": "success", "test (2)": "success", "fail": "failure", "after": "skipped"}
	for name, c := range want {
		if j := jobs[name]; j == nil || j.GetConclusion() != c || j.GetStatus() != "completed" {
			t.Errorf("job %q: %+v, want %s", name, j, c)
		}
	}
	if len(jobs) != len(want) {
		t.Errorf("jobs %v", jobs)
	}
	build := f.jobLog(t, jobs["build"].GetID())
	if !strings.Contains(build, "foo is bar at "+head+" with name: CI") {
		t.Errorf("build log:\n%s", build)
	}
	if l := f.jobLog(t, jobs["test (2)"].GetID()); !strings.Contains(l, "got hello-from-build n=2") {
		t.Errorf("test (2) log:\n%s", l)
	}
	if l := f.jobLog(t, jobs["fail"].GetID()); !strings.Contains(l, "boom") {
		t.Errorf("fail log:\n%s", l)
	}
	steps := jobs["build"].Steps
	if len(steps) == 0 {
		t.Errorf("build has no steps")
	}
	// Each job is a check run of the commit with the job's id, in the
	// run's suite of the GitHub Actions app (the skipped one too, as on
	// GitHub); the run's and the job's urls point at each other.
	checks, _, err := f.gh.Checks.ListCheckRunsForRef(ctx, "mona", "app", head, nil)
	if err != nil || checks.GetTotal() != 5 || run.GetCheckSuiteID() == 0 {
		t.Fatalf("check runs %+v %v (suite %d)", checks, err, run.GetCheckSuiteID())
	}
	for _, c := range checks.CheckRuns {
		if j := jobs[c.GetName()]; j == nil || c.GetConclusion() != j.GetConclusion() || c.GetStatus() != "completed" ||
			c.GetCheckSuite().GetID() != run.GetCheckSuiteID() || j.GetCheckRunURL() != c.GetURL() || c.GetID() != j.GetID() ||
			c.GetApp().GetSlug() != "github-actions" || c.GetHTMLURL() != j.GetHTMLURL() || c.GetDetailsURL() != j.GetHTMLURL() {
			t.Errorf("check run %s: %s %s (id %d, job %d, app %q, html %s)", c.GetName(), c.GetStatus(), c.GetConclusion(),
				c.GetID(), j.GetID(), c.GetApp().GetSlug(), c.GetHTMLURL())
		}
	}
	// Its timing: the jobs that ran.
	usage, _, err := f.gh.Actions.GetWorkflowRunUsageByID(ctx, "mona", "app", run.GetID())
	if err != nil || (*usage.GetBillable())["UBUNTU"] == nil || (*usage.GetBillable())["UBUNTU"].GetJobs() != 4 {
		b, _ := json.Marshal(usage)
		t.Fatalf("timing %s %v", b, err)
	}
	// The run's logs: a zip with a text file per job.
	u, _, err := f.gh.Actions.GetWorkflowRunLogs(ctx, "mona", "app", run.GetID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	// GitHub's layout: "<n>_<job>.txt" per job that ran (the skipped one
	// has no log) and a "<job>/" folder with "<number>_<title>.txt" per
	// step holding that step's lines.
	logs := zipFiles(t, u.String())
	names := []string{}
	top := 0
	for name := range logs {
		names = append(names, name)
		if !strings.Contains(name, "/") {
			top++
		}
	}
	sort.Strings(names)
	if top != 4 {
		t.Errorf("zip files %v", names)
	}
	byNumber := map[int]string{}
	for _, st := range steps {
		byNumber[int(st.GetNumber())] = st.GetName()
	}
	if l := logs["build/1_Set up job.txt"]; !strings.Contains(l, "##[group]Set up job") {
		t.Errorf("set up job step log %q (files %v, steps %v)", l, names, byNumber)
	}
	if l := logs["build/2_Run actions_checkout@v4.txt"]; !strings.Contains(l, "##[group]Run actions/checkout@v4") || strings.Contains(l, "foo is bar") {
		t.Errorf("checkout step log %q (files %v, steps %v)", l, names, byNumber)
	}
	found := false
	for name, l := range logs {
		if strings.HasPrefix(name, "build/") && strings.Contains(l, "foo is bar at") {
			found = true
			if strings.Contains(l, "actions/checkout") || strings.Contains(l, "greeting=") {
				t.Errorf("step %s holds another step's lines:\n%s", name, l)
			}
		}
	}
	if !found || logs["fail/"+fmt.Sprint(len(jobs["fail"].Steps))+"_Complete job.txt"] == "" {
		t.Errorf("step files %v", names)
	}

	// The run list's filters.
	for _, c := range []struct {
		opts *github.ListWorkflowRunsOptions
		want int
	}{
		{&github.ListWorkflowRunsOptions{Actor: "mona", Branch: "main", Event: "push", Status: "failure"}, 1},
		{&github.ListWorkflowRunsOptions{Status: "completed", Created: ">=2000-01-01"}, 1},
		{&github.ListWorkflowRunsOptions{CheckSuiteID: run.GetCheckSuiteID()}, 1},
		{&github.ListWorkflowRunsOptions{Actor: "nobody"}, 0},
		{&github.ListWorkflowRunsOptions{Status: "success"}, 0},
		{&github.ListWorkflowRunsOptions{Created: "<2000-01-01"}, 0},
		{&github.ListWorkflowRunsOptions{Branch: "other"}, 0},
	} {
		runs, _, err := f.gh.Actions.ListRepositoryWorkflowRuns(ctx, "mona", "app", c.opts)
		if err != nil || runs.GetTotalCount() != c.want || len(runs.WorkflowRuns) != c.want {
			t.Errorf("runs %+v: %+v %v", c.opts, runs, err)
		}
	}
	// The workflow is listed, by id and by file name.
	wfs, _, err := f.gh.Actions.ListWorkflows(ctx, "mona", "app", nil)
	if err != nil || wfs.GetTotalCount() != 1 || wfs.Workflows[0].GetState() != "active" || wfs.Workflows[0].GetName() != "CI" {
		t.Fatalf("workflows %+v %v", wfs, err)
	}
	wf, _, err := f.gh.Actions.GetWorkflowByFileName(ctx, "mona", "app", "ci.yml")
	if err != nil || wf.GetID() != wfs.Workflows[0].GetID() || !strings.HasSuffix(wf.GetBadgeURL(), "/mona/app/workflows/CI/badge.svg") {
		t.Fatalf("workflow %+v %v", wf, err)
	}
	// A push touching only ignored paths runs nothing.
	docs := f.push(t, "docs only", map[string]string{"docs/readme.md": "hi\n"})
	f.e.RunJobs()
	if runs, _, _ := f.gh.Actions.ListRepositoryWorkflowRuns(ctx, "mona", "app", &github.ListWorkflowRunsOptions{HeadSHA: docs}); runs.GetTotalCount() != 0 {
		t.Errorf("paths-ignore: %d runs", runs.GetTotalCount())
	}
	// A disabled workflow is not triggered.
	if _, err := f.gh.Actions.DisableWorkflowByFileName(ctx, "mona", "app", "ci.yml"); err != nil {
		t.Fatal(err)
	}
	off := f.push(t, "while disabled", map[string]string{"src.txt": "1\n"})
	f.e.RunJobs()
	if runs, _, _ := f.gh.Actions.ListRepositoryWorkflowRuns(ctx, "mona", "app", &github.ListWorkflowRunsOptions{HeadSHA: off}); runs.GetTotalCount() != 0 {
		t.Errorf("disabled: %d runs", runs.GetTotalCount())
	}
	if _, err := f.gh.Actions.EnableWorkflowByID(ctx, "mona", "app", wf.GetID()); err != nil {
		t.Fatal(err)
	}
	// Rerun of the failed jobs: a second attempt; the successful jobs are
	// copied, the failed one runs again.
	if _, err := f.gh.Actions.RerunFailedJobsByID(ctx, "mona", "app", run.GetID()); err != nil {
		t.Fatal(err)
	}
	again := f.waitRun(t, head, true)
	if again.GetRunAttempt() != 2 || again.GetConclusion() != "failure" || again.GetPreviousAttemptURL() == "" {
		t.Errorf("rerun %+v", again)
	}
	// Delete the logs, then the run.
	if _, err := f.gh.Actions.DeleteWorkflowRunLogs(ctx, "mona", "app", run.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.gh.Actions.GetWorkflowJobLogs(ctx, "mona", "app", f.jobs(t, run.GetID())["fail"].GetID(), 0); err == nil {
		t.Errorf("log after deletion")
	}
	if _, err := f.gh.Actions.DeleteWorkflowRun(ctx, "mona", "app", run.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, resp, err := f.gh.Actions.GetWorkflowRunByID(ctx, "mona", "app", run.GetID()); err == nil || resp.StatusCode != 404 {
		t.Errorf("deleted run: %v", err)
	}
}

const tokenWorkflow = `name: Token
on: push
permissions:
  issues: write
jobs:
  file:
    runs-on: ubuntu-latest
    steps:
      - run: |
          curl -sS -f -X POST -H "Authorization: Bearer ${{ secrets.GITHUB_TOKEN }}" -H "Accept: application/vnd.github+json" \
            "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/issues" -d '{"title":"filed by the workflow"}' -o /dev/null -w "status %{http_code}\n"
          echo "plain ${{ secrets.GITHUB_TOKEN }}"
          echo "reversed $(printf %s "${{ secrets.GITHUB_TOKEN }}" | rev)"
`

// A job's GITHUB_TOKEN is an installation token for the run's repository
// with the workflow's permissions: a step creates an issue with it through
// hubd's API; the log masks it; it is revoked when the job ends.
func TestJobToken(t *testing.T) {
	f := newFixture(t)
	head := f.push(t, "token", map[string]string{".github/workflows/token.yml": tokenWorkflow})
	run := f.waitRun(t, head, true)
	jobs := f.jobs(t, run.GetID())
	log := f.jobLog(t, jobs["file"].GetID())
	if run.GetConclusion() != "success" || !strings.Contains(log, "status 201") {
		t.Fatalf("run %s:\n%s", run.GetConclusion(), log)
	}
	if !strings.Contains(log, "plain ***") || strings.Contains(log, "plain ghs_") {
		t.Errorf("token not masked:\n%s", log)
	}
	issues, _, err := f.gh.Issues.ListByRepo(ctx, "mona", "app", nil)
	if err != nil || len(issues) != 1 || issues[0].GetTitle() != "filed by the workflow" || issues[0].GetUser().GetLogin() != "github-actions[bot]" {
		t.Fatalf("issues %+v %v", issues, err)
	}
	// The log masks the token and its base64 forms (as GitHub's runner);
	// reversed, it gets through, and the test has it back.
	i := strings.LastIndex(log, "reversed ")
	if i < 0 {
		t.Fatalf("no reversed token:\n%s", log)
	}
	rev := []rune(strings.Fields(log[i+len("reversed "):])[0])
	slices.Reverse(rev)
	tok := string(rev)
	if !strings.HasPrefix(tok, "ghs_") {
		t.Fatalf("token %q", tok)
	}
	f.e.Must(401, "GET", "/repos/mona/app", tok, nil)
}

const dispatchWorkflow = `name: Deploy
on:
  workflow_dispatch:
    inputs:
      target:
        required: true
        type: string
      level:
        type: choice
        options: [low, high]
        default: low
      dry:
        type: boolean
  push:
    branches: [nothing-pushes-here]
jobs:
  go:
    runs-on: ubuntu-latest
    steps:
      - run: echo "target=${{ inputs.target }} level=${{ inputs.level }} dry=${{ inputs.dry }} event=${{ github.event_name }}"
`

// workflow_dispatch through go-github: typed inputs reach the job; bad
// inputs, unknown refs and workflows without the trigger get GitHub's 422s.
func TestDispatch(t *testing.T) {
	f := newFixture(t)
	f.push(t, "workflows", map[string]string{".github/workflows/deploy.yml": dispatchWorkflow, ".github/workflows/ci.yml": "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: true\n"})
	f.e.RunJobs()
	if _, _, err := f.gh.Actions.CreateWorkflowDispatchEventByFileName(ctx, "mona", "app", "deploy.yml", github.CreateWorkflowDispatchEventRequest{
		Ref: "main", Inputs: map[string]any{"target": "prod", "dry": true}}); err != nil {
		t.Fatal(err)
	}
	runs, _, err := f.gh.Actions.ListWorkflowRunsByFileName(ctx, "mona", "app", "deploy.yml", &github.ListWorkflowRunsOptions{Event: "workflow_dispatch"})
	if err != nil || runs.GetTotalCount() != 1 {
		t.Fatalf("dispatched runs %+v %v", runs, err)
	}
	run := f.waitRun(t, runs.WorkflowRuns[0].GetHeadSHA(), true)
	if run.GetEvent() != "workflow_dispatch" || run.GetConclusion() != "success" {
		t.Fatalf("run %+v", run)
	}
	job := f.jobs(t, run.GetID())["go"]
	log := f.jobLog(t, job.GetID())
	if !strings.Contains(log, "target=prod level=low dry=true event=workflow_dispatch") {
		t.Errorf("log:\n%s", log)
	}
	got, _, err := f.gh.Actions.GetWorkflowJobByID(ctx, "mona", "app", job.GetID())
	if err != nil || got.GetName() != "go" || got.GetRunID() != run.GetID() || got.GetWorkflowName() != "Deploy" || len(got.Labels) != 1 {
		t.Fatalf("job %+v %v", got, err)
	}
	// A rerun is a second attempt of every job with the same inputs.
	if _, err := f.gh.Actions.RerunWorkflowByID(ctx, "mona", "app", run.GetID()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if run, _, err = f.gh.Actions.GetWorkflowRunByID(ctx, "mona", "app", run.GetID()); err != nil {
			t.Fatal(err)
		}
		if run.GetStatus() == "completed" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if run.GetRunAttempt() != 2 || run.GetConclusion() != "success" {
		t.Fatalf("rerun %+v", run)
	}
	all, _, err := f.gh.Actions.ListWorkflowJobs(ctx, "mona", "app", run.GetID(), &github.ListWorkflowJobsOptions{Filter: "all"})
	if err != nil || all.GetTotalCount() != 2 {
		t.Fatalf("jobs of both attempts %+v %v", all, err)
	}
	if l := f.jobLog(t, all.Jobs[1].GetID()); !strings.Contains(l, "target=prod level=low dry=true") {
		t.Errorf("second attempt log:\n%s", l)
	}
	for _, c := range []struct {
		file string
		body any
		msg  string
	}{
		{"deploy.yml", map[string]any{"ref": "main", "inputs": map[string]any{"nope": "1", "target": "x"}}, `Unexpected inputs provided: ["nope"]`},
		{"deploy.yml", map[string]any{"ref": "main"}, "Required input 'target' not provided"},
		{"deploy.yml", map[string]any{"ref": "main", "inputs": map[string]any{"target": "x", "level": "mid"}}, "Provided value 'mid' for input 'level' not in the list of allowed values"},
		{"deploy.yml", map[string]any{"ref": "nowhere", "inputs": map[string]any{"target": "x"}}, "No ref found for: nowhere"},
		{"ci.yml", map[string]any{"ref": "main"}, "Workflow does not have 'workflow_dispatch' trigger"},
	} {
		r := f.e.Must(422, "POST", "/repos/mona/app/actions/workflows/"+c.file+"/dispatches", f.token, c.body)
		if !strings.Contains(string(r.Body), strings.ReplaceAll(c.msg, `"`, `\"`)) {
			t.Errorf("%v: %s", c.body, r.Body)
		}
	}
	f.e.Must(404, "POST", "/repos/mona/app/actions/workflows/missing.yml/dispatches", f.token, map[string]any{"ref": "main"})
}

// Cancelling a run stops its sleeping job at once; a worker process that
// dies fails its job instead of leaving it in progress.
func TestCancelAndDeadWorker(t *testing.T) {
	f := newFixture(t)
	head := f.push(t, "slow", map[string]string{
		".github/workflows/slow.yml": "name: Slow\non: push\njobs:\n  nap:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo napping; sleep 120\n",
	})
	run := f.waitRun(t, head, false)
	deadline := time.Now().Add(30 * time.Second)
	for f.jobs(t, run.GetID())["nap"].GetStatus() != "in_progress" && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	start := time.Now()
	// go-github reports GitHub's 202 as an *AcceptedError.
	if _, err := f.gh.Actions.CancelWorkflowRunByID(ctx, "mona", "app", run.GetID()); err != nil {
		if _, ok := err.(*github.AcceptedError); !ok {
			t.Fatal(err)
		}
	}
	run = f.waitRun(t, head, true)
	if run.GetConclusion() != "cancelled" || time.Since(start) > 5*time.Second {
		t.Errorf("cancelled run %s after %v", run.GetConclusion(), time.Since(start))
	}
	// Cancelling it again: 409.
	f.e.Must(409, "POST", fmt.Sprintf("/repos/mona/app/actions/runs/%d/cancel", run.GetID()), f.token, nil)

	// A step that kills its worker process: the job fails with a message.
	head = f.push(t, "suicide", map[string]string{
		".github/workflows/slow.yml": "name: Slow\non: push\njobs:\n  nap:\n    runs-on: ubuntu-latest\n    steps:\n      - run: kill -9 $PPID; sleep 30\n",
	})
	run = f.waitRun(t, head, true)
	jobs := f.jobs(t, run.GetID())
	if run.GetConclusion() != "failure" || jobs["nap"].GetConclusion() != "failure" {
		t.Fatalf("run %s, job %+v", run.GetConclusion(), jobs["nap"])
	}
	if l := f.jobLog(t, jobs["nap"].GetID()); !strings.Contains(l, "The worker process of this job ended without a result") {
		t.Errorf("log:\n%s", l)
	}
}

// A workflow file that does not parse gets a run that failed at once, as on
// GitHub; a job past its timeout-minutes is stopped and timed out.
func TestBadWorkflowAndTimeout(t *testing.T) {
	f := newFixture(t)
	head := f.push(t, "broken", map[string]string{
		".github/workflows/bad.yml":  "name: Bad\non: push\njobs:\n  a:\n    needs: nowhere\n    runs-on: ubuntu-latest\n    steps:\n      - run: true\n",
		".github/workflows/slow.yml": "name: Slow\non: push\njobs:\n  nap:\n    runs-on: ubuntu-latest\n    timeout-minutes: 0.05\n    steps:\n      - run: sleep 60\n",
	})
	deadline := time.Now().Add(60 * time.Second)
	var runs *github.WorkflowRuns
	for time.Now().Before(deadline) {
		var err error
		if runs, _, err = f.gh.Actions.ListRepositoryWorkflowRuns(ctx, "mona", "app", &github.ListWorkflowRunsOptions{HeadSHA: head, Status: "completed"}); err != nil {
			t.Fatal(err)
		}
		if runs.GetTotalCount() == 2 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	byName := map[string]*github.WorkflowRun{}
	for _, r := range runs.WorkflowRuns {
		byName[r.GetName()] = r
	}
	if r := byName[".github/workflows/bad.yml"]; r == nil || r.GetConclusion() != "failure" {
		t.Errorf("bad workflow run %+v", r)
	}
	slow := byName["Slow"]
	if slow == nil || slow.GetConclusion() != "failure" {
		t.Fatalf("slow run %+v", slow)
	}
	j := f.jobs(t, slow.GetID())["nap"]
	if j.GetConclusion() != "timed_out" || !strings.Contains(f.jobLog(t, j.GetID()), "exceeded the maximum execution time") {
		t.Errorf("timed out job %+v", j)
	}
}
