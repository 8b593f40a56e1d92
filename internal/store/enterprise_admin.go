package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// The enterprise's announcement banner and role assignments (owned by
// internal/enterprise).

// Announcement is the enterprise's banner as stored.
type Announcement struct {
	Message         string
	ExpiresAt       *time.Time
	UserDismissible bool
	UpdatedAt       time.Time
}

// EnterpriseAnnouncement is the banner; ErrNotFound when none is set.
func (q Q) EnterpriseAnnouncement(ctx context.Context) (*Announcement, error) {
	a := &Announcement{}
	var expires sql.NullInt64
	var updated int64
	err := q.row(ctx, `SELECT message, expires_at, user_dismissible, updated_at FROM enterprise_announcements WHERE id = 1`).
		Scan(&a.Message, &expires, &a.UserDismissible, &updated)
	if err != nil {
		return nil, notFound(err)
	}
	if expires.Valid {
		t := fromUnix(expires.Int64)
		a.ExpiresAt = &t
	}
	a.UpdatedAt = fromUnix(updated)
	return a, nil
}

// SetEnterpriseAnnouncement writes the banner.
func (q Q) SetEnterpriseAnnouncement(ctx context.Context, a *Announcement, actorID int64) error {
	var expires any
	if a.ExpiresAt != nil {
		expires = unix(*a.ExpiresAt)
	}
	a.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `INSERT INTO enterprise_announcements (id, message, expires_at, user_dismissible, actor_id, updated_at)
 VALUES (1, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET message = excluded.message, expires_at = excluded.expires_at,
 user_dismissible = excluded.user_dismissible, actor_id = excluded.actor_id, updated_at = excluded.updated_at`,
		a.Message, expires, a.UserDismissible, idOrNil(actorID), unix(a.UpdatedAt))
	return err
}

// DeleteEnterpriseAnnouncement removes the banner (none is no error).
func (q Q) DeleteEnterpriseAnnouncement(ctx context.Context) error {
	_, err := q.exec(ctx, `DELETE FROM enterprise_announcements WHERE id = 1`)
	return err
}

// SetEnterpriseRoleUser assigns (on) or revokes a role of a user; whether
// that changed anything.
func (q Q) SetEnterpriseRoleUser(ctx context.Context, roleID, userID int64, on bool) (bool, error) {
	return q.setEnterpriseRole(ctx, "enterprise_role_users", "user_id", roleID, userID, on)
}

// SetEnterpriseRoleTeam assigns (on) or revokes a role of an enterprise
// team; whether that changed anything.
func (q Q) SetEnterpriseRoleTeam(ctx context.Context, roleID, teamID int64, on bool) (bool, error) {
	return q.setEnterpriseRole(ctx, "enterprise_role_teams", "team_id", roleID, teamID, on)
}

func (q Q) setEnterpriseRole(ctx context.Context, table, col string, roleID, id int64, on bool) (bool, error) {
	var res sql.Result
	var err error
	if on {
		res, err = q.exec(ctx, `INSERT INTO `+table+` (role_id, `+col+`, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
			roleID, id, unix(q.Now()))
	} else {
		res, err = q.exec(ctx, `DELETE FROM `+table+` WHERE role_id = ? AND `+col+` = ?`, roleID, id)
	}
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// ClearEnterpriseRolesOfUser revokes every role assigned to a user
// directly.
func (q Q) ClearEnterpriseRolesOfUser(ctx context.Context, userID int64) error {
	_, err := q.exec(ctx, `DELETE FROM enterprise_role_users WHERE user_id = ?`, userID)
	return err
}

// ClearEnterpriseRolesOfTeam revokes every role of an enterprise team.
func (q Q) ClearEnterpriseRolesOfTeam(ctx context.Context, teamID int64) error {
	_, err := q.exec(ctx, `DELETE FROM enterprise_role_teams WHERE team_id = ?`, teamID)
	return err
}

// EnterpriseRoleHolder is a user who holds a role: directly, through
// enterprise teams (Teams), or both.
type EnterpriseRoleHolder struct {
	User   *model.Account
	Direct bool
	Teams  []*model.EnterpriseTeam
}

// enterpriseRoleHolders is the users holding a role directly or through
// a team's membership, by login.
const enterpriseRoleHolders = `SELECT user_id FROM enterprise_role_users WHERE role_id = ?
 UNION SELECT m.user_id FROM enterprise_role_teams t JOIN enterprise_team_members m ON m.team_id = t.team_id WHERE t.role_id = ?`

// EnterpriseRoleUsers is one page of the users who hold a role (by
// login), with how they hold it, and their count; three queries.
func (q Q) EnterpriseRoleUsers(ctx context.Context, roleID int64, limit, offset int) ([]EnterpriseRoleHolder, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM (`+enterpriseRoleHolders+`) h`, roleID, roleID).Scan(&total); err != nil {
		return nil, 0, err
	}
	users, err := q.accounts(ctx, `SELECT `+accountCols+` FROM accounts a WHERE a.id IN (`+enterpriseRoleHolders+`)
 ORDER BY a.lower_login LIMIT ? OFFSET ?`, roleID, roleID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	out := make([]EnterpriseRoleHolder, len(users))
	if len(users) == 0 {
		return out, total, nil
	}
	ids := make([]int64, len(users))
	at := map[int64]int{}
	for i, u := range users {
		out[i].User, ids[i], at[u.ID] = u, u.ID, i
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT user_id FROM enterprise_role_users WHERE role_id = ? AND user_id IN (`+in+`)`, append([]any{roleID}, args...)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, 0, err
		}
		out[at[id]].Direct = true
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	trows, err := q.query(ctx, `SELECT m.user_id, `+prefixCols("e.", enterpriseTeamCols)+` FROM enterprise_role_teams t
 JOIN enterprise_team_members m ON m.team_id = t.team_id JOIN enterprise_teams e ON e.id = t.team_id
 WHERE t.role_id = ? AND m.user_id IN (`+in+`) ORDER BY e.lower_slug`, append([]any{roleID}, args...)...)
	if err != nil {
		return nil, 0, err
	}
	defer trows.Close()
	for trows.Next() {
		var uid int64
		t, err := scanEnterpriseTeam(trows, &uid)
		if err != nil {
			return nil, 0, err
		}
		out[at[uid]].Teams = append(out[at[uid]].Teams, t)
	}
	return out, total, trows.Err()
}

// EnterpriseRoleTeams is one page of the enterprise teams a role is
// assigned to (by slug) and their count.
func (q Q) EnterpriseRoleTeams(ctx context.Context, roleID int64, limit, offset int) ([]*model.EnterpriseTeam, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM enterprise_role_teams WHERE role_id = ?`, roleID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT `+prefixCols("e.", enterpriseTeamCols)+` FROM enterprise_role_teams t
 JOIN enterprise_teams e ON e.id = t.team_id WHERE t.role_id = ? ORDER BY e.lower_slug LIMIT ? OFFSET ?`, roleID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*model.EnterpriseTeam{}
	for rows.Next() {
		t, err := scanEnterpriseTeam(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, t)
	}
	return out, total, rows.Err()
}

// EnterpriseRolesOfUser are the ids of the roles a user holds, directly
// or through an enterprise team.
func (q Q) EnterpriseRolesOfUser(ctx context.Context, userID int64) ([]int64, error) {
	rows, err := q.query(ctx, `SELECT role_id FROM enterprise_role_users WHERE user_id = ?
 UNION SELECT t.role_id FROM enterprise_role_teams t JOIN enterprise_team_members m ON m.team_id = t.team_id WHERE m.user_id = ?`, userID, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// CustomAgentsSource is the organization that holds the enterprise's
// custom agents (0 when none is set).
func (q Q) CustomAgentsSource(ctx context.Context) (int64, error) {
	var id int64
	err := q.row(ctx, `SELECT org_id FROM enterprise_custom_agents_source WHERE id = 1`).Scan(&id)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return id, err
}

// SetCustomAgentsSource sets (orgID) or clears (0) the source.
func (q Q) SetCustomAgentsSource(ctx context.Context, orgID int64) error {
	if orgID == 0 {
		_, err := q.exec(ctx, `DELETE FROM enterprise_custom_agents_source WHERE id = 1`)
		return err
	}
	_, err := q.exec(ctx, `INSERT INTO enterprise_custom_agents_source (id, org_id, updated_at) VALUES (1, ?, ?)
 ON CONFLICT (id) DO UPDATE SET org_id = excluded.org_id, updated_at = excluded.updated_at`, orgID, unix(q.Now()))
	return err
}
