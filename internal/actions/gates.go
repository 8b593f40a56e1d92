package actions

import (
	"context"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Environment protection rules hold jobs back at the queue: a job whose
// environment wants a reviewer's approval or a wait timer is not queued
// for a worker but waits (status waiting, its run too) until the gate
// (internal/environments) releases or rejects it.

// Gate decides, in the transaction that would queue a job for a worker,
// whether the job waits instead; it records why (internal/environments).
type Gate func(ctx context.Context, tx store.Q, run *model.WorkflowRun, j *model.WorkflowJob) (hold bool, err error)

// envGate holds a job its Gate holds back: the job waits, and its run.
func (s *Service) envGate(ctx context.Context, tx store.Q, run *model.WorkflowRun, j *model.WorkflowJob) (bool, error) {
	if s.Gate == nil {
		return false, nil
	}
	hold, err := s.Gate(ctx, tx, run, j)
	if err != nil || !hold {
		return false, err
	}
	if ok, err := tx.SetJobWaiting(ctx, j.ID, model.ActionsQueued, model.ActionsWaiting); err != nil || !ok {
		return false, err
	}
	j.Status = model.ActionsWaiting
	if run.Status != model.ActionsWaiting {
		run.Status = model.ActionsWaiting
		if err := tx.SetRunState(ctx, run.ID, run.Status, nil); err != nil {
			return false, err
		}
	}
	return true, s.jobEvent(ctx, tx, run, j, "waiting")
}

// ReleaseJob queues a waiting job for a worker (its gate passed); the
// caller notifies the runner after the transaction.
func (s *Service) ReleaseJob(ctx context.Context, tx store.Q, repoID, jobID int64) error {
	j, run, ok, err := s.waitingJob(ctx, tx, repoID, jobID, model.ActionsQueued)
	if err != nil || !ok {
		return err
	}
	if err := s.settleRun(ctx, tx, run); err != nil {
		return err
	}
	return enqueueJob(ctx, tx, j)
}

// RejectJob fails a waiting job whose deployment a reviewer rejected,
// with reason in its log; the run moves on (and concludes failure).
func (s *Service) RejectJob(ctx context.Context, tx store.Q, repoID, jobID int64, reason string) error {
	j, run, ok, err := s.waitingJob(ctx, tx, repoID, jobID, model.ActionsCompleted)
	if err != nil || !ok {
		return err
	}
	// waitingJob moved it out of waiting; FinishJob completes it.
	c := model.ConclusionFailure
	j.Conclusion = &c
	if err := tx.SetJobLog(ctx, j.ID, reason); err != nil {
		return err
	}
	if _, err := tx.FinishJob(ctx, j); err != nil {
		return err
	}
	j.Status = model.ActionsCompleted
	if err := s.jobEvent(ctx, tx, run, j, "completed"); err != nil {
		return err
	}
	if err := s.settleRun(ctx, tx, run); err != nil {
		return err
	}
	return s.advance(ctx, tx, run)
}

// waitingJob moves a waiting job of the run's current attempt out of
// waiting (to queued; for completed, to in_progress until FinishJob).
func (s *Service) waitingJob(ctx context.Context, tx store.Q, repoID, jobID int64, to string) (*model.WorkflowJob, *model.WorkflowRun, bool, error) {
	j, err := tx.Job(ctx, repoID, jobID)
	if err != nil {
		return nil, nil, false, err
	}
	next := to
	if to == model.ActionsCompleted {
		next = model.ActionsInProgress
	}
	if ok, err := tx.SetJobWaiting(ctx, j.ID, model.ActionsWaiting, next); err != nil || !ok {
		return nil, nil, false, err
	}
	j.Status = next
	run, err := tx.Run(ctx, repoID, j.RunID)
	return j, run, err == nil, err
}

// settleRun takes a waiting run out of waiting when none of its jobs
// waits any more: in progress when a job started, queued otherwise.
func (s *Service) settleRun(ctx context.Context, tx store.Q, run *model.WorkflowRun) error {
	if run.Status != model.ActionsWaiting {
		return nil
	}
	list, _, err := tx.RunJobs(ctx, run.ID, run.RunAttempt, 1<<30, 0)
	if err != nil {
		return err
	}
	status := model.ActionsQueued
	for _, o := range list {
		switch {
		case o.Status == model.ActionsWaiting:
			return nil
		case o.Status == model.ActionsInProgress || o.Status == model.ActionsCompleted:
			status = model.ActionsInProgress
		}
	}
	run.Status = status
	return tx.SetRunState(ctx, run.ID, run.Status, nil)
}
