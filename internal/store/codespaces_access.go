package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// The Codespaces access policy of organizations
// (internal/codespaces/secrets): which users may create codespaces the
// organization pays for. No row is GitHub's default, "disabled".

// CodespacesAccessDisabled is the visibility of an organization without a
// policy.
const CodespacesAccessDisabled = "disabled"

// CodespacesAccess is an organization's access visibility.
func (q Q) CodespacesAccess(ctx context.Context, orgID int64) (string, error) {
	var v string
	err := q.row(ctx, `SELECT visibility FROM codespaces_access WHERE org_id = ?`, orgID).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return CodespacesAccessDisabled, nil
	}
	return v, err
}

// SetCodespacesAccess sets an organization's access visibility; with
// replace, the selected users become userIDs (otherwise they stay).
func (q Q) SetCodespacesAccess(ctx context.Context, orgID int64, visibility string, userIDs []int64, replace bool) error {
	now := unix(q.Now())
	if _, err := q.exec(ctx, `INSERT INTO codespaces_access (org_id, visibility, updated_at) VALUES (?, ?, ?)
 ON CONFLICT (org_id) DO UPDATE SET visibility = excluded.visibility, updated_at = excluded.updated_at`, orgID, visibility, now); err != nil {
		return err
	}
	if !replace {
		return nil
	}
	if _, err := q.exec(ctx, `DELETE FROM codespaces_access_users WHERE org_id = ?`, orgID); err != nil {
		return err
	}
	return q.AddCodespacesAccessUsers(ctx, orgID, userIDs)
}

// AddCodespacesAccessUsers selects users (again is a no-op).
func (q Q) AddCodespacesAccessUsers(ctx context.Context, orgID int64, userIDs []int64) error {
	for _, id := range userIDs {
		if _, err := q.exec(ctx, `INSERT INTO codespaces_access_users (org_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, orgID, id); err != nil {
			return err
		}
	}
	return nil
}

// RemoveCodespacesAccessUsers unselects users.
func (q Q) RemoveCodespacesAccessUsers(ctx context.Context, orgID int64, userIDs []int64) error {
	if len(userIDs) == 0 {
		return nil
	}
	in, args := inList(userIDs)
	_, err := q.exec(ctx, `DELETE FROM codespaces_access_users WHERE org_id = ? AND user_id IN (`+in+`)`, append([]any{orgID}, args...)...)
	return err
}

// CodespacesAccessUserIDs lists the users an organization selects, by id.
func (q Q) CodespacesAccessUserIDs(ctx context.Context, orgID int64) ([]int64, error) {
	rows, err := q.query(ctx, `SELECT user_id FROM codespaces_access_users WHERE org_id = ? ORDER BY user_id`, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// CodespacesAccessFor is what decides whether a user may create
// codespaces for an organization: its visibility ("" when never set), whether it selects
// the user, and whether the user is an active member or an outside
// collaborator of it (one query).
func (q Q) CodespacesAccessFor(ctx context.Context, orgID, userID int64) (visibility string, selected, member, outside bool, err error) {
	err = q.row(ctx, `SELECT COALESCE((SELECT visibility FROM codespaces_access WHERE org_id = ?), ''),
 EXISTS (SELECT 1 FROM codespaces_access_users WHERE org_id = ? AND user_id = ?),
 EXISTS (SELECT 1 FROM org_members WHERE org_id = ? AND user_id = ? AND state = ?),
 EXISTS (SELECT 1 FROM repo_collaborators c JOIN repos r ON r.id = c.repo_id WHERE c.user_id = ? AND r.owner_id = ?)`,
		orgID, orgID, userID, orgID, userID, StateActive, userID, orgID).Scan(&visibility, &selected, &member, &outside)
	if member {
		outside = false
	}
	return
}

// OrgAffiliations are users (by lower-case login) with their ids, and
// which of them are active members and which outside collaborators of an
// organization; logins of no user are missing from ids.
func (q Q) OrgAffiliations(ctx context.Context, orgID int64, logins []string) (ids map[string]int64, members, outside map[int64]bool, err error) {
	ids, members, outside = map[string]int64{}, map[int64]bool{}, map[int64]bool{}
	if len(logins) == 0 {
		return
	}
	lower := make([]string, len(logins))
	for i, l := range logins {
		lower[i] = strings.ToLower(l)
	}
	in, args := inList(lower)
	rows, err := q.query(ctx, `SELECT a.id, a.lower_login,
 EXISTS (SELECT 1 FROM org_members m WHERE m.org_id = ? AND m.user_id = a.id AND m.state = ?),
 EXISTS (SELECT 1 FROM repo_collaborators c JOIN repos r ON r.id = c.repo_id WHERE c.user_id = a.id AND r.owner_id = ?)
 FROM accounts a WHERE a.type = 'User' AND a.lower_login IN (`+in+`)`, append([]any{orgID, StateActive, orgID}, args...)...)
	if err != nil {
		return nil, nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var login string
		var member, collab bool
		if err := rows.Scan(&id, &login, &member, &collab); err != nil {
			return nil, nil, nil, err
		}
		ids[login] = id
		if member {
			members[id] = true
		} else if collab {
			outside[id] = true
		}
	}
	return ids, members, outside, rows.Err()
}
