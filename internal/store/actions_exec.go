package store

import (
	"context"

	"github.com/hubd/hubd/internal/model"
)

// SetAppOwner moves an app to another owner (the GitHub Actions app to
// hubd's system organization).
func (q Q) SetAppOwner(ctx context.Context, appID, ownerID int64) error {
	_, err := q.exec(ctx, `UPDATE apps SET owner_id = ?, updated_at = ? WHERE id = ?`, ownerID, unix(q.Now()), appID)
	return err
}

// countRuns moves a repository's run counter (actions_run_counters).
func (q Q) countRuns(ctx context.Context, repoID int64, delta int) error {
	_, err := q.exec(ctx, `INSERT INTO actions_run_counters (repo_id, runs) VALUES (?, ?)
 ON CONFLICT (repo_id) DO UPDATE SET runs = actions_run_counters.runs + excluded.runs`, repoID, delta)
	return err
}

// RunsOfJobs are the runs of a repository's jobs, by job id (a workflow
// job's check run has the job's id).
func (q Q) RunsOfJobs(ctx context.Context, repoID int64, jobIDs []int64) (map[int64]*model.WorkflowRun, error) {
	out := map[int64]*model.WorkflowRun{}
	if len(jobIDs) == 0 {
		return out, nil
	}
	in, args := inList(jobIDs)
	rows, err := q.query(ctx, `SELECT id, run_id FROM actions_jobs WHERE repo_id = ? AND id IN (`+in+`)`, append([]any{repoID}, args...)...)
	if err != nil {
		return nil, err
	}
	runOf := map[int64]int64{}
	var runIDs []int64
	for rows.Next() {
		var j, r int64
		if err := rows.Scan(&j, &r); err != nil {
			rows.Close()
			return nil, err
		}
		runOf[j] = r
		runIDs = append(runIDs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(runIDs) == 0 {
		return out, err
	}
	in, args = inList(runIDs)
	list, err := q.runs(ctx, `SELECT `+runCols+runFrom+` WHERE r.repo_id = ? AND r.id IN (`+in+`)`, append([]any{repoID}, args...)...)
	if err != nil {
		return nil, err
	}
	byID := map[int64]*model.WorkflowRun{}
	for _, r := range list {
		byID[r.ID] = r
	}
	for j, r := range runOf {
		if byID[r] != nil {
			out[j] = byID[r]
		}
	}
	return out, nil
}
