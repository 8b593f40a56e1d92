package store

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// Actions' triggers, concurrency groups and attempts (internal/actions):
// earlier attempts of runs, the members of concurrency groups, the cron
// schedules of workflows and what the trigger evaluation asks of pull
// requests.

// RunAttempt is attempt n of a run that has moved on to a later one.
func (q Q) RunAttempt(ctx context.Context, runID, n int64) (*model.RunAttempt, error) {
	a := &model.RunAttempt{}
	var concl sql.NullString
	var s, u int64
	err := q.row(ctx, `SELECT run_id, attempt, status, conclusion, triggering_actor_id, run_started_at, updated_at
 FROM actions_run_attempts WHERE run_id = ? AND attempt = ?`, runID, n).Scan(&a.RunID, &a.Attempt, &a.Status, &concl, &a.TriggeringActorID, &s, &u)
	if err != nil {
		return nil, notFound(err)
	}
	a.Conclusion, a.RunStartedAt, a.UpdatedAt = nullStr(concl), fromUnix(s), fromUnix(u)
	return a, nil
}

// activeStates are the statuses of the members of a concurrency group.
const activeStates = `('queued', 'in_progress', 'pending', 'waiting')`

// GroupRuns are the runs of a repository's concurrency group that have not
// completed, oldest first.
func (q Q) GroupRuns(ctx context.Context, repoID int64, group string) ([]*model.WorkflowRun, error) {
	return q.runs(ctx, `SELECT `+runCols+runFrom+` WHERE r.repo_id = ? AND r.concurrency_group = ? AND r.status IN `+activeStates+` ORDER BY r.id`,
		repoID, group)
}

// GroupJobs are the jobs of a repository's concurrency group that have not
// completed, oldest first.
func (q Q) GroupJobs(ctx context.Context, repoID int64, group string) ([]*model.WorkflowJob, error) {
	return q.jobs(ctx, `SELECT `+jobCols+jobFrom+` WHERE j.repo_id = ? AND j.concurrency_group = ? AND j.status IN `+activeStates+` ORDER BY j.id`,
		repoID, group)
}

// ConcurrencyGroup is an active concurrency group of a repository.
type ConcurrencyGroup struct {
	Name         string
	LastAcquired *time.Time
}

// ConcurrencyGroups lists a repository's groups with a run or job holding
// or waiting for them, by name, a page at a time.
func (q Q) ConcurrencyGroups(ctx context.Context, repoID int64, limit, offset int) ([]ConcurrencyGroup, int, error) {
	members := `SELECT concurrency_group AS g, group_acquired_at AS at FROM actions_runs WHERE repo_id = ? AND concurrency_group <> '' AND status IN ` + activeStates + `
 UNION ALL SELECT concurrency_group AS g, started_at AS at FROM actions_jobs WHERE repo_id = ? AND concurrency_group <> '' AND status IN ` + activeStates
	var total int
	if err := q.row(ctx, `SELECT COUNT(DISTINCT m.g) FROM (`+members+`) m`, repoID, repoID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT m.g, MAX(m.at) FROM (`+members+`) m GROUP BY m.g ORDER BY m.g LIMIT ? OFFSET ?`, repoID, repoID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []ConcurrencyGroup
	for rows.Next() {
		var g ConcurrencyGroup
		var at sql.NullInt64
		if err := rows.Scan(&g.Name, &at); err != nil {
			return nil, 0, err
		}
		g.LastAcquired = fromNullUnix(at)
		out = append(out, g)
	}
	return out, total, rows.Err()
}

// AcquireRunGroup records that a run took its concurrency group (queued
// to run); its status becomes queued when it was pending.
func (q Q) AcquireRunGroup(ctx context.Context, id int64) error {
	now := unix(q.Now())
	_, err := q.exec(ctx, `UPDATE actions_runs SET group_acquired_at = ?, updated_at = ?,
 status = CASE WHEN status = 'pending' THEN 'queued' ELSE status END WHERE id = ?`, now, now, id)
	return err
}

// SetJobConcurrency records a job's concurrency group and moves it (when
// not completed) to status: pending while it waits for the group, queued
// when it took it.
func (q Q) SetJobConcurrency(ctx context.Context, id int64, group, status string) error {
	_, err := q.exec(ctx, `UPDATE actions_jobs SET concurrency_group = ?, status = ? WHERE id = ? AND status <> 'completed'`, group, status, id)
	return err
}

// SetRunConcurrency records a run's concurrency group and status (pending
// while it waits for the group).
func (q Q) SetRunConcurrency(ctx context.Context, id int64, group, status string) error {
	_, err := q.exec(ctx, `UPDATE actions_runs SET concurrency_group = ?, status = ? WHERE id = ?`, group, status, id)
	return err
}

// RunsByIDs loads a repository's runs by id.
func (q Q) RunsByIDs(ctx context.Context, repoID int64, ids []int64) (map[int64]*model.WorkflowRun, error) {
	out := map[int64]*model.WorkflowRun{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	list, err := q.runs(ctx, `SELECT `+runCols+runFrom+` WHERE r.repo_id = ? AND r.id IN (`+in+`)`, append([]any{repoID}, args...)...)
	for _, r := range list {
		out[r.ID] = r
	}
	return out, err
}

// PullsByNumbers loads a repository's pull requests by number.
func (q Q) PullsByNumbers(ctx context.Context, repoID int64, numbers []int64) (map[int64]*model.Pull, error) {
	out := map[int64]*model.Pull{}
	if len(numbers) == 0 {
		return out, nil
	}
	in, args := inList(numbers)
	list, err := q.pulls(ctx, pullSelect+` WHERE p.repo_id = ? AND i.number IN (`+in+`)`, append([]any{repoID}, args...)...)
	if err != nil {
		return nil, err
	}
	for _, p := range list {
		out[p.Number] = p
	}
	return out, nil
}

// MergedPullsBy counts the merged pull requests a user opened in a
// repository (a first-time contributor has none).
func (q Q) MergedPullsBy(ctx context.Context, repoID, userID int64) (int, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM pulls p JOIN issues i ON i.id = p.issue_id WHERE i.repo_id = ? AND i.user_id = ? AND p.merged_at IS NOT NULL`,
		repoID, userID).Scan(&n)
	return n, err
}

// WorkflowJobsMillis is the time the jobs of a workflow's runs created
// since took, in milliseconds (timing of a workflow).
func (q Q) WorkflowJobsMillis(ctx context.Context, workflowID int64, since time.Time) (int64, error) {
	var s sql.NullInt64
	err := q.row(ctx, `SELECT SUM(j.completed_at - j.started_at) FROM actions_jobs j JOIN actions_runs r ON r.id = j.run_id
 WHERE r.workflow_id = ? AND r.created_at >= ? AND j.started_at IS NOT NULL AND j.completed_at IS NOT NULL AND j.conclusion <> 'skipped'`,
		workflowID, unix(since)).Scan(&s)
	return s.Int64 * 1000, err
}

// Schedule is a cron schedule of a repository's workflow.
type Schedule struct {
	ID     int64
	RepoID int64
	Path   string
	Cron   string
	NextAt time.Time
}

// SetSchedules replaces the schedules of a repository's workflows with
// list (keeping the next firing of those that stay).
func (q Q) SetSchedules(ctx context.Context, repoID int64, list []Schedule) error {
	keep := map[[2]string]bool{}
	for _, s := range list {
		keep[[2]string{s.Path, s.Cron}] = true
		if _, err := q.exec(ctx, `INSERT INTO actions_schedules (repo_id, path, cron, next_at) VALUES (?,?,?,?) ON CONFLICT (repo_id, path, cron) DO NOTHING`,
			repoID, s.Path, s.Cron, unix(s.NextAt)); err != nil {
			return err
		}
	}
	rows, err := q.query(ctx, `SELECT id, path, cron FROM actions_schedules WHERE repo_id = ?`, repoID)
	if err != nil {
		return err
	}
	var drop []int64
	for rows.Next() {
		var id int64
		var p, c string
		if err := rows.Scan(&id, &p, &c); err != nil {
			rows.Close()
			return err
		}
		if !keep[[2]string{p, c}] {
			drop = append(drop, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range drop {
		if _, err := q.exec(ctx, `DELETE FROM actions_schedules WHERE id = ?`, id); err != nil {
			return err
		}
	}
	return nil
}

// DueSchedules are the schedules whose next firing is at or before now.
func (q Q) DueSchedules(ctx context.Context, now time.Time, limit int) ([]Schedule, error) {
	rows, err := q.query(ctx, `SELECT id, repo_id, path, cron, next_at FROM actions_schedules WHERE next_at <= ? ORDER BY next_at, id LIMIT ?`, unix(now), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Schedule
	for rows.Next() {
		var s Schedule
		var at int64
		if err := rows.Scan(&s.ID, &s.RepoID, &s.Path, &s.Cron, &at); err != nil {
			return nil, err
		}
		s.NextAt = fromUnix(at)
		out = append(out, s)
	}
	return out, rows.Err()
}

// NextScheduleAt is the earliest next firing of any schedule (zero: none).
func (q Q) NextScheduleAt(ctx context.Context) (time.Time, error) {
	var at sql.NullInt64
	if err := q.row(ctx, `SELECT MIN(next_at) FROM actions_schedules`).Scan(&at); err != nil || !at.Valid {
		return time.Time{}, err
	}
	return fromUnix(at.Int64), nil
}

// AdvanceSchedule moves a schedule's next firing from from to to; false
// when another process fired it first.
func (q Q) AdvanceSchedule(ctx context.Context, id int64, from, to time.Time) (bool, error) {
	res, err := q.exec(ctx, `UPDATE actions_schedules SET next_at = ? WHERE id = ? AND next_at = ?`, unix(to), id, unix(from))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// ReposWithWorkflows are those of repository ids that have a workflow on
// record (only their events may trigger runs).
func (q Q) ReposWithWorkflows(ctx context.Context, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	return q.idSet(ctx, `SELECT DISTINCT repo_id FROM actions_workflows WHERE repo_id IN (`+in+`)`, args...)
}

// LockConcurrencyGroup serializes, until tx ends, the transactions that
// put runs or jobs in one concurrency group of a repository (PostgreSQL;
// SQLite has one writer already), so that two processes never both see
// the group free.
func (q Q) LockConcurrencyGroup(ctx context.Context, repoID int64, group string) error {
	if !q.s.pg || q.tx == nil {
		return nil
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "actions-concurrency:%d:%s", repoID, group)
	_, err := q.exec(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(h.Sum64()))
	return err
}
