package environments_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

func TestMain(m *testing.M) { apitest.MainWithActionsWorker(m) }

const gatedWorkflow = `name: deploy
on: push
jobs:
  deploy:
    runs-on: ubuntu-latest
    environment: production
    steps:
      - run: echo deployed
  after:
    runs-on: ubuntu-latest
    needs: deploy
    steps:
      - run: echo after
`

const timedWorkflow = `name: stage
on: push
jobs:
  stage:
    runs-on: ubuntu-latest
    environment: staging
    steps:
      - run: echo staged
`

// waitFor polls cond until it holds (90 seconds at most).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// runOf waits for the run of a commit and for its job key to reach status.
func runOf(t *testing.T, gh *github.Client, owner, repo, sha, key, status string) (*github.WorkflowRun, *github.WorkflowJob) {
	t.Helper()
	var run *github.WorkflowRun
	var job *github.WorkflowJob
	waitFor(t, key+" "+status, func() bool {
		runs, _, err := gh.Actions.ListRepositoryWorkflowRuns(ctx, owner, repo, &github.ListWorkflowRunsOptions{HeadSHA: sha})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs.WorkflowRuns) == 0 {
			return false
		}
		run = runs.WorkflowRuns[0]
		jobs, _, err := gh.Actions.ListWorkflowJobs(ctx, owner, repo, run.GetID(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range jobs.Jobs {
			if j.GetName() == key && j.GetStatus() == status {
				job = j
				return true
			}
		}
		return false
	})
	return run, job
}

// completed waits for a run to complete and answers it with its jobs by name.
func completed(t *testing.T, gh *github.Client, owner, repo string, id int64) (*github.WorkflowRun, map[string]*github.WorkflowJob) {
	t.Helper()
	var run *github.WorkflowRun
	waitFor(t, "the run to complete", func() bool {
		r, _, err := gh.Actions.GetWorkflowRunByID(ctx, owner, repo, id)
		if err != nil {
			t.Fatal(err)
		}
		run = r
		return r.GetStatus() == "completed"
	})
	jobs, _, err := gh.Actions.ListWorkflowJobs(ctx, owner, repo, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*github.WorkflowJob{}
	for _, j := range jobs.Jobs {
		out[j.GetName()] = j
	}
	return run, out
}

// TestDeploymentGates: a job whose environment has required reviewers
// waits (job and run waiting) with a pending deployment; a reviewer
// approves it (it runs) or rejects it (it fails, the run too); the
// run's actor may not review when the environment prevents self-review.
func TestDeploymentGates(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.New(t, apitest.Options{ActionsWorker: []string{exe}})
	mona, monaTok := e.NewUser("mona", false)
	mike, mikeTok := e.NewUser("mike", false)
	_, strangerTok := e.NewUser("hubot", false)
	gh, mikeGH := e.GitHub(monaTok), e.GitHub(mikeTok)
	repo, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true), Private: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, repo.GetID(), mike.ID, authz.Write) }); err != nil {
		t.Fatal(err)
	}
	env, _, err := gh.Repositories.CreateUpdateEnvironment(ctx, "mona", "app", "production", &github.CreateUpdateEnvironment{
		Reviewers: []*github.EnvReviewers{{Type: github.Ptr("User"), ID: github.Ptr(mike.ID)}}})
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := gh.Repositories.CreateFile(ctx, "mona", "app", ".github/workflows/deploy.yml", &github.RepositoryContentFileOptions{
		Message: github.Ptr("deploy"), Content: []byte(gatedWorkflow)})
	if err != nil {
		t.Fatal(err)
	}
	sha := res.Commit.GetSHA()
	run, _ := runOf(t, gh, "mona", "app", sha, "deploy", "waiting")
	if r, _, err := gh.Actions.GetWorkflowRunByID(ctx, "mona", "app", run.GetID()); err != nil || r.GetStatus() != "waiting" {
		t.Fatalf("run while its job waits: %v %s", err, r.GetStatus())
	}

	// The pending deployment: mona may not approve (not a reviewer), mike may.
	pend, _, err := gh.Actions.GetPendingDeployments(ctx, "mona", "app", run.GetID())
	if err != nil || len(pend) != 1 || pend[0].Environment.GetName() != "production" || pend[0].Environment.GetID() != env.GetID() ||
		pend[0].GetCurrentUserCanApprove() || len(pend[0].Reviewers) != 1 || pend[0].GetWaitTimer() != 0 || pend[0].WaitTimerStartedAt != nil {
		t.Fatalf("pending deployments: %v %+v", err, pend)
	}
	pend, _, err = mikeGH.Actions.GetPendingDeployments(ctx, "mona", "app", run.GetID())
	if err != nil || len(pend) != 1 || !pend[0].GetCurrentUserCanApprove() {
		t.Fatalf("pending deployments for the reviewer: %v %+v", err, pend)
	}
	e.Must(http.StatusNotFound, "GET", "/repos/mona/app/actions/runs/"+itoa(run.GetID())+"/pending_deployments", strangerTok, nil)
	e.Must(http.StatusNotFound, "GET", "/repos/mona/app/actions/runs/999999/pending_deployments", monaTok, nil)
	approve := github.PendingDeploymentsRequest{EnvironmentIDs: []int64{env.GetID()}, State: "approved", Comment: "Ship it!"}
	if _, _, err := gh.Actions.PendingDeployments(ctx, "mona", "app", run.GetID(), approve); apitest.Status(err) != http.StatusForbidden {
		t.Fatalf("a user who is not a reviewer approves: %v", err)
	}
	if _, _, err := mikeGH.Actions.PendingDeployments(ctx, "mona", "app", run.GetID(), github.PendingDeploymentsRequest{
		EnvironmentIDs: []int64{env.GetID() + 1000}, State: "approved", Comment: ""}); apitest.Status(err) != http.StatusUnprocessableEntity {
		t.Fatalf("an environment that is not pending: %v", err)
	}
	e.Must(http.StatusUnprocessableEntity, "POST", "/repos/mona/app/actions/runs/"+itoa(run.GetID())+"/pending_deployments", mikeTok,
		map[string]any{"environment_ids": []int64{env.GetID()}, "state": "maybe", "comment": ""})
	e.Must(http.StatusUnprocessableEntity, "POST", "/repos/mona/app/actions/runs/"+itoa(run.GetID())+"/pending_deployments", mikeTok,
		map[string]any{"environment_ids": []int64{env.GetID()}, "state": "approved"})
	deps, _, err := mikeGH.Actions.PendingDeployments(ctx, "mona", "app", run.GetID(), approve)
	if err != nil || len(deps) != 1 || deps[0].GetEnvironment() != "production" || deps[0].GetTask() != "deploy" || deps[0].GetSHA() != sha ||
		deps[0].GetRef() != "main" || deps[0].Creator.GetLogin() != "mona" {
		t.Fatalf("approve: %v %+v", err, deps)
	}
	done, jobs := completed(t, gh, "mona", "app", run.GetID())
	if done.GetConclusion() != "success" || jobs["deploy"].GetConclusion() != "success" || jobs["after"].GetConclusion() != "success" {
		t.Fatalf("approved run: %s %+v", done.GetConclusion(), jobs)
	}
	if pend, _, err := mikeGH.Actions.GetPendingDeployments(ctx, "mona", "app", run.GetID()); err != nil || len(pend) != 0 {
		t.Fatalf("pending after approval: %v %+v", err, pend)
	}
	if _, _, err := mikeGH.Actions.PendingDeployments(ctx, "mona", "app", run.GetID(), approve); apitest.Status(err) != http.StatusUnprocessableEntity {
		t.Fatalf("approving again: %v", err)
	}
	var reviews []struct {
		State        string `json:"state"`
		Comment      string `json:"comment"`
		User         struct{ Login string }
		Environments []struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		} `json:"environments"`
	}
	r := e.Must(http.StatusOK, "GET", "/repos/mona/app/actions/runs/"+itoa(run.GetID())+"/approvals", monaTok, nil)
	if err := json.Unmarshal(r.Body, &reviews); err != nil || len(reviews) != 1 || reviews[0].State != "approved" || reviews[0].Comment != "Ship it!" ||
		reviews[0].User.Login != "mike" || len(reviews[0].Environments) != 1 || reviews[0].Environments[0].Name != "production" {
		t.Fatalf("reviews: %v %s", err, r.Body)
	}

	// Self-review prevented: mona, a reviewer too, may not review her run;
	// mike rejects it: the job fails, the job needing it is skipped.
	if _, _, err := gh.Repositories.CreateUpdateEnvironment(ctx, "mona", "app", "production", &github.CreateUpdateEnvironment{
		PreventSelfReview: github.Ptr(true),
		Reviewers:         []*github.EnvReviewers{{Type: github.Ptr("User"), ID: github.Ptr(mona.ID)}, {Type: github.Ptr("User"), ID: github.Ptr(mike.ID)}}}); err != nil {
		t.Fatal(err)
	}
	res, _, err = gh.Repositories.CreateFile(ctx, "mona", "app", "NOTES.md", &github.RepositoryContentFileOptions{
		Message: github.Ptr("notes"), Content: []byte("notes\n")})
	if err != nil {
		t.Fatal(err)
	}
	run, _ = runOf(t, gh, "mona", "app", res.Commit.GetSHA(), "deploy", "waiting")
	if pend, _, err := gh.Actions.GetPendingDeployments(ctx, "mona", "app", run.GetID()); err != nil || len(pend) != 1 || pend[0].GetCurrentUserCanApprove() ||
		len(pend[0].Reviewers) != 2 {
		t.Fatalf("pending deployments for the run's actor: %v %+v", err, pend)
	}
	if _, _, err := gh.Actions.PendingDeployments(ctx, "mona", "app", run.GetID(), approve); apitest.Status(err) != http.StatusForbidden {
		t.Fatalf("self-review: %v", err)
	}
	if _, _, err := mikeGH.Actions.PendingDeployments(ctx, "mona", "app", run.GetID(), github.PendingDeploymentsRequest{
		EnvironmentIDs: []int64{env.GetID()}, State: "rejected", Comment: "Not today"}); err != nil {
		t.Fatalf("reject: %v", err)
	}
	done, jobs = completed(t, gh, "mona", "app", run.GetID())
	if done.GetConclusion() != "failure" || jobs["deploy"].GetConclusion() != "failure" || jobs["after"].GetConclusion() != "skipped" {
		t.Fatalf("rejected run: %s deploy %s after %s", done.GetConclusion(), jobs["deploy"].GetConclusion(), jobs["after"].GetConclusion())
	}
	r = e.Must(http.StatusOK, "GET", "/repos/mona/app/actions/runs/"+itoa(run.GetID())+"/approvals", monaTok, nil)
	if err := json.Unmarshal(r.Body, &reviews); err != nil || len(reviews) != 1 || reviews[0].State != "rejected" {
		t.Fatalf("reviews: %v %s", err, r.Body)
	}

	// A waiting run cancelled: nothing is pending any more.
	res, _, err = gh.Repositories.CreateFile(ctx, "mona", "app", "MORE.md", &github.RepositoryContentFileOptions{
		Message: github.Ptr("more"), Content: []byte("more\n")})
	if err != nil {
		t.Fatal(err)
	}
	run, _ = runOf(t, gh, "mona", "app", res.Commit.GetSHA(), "deploy", "waiting")
	var accepted *github.AcceptedError
	if _, err := gh.Actions.CancelWorkflowRunByID(ctx, "mona", "app", run.GetID()); err != nil && !errors.As(err, &accepted) {
		t.Fatalf("cancel: %v", err)
	}
	if done, _ = completed(t, gh, "mona", "app", run.GetID()); done.GetConclusion() != "cancelled" {
		t.Fatalf("cancelled run: %s", done.GetConclusion())
	}
	if pend, _, err := mikeGH.Actions.GetPendingDeployments(ctx, "mona", "app", run.GetID()); err != nil || len(pend) != 0 {
		t.Fatalf("pending after cancel: %v %+v", err, pend)
	}
	if _, _, err := mikeGH.Actions.PendingDeployments(ctx, "mona", "app", run.GetID(), approve); apitest.Status(err) != http.StatusUnprocessableEntity {
		t.Fatalf("approving a cancelled run: %v", err)
	}
}

// TestDeploymentWaitTimer: a job of an environment with a wait timer
// waits until the timer, a delayed job of the queue, runs out (the store
// clock is moved past it).
func TestDeploymentWaitTimer(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.New(t, apitest.Options{ActionsWorker: []string{exe}})
	var offset atomic.Int64
	e.Store.SetClock(func() time.Time { return time.Now().Add(time.Duration(offset.Load())) })
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateUpdateEnvironment(ctx, "mona", "app", "staging", &github.CreateUpdateEnvironment{WaitTimer: github.Ptr(1)}); err != nil {
		t.Fatal(err)
	}
	res, _, err := gh.Repositories.CreateFile(ctx, "mona", "app", ".github/workflows/stage.yml", &github.RepositoryContentFileOptions{
		Message: github.Ptr("stage"), Content: []byte(timedWorkflow)})
	if err != nil {
		t.Fatal(err)
	}
	run, _ := runOf(t, gh, "mona", "app", res.Commit.GetSHA(), "stage", "waiting")
	pend, _, err := gh.Actions.GetPendingDeployments(ctx, "mona", "app", run.GetID())
	if err != nil || len(pend) != 1 || pend[0].GetWaitTimer() != 1 || pend[0].WaitTimerStartedAt == nil || len(pend[0].Reviewers) != 0 {
		t.Fatalf("pending deployments: %v %+v", err, pend)
	}
	time.Sleep(500 * time.Millisecond)
	if r, _, err := gh.Actions.GetWorkflowRunByID(ctx, "mona", "app", run.GetID()); err != nil || r.GetStatus() != "waiting" {
		t.Fatalf("run before the timer ran out: %v %s", err, r.GetStatus())
	}
	offset.Store(int64(2 * time.Minute))
	done, jobs := completed(t, gh, "mona", "app", run.GetID())
	if done.GetConclusion() != "success" || jobs["stage"].GetConclusion() != "success" {
		t.Fatalf("run after the timer: %s %+v", done.GetConclusion(), jobs)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
