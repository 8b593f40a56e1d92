package actions

import (
	"context"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Operations on runs beyond cancel and rerun: rerunning one job (and the
// jobs that need it), force-cancelling, approving a fork's run, and the
// attempts and usage of runs.

// RerunJob starts a new attempt of a completed run in which job (of its
// latest attempt) and the jobs needing it run again; the others are
// copied from the last attempt.
func (s *Service) RerunJob(ctx context.Context, repo *model.Repo, actorID int64, run *model.WorkflowRun, job *model.WorkflowJob) error {
	if run.Status == model.ActionsCompleted && job.RunAttempt != run.RunAttempt {
		return model.Forbidden("This job is not part of the latest attempt of its workflow run and cannot be re-run.")
	}
	return s.rerun(ctx, repo, actorID, run, func(pj plannedJob, old []*model.WorkflowJob) bool {
		return pj.Key != job.Key && len(old) > 0
	})
}

// ForceCancel cancels a run whatever its jobs' conditions (hubd's cancel
// already stops every job: always() jobs do not run after it either).
func (s *Service) ForceCancel(ctx context.Context, repo *model.Repo, actorID int64, run *model.WorkflowRun) error {
	return s.Cancel(ctx, repo, actorID, run)
}

// Approve lets a fork pull request's run that waits for approval start:
// its jobs are created and queued.
func (s *Service) Approve(ctx context.Context, repo *model.Repo, actorID int64, run *model.WorkflowRun) error {
	if deref(run.Conclusion) != model.ConclusionActionRequired {
		return model.Forbidden("This run is not waiting for approval.")
	}
	w, perr := parseWorkflow(run.WorkflowPath, []byte(run.Source))
	if perr != nil {
		return model.Forbidden("This workflow run cannot be approved: " + perr.Error())
	}
	planned, err := w.planJobs()
	if err != nil {
		return model.Forbidden("This workflow run cannot be approved: " + err.Error())
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		run.Status, run.Conclusion = model.ActionsQueued, nil
		if err := tx.SetRunState(ctx, run.ID, run.Status, nil); err != nil {
			return err
		}
		if err := tx.AppendEvent(ctx, "workflow_run.approved", actorID, repo.ID, orgID(repo), map[string]any{"run_id": run.ID}); err != nil {
			return err
		}
		if err := s.enterGroup(ctx, tx, repo, run); err != nil {
			return err
		}
		if err := s.createJobs(ctx, tx, run, planned, nil); err != nil {
			return err
		}
		return s.runEvent(ctx, tx, repo, run, "requested")
	})
	if err == nil {
		s.Runner.Notify()
	}
	return err
}

// Attempt is attempt n of a run as it was (the latest: the run itself).
func (s *Service) Attempt(ctx context.Context, run *model.WorkflowRun, n int64) (*model.WorkflowRun, error) {
	if n == run.RunAttempt {
		return run, nil
	}
	if n < 1 || n > run.RunAttempt {
		return nil, model.ErrNotFound
	}
	a, err := s.Store.R().RunAttempt(ctx, run.ID, n)
	if err != nil {
		return nil, err
	}
	out := *run
	out.RunAttempt, out.Status, out.Conclusion, out.TriggeringActorID = a.Attempt, a.Status, a.Conclusion, a.TriggeringActorID
	out.RunStartedAt, out.UpdatedAt = a.RunStartedAt, a.UpdatedAt
	return &out, nil
}

// WorkflowUsage is the time the jobs of a workflow's runs took in the
// current billing cycle (the calendar month, UTC), in milliseconds.
func (s *Service) WorkflowUsage(ctx context.Context, wf *model.Workflow) (int64, error) {
	now := s.Store.Now().UTC()
	start := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	return s.Store.R().WorkflowJobsMillis(ctx, wf.ID, start)
}
