package store

import "context"

// ClaimJobCheckRun marks a job that has no check run as getting one: true
// for the one caller that may create it (a skipped job's check run is made
// once, whichever worker saw it skipped).
func (q Q) ClaimJobCheckRun(ctx context.Context, id int64) (bool, error) {
	res, err := q.exec(ctx, `UPDATE actions_jobs SET check_run_id = -1 WHERE id = ? AND check_run_id = 0`, id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

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
