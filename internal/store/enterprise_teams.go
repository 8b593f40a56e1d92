package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

const enterpriseTeamCols = `id, slug, name, description, group_id, external_id, organization_selection_type, created_at, updated_at`

// scanEnterpriseTeam reads enterpriseTeamCols after the extra columns
// (if any) a query selects first.
func scanEnterpriseTeam(sc scanner, extra ...any) (*model.EnterpriseTeam, error) {
	t := &model.EnterpriseTeam{}
	var group sql.NullString
	var created, updated int64
	if err := sc.Scan(append(extra, &t.ID, &t.Slug, &t.Name, &t.Description, &group, &t.ExternalID, &t.OrgSelection, &created, &updated)...); err != nil {
		return nil, err
	}
	t.GroupID = group.String
	t.CreatedAt, t.UpdatedAt = fromUnix(created), fromUnix(updated)
	return t, nil
}

func emptyNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// CreateEnterpriseTeam inserts an enterprise team; ErrDuplicate when its
// slug (ignoring case) or group id is taken.
func (q Q) CreateEnterpriseTeam(ctx context.Context, t *model.EnterpriseTeam) error {
	now := q.Now()
	t.CreatedAt, t.UpdatedAt = now, now
	if t.OrgSelection == "" {
		t.OrgSelection = "disabled"
	}
	id, err := q.insert(ctx, `INSERT INTO enterprise_teams (slug, lower_slug, name, description, group_id, external_id,
 organization_selection_type, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)`,
		t.Slug, strings.ToLower(t.Slug), t.Name, t.Description, emptyNull(t.GroupID), t.ExternalID, t.OrgSelection, unix(now), unix(now))
	if isUnique(err) {
		return ErrDuplicate
	}
	t.ID = id
	return err
}

// UpdateEnterpriseTeam writes every mutable column; ErrDuplicate when the
// new slug is another team's.
func (q Q) UpdateEnterpriseTeam(ctx context.Context, t *model.EnterpriseTeam) error {
	t.UpdatedAt = q.Now()
	res, err := q.exec(ctx, `UPDATE enterprise_teams SET slug=?, lower_slug=?, name=?, description=?, external_id=?,
 organization_selection_type=?, updated_at=? WHERE id=?`,
		t.Slug, strings.ToLower(t.Slug), t.Name, t.Description, t.ExternalID, t.OrgSelection, unix(t.UpdatedAt), t.ID)
	return updatedOne(res, err)
}

// TouchEnterpriseTeam moves a team's updated_at (its members changed).
func (q Q) TouchEnterpriseTeam(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `UPDATE enterprise_teams SET updated_at = ? WHERE id = ?`, unix(q.Now()), id)
	return err
}

// DeleteEnterpriseTeam removes a team with its members.
func (q Q) DeleteEnterpriseTeam(ctx context.Context, id int64) error {
	res, err := q.exec(ctx, `DELETE FROM enterprise_teams WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// EnterpriseTeamByID finds an enterprise team.
func (q Q) EnterpriseTeamByID(ctx context.Context, id int64) (*model.EnterpriseTeam, error) {
	t, err := scanEnterpriseTeam(q.row(ctx, `SELECT `+enterpriseTeamCols+` FROM enterprise_teams WHERE id = ?`, id))
	return t, notFound(err)
}

// EnterpriseTeamBySlug finds an enterprise team by slug (ignoring case).
func (q Q) EnterpriseTeamBySlug(ctx context.Context, slug string) (*model.EnterpriseTeam, error) {
	t, err := scanEnterpriseTeam(q.row(ctx, `SELECT `+enterpriseTeamCols+` FROM enterprise_teams WHERE lower_slug = ?`, strings.ToLower(slug)))
	return t, notFound(err)
}

// EnterpriseTeamByGroupID finds the enterprise team of a SCIM group.
func (q Q) EnterpriseTeamByGroupID(ctx context.Context, groupID string) (*model.EnterpriseTeam, error) {
	t, err := scanEnterpriseTeam(q.row(ctx, `SELECT `+enterpriseTeamCols+` FROM enterprise_teams WHERE group_id = ?`, groupID))
	return t, notFound(err)
}

// EnterpriseTeamFilter narrows a list of enterprise teams.
type EnterpriseTeamFilter struct {
	SCIMOnly bool // only teams that are SCIM groups
	// One attribute equal to a value: "externalId", "id" (group id),
	// "displayName" (name).
	Attr, Value string
}

// EnterpriseTeams lists enterprise teams oldest first, with how many match.
func (q Q) EnterpriseTeams(ctx context.Context, f EnterpriseTeamFilter, limit, offset int) ([]*model.EnterpriseTeam, int, error) {
	var conds []string
	var args []any
	if f.SCIMOnly {
		conds = append(conds, `group_id IS NOT NULL`)
	}
	switch f.Attr {
	case "externalId":
		conds, args = append(conds, `external_id = ?`), append(args, f.Value)
	case "id":
		conds, args = append(conds, `group_id = ?`), append(args, f.Value)
	case "displayName":
		conds, args = append(conds, `name = ?`), append(args, f.Value)
	}
	where := ""
	if len(conds) > 0 {
		where = ` WHERE ` + strings.Join(conds, " AND ")
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM enterprise_teams`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT `+enterpriseTeamCols+` FROM enterprise_teams`+where+` ORDER BY id LIMIT ? OFFSET ?`, append(args, limit, offset)...)
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

// AddEnterpriseTeamMember adds a user to a team (no change when a member).
func (q Q) AddEnterpriseTeamMember(ctx context.Context, teamID, userID int64) error {
	_, err := q.exec(ctx, `INSERT INTO enterprise_team_members (team_id, user_id, created_at) VALUES (?,?,?) ON CONFLICT DO NOTHING`,
		teamID, userID, unix(q.Now()))
	return err
}

// RemoveEnterpriseTeamMember removes a user from a team.
func (q Q) RemoveEnterpriseTeamMember(ctx context.Context, teamID, userID int64) error {
	_, err := q.exec(ctx, `DELETE FROM enterprise_team_members WHERE team_id = ? AND user_id = ?`, teamID, userID)
	return err
}

// ClearEnterpriseTeamMembers removes every member of a team.
func (q Q) ClearEnterpriseTeamMembers(ctx context.Context, teamID int64) error {
	_, err := q.exec(ctx, `DELETE FROM enterprise_team_members WHERE team_id = ?`, teamID)
	return err
}

// EnterpriseTeamMemberIDs are the user ids of the members of each team,
// oldest membership first.
func (q Q) EnterpriseTeamMemberIDs(ctx context.Context, teamIDs []int64) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	if len(teamIDs) == 0 {
		return out, nil
	}
	in, args := inList(teamIDs)
	rows, err := q.query(ctx, `SELECT team_id, user_id FROM enterprise_team_members WHERE team_id IN (`+in+`) ORDER BY created_at, user_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var t, u int64
		if err := rows.Scan(&t, &u); err != nil {
			return nil, err
		}
		out[t] = append(out[t], u)
	}
	return out, rows.Err()
}

// EnterpriseTeamsOfUsers are the enterprise teams each user belongs to.
func (q Q) EnterpriseTeamsOfUsers(ctx context.Context, userIDs []int64) (map[int64][]*model.EnterpriseTeam, error) {
	out := map[int64][]*model.EnterpriseTeam{}
	if len(userIDs) == 0 {
		return out, nil
	}
	in, args := inList(userIDs)
	rows, err := q.query(ctx, `SELECT m.user_id, `+prefixCols("t.", enterpriseTeamCols)+` FROM enterprise_team_members m
 JOIN enterprise_teams t ON t.id = m.team_id WHERE m.user_id IN (`+in+`) ORDER BY t.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var uid int64
		t, err := scanEnterpriseTeam(rows, &uid)
		if err != nil {
			return nil, err
		}
		out[uid] = append(out[uid], t)
	}
	return out, rows.Err()
}

// prefixCols qualifies each column of a comma separated list.
func prefixCols(prefix, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// EnterpriseTeamMembers is a page of a team's members (users, by login)
// and how many there are.
func (q Q) EnterpriseTeamMembers(ctx context.Context, teamID int64, limit, offset int) ([]*model.Account, int, error) {
	return q.enterpriseTeamAccounts(ctx, "enterprise_team_members", "user_id", teamID, limit, offset)
}

// EnterpriseTeamOrgs is a page of the organizations a team is assigned to
// (by login) and how many there are.
func (q Q) EnterpriseTeamOrgs(ctx context.Context, teamID int64, limit, offset int) ([]*model.Account, int, error) {
	return q.enterpriseTeamAccounts(ctx, "enterprise_team_orgs", "org_id", teamID, limit, offset)
}

func (q Q) enterpriseTeamAccounts(ctx context.Context, table, col string, teamID int64, limit, offset int) ([]*model.Account, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM `+table+` WHERE team_id = ?`, teamID).Scan(&total); err != nil {
		return nil, 0, err
	}
	out, err := q.accounts(ctx, `SELECT `+accountCols+` FROM `+table+` m JOIN accounts a ON a.id = m.`+col+`
 WHERE m.team_id = ? ORDER BY a.lower_login LIMIT ? OFFSET ?`, teamID, limit, offset)
	if out == nil {
		out = []*model.Account{}
	}
	return out, total, err
}

// IsEnterpriseTeamMember reports whether a user is in a team.
func (q Q) IsEnterpriseTeamMember(ctx context.Context, teamID, userID int64) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM enterprise_team_members WHERE team_id = ? AND user_id = ?`, teamID, userID).Scan(&n)
	return n > 0, err
}

// IsEnterpriseTeamOrg reports whether a team is assigned to an organization.
func (q Q) IsEnterpriseTeamOrg(ctx context.Context, teamID, orgID int64) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM enterprise_team_orgs WHERE team_id = ? AND org_id = ?`, teamID, orgID).Scan(&n)
	return n > 0, err
}

// SetEnterpriseTeamOrg assigns (on) or unassigns a team to an organization.
func (q Q) SetEnterpriseTeamOrg(ctx context.Context, teamID, orgID int64, on bool) error {
	if !on {
		_, err := q.exec(ctx, `DELETE FROM enterprise_team_orgs WHERE team_id = ? AND org_id = ?`, teamID, orgID)
		return err
	}
	_, err := q.exec(ctx, `INSERT INTO enterprise_team_orgs (team_id, org_id, created_at) VALUES (?,?,?) ON CONFLICT DO NOTHING`,
		teamID, orgID, unix(q.Now()))
	return err
}
