package actions

import (
	"context"
	"errors"
	"fmt"

	"github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/checks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// A workflow job is a check run with the same id, as on GitHub: the job
// row is made with the id of its check run (of the GitHub Actions app),
// made in the same transaction, and every change of the job's status
// moves the check run with it in the transaction that changes the job.

// jobChecks holds what making the check runs of one run's jobs needs,
// read once per transaction.
type jobChecks struct {
	repo  *model.Repo
	appID int64
}

// jobChecksFor reads the run's repository and the GitHub Actions app (app
// 0 until hubd serve or a first job's token made it) in tx.
func (s *Service) jobChecksFor(ctx context.Context, tx store.Q, run *model.WorkflowRun) (*jobChecks, error) {
	v, err := tx.RepoByID(ctx, run.RepoID, 0)
	if err != nil {
		return nil, err
	}
	jc := &jobChecks{repo: v.Repo}
	app, err := tx.AppBySlug(ctx, apps.Slug(ActionsAppName))
	switch {
	case err == nil:
		jc.appID = app.ID
	case !errors.Is(err, model.ErrNotFound):
		return nil, err
	}
	return jc, nil
}

// createJob records a new job: with its check run (whose id it takes)
// when the service shows jobs as checks, and the run's suite recorded. A
// job copied from the last attempt (done: its conclusion) gets a check
// run completed at once.
func (s *Service) createJob(ctx context.Context, tx store.Q, jc **jobChecks, run *model.WorkflowRun, j *model.WorkflowJob, done *string) error {
	if s.Checks == nil {
		return tx.CreateJob(ctx, j)
	}
	if *jc == nil {
		c, err := s.jobChecksFor(ctx, tx, run)
		if err != nil {
			return err
		}
		*jc = c
	}
	repo := (*jc).repo
	web := s.Exec.Web
	cr, err := s.Checks.CreateJobRun(ctx, tx, repo, run.TriggeringActorID, checks.JobRun{Name: j.Name, HeadSHA: run.HeadSHA,
		HeadBranch: run.HeadBranch, AppID: (*jc).appID, WorkflowRunID: run.ID, SuiteID: run.CheckSuiteID,
		Status: j.Status, Conclusion: done,
		DetailsURL: func(id int64) string {
			return fmt.Sprintf("%s/%s/%s/actions/runs/%d/job/%d", web, repo.Owner.Login, repo.Name, run.ID, id)
		}})
	if err != nil {
		return err
	}
	j.ID, j.CheckRunID = cr.ID, cr.ID
	if err := tx.CreateJob(ctx, j); err != nil {
		return err
	}
	if run.CheckSuiteID != cr.SuiteID {
		run.CheckSuiteID = cr.SuiteID
		return tx.SetRunCheckSuite(ctx, run.ID, cr.SuiteID)
	}
	return nil
}

// syncCheck moves a job's check run to the job's status and conclusion.
func (s *Service) syncCheck(ctx context.Context, tx store.Q, run *model.WorkflowRun, j *model.WorkflowJob) error {
	if s.Checks == nil || j.CheckRunID <= 0 {
		return nil
	}
	v, err := tx.RepoByID(ctx, run.RepoID, 0)
	if err != nil {
		return err
	}
	err = s.Checks.SetJobRunState(ctx, tx, v.Repo, run.TriggeringActorID, j.CheckRunID, j.Status, j.Conclusion)
	if errors.Is(err, model.ErrNotFound) {
		return nil // an older job whose check run is gone: the job moves on
	}
	return err
}
