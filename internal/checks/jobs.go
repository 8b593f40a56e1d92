package checks

import (
	"context"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// A workflow job is a check run with the same id, as on GitHub: the
// actions service makes the job's check run in the transaction that makes
// the job and gives the job the run's id, then moves the run with the job.
// The runs belong to the GitHub Actions app, in the suite of their
// workflow run: each workflow run is a suite of its own, made with its
// first job; the jobs of later attempts join it.

// JobRun is the check run of a new workflow job.
type JobRun struct {
	Name       string
	HeadSHA    string // a commit id (resolved by the caller)
	HeadBranch *string
	AppID      int64
	// WorkflowRunID is the job's run; SuiteID the run's suite, 0 until its
	// first job made it.
	WorkflowRunID int64
	SuiteID       int64
	Status        string
	Conclusion    *string
	// DetailsURL is the job's page, given the id the job and run share.
	DetailsURL func(id int64) string
}

// CreateJobRun makes a job's check run in tx (the caller made sure the
// commit exists); its id is the job's.
func (s *Service) CreateJobRun(ctx context.Context, tx store.Q, repo *model.Repo, actorID int64, in JobRun) (*model.CheckRun, error) {
	suite := &model.CheckSuite{RepoID: repo.ID, HeadSHA: in.HeadSHA, HeadBranch: in.HeadBranch, AppID: in.AppID,
		WorkflowRunID: in.WorkflowRunID}
	var err error
	created := false
	switch {
	case in.SuiteID != 0:
		suite, err = tx.CheckSuiteByID(ctx, repo.ID, in.SuiteID)
	case in.WorkflowRunID != 0:
		created, err = true, tx.CreateWorkflowRunSuite(ctx, suite)
	default:
		created, err = tx.EnsureCheckSuite(ctx, suite)
	}
	if err != nil {
		return nil, err
	}
	if created {
		if err := tx.AppendEvent(ctx, "check_suite", actorID, repo.ID, orgID(repo), suitePayload("created", suite)); err != nil {
			return nil, err
		}
	}
	now := tx.Now().UTC().Truncate(time.Second)
	run := &model.CheckRun{RepoID: repo.ID, SuiteID: suite.ID, HeadSHA: in.HeadSHA, AppID: in.AppID, Name: in.Name,
		Status: in.Status, Conclusion: in.Conclusion, StartedAt: &now, CreatorID: actorID}
	if in.Conclusion != nil {
		run.Status, run.CompletedAt = model.CheckCompleted, &now
	}
	if err := tx.CreateCheckRun(ctx, run); err != nil {
		return nil, err
	}
	ext := strconv.FormatInt(run.ID, 10)
	run.ExternalID = &ext
	if in.DetailsURL != nil {
		u := in.DetailsURL(run.ID)
		run.DetailsURL = &u
	}
	if err := tx.UpdateCheckRun(ctx, run); err != nil {
		return nil, err
	}
	if err := runEvent(ctx, tx, actorID, repo, "created", run); err != nil {
		return nil, err
	}
	return run, s.refreshSuite(ctx, tx, repo, actorID, suite)
}

// SetJobRunState moves a job's check run (id) to the job's status and
// conclusion in tx; nothing happens when it is there already.
func (s *Service) SetJobRunState(ctx context.Context, tx store.Q, repo *model.Repo, actorID, id int64, status string, conclusion *string) error {
	run, err := tx.CheckRunByID(ctx, repo.ID, id)
	if err != nil {
		return err
	}
	if run.Status == status && eqStr(run.Conclusion, conclusion) {
		return nil
	}
	was := run.Status
	now := tx.Now().UTC().Truncate(time.Second)
	run.Status, run.Conclusion, run.CompletedAt = status, conclusion, nil
	if status == model.CheckInProgress || (status == model.CheckCompleted && run.StartedAt == nil) {
		run.StartedAt = &now
	}
	if status == model.CheckCompleted {
		run.CompletedAt = &now
	}
	if err := tx.UpdateCheckRun(ctx, run); err != nil {
		return err
	}
	return s.runChanged(ctx, tx, repo, actorID, run, was)
}
