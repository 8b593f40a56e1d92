package store

import (
	"context"
	"database/sql"
	"time"
)

// The rate-limit and failed-login counters (internal/ratelimit counts in
// memory and keeps them here, so that a restart or a second hubd process on
// the database does not start them over). A counter is one window: used
// requests until reset_at; a row whose reset_at has passed is a window that
// ended and counts as nothing.

// RateCount is one counter: Used in the window that ends at Reset.
type RateCount struct {
	Bucket string
	Used   int
	Reset  time.Time
}

// RateCounts reads the live windows (Reset after now) of buckets; buckets
// without one are absent from the map.
func (s *Store) RateCounts(ctx context.Context, buckets []string, now time.Time) (map[string]RateCount, error) {
	out := make(map[string]RateCount, len(buckets))
	q := s.Background()
	for _, b := range buckets {
		var used, reset int64
		err := q.row(ctx, `SELECT used, reset_at FROM rate_counts WHERE bucket = ? AND reset_at > ?`, b, now.Unix()).Scan(&used, &reset)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[b] = RateCount{Bucket: b, Used: int(used), Reset: fromUnix(reset)}
	}
	return out, nil
}

// AddRateCounts adds each count's Used to its bucket's live window, or
// starts the window that ends at its Reset when the bucket has none, all in
// one transaction; it returns the buckets as they are after it, in the same
// order. The transaction touches no table the read cache holds, so it
// leaves the cache alone.
func (s *Store) AddRateCounts(ctx context.Context, adds []RateCount, now time.Time) ([]RateCount, error) {
	out := make([]RateCount, 0, len(adds))
	err := s.tx(ctx, false, func(tx Q) error {
		out = out[:0]
		for _, a := range adds {
			var used, reset int64
			err := tx.row(ctx, `INSERT INTO rate_counts (bucket, used, reset_at) VALUES (?, ?, ?)
 ON CONFLICT (bucket) DO UPDATE SET
 used = CASE WHEN rate_counts.reset_at > ? THEN rate_counts.used + excluded.used ELSE excluded.used END,
 reset_at = CASE WHEN rate_counts.reset_at > ? THEN rate_counts.reset_at ELSE excluded.reset_at END
 RETURNING used, reset_at`, a.Bucket, a.Used, a.Reset.Unix(), now.Unix(), now.Unix()).Scan(&used, &reset)
			if err != nil {
				return err
			}
			out = append(out, RateCount{Bucket: a.Bucket, Used: int(used), Reset: fromUnix(reset)})
		}
		return nil
	})
	return out, err
}

// ExpireRateCounts forgets windows that ended before now.
func (s *Store) ExpireRateCounts(ctx context.Context, now time.Time) (int, error) {
	var n int64
	err := s.tx(ctx, false, func(tx Q) error {
		res, err := tx.exec(ctx, `DELETE FROM rate_counts WHERE reset_at <= ?`, now.Unix())
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}
