package store

import (
	"context"
	"errors"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// The outbox consumers' places in the events log (owned by
// internal/outbox): one cursor per consumer, moved in the transaction
// that records what the consumer made of the events, and the ids each
// consumer passed before their transactions committed (gaps: PostgreSQL
// numbers rows before commit).

// ErrOutboxMoved reports that another process consumed the events.
var ErrOutboxMoved = errors.New("store: outbox cursor moved")

// EnsureOutboxCursor creates consumer name's cursor when it has none: at
// the end of the log, or before its first event when fromStart.
func (q Q) EnsureOutboxCursor(ctx context.Context, name string, fromStart bool) error {
	query := `INSERT INTO outbox_cursors (name, last_event_id) SELECT ?, COALESCE(MAX(id), 0) FROM events WHERE TRUE ON CONFLICT DO NOTHING`
	if fromStart {
		query = `INSERT INTO outbox_cursors (name, last_event_id) VALUES (?, 0) ON CONFLICT DO NOTHING`
	}
	_, err := q.exec(ctx, query, name)
	return err
}

// OutboxCursor is the last event consumer name handled.
func (q Q) OutboxCursor(ctx context.Context, name string) (int64, error) {
	var id int64
	err := q.row(ctx, `SELECT last_event_id FROM outbox_cursors WHERE name = ?`, name).Scan(&id)
	return id, notFound(err)
}

// MoveOutboxCursor advances name's cursor from from to to; false when
// another process moved it first (the caller's transaction must then roll
// back).
func (q Q) MoveOutboxCursor(ctx context.Context, name string, from, to int64) (bool, error) {
	res, err := q.exec(ctx, `UPDATE outbox_cursors SET last_event_id = ? WHERE name = ? AND last_event_id = ?`, to, name, from)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// AddOutboxGaps records event ids consumer name passed that were not
// committed yet (a PostgreSQL transaction that took its id earlier may
// still commit).
func (q Q) AddOutboxGaps(ctx context.Context, name string, ids []int64) error {
	now := unix(q.Now())
	for _, id := range ids {
		if _, err := q.exec(ctx, `INSERT INTO outbox_gaps (consumer, event_id, seen_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, name, id, now); err != nil {
			return err
		}
	}
	return nil
}

// OutboxGapEvents are the events of name's gaps that have committed since.
func (q Q) OutboxGapEvents(ctx context.Context, name string) ([]model.Event, error) {
	rows, err := q.query(ctx, `SELECT e.id, e.type, e.actor_id, e.repo_id, e.org_id, e.payload, e.created_at
 FROM outbox_gaps g JOIN events e ON e.id = g.event_id WHERE g.consumer = ? ORDER BY e.id LIMIT 500`, name)
	if err != nil {
		return nil, err
	}
	return scanEvents(rows)
}

// TakeOutboxGap removes a gap whose event is being consumed; false when
// another process took it.
func (q Q) TakeOutboxGap(ctx context.Context, name string, id int64) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM outbox_gaps WHERE consumer = ? AND event_id = ?`, name, id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// ExpireOutboxGaps forgets gaps older than before: their transactions
// rolled back.
func (q Q) ExpireOutboxGaps(ctx context.Context, before time.Time) error {
	_, err := q.exec(ctx, `DELETE FROM outbox_gaps WHERE seen_at < ?`, unix(before))
	return err
}
