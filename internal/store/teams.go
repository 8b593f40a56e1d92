package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// teamSelect loads a team (t) with its organization (a), its parent (p) and
// its member and repository counts.
const teamSelect = `SELECT t.id, t.org_id, t.name, t.slug, t.description, t.privacy, t.notification_setting,
 COALESCE(t.parent_id, 0), t.permission, t.created_at, t.updated_at,
 (SELECT COUNT(*) FROM team_members x JOIN org_members xo ON xo.org_id = t.org_id AND xo.user_id = x.user_id AND xo.state = 'active' WHERE x.team_id = t.id),
 (SELECT COUNT(*) FROM team_repos y WHERE y.team_id = t.id),
 p.name, p.slug, p.description, p.privacy, p.notification_setting, p.permission, ` + accountCols + `
 FROM teams t JOIN accounts a ON a.id = t.org_id LEFT JOIN teams p ON p.id = t.parent_id`

func scanTeam(sc scanner) (*model.Team, error) {
	t := &model.Team{Org: &model.Account{}}
	var created, updated int64
	var pName, pSlug, pDesc, pPrivacy, pNotif, pPerm sql.NullString
	pre := []any{&t.ID, &t.OrgID, &t.Name, &t.Slug, &t.Description, &t.Privacy, &t.NotificationSetting,
		&t.ParentID, &t.Permission, &created, &updated, &t.MembersCount, &t.ReposCount,
		&pName, &pSlug, &pDesc, &pPrivacy, &pNotif, &pPerm}
	if err := scanAccount(expand{sc: sc, pre: pre}, t.Org); err != nil {
		return nil, err
	}
	t.CreatedAt, t.UpdatedAt = fromUnix(created), fromUnix(updated)
	if t.ParentID != 0 {
		p := &model.Team{ID: t.ParentID, OrgID: t.OrgID, Org: t.Org, Name: pName.String, Slug: pSlug.String,
			Privacy: pPrivacy.String, NotificationSetting: pNotif.String, Permission: pPerm.String}
		if pDesc.Valid {
			d := pDesc.String
			p.Description = &d
		}
		t.Parent = p
	}
	return t, nil
}

func (q Q) teams(ctx context.Context, query string, args ...any) ([]*model.Team, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.Team{}
	for rows.Next() {
		t, err := scanTeam(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// CreateTeam inserts a team and sets its id and times.
func (q Q) CreateTeam(ctx context.Context, t *model.Team) error {
	t.CreatedAt, t.UpdatedAt = q.Now(), q.Now()
	id, err := q.insert(ctx, `INSERT INTO teams (org_id, name, slug, description, privacy, notification_setting, parent_id,
 permission, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?)`,
		t.OrgID, t.Name, t.Slug, t.Description, t.Privacy, t.NotificationSetting, nullID(t.ParentID), t.Permission,
		unix(t.CreatedAt), unix(t.UpdatedAt))
	t.ID = id
	return err
}

// UpdateTeam stores a team's editable fields.
func (q Q) UpdateTeam(ctx context.Context, t *model.Team) error {
	t.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE teams SET name = ?, slug = ?, description = ?, privacy = ?, notification_setting = ?,
 parent_id = ?, permission = ?, updated_at = ? WHERE id = ?`,
		t.Name, t.Slug, t.Description, t.Privacy, t.NotificationSetting, nullID(t.ParentID), t.Permission, unix(t.UpdatedAt), t.ID)
	return err
}

// DeleteTeam removes a team; its child teams, memberships and repository
// grants go with it (ON DELETE CASCADE).
func (q Q) DeleteTeam(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM teams WHERE id = ?`, id)
	return err
}

// TeamBySlug finds an organization's team by slug (ignoring case).
func (q Q) TeamBySlug(ctx context.Context, orgID int64, slug string) (*model.Team, error) {
	t, err := scanTeam(q.row(ctx, teamSelect+` WHERE t.org_id = ? AND t.slug = ?`, orgID, strings.ToLower(slug)))
	return t, notFound(err)
}

// TeamByID finds a team by id.
func (q Q) TeamByID(ctx context.Context, id int64) (*model.Team, error) {
	t, err := scanTeam(q.row(ctx, teamSelect+` WHERE t.id = ?`, id))
	return t, notFound(err)
}

// TeamsByID loads teams by id in one query (GraphQL's bypass actors of a
// page of rulesets); absent ids are left out.
func (q Q) TeamsByID(ctx context.Context, ids []int64) (map[int64]*model.Team, error) {
	out := map[int64]*model.Team{}
	for start := 0; start < len(ids); start += 100 {
		in, args := inList(ids[start:min(start+100, len(ids))])
		rows, err := q.query(ctx, teamSelect+` WHERE t.id IN (`+in+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			t, err := scanTeam(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			out[t.ID] = t
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// TeamParents maps every team of an organization to its parent (0: none),
// for the nesting rules (no cycles, bounded depth).
func (q Q) TeamParents(ctx context.Context, orgID int64) (map[int64]int64, error) {
	rows, err := q.query(ctx, `SELECT id, COALESCE(parent_id, 0) FROM teams WHERE org_id = ?`, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]int64{}
	for rows.Next() {
		var id, parent int64
		if err := rows.Scan(&id, &parent); err != nil {
			return nil, err
		}
		out[id] = parent
	}
	return out, rows.Err()
}

// TeamQuery selects teams of an organization.
type TeamQuery struct {
	OrgID int64
	// ViewerID, unless All, hides secret teams the viewer is not a member of.
	ViewerID int64
	All      bool
	ParentID int64 // children of this team only (0: every team)
	Limit    int
	Offset   int
}

// Teams lists a page of an organization's teams in name order, with the
// total for the Link header.
func (q Q) Teams(ctx context.Context, f TeamQuery) ([]*model.Team, int, error) {
	w := `t.org_id = ?`
	args := []any{f.OrgID}
	if !f.All {
		w += ` AND (t.privacy = 'closed' OR EXISTS (SELECT 1 FROM team_members v WHERE v.team_id = t.id AND v.user_id = ?))`
		args = append(args, f.ViewerID)
	}
	if f.ParentID != 0 {
		w += ` AND t.parent_id = ?`
		args = append(args, f.ParentID)
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM teams t WHERE `+w, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.teams(ctx, teamSelect+` WHERE `+w+` ORDER BY t.name, t.id LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	return list, total, err
}

// TeamsOfUser lists a page of the teams a user is an active member of (in
// organizations they are an active member of), with the total.
func (q Q) TeamsOfUser(ctx context.Context, userID int64, limit, offset int) ([]*model.Team, int, error) {
	w := `EXISTS (SELECT 1 FROM team_members u JOIN org_members uo ON uo.org_id = t.org_id AND uo.user_id = u.user_id
 AND uo.state = 'active' WHERE u.team_id = t.id AND u.user_id = ?)`
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM teams t WHERE `+w, userID).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.teams(ctx, teamSelect+` WHERE `+w+` ORDER BY t.org_id, t.name, t.id LIMIT ? OFFSET ?`, userID, limit, offset)
	return list, total, err
}

// teamMemberState is a team membership's state as GitHub reports it:
// pending while the user's membership of the organization is pending, so
// accepting the organization's invitation activates it.
const teamMemberState = `CASE WHEN om.state = 'active' THEN 'active' ELSE 'pending' END`

// SetTeamMember adds a member or changes their role.
func (q Q) SetTeamMember(ctx context.Context, m *model.TeamMembership) error {
	m.CreatedAt = q.Now()
	_, err := q.exec(ctx, `INSERT INTO team_members (team_id, user_id, role, state, created_at) VALUES (?,?,?,?,?)
 ON CONFLICT (team_id, user_id) DO UPDATE SET role = excluded.role, state = excluded.state`,
		m.TeamID, m.UserID, m.Role, m.State, unix(m.CreatedAt))
	return err
}

// TeamMember finds a user's membership of a team; model.ErrNotFound when
// there is none or the user is no longer invited to or a member of the
// organization.
func (q Q) TeamMember(ctx context.Context, teamID, userID int64) (*model.TeamMembership, error) {
	m := &model.TeamMembership{TeamID: teamID, UserID: userID}
	var created int64
	err := q.row(ctx, `SELECT tm.role, `+teamMemberState+`, tm.created_at FROM team_members tm
 JOIN teams t ON t.id = tm.team_id JOIN org_members om ON om.org_id = t.org_id AND om.user_id = tm.user_id
 WHERE tm.team_id = ? AND tm.user_id = ?`, teamID, userID).Scan(&m.Role, &m.State, &created)
	m.CreatedAt = fromUnix(created)
	return m, notFound(err)
}

// RemoveTeamMember deletes a membership; model.ErrNotFound when there was
// none.
func (q Q) RemoveTeamMember(ctx context.Context, teamID, userID int64) error {
	res, err := q.exec(ctx, `DELETE FROM team_members WHERE team_id = ? AND user_id = ?`, teamID, userID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// RemoveOrgTeamMemberships deletes a user's memberships of every team of an
// organization (for when they leave it).
func (q Q) RemoveOrgTeamMemberships(ctx context.Context, orgID, userID int64) error {
	_, err := q.exec(ctx, `DELETE FROM team_members WHERE user_id = ? AND team_id IN (SELECT id FROM teams WHERE org_id = ?)`, userID, orgID)
	return err
}

// TeamMembers lists a page of a team's active members (role "" for both
// roles) in id order, with the total.
func (q Q) TeamMembers(ctx context.Context, teamID int64, role string, limit, offset int) ([]*model.Account, int, error) {
	w := `tm.team_id = ? AND om.state = 'active'`
	args := []any{teamID}
	if role != "" {
		w += ` AND tm.role = ?`
		args = append(args, role)
	}
	from := ` FROM team_members tm JOIN teams t ON t.id = tm.team_id
 JOIN org_members om ON om.org_id = t.org_id AND om.user_id = tm.user_id
 JOIN accounts a ON a.id = tm.user_id WHERE `
	var total int
	if err := q.row(ctx, `SELECT COUNT(*)`+from+w, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.accounts(ctx, `SELECT `+accountCols+from+w+` ORDER BY a.id LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	return list, total, err
}

// SetTeamRepo grants a team a permission on a repository.
func (q Q) SetTeamRepo(ctx context.Context, teamID, repoID int64, perm authz.Permission) error {
	return q.SetTeamRepoRole(ctx, teamID, repoID, perm, 0)
}

// SetTeamRepoRole is SetTeamRepo with a custom repository role (roleID, 0
// for none): perm is then the role's base level, which checks read.
func (q Q) SetTeamRepoRole(ctx context.Context, teamID, repoID int64, perm authz.Permission, roleID int64) error {
	_, err := q.exec(ctx, `INSERT INTO team_repos (team_id, repo_id, permission, role_id, created_at) VALUES (?,?,?,?,?)
 ON CONFLICT (team_id, repo_id) DO UPDATE SET permission = excluded.permission, role_id = excluded.role_id`,
		teamID, repoID, int(perm), idOrNil(roleID), unix(q.Now()))
	return err
}

// TeamRepo is a team's own grant on a repository; model.ErrNotFound when
// the team has none.
func (q Q) TeamRepo(ctx context.Context, teamID, repoID int64) (authz.Permission, error) {
	g, err := q.TeamRepoGrant(ctx, teamID, repoID)
	return g.Perm, err
}

// TeamRepoGrant is a team's own grant on a repository with its custom
// role; model.ErrNotFound when the team has none.
func (q Q) TeamRepoGrant(ctx context.Context, teamID, repoID int64) (TeamGrant, error) {
	list, err := q.teamGrants(ctx, teamGrantSelect+` WHERE tr.team_id = ? AND tr.repo_id = ?`, teamID, repoID)
	if err != nil {
		return TeamGrant{}, err
	}
	if len(list) == 0 {
		return TeamGrant{}, model.ErrNotFound
	}
	return list[0], nil
}

// RemoveTeamRepo drops a team's grant; model.ErrNotFound when there was
// none.
func (q Q) RemoveTeamRepo(ctx context.Context, teamID, repoID int64) error {
	res, err := q.exec(ctx, `DELETE FROM team_repos WHERE team_id = ? AND repo_id = ?`, teamID, repoID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// TeamGrant is one repository grant of a team: a level, or a custom
// repository role (RoleID, RoleName) whose base level Perm is.
type TeamGrant struct {
	RepoID   int64
	Perm     authz.Permission
	RoleID   int64
	RoleName string
}

// Name is the grant's role_name: the custom role's, or the level's.
func (g TeamGrant) Name() string {
	if g.RoleName != "" {
		return g.RoleName
	}
	return g.Perm.String()
}

const teamGrantSelect = `SELECT tr.repo_id, tr.permission, COALESCE(tr.role_id, 0), COALESCE(cr.name, '')
 FROM team_repos tr LEFT JOIN custom_repo_roles cr ON cr.id = tr.role_id`

func (q Q) teamGrants(ctx context.Context, query string, args ...any) ([]TeamGrant, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []TeamGrant{}
	for rows.Next() {
		var g TeamGrant
		var p int
		if err := rows.Scan(&g.RepoID, &p, &g.RoleID, &g.RoleName); err != nil {
			return nil, err
		}
		g.Perm = authz.Permission(p)
		out = append(out, g)
	}
	return out, rows.Err()
}

// TeamRepos lists a page of a team's grants in repository id order, with
// the total.
func (q Q) TeamRepos(ctx context.Context, teamID int64, limit, offset int) ([]TeamGrant, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM team_repos WHERE team_id = ?`, teamID).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.teamGrants(ctx, teamGrantSelect+` WHERE tr.team_id = ? ORDER BY tr.repo_id LIMIT ? OFFSET ?`, teamID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	return list, total, nil
}
