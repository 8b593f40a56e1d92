package environments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Environment protection rules holding jobs back: a job naming an
// environment with required reviewers or a wait timer is given a
// deployment and a gate instead of a worker (Gate); a reviewer approves
// or rejects it (Review) and the wait timer fires from the job queue
// (a delayed job, handleTimer). The job runs once both have passed.

const kindTimer = "environments.wait_timer"

type timerJob struct {
	JobID  int64 `json:"job_id"`
	RepoID int64 `json:"repo_id"`
}

// UseActions wires the service to the Actions domain: its gate holds
// jobs, and wait timers fire from the queue.
func (s *Service) UseActions(a *actions.Service) {
	s.actions = a
	a.Gate = s.Gate
	if a.Queue != nil {
		a.Queue.Handle(kindTimer, s.handleTimer)
	}
}

// Gate holds a job about to be queued whose environment requires a
// reviewer or a wait timer (and admits the run's ref: JobHook fails a
// job it does not admit): it records the deployment and the gate, and
// schedules the timer. A job whose gate passed is not held again.
func (s *Service) Gate(ctx context.Context, tx store.Q, run *model.WorkflowRun, j *model.WorkflowJob) (bool, error) {
	if !strings.Contains(run.Source, "environment") {
		return false, nil // no job names one: the workflow is not parsed
	}
	name, _ := actions.JobEnvironment(run.Source, j.Key)
	if name == "" {
		return false, nil
	}
	if g, err := tx.DeploymentGate(ctx, j.ID); err == nil {
		return g.State == model.GateWaiting, nil
	} else if !errors.Is(err, model.ErrNotFound) {
		return false, err
	}
	env, err := tx.Environment(ctx, run.RepoID, name)
	if errors.Is(err, model.ErrNotFound) {
		return false, nil // JobHook creates it, without rules
	}
	if err != nil || (len(env.Reviewers) == 0 && env.WaitTimer == 0) {
		return false, err
	}
	if ok, err := s.admits(ctx, tx, env, run.Ref); err != nil || !ok {
		return false, err
	}
	v, err := tx.RepoByID(ctx, run.RepoID, 0)
	if err != nil {
		return false, err
	}
	ref := strings.TrimPrefix(strings.TrimPrefix(run.Ref, "refs/heads/"), "refs/tags/")
	d := &model.Deployment{RepoID: run.RepoID, SHA: run.HeadSHA, Ref: ref, Task: "deploy", Environment: env.Name,
		CreatorID: run.TriggeringActorID, RunID: run.ID}
	if err := tx.CreateDeployment(ctx, d); err != nil {
		return false, err
	}
	g := &model.DeploymentGate{JobID: j.ID, RunID: run.ID, RepoID: run.RepoID, EnvironmentID: env.ID, DeploymentID: d.ID,
		State: model.GateWaiting, NeedsReview: len(env.Reviewers) > 0, WaitTimer: env.WaitTimer, WaitStartedAt: tx.Now()}
	if err := tx.CreateDeploymentGate(ctx, g); err != nil {
		return false, err
	}
	if env.WaitTimer > 0 {
		if err := jobs.Enqueue(ctx, tx, jobs.Job{Kind: kindTimer, Key: fmt.Sprintf("%s:%d", kindTimer, j.ID),
			Payload: timerJob{JobID: j.ID, RepoID: run.RepoID}, MaxAttempts: 5, Delay: time.Duration(env.WaitTimer) * time.Minute}); err != nil {
			return false, err
		}
	}
	return true, appendEvent(ctx, tx, "deployment.created", run.TriggeringActorID, v.Repo,
		map[string]any{"deployment_id": d.ID, "environment": env.Name, "run_id": run.ID, "job_id": j.ID})
}

// handleTimer is a gate's wait timer running out: the job is released
// when no reviewer is needed or one approved already.
func (s *Service) handleTimer(ctx context.Context, payload []byte) error {
	var p timerJob
	if err := json.Unmarshal(payload, &p); err != nil {
		return jobs.Permanent(err)
	}
	released := false
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		g, err := tx.DeploymentGate(ctx, p.JobID)
		if errors.Is(err, model.ErrNotFound) {
			return nil
		}
		if err != nil || g.State != model.GateWaiting {
			return err
		}
		g.TimerDone = true
		released, err = s.pass(ctx, tx, g)
		return err
	})
	if err == nil && released {
		s.actions.Runner.Notify()
	}
	return err
}

// pass writes a gate and releases its job when its rules all passed.
func (s *Service) pass(ctx context.Context, tx store.Q, g *model.DeploymentGate) (bool, error) {
	done := (g.Approved || !g.NeedsReview) && (g.TimerDone || g.WaitTimer == 0)
	if done {
		g.State = model.GateApproved
	}
	if err := tx.UpdateDeploymentGate(ctx, g); err != nil || !done {
		return false, err
	}
	return true, s.actions.ReleaseJob(ctx, tx, g.RepoID, g.JobID)
}

// Pending is one environment a run waits for.
type Pending struct {
	Environment   *model.Environment
	WaitStartedAt time.Time
	CanApprove    bool
	Deployments   []int64
}

// PendingDeployments are the environments a run's jobs wait for (one
// entry per environment), and whether the caller may review them.
func (s *Service) PendingDeployments(ctx context.Context, repo *model.Repo, callerID int64, run *model.WorkflowRun) ([]*Pending, error) {
	q := s.Store.R()
	gates, err := q.WaitingGates(ctx, run.ID)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for _, g := range gates {
		ids = append(ids, g.EnvironmentID)
	}
	envs, err := q.EnvironmentsByID(ctx, repo.ID, ids)
	if err != nil {
		return nil, err
	}
	var out []*Pending
	byEnv := map[int64]*Pending{}
	for _, g := range gates {
		env := envs[g.EnvironmentID]
		if env == nil {
			continue
		}
		p := byEnv[env.ID]
		if p == nil {
			ok, err := s.mayReview(ctx, q, env, callerID, run)
			if err != nil {
				return nil, err
			}
			p = &Pending{Environment: env, WaitStartedAt: g.WaitStartedAt, CanApprove: ok}
			byEnv[env.ID] = p
			out = append(out, p)
		}
		p.Deployments = append(p.Deployments, g.DeploymentID)
	}
	return out, nil
}

// mayReview reports whether a user may review deployments of a run to
// an environment: a required reviewer (or a member of a required team),
// but not the run's own actor when the environment prevents self-review.
func (s *Service) mayReview(ctx context.Context, q store.Q, env *model.Environment, userID int64, run *model.WorkflowRun) (bool, error) {
	if userID == 0 || (env.PreventSelfReview && userID == run.TriggeringActorID) {
		return false, nil
	}
	for _, r := range env.Reviewers {
		if r.Type != "Team" {
			if r.ID == userID {
				return true, nil
			}
			continue
		}
		m, err := q.TeamMember(ctx, r.ID, userID)
		if errors.Is(err, model.ErrNotFound) {
			continue
		}
		if err != nil {
			return false, err
		}
		if m.State == "active" {
			return true, nil
		}
	}
	return false, nil
}

// Review approves or rejects a run's pending deployments to some
// environments (each must be waiting, and the caller one of its
// reviewers): approved jobs run (after their wait timer), rejected ones
// fail. It answers the deployments reviewed.
func (s *Service) Review(ctx context.Context, repo *model.Repo, callerID int64, run *model.WorkflowRun, envIDs []int64, state, comment string) ([]*model.Deployment, error) {
	if state != model.GateApproved && state != model.GateRejected {
		return nil, model.Invalid("DeploymentReview", "state", "invalid")
	}
	if len(envIDs) == 0 {
		return nil, model.Invalid("DeploymentReview", "environment_ids", "missing_field")
	}
	var deps []int64
	released := false
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		gates, err := tx.WaitingGates(ctx, run.ID)
		if err != nil {
			return err
		}
		envs, err := tx.EnvironmentsByID(ctx, repo.ID, envIDs)
		if err != nil {
			return err
		}
		var mine []*model.DeploymentGate
		for _, id := range envIDs {
			env := envs[id]
			n := len(mine)
			for _, g := range gates {
				if g.EnvironmentID == id {
					mine = append(mine, g)
				}
			}
			if env == nil || len(mine) == n {
				return model.Unprocessable(fmt.Sprintf("No pending deployment requests to approve or reject for environment %d.", id))
			}
			ok, err := s.mayReview(ctx, tx, env, callerID, run)
			if err != nil {
				return err
			}
			if !ok {
				return model.Forbidden(fmt.Sprintf("You are not allowed to review deployments to %s.", env.Name))
			}
		}
		ids := slices.Compact(slices.Sorted(slices.Values(envIDs)))
		if err := tx.CreateDeploymentReview(ctx, &model.DeploymentReview{RunID: run.ID, RepoID: repo.ID, UserID: callerID, State: state,
			Comment: comment, EnvironmentIDs: ids}); err != nil {
			return err
		}
		for _, g := range mine {
			deps = append(deps, g.DeploymentID)
			if state == model.GateRejected {
				g.State = model.GateRejected
				if err := tx.UpdateDeploymentGate(ctx, g); err != nil {
					return err
				}
				reason := time.Now().UTC().Format("2006-01-02T15:04:05.0000000Z") + " ##[error]The deployment to " +
					envs[g.EnvironmentID].Name + " was rejected.\n"
				if err := s.actions.RejectJob(ctx, tx, g.RepoID, g.JobID, reason); err != nil {
					return err
				}
				continue
			}
			g.Approved = true
			ok, err := s.pass(ctx, tx, g)
			if err != nil {
				return err
			}
			released = released || ok
		}
		return appendEvent(ctx, tx, "deployment_review."+state, callerID, repo,
			map[string]any{"run_id": run.ID, "environment_ids": ids, "comment": comment})
	})
	if err != nil {
		return nil, err
	}
	if released {
		s.actions.Runner.Notify()
	}
	m, err := s.Store.R().DeploymentsByID(ctx, repo.ID, deps)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Deployment, 0, len(deps))
	for _, id := range deps {
		if d := m[id]; d != nil {
			out = append(out, d)
		}
	}
	return out, nil
}

// Reviews are a run's deployment reviews with their environments.
func (s *Service) Reviews(ctx context.Context, repo *model.Repo, run *model.WorkflowRun) ([]*model.DeploymentReview, map[int64]*model.Environment, error) {
	q := s.Store.R()
	list, err := q.DeploymentReviews(ctx, run.ID)
	if err != nil {
		return nil, nil, err
	}
	var ids []int64
	for _, r := range list {
		ids = append(ids, r.EnvironmentIDs...)
	}
	envs, err := q.EnvironmentsByID(ctx, repo.ID, ids)
	return list, envs, err
}
