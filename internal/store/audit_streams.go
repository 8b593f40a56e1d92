package store

import (
	"context"
	"database/sql"

	"github.com/hubd/hubd/internal/model"
)

const auditStreamCols = `id, stream_type, enabled, domain, port, path, ssl_verify, key_id, token_name, cursor_id, created_at, updated_at, paused_at`

func scanAuditStream(r rowScanner) (*model.AuditStream, error) {
	var s model.AuditStream
	var created, updated int64
	var paused sql.NullInt64
	if err := r.Scan(&s.ID, &s.Type, &s.Enabled, &s.Domain, &s.Port, &s.Path, &s.SSLVerify, &s.KeyID, &s.TokenName, &s.CursorID, &created, &updated, &paused); err != nil {
		return nil, notFound(err)
	}
	s.CreatedAt, s.UpdatedAt, s.PausedAt = fromUnix(created), fromUnix(updated), fromNullUnix(paused)
	return &s, nil
}

// CreateAuditStream inserts a stream that starts after the log's last
// entry (it sends what happens from now on); s gets its id and times.
func (q Q) CreateAuditStream(ctx context.Context, s *model.AuditStream) error {
	now := q.Now()
	var paused any
	if !s.Enabled {
		paused = unix(now)
	}
	err := q.row(ctx, `INSERT INTO audit_log_streams (stream_type, enabled, domain, port, path, ssl_verify, key_id, token_name, cursor_id, created_at, updated_at, paused_at)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(id), 0) FROM audit_log), ?, ?, ?) RETURNING id, cursor_id`,
		s.Type, s.Enabled, s.Domain, s.Port, s.Path, s.SSLVerify, s.KeyID, s.TokenName, unix(now), unix(now), paused).Scan(&s.ID, &s.CursorID)
	if err != nil {
		return err
	}
	s.CreatedAt, s.UpdatedAt = fromUnix(unix(now)), fromUnix(unix(now))
	if !s.Enabled {
		t := s.CreatedAt
		s.PausedAt = &t
	}
	return nil
}

// UpdateAuditStream stores s's settings; pausing records when, resuming
// clears it.
func (q Q) UpdateAuditStream(ctx context.Context, s *model.AuditStream) error {
	now := unix(q.Now())
	_, err := q.exec(ctx, `UPDATE audit_log_streams SET stream_type = ?, enabled = ?, domain = ?, port = ?, path = ?, ssl_verify = ?, key_id = ?, updated_at = ?,
 paused_at = CASE WHEN ? THEN NULL WHEN paused_at IS NULL THEN ? ELSE paused_at END WHERE id = ?`,
		s.Type, s.Enabled, s.Domain, s.Port, s.Path, s.SSLVerify, s.KeyID, now, s.Enabled, now, s.ID)
	return err
}

// DeleteAuditStream removes a stream.
func (q Q) DeleteAuditStream(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM audit_log_streams WHERE id = ?`, id)
	return err
}

// AuditStream finds a stream.
func (q Q) AuditStream(ctx context.Context, id int64) (*model.AuditStream, error) {
	return scanAuditStream(q.row(ctx, `SELECT `+auditStreamCols+` FROM audit_log_streams WHERE id = ?`, id))
}

// AuditStreams lists the streams by id.
func (q Q) AuditStreams(ctx context.Context) ([]*model.AuditStream, error) {
	rows, err := q.query(ctx, `SELECT `+auditStreamCols+` FROM audit_log_streams ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.AuditStream
	for rows.Next() {
		s, err := scanAuditStream(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// MoveAuditStreamCursor advances a stream past the entries it delivered;
// false when another delivery moved it first.
func (q Q) MoveAuditStreamCursor(ctx context.Context, id, from, to int64) (bool, error) {
	res, err := q.exec(ctx, `UPDATE audit_log_streams SET cursor_id = ? WHERE id = ? AND cursor_id = ?`, to, id, from)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
