package store

import (
	"context"
	"database/sql"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// PersonalTokens is up to limit of a user's personal access tokens,
// classic and fine-grained, newest first (the web's token settings).
func (q Q) PersonalTokens(ctx context.Context, userID int64, limit int) ([]*FineGrainedToken, error) {
	rows, err := q.query(ctx, `SELECT id, kind, last_eight, note, scopes, expires_at, created_at, COALESCE(name, ''), COALESCE(description, ''),
 COALESCE(resource_owner_id, 0) FROM tokens WHERE user_id = ? AND kind IN (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?`,
		userID, string(authz.ClassicPAT), string(authz.FineGrained), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*FineGrainedToken
	for rows.Next() {
		t := &FineGrainedToken{}
		var kind, scopes string
		var expires sql.NullInt64
		var created int64
		if err := rows.Scan(&t.ID, &kind, &t.LastEight, &t.Note, &scopes, &expires, &created, &t.Name, &t.Description, &t.ResourceOwnerID); err != nil {
			return nil, err
		}
		t.UserID, t.Kind, t.Scopes = userID, authz.TokenKind(kind), authz.ParseScopes(scopes)
		t.ExpiresAt, t.CreatedAt = fromNullUnix(expires), fromUnix(created)
		out = append(out, t)
	}
	return out, rows.Err()
}

// DeletePersonalToken revokes one of a user's personal access tokens
// (model.ErrNotFound when it is not theirs) and appends its
// personal_access_token.deleted event (the audit log's oauth_access.destroy).
func (q Q) DeletePersonalToken(ctx context.Context, userID, id int64) error {
	res, err := q.exec(ctx, `DELETE FROM tokens WHERE id = ? AND user_id = ? AND kind IN (?, ?)`,
		id, userID, string(authz.ClassicPAT), string(authz.FineGrained))
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return model.ErrNotFound
	}
	return q.AppendEvent(ctx, "personal_access_token.deleted", userID, 0, 0, map[string]any{"token_id": id})
}
