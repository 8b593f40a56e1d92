package store

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/hubd/hubd/internal/model"
)

// AppendEvent records a domain event in the current transaction.
func (q Q) AppendEvent(ctx context.Context, typ string, actorID, repoID, orgID int64, payload any) error {
	b, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	_, err = q.exec(ctx, `INSERT INTO events (type, actor_id, repo_id, org_id, payload, created_at) VALUES (?,?,?,?,?,?)`,
		typ, actorID, repoID, orgID, string(b), unix(q.Now()))
	if err == nil {
		err = q.appendAudit(ctx, typ, actorID, repoID, orgID, b)
	}
	if err == nil && q.appended != nil {
		*q.appended = true
	}
	return err
}

// EventsAfter lists events with id > after, oldest first (consumers of the
// outbox page through it).
func (q Q) EventsAfter(ctx context.Context, after int64, limit int) ([]model.Event, error) {
	rows, err := q.query(ctx, `SELECT id, type, actor_id, repo_id, org_id, payload, created_at FROM events WHERE id > ? ORDER BY id LIMIT ?`, after, limit)
	if err != nil {
		return nil, err
	}
	return scanEvents(rows)
}

// scanEvents reads rows of events.
func scanEvents(rows *sql.Rows) ([]model.Event, error) {
	defer rows.Close()
	var out []model.Event
	for rows.Next() {
		var e model.Event
		var payload string
		var created int64
		if err := rows.Scan(&e.ID, &e.Type, &e.ActorID, &e.RepoID, &e.OrgID, &payload, &created); err != nil {
			return nil, err
		}
		e.Payload, e.CreatedAt = []byte(payload), fromUnix(created)
		out = append(out, e)
	}
	return out, rows.Err()
}
