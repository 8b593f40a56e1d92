package web_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
)

// TestPullRequestLoopPlaywright runs testdata/loop.mjs (Playwright with
// Debian's chromium, axe-core) against a running hubd in two phases: mona
// opens a pull request from the compare page and sees its check run, rita
// approves it with an inline comment from the diff, mona merges it with
// squash; after the jobs have run, the linked issue is closed and mona
// deletes the branch. Every page the script visits has no serious or
// critical axe violation. Screenshots go to $HUBD_TEST_ARTIFACTS (or the
// test's temporary directory). Missing node, npm packages or chromium fail
// the test.
func TestPullRequestLoopPlaywright(t *testing.T) {
	node, exe, root, shots := playwright(t)

	l := newLoop(t)
	e := l.e
	l.collaborator(t)
	e.Must(201, "POST", "/repos/mona/app/check-runs", l.monaTok, map[string]any{"name": "lint", "head_sha": "feature",
		"status": "completed", "conclusion": "success", "output": map[string]any{"title": "Lint", "summary": "clean"}})

	run := func(phase string) { t.Helper(); runScript(t, node, exe, root, shots, e.URL, phase) }
	run("review")
	e.RunJobs()
	run("after")
	e.Must(404, "GET", "/repos/mona/app/branches/feature", l.monaTok, nil)
	r := e.Must(200, "GET", "/repos/mona/app/pulls/2", l.monaTok, nil)
	if !strings.Contains(string(r.Body), `"merged":true`) {
		t.Fatalf("the pull request is not merged: %.500s", r.Body)
	}
	t.Logf("screenshots in %s", shots)
}

// playwright finds node, chromium, the repository root (with its npm
// packages) and the screenshots' directory; anything missing fails.
func playwright(t *testing.T) (node, exe, root, shots string) {
	t.Helper()
	p := apitest.NewPlaywright(t, "axe-core")
	return p.Node, p.Chromium, p.Root, p.Artifacts
}

// runScript runs one phase of testdata/loop.mjs against base and reports
// its axe violations as errors.
func runScript(t *testing.T, node, exe, root, shots, base, phase string, env ...string) {
	t.Helper()
	// Each step of the script has its own timeout; this bounds a hung
	// browser (generous: a loaded CI machine runs a phase in over a minute).
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, "internal/web/testdata/loop.mjs"), phase)
	cmd.Env = append(append(os.Environ(), "HUBD_URL="+base, "HUBD_PASSWORD=correct horse battery",
		"HUBD_ARTIFACTS="+shots, "HUBD_CHROMIUM="+exe), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var res struct {
		Checked    []string `json:"checked"`
		Violations []struct {
			Page, URL, ID, Impact, Help string
			Nodes                       []string
		} `json:"violations"`
	}
	if jerr := json.Unmarshal(out, &res); jerr != nil {
		t.Fatalf("phase %s: %v\nstdout: %s\nstderr: %s", phase, err, out, stderr.String())
	}
	for _, v := range res.Violations {
		t.Errorf("axe %s on %s (%s): %s %s\n  %s", v.Impact, v.Page, v.URL, v.ID, v.Help, strings.Join(v.Nodes, "\n  "))
	}
	if err != nil && len(res.Violations) == 0 {
		t.Fatalf("phase %s: %v\nstderr: %s", phase, err, stderr.String())
	}
	t.Logf("phase %s: axe checked %s", phase, strings.Join(res.Checked, ", "))
}

// TestWorkflowRunPlaywright: in chromium, mona opens a finished workflow
// run's page, follows a job to its log and re-runs the failed job, which
// runs again (attempt 2); axe finds nothing serious on the run and job
// pages.
func TestWorkflowRunPlaywright(t *testing.T) {
	node, exe, root, shots := playwright(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.New(t, apitest.Options{ActionsWorker: []string{self}})
	_, monaTok := e.NewUser("mona", false)
	e.SetPassword("mona", "correct horse battery")
	e.Must(201, "POST", "/user/repos", monaTok, map[string]any{"name": "app"})
	w := newWork(t)
	w.commit("CI", map[string]string{".github/workflows/ci.yml": ciYAML, "README.md": "hi\n"})
	w.push(e, monaTok, "mona", "app", "main")
	run := waitRuns(t, e, monaTok, 1)
	if run.Conclusion != "failure" {
		t.Fatalf("run: %+v", run)
	}
	runScript(t, node, exe, root, shots, e.URL, "run", "HUBD_RUN_PATH=/mona/app/actions/runs/"+strconv.FormatInt(run.ID, 10))
	if again := waitRuns(t, e, monaTok, 2); again.RunAttempt != 2 || again.Conclusion != "failure" {
		t.Fatalf("after the re-run: %+v", again)
	}
}

// liveYAML is a workflow whose job prints a line, waits for gate1.txt on
// main (a file the test creates through the contents API), prints
// another, waits for gate2.txt, and succeeds: its log grows while the
// test watches, at the test's pace and never a timer's.
const liveYAML = `name: Live
on:
  push:
    branches: [feature]
jobs:
  slow:
    runs-on: ubuntu-latest
    steps:
      - name: Wait for the gates
        run: |
          gate() { until curl -sf -o /dev/null -H "Authorization: Bearer ${{ secrets.GITHUB_TOKEN }}" "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY/contents/$1?ref=main"; do sleep 0.2; done; }
          echo line-one
          gate gate1.txt
          echo line-two
          gate gate2.txt
          echo line-three
`

// TestLiveChecksPlaywright: with the pages' CSP enforced, an open pull
// request's page shows a workflow's check run appear in progress, the
// lines of its job's log as they are printed, and its completion, without
// reloading; the run's page follows its running job's log and shows the
// run's success (testdata/loop.mjs, phase "live"). The API then agrees.
func TestLiveChecksPlaywright(t *testing.T) {
	node, exe, root, shots := playwright(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.New(t, apitest.Options{ActionsWorker: []string{self}})
	_, monaTok := e.NewUser("mona", false)
	e.SetPassword("mona", "correct horse battery")
	e.Must(201, "POST", "/user/repos", monaTok, map[string]any{"name": "app"})
	w := newWork(t)
	w.commit("First", map[string]string{"README.md": "hi\n"})
	w.push(e, monaTok, "mona", "app", "main")
	w.git("checkout", "-q", "-b", "feature")
	w.commit("Change", map[string]string{"README.md": "hello\n"})
	w.push(e, monaTok, "mona", "app", "feature")
	e.Must(201, "POST", "/repos/mona/app/pulls", monaTok, map[string]any{"title": "Live", "head": "feature", "base": "main"})

	runScript(t, node, exe, root, shots, e.URL, "live", "HUBD_TOKEN="+monaTok, "HUBD_WORKFLOW="+liveYAML)
	run := waitRuns(t, e, monaTok, 1)
	if run.Conclusion != "success" {
		t.Fatalf("run: %+v", run)
	}
	var checks struct {
		Runs []struct {
			Name       string `json:"name"`
			Status     string `json:"status"`
			Conclusion string `json:"conclusion"`
		} `json:"check_runs"`
	}
	e.Must(200, "GET", "/repos/mona/app/commits/feature/check-runs", monaTok, nil).JSON(t, &checks)
	if len(checks.Runs) != 1 || checks.Runs[0].Name != "slow" || checks.Runs[0].Conclusion != "success" {
		t.Fatalf("check runs: %+v", checks.Runs)
	}
}
