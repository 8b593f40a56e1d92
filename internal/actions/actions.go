// Package actions runs GitHub Actions workflows: it finds the workflow
// files of a repository, creates runs when a push or a workflow_dispatch
// triggers them, queues their jobs (one per matrix combination) in the one
// job queue, and runs each job in a child process (`hubd actions-worker`)
// that embeds nektos/act with its host executor. The REST adapter is
// internal/api/actions.
package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/checks"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/outbox"
	"github.com/hubd/hubd/internal/store"
)

// Job kinds of the queue.
const (
	kindPush = "actions.push" // evaluate a push's triggers (general workers)
	kindJob  = "actions.job"  // run one workflow job (the runner's workers)
)

// maxWorkflowFile bounds a workflow file read from git.
const maxWorkflowFile = 512 << 10

// Service is the Actions domain.
type Service struct {
	Store *store.Store
	Git   *gitrepo.Manager
	// Queue is hubd's job queue (push evaluation); Runner is the queue
	// whose workers run workflow jobs: the same table, its own workers
	// (--actions-workers) and a lease as long as the longest job.
	Queue, Runner *jobs.Queue
	Exec          Executor
	// Checks, when set, shows each job as a check run with the job's id
	// (and the run as the GitHub Actions app's check suite of its
	// commit), as GitHub does; Provision, when set, makes that app before
	// a run's jobs need it (jobchecks.go).
	Checks    *checks.Service
	Provision func(ctx context.Context) error
	// ApprovalPolicy, when set, is a repository's fork-pr-contributor-
	// approval setting (default: first_time_contributors).
	ApprovalPolicy func(ctx context.Context, repo *model.Repo) string

	events *outbox.Consumer // the triggers' outbox consumer (triggers.go)
	// Enabled, when set, tells whether Actions may run in a repository
	// (internal/actionspolicy; policy.go).
	Enabled EnabledFunc
	// Gate, when set, holds jobs whose environment's protection rules
	// have not passed (internal/environments; gates.go).
	Gate Gate
}

// New makes the service and registers its job kinds.
func New(s *store.Store, g *gitrepo.Manager, q *jobs.Queue) *Service {
	svc := &Service{Store: s, Git: g, Queue: q, Runner: jobs.New(s)}
	// A running job renews its lease: a job whose hubd process died is
	// taken over (and failed) about a minute later, or at once when hubd
	// starts again on the same machine (TakeBack): the job's credential
	// lived in the dead process's memory, so no runner, local or remote,
	// can finish it, and its tokens are revoked first thing.
	svc.Runner.Lease, svc.Runner.Renew, svc.Runner.MaxRun = time.Minute, 15*time.Second, maxJobTimeout+5*time.Minute
	svc.Exec.svc = svc
	if q != nil {
		q.Handle(kindPush, svc.handlePush)
	}
	svc.Runner.Handle(kindJob, svc.Exec.handle)
	svc.Runner.TakeBack(kindJob)
	if q != nil {
		q.Handle(kindSchedule, svc.handleSchedule)
	}
	return svc
}

func orgID(r *model.Repo) int64 {
	if r.Owner != nil && r.Owner.IsOrg() {
		return r.Owner.ID
	}
	return 0
}

// workflowFiles reads the workflow files of a commit: path → content.
func (s *Service) workflowFiles(ctx context.Context, g *gitrepo.Repo, sha string) (map[string][]byte, error) {
	info, data, err := g.Read(ctx, sha+":"+WorkflowDir, 1<<20)
	if errors.Is(err, gitrepo.ErrNotFound) || (err == nil && info.Type != "tree") {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	entries, err := gitrepo.ParseTree(data)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if e.Type() != "blob" || !IsWorkflowFile(e.Name) {
			continue
		}
		_, b, err := g.Read(ctx, e.OID, maxWorkflowFile)
		if errors.Is(err, gitrepo.ErrTooLarge) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[WorkflowDir+"/"+e.Name] = b
	}
	return out, nil
}

// PushUpdate is one ref a push moved.
type PushUpdate struct {
	Ref      string `json:"ref"`
	Old, New string
}

type pushJob struct {
	RepoID  int64        `json:"repo_id"`
	ActorID int64        `json:"actor_id"`
	Updates []PushUpdate `json:"updates"`
}

// Pushed queues the evaluation of a recorded push's triggers (off the
// request path).
func (s *Service) Pushed(ctx context.Context, repoID, actorID int64, updates []PushUpdate) error {
	if s.Queue == nil {
		return nil
	}
	return s.Queue.Enqueue(ctx, jobs.Job{Kind: kindPush, Payload: pushJob{RepoID: repoID, ActorID: actorID, Updates: updates}})
}

func (s *Service) handlePush(ctx context.Context, payload []byte) error {
	var p pushJob
	if err := json.Unmarshal(payload, &p); err != nil {
		return jobs.Permanent(err)
	}
	v, err := s.Store.R().RepoByID(ctx, p.RepoID, 0)
	if errors.Is(err, model.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	repo := v.Repo
	// Actions disabled by a policy: the push starts no run (policy.go).
	on, err := s.enabled(ctx, repo)
	if err != nil {
		return err
	}
	g := s.Git.Open(repo.ID)
	for _, u := range p.Updates {
		if u.New == gitrepo.ZeroOID || (!strings.HasPrefix(u.Ref, "refs/heads/") && !strings.HasPrefix(u.Ref, "refs/tags/")) {
			continue
		}
		sha := u.New
		if info, err := g.Info(ctx, sha); err == nil && info.Type == "tag" {
			if c, err := g.ResolveRef(ctx, sha+"^{commit}"); err == nil {
				sha = c
			}
		}
		files, err := s.workflowFiles(ctx, g, sha)
		if err != nil {
			return err
		}
		if u.Ref == "refs/heads/"+repo.DefaultBranch {
			found := map[string]string{}
			for p, src := range files {
				found[p] = p
				if w, err := parseWorkflow(p, src); err == nil {
					found[p] = w.name
				}
			}
			if err := s.Store.Tx(ctx, func(tx store.Q) error { return s.syncWorkflows(ctx, tx, repo.ID, found, files) }); err != nil {
				return err
			}
		}
		if len(files) == 0 {
			continue
		}
		var changed []string
		if u.Old != gitrepo.ZeroOID {
			diff, err := g.DiffStats(ctx, u.Old, sha)
			if err == nil {
				changed = []string{}
				for _, f := range diff {
					changed = append(changed, f.Path)
					if f.OldPath != "" {
						changed = append(changed, f.OldPath)
					}
				}
			}
		}
		pulls, err := s.branchPulls(ctx, repo, u.Ref)
		if err != nil {
			return err
		}
		for _, wp := range sortedKeys(files) {
			if !on {
				break
			}
			w, perr := parseWorkflow(wp, files[wp])
			if perr == nil && !w.pushTriggers(u.Ref, changed) {
				continue
			}
			ev := trigger{Event: "push", Ref: u.Ref, SHA: sha, ActorID: p.ActorID, Pulls: pulls,
				Payload: map[string]any{"ref": u.Ref, "before": u.Old, "after": u.New}}
			if _, err := s.createRun(ctx, repo, wp, files[wp], w, perr, ev); err != nil {
				return err
			}
		}
	}
	return nil
}

// trigger is what starts a run.
type trigger struct {
	Event   string
	Ref     string // refs/heads/main
	SHA     string
	ActorID int64
	Inputs  map[string]any
	Payload map[string]any
	Title   string
	// Checkout is the commit jobs check out when not SHA (a pull
	// request's merge commit); HeadBranch overrides the ref's branch (a
	// pull request's head); Pulls are the run's pull requests; Approval
	// makes the run wait for a maintainer's approval (a fork's).
	Checkout   string
	HeadBranch *string
	Pulls      []int64
	Approval   bool
}

func branchOf(ref string) *string {
	if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
		return &b
	}
	if t, ok := strings.CutPrefix(ref, "refs/tags/"); ok {
		return &t
	}
	return nil
}

// createRun records a run of the workflow at wpath and its jobs, and
// queues the jobs that need none. A workflow file that does not parse gets
// a run that failed at once, as on GitHub; a disabled workflow gets none.
func (s *Service) createRun(ctx context.Context, repo *model.Repo, wpath string, src []byte, w *parsed, perr error, ev trigger) (*model.WorkflowRun, error) {
	if ev.Event != "push" && ev.Event != "workflow_dispatch" {
		// Every event trigger (pushes check once for all their workflows
		// in handlePush) respects the repository's Actions policy.
		if on, err := s.enabled(ctx, repo); err != nil || !on {
			return nil, err
		}
	}
	var planned []plannedJob
	name := wpath
	if perr == nil {
		name = w.name
		var err error
		if planned, err = w.planJobs(); err != nil {
			perr = err
		}
	}
	title := ev.Title
	if title == "" {
		title = name
	}
	if s.Checks != nil && s.Provision != nil {
		if err := s.Provision(ctx); err != nil {
			return nil, err
		}
	}
	var run *model.WorkflowRun
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		wf, err := tx.EnsureWorkflow(ctx, repo.ID, wpath, name)
		if err != nil {
			return err
		}
		if wf.State == model.WorkflowDisabledManually {
			return nil
		}
		run = &model.WorkflowRun{RepoID: repo.ID, WorkflowID: wf.ID, WorkflowPath: wpath, Name: name, DisplayTitle: title,
			Event: ev.Event, Status: model.ActionsQueued, HeadBranch: branchOf(ev.Ref), Ref: ev.Ref, HeadSHA: ev.SHA,
			ActorID: ev.ActorID, TriggeringActorID: ev.ActorID, Inputs: ev.Inputs, Source: string(src)}
		if perr != nil {
			c := model.ConclusionFailure
			run.Status, run.Conclusion = model.ActionsCompleted, &c
		}
		s.prepareRun(run, &ev)
		if err := tx.CreateRun(ctx, run); err != nil {
			return err
		}
		if ev.Approval {
			planned = nil // jobs come with the approval
		} else if perr == nil {
			if err := s.enterGroup(ctx, tx, repo, run); err != nil {
				return err
			}
		}
		if err := s.createJobs(ctx, tx, run, planned, nil); err != nil {
			return err
		}
		return s.runEvent(ctx, tx, repo, run, "requested")
	})
	if err != nil || run == nil {
		return nil, err
	}
	s.Runner.Notify()
	return run, nil
}

// createJobs adds the jobs of a run attempt; keep holds jobs of the last
// attempt that are copied as they were (rerun of failed jobs). It queues
// the jobs that need nothing.
func (s *Service) createJobs(ctx context.Context, tx store.Q, run *model.WorkflowRun, planned []plannedJob, keep map[string][]*model.WorkflowJob) error {
	copied := map[string]bool{}
	var jc *jobChecks
	for _, pj := range planned {
		if old, ok := keep[pj.Key]; ok {
			if copied[pj.Key] {
				continue
			}
			copied[pj.Key] = true
			for _, o := range old {
				j := &model.WorkflowJob{RunID: run.ID, RepoID: run.RepoID, RunAttempt: run.RunAttempt, Key: o.Key, Name: o.Name,
					Matrix: o.Matrix, Needs: o.Needs, Status: model.ActionsQueued}
				if err := s.createJob(ctx, tx, &jc, run, j, o.Conclusion); err != nil {
					return err
				}
				j.Conclusion, j.Outputs, j.Steps = o.Conclusion, o.Outputs, o.Steps
				if _, err := tx.FinishJob(ctx, j); err != nil {
					return err
				}
			}
			continue
		}
		j := &model.WorkflowJob{RunID: run.ID, RepoID: run.RepoID, RunAttempt: run.RunAttempt, Key: pj.Key, Name: pj.Name,
			Matrix: pj.Matrix, Needs: pj.Needs, Status: model.ActionsQueued}
		if err := s.createJob(ctx, tx, &jc, run, j, nil); err != nil {
			return err
		}
		if err := s.jobEvent(ctx, tx, run, j, "queued"); err != nil { // workflow_job queued, once per job
			return err
		}
	}
	// Jobs whose needs are all complete (none, or copied) start now.
	return s.advance(ctx, tx, run)
}

// advance moves a run attempt on after a change of its jobs: queued jobs
// whose needs completed are queued for a worker (or skipped when a need
// did not succeed and the job has no if:), and a run whose jobs all
// completed completes with their combined conclusion.
func (s *Service) advance(ctx context.Context, tx store.Q, run *model.WorkflowRun) error {
	if run.Status == model.ActionsPending {
		return nil // waiting for its concurrency group
	}
	list, _, err := tx.RunJobs(ctx, run.ID, run.RunAttempt, 1<<30, 0)
	if err != nil {
		return err
	}
	var w *parsed
	if run.Source != "" {
		w, _ = parseWorkflow(run.WorkflowPath, []byte(run.Source))
	}
	for changed := true; changed; {
		changed = false
		byKey := map[string][]*model.WorkflowJob{}
		for _, j := range list {
			byKey[j.Key] = append(byKey[j.Key], j)
		}
		for _, j := range list {
			if j.Status != model.ActionsQueued {
				continue
			}
			done, ok := true, true
			for _, n := range j.Needs {
				for _, nj := range byKey[n] {
					if nj.Status != model.ActionsCompleted {
						done = false
					} else if c := deref(nj.Conclusion); c != model.ConclusionSuccess {
						ok = false
					}
				}
			}
			if !done {
				continue
			}
			hasIf := w != nil && w.wf.Jobs[j.Key] != nil && w.wf.Jobs[j.Key].If.Value != ""
			if !ok && !hasIf {
				c := model.ConclusionSkipped
				j.Status, j.Conclusion = model.ActionsCompleted, &c
				if _, err := tx.FinishJob(ctx, j); err != nil {
					return err
				}
				if err := s.jobEvent(ctx, tx, run, j, "completed"); err != nil {
					return err
				}
				changed = true
				continue
			}
			if wait, err := s.jobGate(ctx, tx, run, j); err != nil || wait {
				if err != nil {
					return err
				}
				continue
			}
			if wait, err := s.envGate(ctx, tx, run, j); err != nil || wait {
				if err != nil {
					return err
				}
				continue
			}
			if err := enqueueJob(ctx, tx, j); err != nil {
				return err
			}
		}
	}
	all := len(list) > 0
	concl := model.ConclusionSuccess
	for _, j := range list {
		if j.Status != model.ActionsCompleted {
			all = false
			break
		}
		switch deref(j.Conclusion) {
		case model.ConclusionFailure, model.ConclusionTimedOut:
			concl = model.ConclusionFailure
		case model.ConclusionCancelled:
			if concl != model.ConclusionFailure {
				concl = model.ConclusionCancelled
			}
		}
	}
	if all && run.Status != model.ActionsCompleted {
		run.Status, run.Conclusion = model.ActionsCompleted, &concl
		if err := tx.SetRunState(ctx, run.ID, run.Status, run.Conclusion); err != nil {
			return err
		}
		return s.runEvent(ctx, tx, nil, run, "completed")
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// runEvent appends a workflow_run domain event (webhook payloads follow
// with the webhooks of Actions).
func (s *Service) runEvent(ctx context.Context, tx store.Q, repo *model.Repo, run *model.WorkflowRun, action string) error {
	org := int64(0)
	if repo != nil {
		org = orgID(repo)
	}
	if action == "completed" {
		if err := s.releaseRun(ctx, tx, run); err != nil {
			return err
		}
	}
	return tx.AppendEvent(ctx, "workflow_run."+action, run.TriggeringActorID, run.RepoID, org, map[string]any{
		"run_id": run.ID, "workflow_id": run.WorkflowID, "run_attempt": run.RunAttempt, "status": run.Status,
		"conclusion": run.Conclusion, "head_sha": run.HeadSHA, "event": run.Event})
}

func (s *Service) jobEvent(ctx context.Context, tx store.Q, run *model.WorkflowRun, j *model.WorkflowJob, action string) error {
	if action == "completed" {
		if err := s.releaseJob(ctx, tx, j); err != nil {
			return err
		}
	}
	if action != "queued" { // a queued job's check run was made queued with it
		if err := s.syncCheck(ctx, tx, run, j); err != nil {
			return err
		}
	}
	return tx.AppendEvent(ctx, "workflow_job."+action, run.TriggeringActorID, run.RepoID, 0, map[string]any{
		"job_id": j.ID, "run_id": run.ID, "run_attempt": j.RunAttempt, "name": j.Name, "status": j.Status, "conclusion": j.Conclusion})
}

// WorkflowByParam finds a workflow by its id or its file name (ci.yml).
func (s *Service) WorkflowByParam(ctx context.Context, repo *model.Repo, param string) (*model.Workflow, error) {
	var id int64
	if _, err := fmt.Sscan(param, &id); err == nil && fmt.Sprint(id) == param {
		return s.Store.R().WorkflowByID(ctx, repo.ID, id)
	}
	if param == "" || strings.ContainsAny(param, "/\x00") {
		return nil, model.ErrNotFound
	}
	return s.Store.R().WorkflowByPath(ctx, repo.ID, path.Join(WorkflowDir, param))
}
