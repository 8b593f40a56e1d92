package actions_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

const ghWorkflow = `name: Steps
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - name: greet
        run: echo hello-from-greet
      - name: break
        run: echo broke-here; exit 2
      - name: never
        run: echo never-runs
`

// gh run view --log labels each line with its job and step (from the
// run's log zip), --log-failed shows only the failed step's lines, and
// gh run view --json answers every field gh offers.
func TestGhRunViewLogs(t *testing.T) {
	f := newFixture(t)
	head := f.push(t, "steps", map[string]string{".github/workflows/steps.yml": ghWorkflow})
	run := f.waitRun(t, head, true)
	g := ghcli.Start(t, f.e)
	g.LoginAs("mona", f.token)
	id := fmt.Sprint(run.GetID())

	r := g.Run("run", "view", id, "--log", "-R", "mona/app")
	if r.Err != nil || strings.Contains(r.Stdout, "UNKNOWN STEP") || !hasLine(r.Stdout, "build\tgreet\t", "hello-from-greet") ||
		!hasLine(r.Stdout, "build\tbreak\t", "broke-here") || !hasLine(r.Stdout, "build\tSet up job\t", "") {
		t.Fatalf("gh run view --log:\n%s", r)
	}
	r = g.Run("run", "view", id, "--log-failed", "-R", "mona/app")
	if r.Err != nil || !hasLine(r.Stdout, "build\tbreak\t", "broke-here") || strings.Contains(r.Stdout, "hello-from-greet") ||
		strings.Contains(r.Stdout, "UNKNOWN STEP") {
		t.Fatalf("gh run view --log-failed:\n%s", r)
	}

	// Every --json field gh offers (it lists them when asked for none).
	r = g.Run("run", "view", id, "-R", "mona/app", "--json")
	_, list, ok := strings.Cut(r.Stderr, "fields for `--json`:")
	fields := strings.Fields(list)
	if !ok || len(fields) < 15 {
		t.Fatalf("gh run view --json fields:\n%s", r)
	}
	r = g.Run("run", "view", id, "--json", strings.Join(fields, ","), "-R", "mona/app")
	var got map[string]any
	if r.Err != nil || json.Unmarshal([]byte(r.Stdout), &got) != nil {
		t.Fatalf("gh run view --json:\n%s", r)
	}
	for _, k := range fields {
		if v, ok := got[k]; !ok || v == nil || v == "" {
			t.Errorf("gh run view --json %s: %v (%s)", k, v, r.Stdout)
		}
	}
	jobs, _ := got["jobs"].([]any)
	if len(jobs) != 1 {
		t.Fatalf("jobs %v", got["jobs"])
	}
	job, _ := jobs[0].(map[string]any)
	if steps, _ := job["steps"].([]any); len(steps) < 4 || job["databaseId"] == nil || job["url"] == "" {
		t.Errorf("job %v", job)
	}
}

// hasLine reports whether out has a line starting with prefix that holds
// want.
func hasLine(out, prefix, want string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) && strings.Contains(l, want) {
			return true
		}
	}
	return false
}

const checksWorkflow = `name: PR
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - run: echo built
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: echo linted; exit 1
`

// gh pr checks lists a pull request's jobs (check runs) with whether the
// base branch requires them (CheckRun.isRequired against branch
// protection), and --required keeps the required ones.
func TestGhPrChecks(t *testing.T) {
	f := newFixture(t)
	if _, _, err := f.gh.Repositories.UpdateBranchProtection(ctx, "mona", "app", "main", &github.ProtectionRequest{
		RequiredStatusChecks: &github.RequiredStatusChecks{Contexts: &[]string{"build"}}}); err != nil {
		t.Fatal(err)
	}
	head := f.pushTo(t, "feature", "checks", map[string]string{".github/workflows/pr.yml": checksWorkflow})
	f.waitRun(t, head, true)
	if _, _, err := f.gh.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("checks"),
		Head: "feature", Base: "main"}); err != nil {
		t.Fatal(err)
	}
	g := ghcli.Start(t, f.e)
	g.LoginAs("mona", f.token)
	r := g.Run("pr", "checks", "1", "-R", "mona/app")
	if r.Code != 1 || !hasLine(r.Stdout, "build\tpass\t", "/actions/runs/") || !hasLine(r.Stdout, "lint\tfail\t", "/actions/runs/") {
		t.Fatalf("gh pr checks:\n%s", r)
	}
	r = g.Run("pr", "checks", "1", "-R", "mona/app", "--required")
	if r.Err != nil || !hasLine(r.Stdout, "build\tpass\t", "") || strings.Contains(r.Stdout, "lint") {
		t.Fatalf("gh pr checks --required:\n%s", r)
	}
	r = g.Run("pr", "checks", "1", "-R", "mona/app", "--json", "name,state,bucket,link,workflow")
	if r.Err != nil || !strings.Contains(r.Stdout, `"bucket":"pass","link":"`+f.e.URL+`/mona/app/actions/runs/`) || !strings.Contains(r.Stdout, `"name":"build","state":"SUCCESS","workflow":"PR"`) {
		t.Fatalf("gh pr checks --json:\n%s", r)
	}
}

// gh pr checks and gh run view agree with the suites: two workflows with a
// job of the same name are two checks of the pull request's head, each
// linking to its own run; gh run view shows each run's own job.
func TestGhChecksOfTwoWorkflows(t *testing.T) {
	f := newFixture(t)
	head := f.pushTo(t, "feature", "two workflows", map[string]string{
		".github/workflows/a.yml": "name: A\non: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo a\n",
		".github/workflows/b.yml": "name: B\non: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: exit 1\n",
	})
	runs := f.runsOf(t, "push", 2, true)
	if _, _, err := f.gh.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("two"),
		Head: "feature", Base: "main"}); err != nil {
		t.Fatal(err)
	}
	g := ghcli.Start(t, f.e)
	g.LoginAs("mona", f.token)
	r := g.Run("pr", "checks", "1", "-R", "mona/app", "--json", "name,state,link,workflow")
	var checks []struct{ Name, State, Link, Workflow string }
	if err := json.Unmarshal([]byte(r.Stdout), &checks); err != nil || len(checks) != 2 {
		t.Fatalf("gh pr checks --json (%v):\n%s", err, r)
	}
	for _, run := range runs {
		want := map[string]string{"A": "SUCCESS", "B": "FAILURE"}[run.GetName()]
		found := false
		for _, c := range checks {
			found = found || (c.Name == "build" && c.Workflow == run.GetName() && c.State == want &&
				strings.Contains(c.Link, fmt.Sprintf("/actions/runs/%d/", run.GetID())))
		}
		if !found || run.GetHeadSHA() != head {
			t.Errorf("no check of run %s (%d) in %+v", run.GetName(), run.GetID(), checks)
		}
		v := g.Run("run", "view", fmt.Sprint(run.GetID()), "-R", "mona/app", "--json", "jobs,conclusion,workflowName")
		if v.Err != nil || !strings.Contains(v.Stdout, `"workflowName":"`+run.GetName()+`"`) || strings.Count(v.Stdout, `"databaseId"`) != 1 {
			t.Errorf("gh run view %d:\n%s", run.GetID(), v)
		}
	}
}
