package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// The durable job queue's rows (internal/jobs runs them). A job is pending
// until a worker claims it (running, with a lease), then deleted when done,
// put back pending with a later run_at when it failed and has attempts
// left, or kept as failed for an operator to read.

// EnqueueJob queues a job unless a pending job with the same non-empty key
// exists, which it then touches instead (making it due no later than this
// job's run_at): the touch locks that row until
// this transaction ends, so a worker cannot claim it (and run without
// seeing this transaction's writes) before the commit — on PostgreSQL a
// claim skips or waits for the locked row; SQLite serializes writes. It
// reports whether a row was added or touched. Call it inside the write's
// transaction so that the job exists exactly when the write does.
func (q Q) EnqueueJob(ctx context.Context, j *model.Job) (bool, error) {
	now := q.Now()
	runAt := j.RunAt
	if runAt.IsZero() {
		runAt = now
	}
	max := j.MaxAttempts
	if max <= 0 {
		max = 5
	}
	var key any
	if j.Key != "" {
		key = j.Key
	}
	res, err := q.exec(ctx, `INSERT INTO jobs (kind, dedup_key, payload, state, attempts, max_attempts, run_at, created_at, updated_at)
 VALUES (?, ?, ?, 'pending', 0, ?, ?, ?, ?)
 ON CONFLICT (dedup_key) WHERE state = 'pending' DO UPDATE SET updated_at = excluded.updated_at,
 run_at = CASE WHEN excluded.run_at < jobs.run_at THEN excluded.run_at ELSE jobs.run_at END`,
		j.Kind, key, string(j.Payload), max, runAt.Unix(), unix(now), unix(now))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// ClaimJob takes the oldest ready job of one of kinds (pending and due and
// no job with its key running, or running with an expired lease) for worker until now+lease; nil when there
// is none. On PostgreSQL concurrent claimers skip each other's rows; SQLite
// has one writer, so the statement is atomic by itself.
// (Claiming, renewing, ending and releasing jobs change only the queue's
// own rows, which no cached read holds: they leave the read caches, and the
// other nodes', alone.)
func (s *Store) ClaimJob(ctx context.Context, worker string, lease time.Duration, kinds []string) (*model.Job, error) {
	if len(kinds) == 0 {
		return nil, nil
	}
	now := s.now().Unix()
	args := []any{worker, now + int64(lease/time.Second), now}
	in := "?"
	for i := range kinds {
		if i > 0 {
			in += ", ?"
		}
	}
	// Jobs with one key run one at a time: a pending job waits while
	// another with its key runs under a live lease.
	pick := `SELECT id FROM jobs j WHERE kind IN (` + in + `) AND ((state = 'pending' AND run_at <= ?
 AND (dedup_key IS NULL OR NOT EXISTS (SELECT 1 FROM jobs r WHERE r.dedup_key = j.dedup_key AND r.state = 'running' AND r.lease_until >= ?)))
 OR (state = 'running' AND lease_until < ?)) ORDER BY run_at, id LIMIT 1`
	if s.pg {
		pick += ` FOR UPDATE SKIP LOCKED`
	}
	for _, k := range kinds {
		args = append(args, k)
	}
	args = append(args, now, now, now)
	j := &model.Job{}
	var key sql.NullString
	var payload string
	var runAt, created int64
	err := s.tx(ctx, false, func(tx Q) error {
		return tx.row(ctx, `UPDATE jobs SET state = 'running', worker = ?, lease_until = ?, attempts = attempts + 1, updated_at = ?
 WHERE id = (`+pick+`) RETURNING id, kind, dedup_key, payload, attempts, max_attempts, run_at, created_at`, args...).
			Scan(&j.ID, &j.Kind, &key, &payload, &j.Attempts, &j.MaxAttempts, &runAt, &created)
	})
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	j.Key, j.Payload, j.RunAt, j.CreatedAt = key.String, []byte(payload), fromUnix(runAt), fromUnix(created)
	return j, nil
}

// RenewJob extends the lease of a job worker runs to now+lease (a long
// job's heartbeat); a job another worker took over is left alone.
func (s *Store) RenewJob(ctx context.Context, id int64, worker string, lease time.Duration) error {
	return s.tx(ctx, false, func(tx Q) error {
		now := tx.Now().Unix()
		_, err := tx.exec(ctx, `UPDATE jobs SET lease_until = ?, updated_at = ? WHERE id = ? AND worker = ? AND state = 'running'`,
			now+int64(lease/time.Second), now, id, worker)
		return err
	})
}

// CompleteJob deletes a job worker finished (a job whose lease another
// worker took over meanwhile is left to that worker).
func (s *Store) CompleteJob(ctx context.Context, id int64, worker string) error {
	return s.tx(ctx, false, func(tx Q) error {
		_, err := tx.exec(ctx, `DELETE FROM jobs WHERE id = ? AND worker = ? AND state = 'running'`, id, worker)
		return err
	})
}

// FailJob records a failed attempt: the job runs again at retryAt, or, when
// retryAt is nil (out of attempts, or a permanent error), stays failed. A
// retry whose work is already queued again (a pending job with the same
// key) is dropped: that job will do it.
func (s *Store) FailJob(ctx context.Context, id int64, worker, msg string, retryAt *time.Time) error {
	if len(msg) > 2000 {
		msg = msg[:2000]
	}
	return s.tx(ctx, false, func(tx Q) error {
		now := unix(tx.Now())
		if retryAt == nil {
			_, err := tx.exec(ctx, `UPDATE jobs SET state = 'failed', last_error = ?, updated_at = ? WHERE id = ? AND worker = ? AND state = 'running'`, msg, now, id, worker)
			return err
		}
		var dup int
		if err := tx.row(ctx, `SELECT COUNT(*) FROM jobs p JOIN jobs j ON j.id = ? WHERE p.state = 'pending' AND p.dedup_key = j.dedup_key`, id).Scan(&dup); err != nil {
			return err
		}
		if dup > 0 {
			_, err := tx.exec(ctx, `DELETE FROM jobs WHERE id = ? AND worker = ? AND state = 'running'`, id, worker)
			return err
		}
		_, err := tx.exec(ctx, `UPDATE jobs SET state = 'pending', run_at = ?, last_error = ?, lease_until = 0, updated_at = ? WHERE id = ? AND worker = ? AND state = 'running'`,
			retryAt.Unix(), msg, now, id, worker)
		return err
	})
}

// RunningJobWorkers lists the workers that hold running jobs.
func (s *Store) RunningJobWorkers(ctx context.Context) ([]string, error) {
	rows, err := s.Background().query(ctx, `SELECT DISTINCT worker FROM jobs WHERE state = 'running'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var w sql.NullString
		if err := rows.Scan(&w); err != nil {
			return nil, err
		}
		if w.Valid {
			out = append(out, w.String)
		}
	}
	return out, rows.Err()
}

// ReleaseJobs ends the leases of worker's running jobs of kinds (its
// process is gone), so that the next claim takes them; it reports how
// many.
func (s *Store) ReleaseJobs(ctx context.Context, worker string, kinds []string) (int, error) {
	var n int64
	err := s.tx(ctx, false, func(tx Q) error {
		for _, k := range kinds {
			res, err := tx.exec(ctx, `UPDATE jobs SET lease_until = 0 WHERE state = 'running' AND worker = ? AND kind = ?`, worker, k)
			if err != nil {
				return err
			}
			m, err := res.RowsAffected()
			if err != nil {
				return err
			}
			n += m
		}
		return nil
	})
	return int(n), err
}

// JobCounts counts jobs per state (operators, tests).
func (q Q) JobCounts(ctx context.Context) (map[string]int, error) {
	rows, err := q.query(ctx, `SELECT state, COUNT(*) FROM jobs GROUP BY state`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, err
		}
		out[st] = n
	}
	return out, rows.Err()
}

// NextJobAt is when the earliest pending job is due (zero: none).
func (q Q) NextJobAt(ctx context.Context) (time.Time, error) {
	var at sql.NullInt64
	if err := q.row(ctx, `SELECT MIN(run_at) FROM jobs WHERE state = 'pending'`).Scan(&at); err != nil {
		return time.Time{}, err
	}
	if !at.Valid {
		return time.Time{}, nil
	}
	return fromUnix(at.Int64), nil
}
