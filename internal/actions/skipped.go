package actions

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/checks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// skippedChecks gives the skipped jobs of a run attempt that have no check
// run theirs, completed with conclusion skipped, as GitHub shows a job
// skipped because a need failed (a job skipped by its if: has one from
// the worker that ran it).
func (e *Executor) skippedChecks(ctx context.Context, repoID, runID, attempt int64) {
	if e.svc.Checks == nil {
		return
	}
	q := e.svc.Store.R()
	list, _, err := q.RunJobs(ctx, runID, attempt, 1<<30, 0)
	if err != nil {
		return
	}
	var repo *model.Repo
	var run *model.WorkflowRun
	for _, j := range list {
		if j.Status != model.ActionsCompleted || deref(j.Conclusion) != model.ConclusionSkipped || j.CheckRunID != 0 {
			continue
		}
		claimed := false
		if err := e.svc.Store.Tx(ctx, func(tx store.Q) (err error) {
			claimed, err = tx.ClaimJobCheckRun(ctx, j.ID)
			return err
		}); err != nil || !claimed {
			continue
		}
		if repo == nil {
			v, err := q.RepoByID(ctx, repoID, 0)
			if err != nil {
				return
			}
			if run, err = q.Run(ctx, repoID, runID); err != nil {
				return
			}
			repo = v.Repo
		}
		name, status, concl := j.Name, model.CheckCompleted, model.ConclusionSkipped
		details := fmt.Sprintf("%s/%s/%s/actions/runs/%d/job/%d", e.Web, repo.Owner.Login, repo.Name, run.ID, j.ID)
		ext := strconv.FormatInt(j.ID, 10)
		v, err := e.svc.Checks.CreateRun(ctx, repo, authz.Admin, run.TriggeringActorID, checks.RunInput{Name: &name, HeadSHA: run.HeadSHA,
			Status: &status, Conclusion: &concl, DetailsURL: &details, ExternalID: &ext})
		id := int64(0)
		if err != nil {
			slog.Warn("actions: check run", "job", j.ID, "err", err)
		} else {
			id = v.Run.ID
		}
		if err := e.svc.Store.Tx(ctx, func(tx store.Q) error { return tx.SetJobCheckRun(ctx, j.ID, id) }); err != nil {
			slog.Warn("actions: check run", "job", j.ID, "err", err)
		}
	}
}
