package store

import "context"

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
