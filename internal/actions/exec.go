package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/checks"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

const (
	// maxJobTimeout is GitHub's default and largest timeout-minutes.
	maxJobTimeout = 360 * time.Minute
	// MaxLog caps a job's log; the rest is cut with a note.
	MaxLog = 16 << 20
	// requeueDelay is how soon a job no runner could take is looked at
	// again.
	requeueDelay = 2 * time.Second
)

// Executor runs workflow jobs in worker processes.
type Executor struct {
	svc *Service
	// Command starts a worker: argv before the spec path
	// (`hubd actions-worker`). Empty: jobs stay queued.
	Command []string
	// Root holds the jobs' work directories.
	Root string
	// Web and API are hubd's base URLs given to jobs (GITHUB_SERVER_URL,
	// GITHUB_API_URL).
	Web, API string
	// Sandbox, when set, is prepended to the worker's command instead of
	// the sandbox SandboxMode makes (sandbox.go): auto (""), bwrap, none.
	Sandbox     []string
	SandboxMode string
	// Hidden are directories jobs may not see in their sandbox (hubd's
	// data directory); Root is hidden too, but for the job's own directory.
	Hidden []string
	// Token mints the run's GITHUB_TOKEN for a job with the workflow's
	// permissions; Revoke revokes it when the job ends.
	Token  func(ctx context.Context, repo *model.Repo, perms map[string]string) (plain string, id int64, err error)
	Revoke func(ctx context.Context, id int64) error
	// Poll is how often a running job looks for its cancellation.
	Poll time.Duration
	// SpecHooks complete a job's spec before its worker starts (secrets,
	// variables, the OIDC token endpoint, runner and policy checks), in
	// order; an error fails the job with the error's text in its log.
	SpecHooks []SpecHook
	// AfterHooks see a job's result before its work directory goes
	// (afterhooks.go): custom image snapshots.
	AfterHooks []AfterHook
	// DefaultPermissions, when set, is the GITHUB_TOKEN's level ("read"
	// or "write") for a workflow without permissions: (policy.go).
	DefaultPermissions func(ctx context.Context, repo *model.Repo) (string, error)
	// Admit, when set, picks the runner of a job before it starts
	// (internal/runners: runner groups and labels): runner "" keeps the
	// job queued, looked at again a few seconds later; release frees the
	// runner when the job ends.
	Admit func(ctx context.Context, jc JobContext, labels []string) (runner string, release func(), err error)

	mu      sync.Mutex
	running map[int64]*os.Process // job id → worker (tests kill it)
}

// JobContext is what a spec hook knows of the job about to run.
type JobContext struct {
	Repo *model.Repo
	Run  *model.WorkflowRun
	Job  *model.WorkflowJob
	Dir  string // the job's work directory (the checkout is Dir/workspace)
}

// SpecHook adds to a job's spec before it runs; an error fails the job.
type SpecHook func(ctx context.Context, jc JobContext, spec *Spec) error

type runJob struct {
	JobID  int64 `json:"job_id"`
	RepoID int64 `json:"repo_id"`
}

// Worker is the process running a job now (nil when none): tests stop it
// to see a worker die.
func (e *Executor) Worker(jobID int64) *os.Process {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.running[jobID]
}

func (e *Executor) handle(ctx context.Context, payload []byte) error {
	var p runJob
	if err := json.Unmarshal(payload, &p); err != nil {
		return err
	}
	s := e.svc
	q := s.Store.R()
	j, err := q.Job(ctx, p.RepoID, p.JobID)
	if errors.Is(err, model.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if j.Status == model.ActionsInProgress {
		// Claimed again: the hubd process that ran it died and its lease
		// ran out. The job fails rather than stay in progress.
		return e.finish(ctx, j, model.ConclusionFailure, nil, nil,
			e.stamp("##[error]The runner of this job stopped responding (its hubd process ended) and the job was failed.\n"))
	}
	if j.Status != model.ActionsQueued {
		return nil
	}
	v, err := q.RepoByID(ctx, p.RepoID, 0)
	if err != nil {
		return err
	}
	repo := v.Repo
	run, err := q.Run(ctx, repo.ID, j.RunID)
	if err != nil {
		return err
	}
	w, perr := parseWorkflow(run.WorkflowPath, []byte(run.Source))
	if perr != nil {
		return e.finish(ctx, j, model.ConclusionFailure, nil, nil, e.stamp("##[error]"+perr.Error()+"\n"))
	}
	if len(e.Command) == 0 {
		return errors.New("actions: no worker command configured")
	}
	// Runner groups and labels (internal/runners): a job no runner of this
	// process may take stays queued and is queued again for later.
	runnerName := "hubd"
	if e.Admit != nil {
		name, release, err := e.Admit(ctx, JobContext{Repo: repo, Run: run, Job: j}, s.Labels(run)[j.Key])
		if err != nil {
			return err
		}
		if name == "" {
			return s.Store.Tx(ctx, func(tx store.Q) error {
				return jobs.Enqueue(ctx, tx, jobs.Job{Kind: kindJob, Key: fmt.Sprintf("actions.job:%d", j.ID), Payload: p, MaxAttempts: 2, Delay: requeueDelay})
			})
		}
		defer release()
		runnerName = name
	}
	var token string
	var tokenID int64
	if e.Token != nil {
		level, err := e.defaultPermissions(ctx, repo) // the policies' default (policy.go)
		if err != nil {
			return err
		}
		if token, tokenID, err = e.Token(ctx, repo, w.tokenPermissions(level)); err != nil {
			return err
		}
	}
	revoke := func() {
		if tokenID != 0 && e.Revoke != nil {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_ = e.Revoke(rctx, tokenID)
		}
	}
	started := false
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		if started, err = tx.StartJob(ctx, j.ID, runnerName, tokenID); err != nil || !started {
			return err
		}
		if run.Status == model.ActionsQueued {
			run.Status = model.ActionsInProgress
			if err := tx.SetRunState(ctx, run.ID, run.Status, nil); err != nil {
				return err
			}
			if err := s.runEvent(ctx, tx, repo, run, "in_progress"); err != nil {
				return err
			}
		}
		j.Status = model.ActionsInProgress
		return s.jobEvent(ctx, tx, run, j, "in_progress")
	})
	if err != nil || !started {
		revoke()
		return err
	}
	e.startCheck(ctx, repo, run, j)
	log, res := e.execute(ctx, repo, run, j, w, token)
	revoke()
	err = e.finish(ctx, j, res.Conclusion, res.Outputs, res.Steps, log)
	e.dropLiveLog(j.ID)
	return err
}

// stamp prefixes a line with the time, as GitHub's log lines are.
func (e *Executor) stamp(s string) string {
	return time.Now().UTC().Format(stampLayout) + " " + s
}

// finish completes a job with its log and moves its run on.
func (e *Executor) finish(ctx context.Context, j *model.WorkflowJob, conclusion string, outputs map[string]string, steps []model.WorkflowStep, log string) error {
	s := e.svc
	ctx = context.WithoutCancel(ctx)
	moved := false
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetJobLog(ctx, j.ID, log); err != nil {
			return err
		}
		j.Conclusion, j.Outputs, j.Steps = &conclusion, outputs, steps
		var err error
		if moved, err = tx.FinishJob(ctx, j); err != nil || !moved {
			return err // cancelled meanwhile: the cancellation decided
		}
		j.Status = model.ActionsCompleted
		run, err := tx.Run(ctx, j.RepoID, j.RunID)
		if err != nil {
			return err
		}
		if err := s.jobEvent(ctx, tx, run, j, "completed"); err != nil {
			return err
		}
		if run.RunAttempt != j.RunAttempt {
			return nil
		}
		return s.advance(ctx, tx, run)
	})
	if err == nil {
		e.dropLiveLog(j.ID) // stored with the job
		if moved {
			s.Runner.Notify() // the jobs that needed this one start now, not at the next poll
		}
	}
	if err == nil && !moved {
		// Cancelled meanwhile: the check run takes the job's conclusion.
		if cur, cerr := s.Store.R().Job(ctx, j.RepoID, j.ID); cerr == nil {
			conclusion = deref(cur.Conclusion)
		}
	}
	if err == nil {
		e.finishCheck(ctx, j, conclusion)
		e.skippedChecks(ctx, j.RepoID, j.RunID, j.RunAttempt)
	}
	return err
}

// startCheck shows a started job as an in-progress check run of the
// run's commit (its suite is the run's); failures only cost the check.
func (e *Executor) startCheck(ctx context.Context, repo *model.Repo, run *model.WorkflowRun, j *model.WorkflowJob) {
	if e.svc.Checks == nil {
		return
	}
	name, status := j.Name, model.CheckInProgress
	details := fmt.Sprintf("%s/%s/%s/actions/runs/%d/job/%d", e.Web, repo.Owner.Login, repo.Name, run.ID, j.ID)
	ext := strconv.FormatInt(j.ID, 10)
	v, err := e.svc.Checks.CreateRun(ctx, repo, authz.Admin, run.TriggeringActorID, checks.RunInput{Name: &name, HeadSHA: run.HeadSHA,
		Status: &status, DetailsURL: &details, ExternalID: &ext})
	if err != nil {
		slog.Warn("actions: check run", "job", j.ID, "err", err)
		return
	}
	j.CheckRunID = v.Run.ID
	_ = e.svc.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetJobCheckRun(ctx, j.ID, v.Run.ID); err != nil {
			return err
		}
		return tx.SetRunCheckSuite(ctx, run.ID, v.Run.SuiteID)
	})
}

// finishCheck completes a job's check run with its conclusion.
func (e *Executor) finishCheck(ctx context.Context, j *model.WorkflowJob, conclusion string) {
	if e.svc.Checks == nil || j.CheckRunID == 0 {
		return
	}
	v, err := e.svc.Store.R().RepoByID(ctx, j.RepoID, 0)
	if err != nil {
		return
	}
	status := model.CheckCompleted
	if _, err := e.svc.Checks.UpdateRun(ctx, v.Repo, authz.Admin, 0, j.CheckRunID, checks.RunInput{Status: &status, Conclusion: &conclusion}); err != nil {
		slog.Warn("actions: check run", "job", j.ID, "err", err)
	}
}

// execute runs the job in a worker process and returns its log and result.
func (e *Executor) execute(ctx context.Context, repo *model.Repo, run *model.WorkflowRun, j *model.WorkflowJob, w *parsed, token string) (string, Result) {
	out := e.liveLog(j.ID)
	defer out.close()
	fail := func(format string, args ...any) (string, Result) {
		out.Write([]byte(e.stamp("##[error]" + fmt.Sprintf(format, args...) + "\n")))
		return out.String(), Result{Conclusion: model.ConclusionFailure}
	}
	if err := os.MkdirAll(e.Root, 0o700); err != nil {
		return fail("work directory: %v", err)
	}
	dir, err := os.MkdirTemp(e.Root, fmt.Sprintf("job-%d-", j.ID))
	if err != nil {
		return fail("work directory: %v", err)
	}
	defer os.RemoveAll(dir)
	ws := filepath.Join(dir, "workspace")
	full := repo.Owner.Login + "/" + repo.Name
	if err := e.svc.Git.Open(repo.ID).Checkout(ctx, run.CheckoutSHA(), ws, e.Web+"/"+full+".git"); err != nil {
		return fail("checkout of %s: %v", run.HeadSHA, err)
	}
	// The needs' results and outputs (the latest combination of a matrix).
	needs := map[string]Need{}
	if len(j.Needs) > 0 {
		list, _, err := e.svc.Store.R().RunJobs(ctx, run.ID, j.RunAttempt, 1<<30, 0)
		if err != nil {
			return fail("%v", err)
		}
		for _, o := range list {
			for _, n := range j.Needs {
				if o.Key == n {
					prev, seen := needs[n]
					r := deref(o.Conclusion)
					if seen && prev.Result != "success" {
						r = prev.Result
					}
					needs[n] = Need{Result: r, Outputs: o.Outputs}
				}
			}
		}
	}
	u, _ := url.Parse(e.Web)
	ref := run.Ref
	inputs := map[string]string{}
	for k, v := range run.Inputs {
		inputs[k] = fmt.Sprint(v)
	}
	payload := map[string]any{"repository": map[string]any{"full_name": full, "name": repo.Name, "default_branch": repo.DefaultBranch,
		"owner": map[string]any{"login": repo.Owner.Login}}}
	if run.Event == "workflow_dispatch" {
		payload["inputs"], payload["ref"] = inputs, ref // strings, as github.event.inputs are
	}
	spec := Spec{Path: run.WorkflowPath, Source: run.Source, JobKey: j.Key, Matrix: j.Matrix, Needs: needs, Event: run.Event,
		Payload: payload, Inputs: inputs, Workdir: ws, Instance: u.Host, Token: token, Result: filepath.Join(dir, "result.json"),
		Env: map[string]string{
			"GITHUB_SERVER_URL": e.Web, "GITHUB_API_URL": e.API, "GITHUB_GRAPHQL_URL": e.Web + "/api/graphql",
			"GITHUB_REPOSITORY": full, "GITHUB_REPOSITORY_OWNER": repo.Owner.Login, "GITHUB_REF": ref,
			"GITHUB_REF_NAME": strings.TrimPrefix(strings.TrimPrefix(ref, "refs/heads/"), "refs/tags/"),
			"SHA_REF":         run.HeadSHA, "GITHUB_SHA": run.HeadSHA, "GITHUB_RUN_ID": strconv.FormatInt(run.ID, 10),
			"GITHUB_RUN_NUMBER": strconv.FormatInt(run.RunNumber, 10), "GITHUB_RUN_ATTEMPT": strconv.FormatInt(j.RunAttempt, 10),
			"GITHUB_DEFAULT_BRANCH": repo.DefaultBranch, "GITHUB_WORKSPACE": ws, "CI": "true", "GITHUB_ACTIONS": "true",
			"RUNNER_OS": "Linux", "RUNNER_TEMP": filepath.Join(dir, "tmp"), "RUNNER_TOOL_CACHE": filepath.Join(dir, "toolcache"),
		},
		Secrets: map[string]string{}}
	if token != "" {
		spec.Secrets["GITHUB_TOKEN"] = token
	}
	if a, err := e.svc.Store.R().AccountByID(ctx, run.TriggeringActorID); err == nil {
		spec.Actor = a.Login
	}
	for _, d := range []string{"tmp", "toolcache", "home"} {
		os.MkdirAll(filepath.Join(dir, d), 0o700)
	}
	if err := e.prepareActions(ctx, repo, run, w, j.Key, dir, &spec); err != nil {
		return fail("%v", err)
	}
	for _, h := range e.SpecHooks {
		if err := h(ctx, JobContext{Repo: repo, Run: run, Job: j, Dir: dir}, &spec); err != nil {
			return fail("%v", err)
		}
	}
	sb, _ := json.Marshal(spec)
	specPath := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(specPath, sb, 0o600); err != nil {
		return fail("%v", err)
	}
	timeout := w.jobTimeout(j.Key)
	jctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	box, boxNote, err := e.sandbox(dir)
	if err != nil {
		return fail("%v", err)
	}
	if boxNote != "" {
		out.Write([]byte(e.stamp(boxNote + "\n")))
	}
	argv := append(append(append([]string{}, box...), e.Command...), specPath)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	// A clean environment: never the server's.
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + filepath.Join(dir, "home"),
		"LANG=C.UTF-8", "TMPDIR=" + filepath.Join(dir, "tmp"), "HUBD_ACTIONS_WORKER=1"}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fail("worker: %v", err)
	}
	e.mu.Lock()
	if e.running == nil {
		e.running = map[int64]*os.Process{}
	}
	e.running[j.ID] = cmd.Process
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.running, j.ID)
		e.mu.Unlock()
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	poll := e.Poll
	if poll == 0 {
		poll = time.Second
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	kill := func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var werr error
	stopped := ""
wait:
	for {
		select {
		case werr = <-done:
			break wait
		case <-jctx.Done():
			stopped = model.ConclusionTimedOut
			if ctx.Err() != nil {
				stopped = model.ConclusionCancelled
			}
			kill()
		case <-t.C:
			if cur, err := e.svc.Store.R().Job(ctx, j.RepoID, j.ID); err == nil && cur.Status == model.ActionsCompleted {
				stopped = model.ConclusionCancelled
				kill()
			}
		}
	}
	kill() // whatever the job left behind in its process group
	var res Result
	b, rerr := os.ReadFile(spec.Result)
	switch {
	case stopped == model.ConclusionTimedOut:
		out.Write([]byte(e.stamp(fmt.Sprintf("##[error]The job running on runner hubd has exceeded the maximum execution time of %d minutes.\n", int(timeout/time.Minute)))))
		res.Conclusion = stopped
	case stopped == model.ConclusionCancelled:
		out.Write([]byte(e.stamp("##[error]The operation was canceled.\n")))
		res.Conclusion = stopped
	case rerr != nil || json.Unmarshal(b, &res) != nil:
		out.Write([]byte(e.stamp(fmt.Sprintf("##[error]The worker process of this job ended without a result (%v).\n", werr))))
		res.Conclusion = model.ConclusionFailure
	}
	// The work directory is still there: snapshots (afterhooks.go).
	e.afterHooks(ctx, JobContext{Repo: repo, Run: run, Job: j, Dir: dir}, res, out)
	return out.String(), res
}

// tokenPermissions are the GITHUB_TOKEN's permissions: the workflow's
// permissions:, or the default of the repository's policy (level):
// GitHub's restricted default (contents and packages read, metadata read)
// or its permissive one (every permission write).
func (p *parsed) tokenPermissions(level string) map[string]string {
	all := []string{"actions", "checks", "contents", "deployments", "issues", "packages", "pages", "pull_requests",
		"repository_projects", "security_events", "statuses", "discussions"}
	out := map[string]string{"metadata": "read"}
	switch {
	case p.perms != nil:
		for k, v := range p.perms {
			k = strings.ReplaceAll(k, "-", "_")
			if v == "read" || v == "write" {
				out[k] = v
			}
		}
	case p.permsAll == "write-all" || p.permsAll == "read-all":
		lvl := strings.TrimSuffix(p.permsAll, "-all")
		for _, k := range all {
			out[k] = lvl
		}
	case level == "write":
		for _, k := range all {
			out[k] = "write"
		}
	default:
		out["contents"], out["packages"] = "read", "read"
	}
	return out
}

// jobTimeout is a job's timeout-minutes (360 by default and at most).
func (p *parsed) jobTimeout(key string) time.Duration {
	j := p.wf.Jobs[key]
	if j == nil {
		return maxJobTimeout
	}
	if n, err := strconv.ParseFloat(strings.TrimSpace(j.TimeoutMinutes), 64); err == nil && n > 0 {
		return min(time.Duration(n*float64(time.Minute)), maxJobTimeout)
	}
	return maxJobTimeout
}
