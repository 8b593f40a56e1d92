package actions_test

import (
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
)

// Each workflow run is a check suite of the GitHub Actions app, as on
// GitHub: two workflows of one push make two suites of the commit, each
// holding its run's jobs (a job of the same name in both stays two
// checks), each completing with its run's conclusion; a re-run is a new
// attempt in the same suite, whose latest runs are the new attempt's.
func TestWorkflowRunIsItsCheckSuite(t *testing.T) {
	f := newFixture(t)
	head := f.push(t, "two workflows", map[string]string{
		".github/workflows/a.yml": "name: A\non: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo a\n",
		".github/workflows/b.yml": "name: B\non: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo b; exit 1\n",
	})
	runs := f.runsOf(t, "push", 2, true)
	if len(runs) != 2 || runs[0].GetCheckSuiteID() == 0 || runs[1].GetCheckSuiteID() == 0 ||
		runs[0].GetCheckSuiteID() == runs[1].GetCheckSuiteID() {
		t.Fatalf("two runs, two suites: %d %d", runs[0].GetCheckSuiteID(), runs[1].GetCheckSuiteID())
	}
	suites, _, err := f.gh.Checks.ListCheckSuitesForRef(ctx, "mona", "app", head, nil)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64]*github.CheckSuite{}
	for _, s := range suites.CheckSuites {
		if s.GetApp().GetSlug() == "github-actions" {
			byID[s.GetID()] = s
		}
	}
	if len(byID) != 2 {
		t.Fatalf("suites of the Actions app: %+v", suites)
	}
	for _, run := range runs {
		s := byID[run.GetCheckSuiteID()]
		want := map[string]string{"A": "success", "B": "failure"}[run.GetName()]
		if s == nil || s.GetStatus() != "completed" || s.GetConclusion() != want || s.GetHeadSHA() != head ||
			run.GetCheckSuiteURL() != s.GetURL() || run.GetConclusion() != want {
			t.Errorf("run %s (%s) and its suite %+v", run.GetName(), run.GetConclusion(), s)
		}
		list, _, err := f.gh.Checks.ListCheckRunsCheckSuite(ctx, "mona", "app", run.GetCheckSuiteID(), nil)
		job := f.jobs(t, run.GetID())["build"]
		if err != nil || list.GetTotal() != 1 || job == nil || list.CheckRuns[0].GetID() != job.GetID() {
			t.Errorf("check runs of %s's suite: %+v %v", run.GetName(), list, err)
		}
		got, _, err := f.gh.Actions.ListRepositoryWorkflowRuns(ctx, "mona", "app", &github.ListWorkflowRunsOptions{CheckSuiteID: run.GetCheckSuiteID()})
		if err != nil || got.GetTotalCount() != 1 || got.WorkflowRuns[0].GetID() != run.GetID() {
			t.Errorf("runs of suite %d: %+v %v", run.GetCheckSuiteID(), got, err)
		}
	}
	// Both "build" jobs are checks of the commit.
	checks, _, err := f.gh.Checks.ListCheckRunsForRef(ctx, "mona", "app", head, &github.ListCheckRunsOptions{Filter: github.Ptr("latest")})
	if err != nil || checks.GetTotal() != 2 {
		t.Fatalf("latest check runs of the commit %+v %v", checks, err)
	}

	// A re-run of B: attempt 2 in the same suite.
	var b *github.WorkflowRun
	for _, r := range runs {
		if r.GetName() == "B" {
			b = r
		}
	}
	if _, err := f.gh.Actions.RerunWorkflowByID(ctx, "mona", "app", b.GetID()); err != nil {
		t.Fatal(err)
	}
	again := b
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if again, _, err = f.gh.Actions.GetWorkflowRunByID(ctx, "mona", "app", b.GetID()); err != nil {
			t.Fatal(err)
		}
		if again.GetRunAttempt() == 2 && again.GetStatus() == "completed" {
			break
		}
	}
	if again.GetRunAttempt() != 2 || again.GetStatus() != "completed" || again.GetCheckSuiteID() != b.GetCheckSuiteID() {
		t.Fatalf("re-run %d/%s in suite %d, was %d", again.GetRunAttempt(), again.GetStatus(), again.GetCheckSuiteID(), b.GetCheckSuiteID())
	}
	all, _, err := f.gh.Checks.ListCheckRunsCheckSuite(ctx, "mona", "app", b.GetCheckSuiteID(), &github.ListCheckRunsOptions{Filter: github.Ptr("all")})
	if err != nil || all.GetTotal() != 2 {
		t.Errorf("check runs of both attempts in the suite: %+v %v", all, err)
	}
	latest, _, err := f.gh.Checks.ListCheckRunsCheckSuite(ctx, "mona", "app", b.GetCheckSuiteID(), &github.ListCheckRunsOptions{Filter: github.Ptr("latest")})
	jobs := f.jobs(t, b.GetID())
	if err != nil || latest.GetTotal() != 1 || latest.CheckRuns[0].GetID() != jobs["build"].GetID() {
		t.Errorf("latest check run of the suite %+v %v (job %d)", latest, err, jobs["build"].GetID())
	}
	suites, _, err = f.gh.Checks.ListCheckSuitesForRef(ctx, "mona", "app", head, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range suites.CheckSuites {
		if s.GetApp().GetSlug() == "github-actions" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("suites after the re-run: %+v", suites)
	}
}
