package actions

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

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

// Executor dispatches workflow jobs to the runners that connect to hubd
// (dispatch.go) and follows them to their end.
type Executor struct {
	svc *Service
	// Root holds hubd's side of the jobs' files (their checkout and
	// actions, sent to the runner) and their live logs.
	Root string
	// Web and API are hubd's base URLs given to jobs (GITHUB_SERVER_URL,
	// GITHUB_API_URL).
	Web, API string
	// Token mints the run's GITHUB_TOKEN for a job with the workflow's
	// permissions; Revoke revokes it when the job ends.
	Token  func(ctx context.Context, repo *model.Repo, perms map[string]string) (plain string, id int64, err error)
	Revoke func(ctx context.Context, id int64) error
	// Poll is how often a running job looks for its cancellation and its
	// runner's silence.
	Poll time.Duration
	// Heartbeat is how often a runner heartbeats its job; a job whose
	// runner is silent for Offline fails with GitHub's lost-communication
	// message (defaults 10 s and a minute).
	Heartbeat, Offline time.Duration
	// MaxTimeout caps a job's timeout-minutes (default and at most 360).
	MaxTimeout time.Duration
	// RunnerWait is how long a job waits for a waiting runner that may
	// take it before it is queued again (default 10 s).
	RunnerWait time.Duration
	// SpecHooks complete a job's spec before its runner gets it (secrets,
	// variables, the OIDC token endpoint, runner and policy checks), in
	// order; an error fails the job with the error's text in its log.
	SpecHooks []SpecHook
	// AfterHooks see a job's result before its files go (afterhooks.go):
	// custom image snapshots; Uploads names the trees (FilesToolCache,
	// FilesHome) a job's runner sends back for them.
	AfterHooks []AfterHook
	Uploads    func(jc JobContext) []string
	// DefaultPermissions, when set, is the GITHUB_TOKEN's level ("read"
	// or "write") for a workflow without permissions: (policy.go).
	DefaultPermissions func(ctx context.Context, repo *model.Repo) (string, error)
	// Admit, when set, picks among the waiting runners ids those that may
	// run a job (internal/runners: runner groups and labels), or the hosted
	// runner it runs under (any local runner serves it); unset, every
	// waiting runner may.
	Admit func(ctx context.Context, jc JobContext, labels []string, ids []int64) (ok map[int64]bool, hosted string, err error)
	// Released is told that a runner's job ended (ephemeral runners go).
	Released func(ctx context.Context, r *model.Runner)

	dispatch dispatcher
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
		if err := e.revokeJobToken(ctx, j.ID); err != nil {
			return err // its tokens go before anything else
		}
		return e.finish(ctx, j, model.ConclusionFailure, nil, nil, e.stamp("##[error]"+stoppedRunner+"\n"))
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
	// Runner groups and labels (internal/runners): the job goes to a
	// waiting runner that may take it; none: it is queued again for later.
	jc := JobContext{Repo: repo, Run: run, Job: j}
	w0, runnerName, err := e.claimRunner(ctx, jc, s.Labels(run)[j.Key])
	if err != nil {
		return err
	}
	if w0 == nil {
		return s.Store.Tx(ctx, func(tx store.Q) error {
			return jobs.Enqueue(ctx, tx, jobs.Job{Kind: kindJob, Key: fmt.Sprintf("actions.job:%d", j.ID), Payload: p, MaxAttempts: 2, Delay: requeueDelay})
		})
	}
	given := false
	defer func() {
		if !given {
			e.dispatch.give(w0, nil) // the runner polls again
		}
	}()
	var token string
	var tokenID int64
	if e.Token != nil {
		level, err := e.defaultPermissions(ctx, repo) // the policies' default (policy.go)
		if err != nil {
			return err
		}
		perms := w.tokenPermissions(level)
		if FromFork(repo, run) {
			perms = readOnly(perms) // a fork's pull request gets a read-only token, whatever permissions: says
		}
		if token, tokenID, err = e.Token(ctx, repo, perms); err != nil {
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
	given = true
	log, res := e.execute(ctx, repo, run, j, w, token, w0, runnerName)
	revoke()
	err = e.finish(ctx, j, res.Conclusion, res.Outputs, res.Steps, log)
	e.dropLiveLog(j.ID)
	if e.Released != nil {
		e.Released(context.WithoutCancel(ctx), w0.runner)
	}
	return err
}

// claimRunner claims a polling runner that may take the job; name is the
// runner the job runs under. While every runner is busy it waits up to
// RunnerWait for one to poll; nil: none may take the job now.
func (e *Executor) claimRunner(ctx context.Context, jc JobContext, labels []string) (*waiter, string, error) {
	wait := e.RunnerWait
	if wait == 0 {
		wait = 10 * time.Second
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		ids, arrived := e.dispatch.waitingRunners()
		if len(ids) > 0 {
			ok, hosted := map[int64]bool{}, ""
			if e.Admit == nil {
				for _, id := range ids {
					ok[id] = true
				}
			} else {
				var err error
				if ok, hosted, err = e.Admit(ctx, jc, labels, ids); err != nil {
					return nil, "", err
				}
			}
			if w := e.dispatch.take(ok, hosted != ""); w != nil {
				name := w.runner.Name
				if len(ok) == 0 {
					name = hosted // a hosted runner's job runs under its name
				}
				return w, name, nil
			}
			if len(ok) == 0 && hosted == "" {
				return nil, "", nil // idle runners, none for this job: queued again
			}
		}
		select {
		case <-arrived:
		case <-deadline.C:
			return nil, "", nil
		case <-ctx.Done():
			return nil, "", ctx.Err()
		}
	}
}

// stamp prefixes a line with the time, as GitHub's log lines are.
func (e *Executor) stamp(s string) string {
	return time.Now().UTC().Format(stampLayout) + " " + s
}

// finish completes a job with its log and moves its run on.
func (e *Executor) finish(ctx context.Context, j *model.WorkflowJob, conclusion string, outputs map[string]string, steps []model.WorkflowStep, log string) error {
	s := e.svc
	ctx = context.WithoutCancel(ctx)
	// The job's check run completes with it (jobEvent): whoever sees the
	// run completed sees its check runs completed.
	moved := false
	notes := JobAnnotations(log, steps)
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetJobLog(ctx, j.ID, log); err != nil {
			return err
		}
		if s.Checks != nil && j.CheckRunID > 0 {
			if err := tx.AddCheckAnnotations(ctx, j.CheckRunID, notes); err != nil {
				return err
			}
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
	return err
}

// execute hands the job to its runner (w0) and follows it to its end:
// its log and result.
func (e *Executor) execute(ctx context.Context, repo *model.Repo, run *model.WorkflowRun, j *model.WorkflowJob, w *parsed, token string,
	w0 *waiter, runnerName string) (string, Result) {
	out := e.liveLog(j.ID)
	defer out.close()
	given := false
	defer func() {
		if !given {
			e.dispatch.give(w0, nil)
		}
	}()
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
	ws := filepath.Join(dir, FilesWorkspace)
	full := repo.Owner.Login + "/" + repo.Name
	if err := e.svc.Git.Open(repo.ID).Checkout(ctx, run.CheckoutSHA(), ws, e.Web+"/"+full+".git"); err != nil {
		return fail("checkout of %s: %v", run.HeadSHA, err)
	}
	spec, err := e.spec(ctx, repo, run, j, token, dir)
	if err != nil {
		return fail("%v", err)
	}
	if err := e.prepareActions(ctx, repo, run, w, j.Key, dir, spec); err != nil {
		return fail("%v", err)
	}
	jc := JobContext{Repo: repo, Run: run, Job: j, Dir: dir}
	for _, h := range e.SpecHooks {
		if err := h(ctx, jc, spec); err != nil {
			return fail("%v", err)
		}
	}
	// The log is masked here too, whatever the runner sent.
	out.masks = SecretMasks(JobSecrets(spec))
	spec.relocate(dir, JobDirVar)
	timeout := w.jobTimeout(j.Key, e.maxTimeout())
	cred := newCredential()
	a := &Assignment{JobID: j.ID, RunID: run.ID, Name: j.Name, Runner: runnerName, Credential: cred, Spec: *spec,
		TimeoutMinutes: timeout.Minutes(), HeartbeatSeconds: e.heartbeat().Seconds()}
	for _, part := range []string{FilesWorkspace, FilesActions, FilesToolCache, FilesHome} {
		if _, err := os.Stat(PartDir(dir, part)); err == nil {
			a.Files = append(a.Files, part)
		}
	}
	if e.Uploads != nil {
		a.Upload = e.Uploads(jc)
	}
	lj := &LiveJob{JobID: j.ID, RunnerID: w0.runner.ID, credHash: sha256.Sum256([]byte(cred)), dir: dir, out: out, store: e.svc.Store,
		lastBeat: time.Now(), result: make(chan Result, 1), stopped: make(chan struct{})}
	d := &e.dispatch
	d.mu.Lock()
	d.init()
	d.live[j.ID] = lj
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.live, j.ID) // its credential no longer works
		d.mu.Unlock()
	}()
	out.Write([]byte(e.stamp("Runner name: '" + runnerName + "'\n")))
	given = true
	e.dispatch.give(w0, a)
	res := e.follow(ctx, j, lj, timeout, runnerName)
	lj.mu.Lock()
	lj.done = true
	lj.mu.Unlock()
	// The uploaded trees are in dir: snapshots (afterhooks.go).
	e.afterHooks(ctx, jc, res, out)
	return out.String(), res
}

// JobSecrets are the values a job's log must not show: its secrets and
// its tokens.
func JobSecrets(spec *Spec) map[string]string {
	out := maps.Clone(spec.Secrets)
	if out == nil {
		out = map[string]string{}
	}
	for _, k := range []string{"ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"} {
		if v := spec.Env[k]; v != "" {
			out[k] = v
		}
	}
	if spec.Token != "" {
		out["GITHUB_TOKEN"] = spec.Token
	}
	return out
}

// follow waits for the end of a job running on a runner: its result, a
// cancellation or the timeout (the runner is told at its next heartbeat
// and has a while to report), or the runner's silence.
func (e *Executor) follow(ctx context.Context, j *model.WorkflowJob, lj *LiveJob, timeout time.Duration, runnerName string) Result {
	jctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	poll := e.Poll
	if poll == 0 {
		poll = time.Second
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	offline := e.offline()
	stopped := ""
	var grace <-chan time.Time
	stop := func(conclusion string) {
		if stopped != "" {
			return
		}
		stopped = conclusion
		lj.mu.Lock()
		lj.stop = conclusion
		close(lj.stopped) // the runner's heartbeat answers now
		lj.mu.Unlock()
		grace = time.After(2*e.heartbeat() + 5*time.Second)
	}
	var res Result
	select {
	case res = <-lj.result:
	default:
	wait:
		for {
			select {
			case res = <-lj.result:
				break wait
			case <-jctx.Done():
				if ctx.Err() != nil {
					stop(model.ConclusionCancelled)
					res.Conclusion = model.ConclusionCancelled
					break wait // hubd stops: the runner hears of it at its next heartbeat
				}
				stop(model.ConclusionTimedOut)
				jctx = context.Background()
			case <-grace:
				res.Conclusion = stopped
				break wait
			case <-t.C:
				if cur, err := e.svc.Store.R().Job(ctx, j.RepoID, j.ID); err == nil && cur.Status == model.ActionsCompleted {
					stop(model.ConclusionCancelled)
				}
				lj.mu.Lock()
				silent := time.Since(lj.lastBeat)
				lj.mu.Unlock()
				if silent > offline {
					lj.Log([]byte(e.stamp(LostCommunication(runnerName) + "\n")))
					return Result{Conclusion: model.ConclusionFailure}
				}
			}
		}
	}
	switch stopped {
	case model.ConclusionTimedOut:
		lj.Log([]byte(e.stamp(fmt.Sprintf("##[error]The job running on runner %s has exceeded the maximum execution time of %d minutes.\n", runnerName, int(timeout/time.Minute)))))
		res.Conclusion = stopped
	case model.ConclusionCancelled:
		lj.Log([]byte(e.stamp("##[error]The operation was canceled.\n")))
		res.Conclusion = stopped
	}
	return res
}

// LostCommunication is the log line of a job whose runner went silent
// (GitHub's words).
func LostCommunication(runner string) string {
	return "##[error]The self-hosted runner: " + runner + " lost communication with the server. Verify the machine is running and has a healthy network connection. " +
		"Anything in your workflow that terminates the runner process, starves it for CPU/Memory, or blocks its network access can cause this error."
}

func (e *Executor) heartbeat() time.Duration {
	if e.Heartbeat > 0 {
		return e.Heartbeat
	}
	return 10 * time.Second
}

func (e *Executor) offline() time.Duration {
	if e.Offline > 0 {
		return e.Offline
	}
	return time.Minute
}

func (e *Executor) maxTimeout() time.Duration {
	if e.MaxTimeout > 0 {
		return min(e.MaxTimeout, maxJobTimeout)
	}
	return maxJobTimeout
}

// spec is the spec of a job whose files are in dir (its checkout in
// dir/workspace), before the spec hooks.
func (e *Executor) spec(ctx context.Context, repo *model.Repo, run *model.WorkflowRun, j *model.WorkflowJob, token, dir string) (*Spec, error) {
	ws := filepath.Join(dir, FilesWorkspace)
	full := repo.Owner.Login + "/" + repo.Name
	// The needs' results and outputs (the latest combination of a matrix).
	needs := map[string]Need{}
	if len(j.Needs) > 0 {
		list, _, err := e.svc.Store.R().RunJobs(ctx, run.ID, j.RunAttempt, 1<<30, 0)
		if err != nil {
			return nil, err
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
	spec := &Spec{Path: run.WorkflowPath, Source: run.Source, JobKey: j.Key, Matrix: j.Matrix, Needs: needs, Event: run.Event,
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
	return spec, nil
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

// readOnly is a token's permissions with every write made read.
func readOnly(perms map[string]string) map[string]string {
	out := make(map[string]string, len(perms))
	for k, v := range perms {
		if v == "write" {
			v = "read"
		}
		out[k] = v
	}
	return out
}

// jobTimeout is a job's timeout-minutes (max by default and at most).
func (p *parsed) jobTimeout(key string, max time.Duration) time.Duration {
	j := p.wf.Jobs[key]
	if j == nil {
		return max
	}
	if n, err := strconv.ParseFloat(strings.TrimSpace(j.TimeoutMinutes), 64); err == nil && n > 0 {
		return min(time.Duration(n*float64(time.Minute)), max)
	}
	return max
}
