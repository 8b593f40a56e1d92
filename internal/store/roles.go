package store

import (
	"context"
	"database/sql"
	"sort"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// The SQL of organization roles (org_roles, org_role_assignments) and
// custom repository roles (custom_repo_roles and the role_id of the grants
// that use one). Predefined organization roles are not rows: the roles
// service knows them, and their assignments name them by id.

// teamAncestors joins the ancestors t1..t4 of a team t0: a role or grant
// given to a team reaches the members of its child teams, TeamMaxDepth
// levels in all (see teamGrant).
const teamAncestors = ` LEFT JOIN teams t1 ON t1.id = t0.parent_id
 LEFT JOIN teams t2 ON t2.id = t1.parent_id
 LEFT JOIN teams t3 ON t3.id = t2.parent_id
 LEFT JOIN teams t4 ON t4.id = t3.parent_id`

// teamLine is a team t0 and its ancestors (NULL where there is none).
const teamLine = `(t0.id, t1.id, t2.id, t3.id, t4.id)`

func joinPerms(p []string) string { return strings.Join(p, ",") }

func splitPerms(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ",")
}

func nullString(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func fromNullString(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	v := s.String
	return &v
}

// --- custom repository roles ---

const customRepoRoleCols = `id, org_id, name, description, base_role, permissions, created_at, updated_at`

func scanCustomRepoRole(sc scanner) (*model.CustomRepoRole, error) {
	r := &model.CustomRepoRole{}
	var desc sql.NullString
	var perms string
	var created, updated int64
	if err := sc.Scan(&r.ID, &r.OrgID, &r.Name, &desc, &r.BaseRole, &perms, &created, &updated); err != nil {
		return nil, err
	}
	r.Description, r.Permissions = fromNullString(desc), splitPerms(perms)
	r.CreatedAt, r.UpdatedAt = fromUnix(created), fromUnix(updated)
	return r, nil
}

// CreateCustomRepoRole inserts a role and sets its id and times;
// ErrDuplicate when the organization has one of that name (ignoring case).
func (q Q) CreateCustomRepoRole(ctx context.Context, r *model.CustomRepoRole) error {
	r.CreatedAt, r.UpdatedAt = q.Now(), q.Now()
	id, err := q.insert(ctx, `INSERT INTO custom_repo_roles (org_id, name, lower_name, description, base_role, permissions,
 created_at, updated_at) VALUES (?,?,?,?,?,?,?,?)`, r.OrgID, r.Name, strings.ToLower(r.Name), nullString(r.Description),
		r.BaseRole, joinPerms(r.Permissions), unix(r.CreatedAt), unix(r.UpdatedAt))
	if isUnique(err) {
		return ErrDuplicate
	}
	r.ID = id
	return err
}

// UpdateCustomRepoRole stores a role's editable fields; ErrDuplicate when
// the new name is taken.
func (q Q) UpdateCustomRepoRole(ctx context.Context, r *model.CustomRepoRole) error {
	r.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE custom_repo_roles SET name = ?, lower_name = ?, description = ?, base_role = ?,
 permissions = ?, updated_at = ? WHERE id = ?`, r.Name, strings.ToLower(r.Name), nullString(r.Description), r.BaseRole,
		joinPerms(r.Permissions), unix(r.UpdatedAt), r.ID)
	if isUnique(err) {
		return ErrDuplicate
	}
	return err
}

// SetCustomRepoRoleBase moves every grant of a role (collaborators, teams,
// open invitations) to the role's new base level, so that checks, which
// read the grants' permission, see the change.
func (q Q) SetCustomRepoRoleBase(ctx context.Context, roleID int64, base authz.Permission) error {
	if _, err := q.exec(ctx, `UPDATE repo_collaborators SET permission = ? WHERE role_id = ?`, base.String(), roleID); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `UPDATE repo_invitations SET permission = ? WHERE role_id = ?`, base.String(), roleID); err != nil {
		return err
	}
	_, err := q.exec(ctx, `UPDATE team_repos SET permission = ? WHERE role_id = ?`, int(base), roleID)
	return err
}

// DeleteCustomRepoRole removes a role. Its grants keep their permission,
// the role's base level, and lose the role: GitHub reassigns the inherited
// role to every user, team and invitation that had it.
func (q Q) DeleteCustomRepoRole(ctx context.Context, id int64) error {
	for _, t := range []string{"repo_collaborators", "team_repos", "repo_invitations"} {
		if _, err := q.exec(ctx, `UPDATE `+t+` SET role_id = NULL WHERE role_id = ?`, id); err != nil {
			return err
		}
	}
	res, err := q.exec(ctx, `DELETE FROM custom_repo_roles WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// CustomRepoRole finds an organization's role by id.
func (q Q) CustomRepoRole(ctx context.Context, orgID, id int64) (*model.CustomRepoRole, error) {
	r, err := scanCustomRepoRole(q.row(ctx, `SELECT `+customRepoRoleCols+` FROM custom_repo_roles WHERE org_id = ? AND id = ?`, orgID, id))
	return r, notFound(err)
}

// CustomRepoRoleByName finds an organization's role by name, ignoring case.
func (q Q) CustomRepoRoleByName(ctx context.Context, orgID int64, name string) (*model.CustomRepoRole, error) {
	r, err := scanCustomRepoRole(q.row(ctx, `SELECT `+customRepoRoleCols+` FROM custom_repo_roles WHERE org_id = ? AND lower_name = ?`,
		orgID, strings.ToLower(name)))
	return r, notFound(err)
}

// CustomRepoRoles lists an organization's roles in id order (an
// organization has a handful at most).
func (q Q) CustomRepoRoles(ctx context.Context, orgID int64) ([]*model.CustomRepoRole, error) {
	rows, err := q.query(ctx, `SELECT `+customRepoRoleCols+` FROM custom_repo_roles WHERE org_id = ? ORDER BY id`, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.CustomRepoRole{}
	for rows.Next() {
		r, err := scanCustomRepoRole(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// --- organization roles ---

const orgRoleCols = `id, org_id, name, description, base_role, permissions, created_at, updated_at`

func scanOrgRole(sc scanner) (*model.OrganizationRole, error) {
	r := &model.OrganizationRole{Source: model.RoleSourceOrganization}
	var desc sql.NullString
	var perms string
	var created, updated int64
	if err := sc.Scan(&r.ID, &r.OrgID, &r.Name, &desc, &r.BaseRole, &perms, &created, &updated); err != nil {
		return nil, err
	}
	r.Description, r.Permissions = fromNullString(desc), splitPerms(perms)
	r.CreatedAt, r.UpdatedAt = fromUnix(created), fromUnix(updated)
	return r, nil
}

// CreateOrgRole inserts an organization's custom role and sets its id and
// times; ErrDuplicate when the organization has one of that name. An id
// in reserved (the predefined roles' ids) is skipped: the row is dropped
// and inserted again, which takes the next id on both databases.
func (q Q) CreateOrgRole(ctx context.Context, r *model.OrganizationRole, reserved func(int64) bool) error {
	r.CreatedAt, r.UpdatedAt = q.Now(), q.Now()
	for {
		id, err := q.insert(ctx, `INSERT INTO org_roles (org_id, name, lower_name, description, base_role, permissions,
 created_at, updated_at) VALUES (?,?,?,?,?,?,?,?)`, r.OrgID, r.Name, strings.ToLower(r.Name), nullString(r.Description),
			r.BaseRole, joinPerms(r.Permissions), unix(r.CreatedAt), unix(r.UpdatedAt))
		if isUnique(err) {
			return ErrDuplicate
		}
		if err != nil {
			return err
		}
		if !reserved(id) {
			r.ID = id
			return nil
		}
		if _, err := q.exec(ctx, `DELETE FROM org_roles WHERE id = ?`, id); err != nil {
			return err
		}
	}
}

// UpdateOrgRole stores a custom role's editable fields and moves its
// assignments to base, its (new) base level.
func (q Q) UpdateOrgRole(ctx context.Context, r *model.OrganizationRole, base authz.Permission) error {
	r.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE org_roles SET name = ?, lower_name = ?, description = ?, base_role = ?, permissions = ?,
 updated_at = ? WHERE id = ?`, r.Name, strings.ToLower(r.Name), nullString(r.Description), r.BaseRole,
		joinPerms(r.Permissions), unix(r.UpdatedAt), r.ID)
	if isUnique(err) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	_, err = q.exec(ctx, `UPDATE org_role_assignments SET permission = ? WHERE org_id = ? AND role_id = ?`, int(base), r.OrgID, r.ID)
	return err
}

// DeleteOrgRole removes a custom role and its assignments.
func (q Q) DeleteOrgRole(ctx context.Context, orgID, id int64) error {
	if _, err := q.exec(ctx, `DELETE FROM org_role_assignments WHERE org_id = ? AND role_id = ?`, orgID, id); err != nil {
		return err
	}
	res, err := q.exec(ctx, `DELETE FROM org_roles WHERE org_id = ? AND id = ?`, orgID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// OrgRole finds an organization's custom role by id.
func (q Q) OrgRole(ctx context.Context, orgID, id int64) (*model.OrganizationRole, error) {
	r, err := scanOrgRole(q.row(ctx, `SELECT `+orgRoleCols+` FROM org_roles WHERE org_id = ? AND id = ?`, orgID, id))
	return r, notFound(err)
}

// OrgRoleByName finds an organization's custom role by name, ignoring
// case.
func (q Q) OrgRoleByName(ctx context.Context, orgID int64, name string) (*model.OrganizationRole, error) {
	r, err := scanOrgRole(q.row(ctx, `SELECT `+orgRoleCols+` FROM org_roles WHERE org_id = ? AND lower_name = ?`, orgID, strings.ToLower(name)))
	return r, notFound(err)
}

// OrgRoles lists an organization's custom roles in id order.
func (q Q) OrgRoles(ctx context.Context, orgID int64) ([]*model.OrganizationRole, error) {
	return q.orgRoles(ctx, `SELECT `+orgRoleCols+` FROM org_roles WHERE org_id = ? ORDER BY id`, orgID)
}

func (q Q) orgRoles(ctx context.Context, query string, args ...any) ([]*model.OrganizationRole, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.OrganizationRole{}
	for rows.Next() {
		r, err := scanOrgRole(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// OrgRoleHolder is who an organization role is assigned to: a user or a
// team (the other id is 0).
type OrgRoleHolder struct{ UserID, TeamID int64 }

func (h OrgRoleHolder) where() (string, any) {
	if h.TeamID != 0 {
		return `team_id = ?`, h.TeamID
	}
	return `user_id = ?`, h.UserID
}

// AssignOrgRole assigns a role (perm is its base level) to a user or team;
// it reports false when it already was.
func (q Q) AssignOrgRole(ctx context.Context, orgID, roleID int64, h OrgRoleHolder, perm authz.Permission) (bool, error) {
	target := `(org_id, role_id, user_id)`
	if h.TeamID != 0 {
		target = `(org_id, role_id, team_id)`
	}
	res, err := q.exec(ctx, `INSERT INTO org_role_assignments (org_id, role_id, user_id, team_id, permission, created_at)
 VALUES (?,?,?,?,?,?) ON CONFLICT `+target+` DO NOTHING`,
		orgID, roleID, idOrNil(h.UserID), idOrNil(h.TeamID), int(perm), unix(q.Now()))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// RevokeOrgRoles removes a holder's assignment of a role (roleID 0: of
// every role) and gives the ids of the roles it had.
func (q Q) RevokeOrgRoles(ctx context.Context, orgID, roleID int64, h OrgRoleHolder) ([]int64, error) {
	w, id := h.where()
	cond, args := `org_id = ? AND `+w, []any{orgID, id}
	if roleID != 0 {
		cond, args = cond+` AND role_id = ?`, append(args, roleID)
	}
	rows, err := q.query(ctx, `SELECT role_id FROM org_role_assignments WHERE `+cond+` ORDER BY role_id`, args...)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for rows.Next() {
		var r int64
		if err := rows.Scan(&r); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return ids, err
	}
	_, err = q.exec(ctx, `DELETE FROM org_role_assignments WHERE `+cond, args...)
	return ids, err
}

// OrgRoleIDsOf lists the roles an active member holds in an organization,
// assigned to them or to a team they are in or below, in id order (none for
// anyone else).
func (q Q) OrgRoleIDsOf(ctx context.Context, orgID, userID int64) ([]int64, error) {
	rows, err := q.query(ctx, `SELECT DISTINCT ra.role_id FROM org_role_assignments ra
 JOIN org_members m ON m.org_id = ra.org_id AND m.user_id = ? AND m.state = 'active'
 WHERE ra.org_id = ? AND (ra.user_id = m.user_id OR EXISTS (SELECT 1 FROM team_members tm JOIN teams t0 ON t0.id = tm.team_id`+teamAncestors+`
 WHERE tm.user_id = m.user_id AND ra.team_id IN `+teamLine+`)) ORDER BY ra.role_id`, userID, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// roleUsers is the set of active members holding a role: assigned to them
// or reached through an assigned team. Arguments: org, org, role, org, role.
const roleUsers = `SELECT a.id FROM accounts a JOIN org_members m ON m.org_id = ? AND m.user_id = a.id AND m.state = 'active'
 WHERE a.id IN (SELECT ra.user_id FROM org_role_assignments ra WHERE ra.org_id = ? AND ra.role_id = ? AND ra.user_id IS NOT NULL
 UNION SELECT tm.user_id FROM team_members tm JOIN teams t0 ON t0.id = tm.team_id` + teamAncestors + `
 JOIN org_role_assignments ra ON ra.org_id = ? AND ra.role_id = ? AND ra.team_id IN ` + teamLine + `)`

// OrgRoleUsers is a page of the active members holding a role, in id
// order, with the total for the Link header.
func (q Q) OrgRoleUsers(ctx context.Context, orgID, roleID int64, limit, offset int) ([]*model.Account, int, error) {
	args := []any{orgID, orgID, roleID, orgID, roleID}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM (`+roleUsers+`) x`, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.accounts(ctx, `SELECT `+accountCols+` FROM accounts a WHERE a.id IN (`+roleUsers+`) ORDER BY a.id LIMIT ? OFFSET ?`,
		append(args, limit, offset)...)
	return list, total, err
}

// OrgRoleUserAssignments tells, for each of users, whether the role is
// assigned to them and which assigned teams give it to them.
func (q Q) OrgRoleUserAssignments(ctx context.Context, orgID, roleID int64, users []int64) (map[int64]*model.RoleAssignment, error) {
	out := map[int64]*model.RoleAssignment{}
	if len(users) == 0 {
		return out, nil
	}
	for _, id := range users {
		out[id] = &model.RoleAssignment{}
	}
	in, inArgs := inList(users)
	rows, err := q.query(ctx, `SELECT user_id FROM org_role_assignments WHERE org_id = ? AND role_id = ? AND user_id IN (`+in+`)`,
		append([]any{orgID, roleID}, inArgs...)...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		out[id].Direct = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = q.query(ctx, `SELECT DISTINCT tm.user_id, ra.team_id FROM team_members tm JOIN teams t0 ON t0.id = tm.team_id`+teamAncestors+`
 JOIN org_role_assignments ra ON ra.org_id = ? AND ra.role_id = ? AND ra.team_id IN `+teamLine+`
 WHERE tm.user_id IN (`+in+`) ORDER BY ra.team_id`, append([]any{orgID, roleID}, inArgs...)...)
	if err != nil {
		return nil, err
	}
	via := map[int64][]int64{}
	var teamIDs []int64
	seen := map[int64]bool{}
	for rows.Next() {
		var u, t int64
		if err := rows.Scan(&u, &t); err != nil {
			rows.Close()
			return nil, err
		}
		via[u] = append(via[u], t)
		if !seen[t] {
			seen[t] = true
			teamIDs = append(teamIDs, t)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(teamIDs) == 0 {
		return out, err
	}
	tin, targs := inList(teamIDs)
	teams, err := q.teams(ctx, teamSelect+` WHERE t.id IN (`+tin+`)`, targs...)
	if err != nil {
		return nil, err
	}
	byID := map[int64]*model.Team{}
	for _, t := range teams {
		byID[t.ID] = t
	}
	for u, ts := range via {
		for _, t := range ts {
			if team := byID[t]; team != nil {
				out[u].Teams = append(out[u].Teams, team)
			}
		}
	}
	return out, nil
}

// roleTeams selects the teams of an organization holding a role: assigned
// to them or to an ancestor. It follows teamSelect (t, p its parent).
// Arguments: org, org, role.
const roleTeams = ` LEFT JOIN teams t2 ON t2.id = p.parent_id
 LEFT JOIN teams t3 ON t3.id = t2.parent_id
 LEFT JOIN teams t4 ON t4.id = t3.parent_id
 WHERE t.org_id = ? AND EXISTS (SELECT 1 FROM org_role_assignments ra WHERE ra.org_id = ? AND ra.role_id = ?
 AND ra.team_id IN (t.id, p.id, t2.id, t3.id, t4.id))`

// OrgRoleTeams is a page of the teams holding a role in name order, with
// the total.
func (q Q) OrgRoleTeams(ctx context.Context, orgID, roleID int64, limit, offset int) ([]*model.Team, int, error) {
	args := []any{orgID, orgID, roleID}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM teams t LEFT JOIN teams p ON p.id = t.parent_id`+roleTeams, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.teams(ctx, teamSelect+roleTeams+` ORDER BY t.name, t.id LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	return list, total, err
}

// OrgRoleAssignedTeams is the set of teams a role is assigned to.
func (q Q) OrgRoleAssignedTeams(ctx context.Context, orgID, roleID int64) (map[int64]bool, error) {
	return q.idSet(ctx, `SELECT team_id FROM org_role_assignments WHERE org_id = ? AND role_id = ? AND team_id IS NOT NULL`, orgID, roleID)
}

// AdministersAnyRepo reports whether a user has admin access to at least
// one repository of an organization, by authz's rule: an owner, an admin
// grant, or (for an active member) the base permission, a team grant or an
// organization role at admin.
func (q Q) AdministersAnyRepo(ctx context.Context, orgID, userID int64) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM (SELECT r.id FROM repos r JOIN accounts a ON a.id = r.owner_id
 LEFT JOIN org_members m ON m.org_id = r.owner_id AND m.user_id = ? AND m.state = 'active'
 LEFT JOIN repo_collaborators c ON c.repo_id = r.id AND c.user_id = ?
 WHERE r.owner_id = ? AND (m.role = 'admin' OR c.permission = 'admin' OR (m.role = 'member' AND (a.default_repo_permission = 'admin'
 OR `+teamGrant+` = 5 OR `+orgRoleGrant+` = 5))) LIMIT 1) x`, userID, userID, orgID).Scan(&n)
	return n > 0, err
}

// --- role names of grants ---

// CustomRoleGrants lists, for each of users, the custom repository roles
// they hold on a repository: their direct grant's, and those of the grants
// of their teams (and the teams' ancestors) while they are active members
// of the owning organization. Each comes with its base level.
func (q Q) CustomRoleGrants(ctx context.Context, repo *model.Repo, users []int64) (map[int64][]authz.NamedGrant, error) {
	out := map[int64][]authz.NamedGrant{}
	if len(users) == 0 {
		return out, nil
	}
	in, inArgs := inList(users)
	rows, err := q.query(ctx, `SELECT c.user_id, cr.name, c.permission FROM repo_collaborators c
 JOIN custom_repo_roles cr ON cr.id = c.role_id WHERE c.repo_id = ? AND c.user_id IN (`+in+`) ORDER BY c.user_id`,
		append([]any{repo.ID}, inArgs...)...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var u int64
		var name, perm string
		if err := rows.Scan(&u, &name, &perm); err != nil {
			rows.Close()
			return nil, err
		}
		p, _ := authz.ParsePermission(perm)
		out[u] = append(out[u], authz.NamedGrant{Name: name, Perm: p})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = q.query(ctx, `SELECT DISTINCT tm.user_id, cr.id, cr.name, tr.permission FROM team_members tm
 JOIN org_members m ON m.org_id = ? AND m.user_id = tm.user_id AND m.state = 'active'
 JOIN teams t0 ON t0.id = tm.team_id`+teamAncestors+`
 JOIN team_repos tr ON tr.repo_id = ? AND tr.team_id IN `+teamLine+`
 JOIN custom_repo_roles cr ON cr.id = tr.role_id
 WHERE tm.user_id IN (`+in+`) ORDER BY tm.user_id, cr.id`, append([]any{repo.OwnerID, repo.ID}, inArgs...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var u, id int64
		var name string
		var perm int
		if err := rows.Scan(&u, &id, &name, &perm); err != nil {
			return nil, err
		}
		out[u] = append(out[u], authz.NamedGrant{Name: name, Perm: authz.Permission(perm)})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for u := range out {
		sort.SliceStable(out[u], func(i, j int) bool { return out[u][i].Perm > out[u][j].Perm })
	}
	return out, nil
}
