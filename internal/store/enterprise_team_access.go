package store

import (
	"context"

	"github.com/hubd/hubd/internal/model"
)

// EnterpriseTeamOrgIDs are the organizations a team is assigned to.
func (q Q) EnterpriseTeamOrgIDs(ctx context.Context, teamID int64) ([]int64, error) {
	return q.ids(ctx, `SELECT org_id FROM enterprise_team_orgs WHERE team_id = ? ORDER BY org_id`, teamID)
}

func (q Q) ids(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := q.query(ctx, query, args...)
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

// EnterpriseOrgTeam finds the organization team of an enterprise team's
// assignment to an organization.
func (q Q) EnterpriseOrgTeam(ctx context.Context, teamID, orgID int64) (*model.Team, error) {
	t, err := scanTeam(q.row(ctx, teamSelect+` WHERE t.enterprise_team_id = ? AND t.org_id = ?`, teamID, orgID))
	return t, notFound(err)
}

// IsEnterpriseOrgTeam reports whether an organization team is the one of
// an enterprise team (its members follow the enterprise team's).
func (q Q) IsEnterpriseOrgTeam(ctx context.Context, id int64) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM teams WHERE id = ? AND enterprise_team_id IS NOT NULL`, id).Scan(&n)
	return n > 0, err
}

// EnterpriseOrgAccess is what one sync of an organization's enterprise
// team access changed: the users who became members through enterprise
// teams and those whose membership went with them.
type EnterpriseOrgAccess struct {
	Added, Removed []int64
}

// SyncEnterpriseTeamOrg brings an organization in line with an enterprise
// team's assignment to it: while assigned, the organization has the
// team's organization team (named and slugged as the enterprise team,
// members the enterprise team's); when not, that team is gone with its
// repository grants. Then every member of the enterprise teams assigned
// to the organization is an active member of it (a new membership is
// marked via_enterprise), and a membership that existed only through
// them and has none left is removed as an owner's removal would.
func (q Q) SyncEnterpriseTeamOrg(ctx context.Context, et *model.EnterpriseTeam, orgID int64) (EnterpriseOrgAccess, error) {
	var res EnterpriseOrgAccess
	assigned, err := q.IsEnterpriseTeamOrg(ctx, et.ID, orgID)
	if err != nil {
		return res, err
	}
	if !assigned {
		if _, err := q.exec(ctx, `DELETE FROM teams WHERE enterprise_team_id = ? AND org_id = ?`, et.ID, orgID); err != nil {
			return res, err
		}
	} else if err := q.syncEnterpriseOrgTeam(ctx, et, orgID); err != nil {
		return res, err
	}
	return q.syncEnterpriseOrgMembers(ctx, orgID)
}

func (q Q) syncEnterpriseOrgTeam(ctx context.Context, et *model.EnterpriseTeam, orgID int64) error {
	now := unix(q.Now())
	var teamID int64
	err := q.row(ctx, `SELECT id FROM teams WHERE enterprise_team_id = ? AND org_id = ?`, et.ID, orgID).Scan(&teamID)
	switch err = notFound(err); {
	case err == model.ErrNotFound:
		teamID, err = q.insert(ctx, `INSERT INTO teams (org_id, name, slug, description, privacy, notification_setting,
 permission, created_at, updated_at, enterprise_team_id) VALUES (?,?,?,?,?,?,?,?,?,?)`,
			orgID, et.Name, et.Slug, et.Description, "closed", "notifications_enabled", "pull", now, now, et.ID)
		if isUnique(err) {
			return ErrDuplicate
		}
		if err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		if _, err := q.exec(ctx, `UPDATE teams SET name = ?, slug = ?, description = ? WHERE id = ? AND (name <> ? OR slug <> ? OR description IS NULL OR description <> ?)`,
			et.Name, et.Slug, et.Description, teamID, et.Name, et.Slug, et.Description); err != nil {
			return err
		}
	}
	if _, err := q.exec(ctx, `DELETE FROM team_members WHERE team_id = ?
 AND user_id NOT IN (SELECT user_id FROM enterprise_team_members WHERE team_id = ?)`, teamID, et.ID); err != nil {
		return err
	}
	_, err = q.exec(ctx, `INSERT INTO team_members (team_id, user_id, role, state, created_at)
 SELECT ?, user_id, 'member', 'active', ? FROM enterprise_team_members WHERE team_id = ?
 ON CONFLICT (team_id, user_id) DO NOTHING`, teamID, now, et.ID)
	return err
}

// enterpriseMembersOf selects the user ids of the members of the
// enterprise teams assigned to organization ? (suspended users excepted).
const enterpriseMembersOf = `SELECT DISTINCT m.user_id FROM enterprise_team_members m
 JOIN enterprise_team_orgs o ON o.team_id = m.team_id JOIN accounts u ON u.id = m.user_id
 WHERE o.org_id = ? AND u.suspended_at IS NULL`

func (q Q) syncEnterpriseOrgMembers(ctx context.Context, orgID int64) (EnterpriseOrgAccess, error) {
	var res EnterpriseOrgAccess
	added, err := q.ids(ctx, enterpriseMembersOf+` AND NOT EXISTS (SELECT 1 FROM org_members x WHERE x.org_id = ? AND x.user_id = m.user_id)`, orgID, orgID)
	if err != nil {
		return res, err
	}
	for _, uid := range added {
		if _, err := q.exec(ctx, `INSERT INTO org_members (org_id, user_id, role, state, created_at, via_enterprise) VALUES (?,?,?,?,?,?)`,
			orgID, uid, string(model.RoleMember), StateActive, unix(q.Now()), true); err != nil {
			return res, err
		}
		if _, err := q.acceptOrgInvitations(ctx, orgID, uid); err != nil {
			return res, err
		}
	}
	removed, err := q.ids(ctx, `SELECT user_id FROM org_members WHERE org_id = ? AND via_enterprise = ? AND user_id NOT IN (`+enterpriseMembersOf+`) ORDER BY user_id`,
		orgID, true, orgID)
	if err != nil {
		return res, err
	}
	for _, uid := range removed {
		if err := q.RemoveMembership(ctx, orgID, uid); err != nil {
			return res, err
		}
	}
	res.Added, res.Removed = added, removed
	return res, nil
}
