package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// CollaboratorQuery selects the users GET .../collaborators lists; the
// service fills it from the repository and authz's rules.
type CollaboratorQuery struct {
	Repo        *model.Repo
	Affiliation model.CollaboratorAffiliation
	// MemberLevel is what active members of the owning organization get
	// through it alone (its base permission, read on an internal
	// repository; None for a user-owned repository).
	MemberLevel authz.Permission
	// BaseLevel is what everyone has (read on public repositories).
	BaseLevel authz.Permission
	// Level keeps users whose effective permission is exactly it (None:
	// any).
	Level         authz.Permission
	Limit, Offset int
}

// CollaboratorRow is a listed user with what authz needs about them.
type CollaboratorRow struct {
	User     *model.Account
	Collab   authz.Permission // direct grant, None when none
	OrgRole  model.OrgRole    // active membership of the owning org, "" when none
	Team     authz.Permission // teamGrant, None when none
	OrgRoles authz.Permission // orgRoleGrant, None when none
}

// rankOf turns a stored permission name into authz's order, in SQL.
const rankOf = `CASE c.permission WHEN 'admin' THEN 5 WHEN 'maintain' THEN 4 WHEN 'write' THEN 3 WHEN 'triage' THEN 2 WHEN 'read' THEN 1 ELSE 0 END`

// collaboratorRanks is the inner query of a collaborator list: every user
// who might have more than the public's access (direct collaborators, the
// owner, the owning organization's active members), each with the rank
// (an authz.Permission) of every source authz.RepoPermission weighs: the
// direct grant (cr), the owner or organization membership (orank), their
// teams' grants (tr) and their organization roles (rr). Arguments: member
// rank, repo id, repo owner id, repo id, repo id.
const collaboratorRanks = `SELECT a.id AS uid, ` + rankOf + ` AS cr, COALESCE(c.permission, '') AS cperm,
 COALESCE(m.role, '') AS orole,
 CASE WHEN a.id = r.owner_id OR m.role = 'admin' THEN 5 WHEN m.role = 'member' THEN ? ELSE 0 END AS orank,
 COALESCE(` + teamGrant + `, 0) AS tr, COALESCE(` + orgRoleGrant + `, 0) AS rr,
 CASE WHEN c.user_id IS NULL THEN 0 ELSE 1 END AS direct, CASE WHEN m.user_id IS NULL THEN 0 ELSE 1 END AS member
 FROM (SELECT c0.user_id AS id FROM repo_collaborators c0 WHERE c0.repo_id = ?
 UNION SELECT m0.user_id FROM org_members m0 WHERE m0.org_id = ? AND m0.state = 'active'
 UNION SELECT r0.owner_id FROM repos r0 WHERE r0.id = ?) u
 JOIN accounts a ON a.id = u.id
 JOIN repos r ON r.id = ?
 LEFT JOIN repo_collaborators c ON c.repo_id = r.id AND c.user_id = a.id
 LEFT JOIN org_members m ON m.org_id = r.owner_id AND m.user_id = a.id AND m.state = 'active'
 WHERE a.type = 'User'`

// where is the list's filter on collaboratorRanks (x): the affiliation,
// and the permission filter on the effective level, the highest rank.
func (f *CollaboratorQuery) where() (string, []any) {
	var conds []string
	var args []any
	switch f.Affiliation {
	case model.AffiliationDirect:
		conds = append(conds, `x.direct = 1`)
	case model.AffiliationOutside:
		conds = append(conds, `x.direct = 1 AND x.member = 0`)
	default:
		// Anyone with more than the public: a grant, ownership or
		// membership that gives access, a team or an organization role.
		conds = append(conds, `(x.direct = 1 OR x.orank > 0 OR x.tr > 0 OR x.rr > 0)`)
	}
	if f.Level != authz.None {
		base := int(f.BaseLevel)
		l := int(f.Level)
		if base > l {
			conds = append(conds, `1 = 0`)
		} else {
			// The highest of the ranks is exactly Level: none above it,
			// one at it.
			atL := `x.cr = ? OR x.orank = ? OR x.tr = ? OR x.rr = ?`
			if base == l {
				atL += ` OR 1 = 1`
			}
			conds = append(conds, `x.cr <= ? AND x.orank <= ? AND x.tr <= ? AND x.rr <= ? AND (`+atL+`)`)
			args = append(args, l, l, l, l, l, l, l, l)
		}
	}
	return ` WHERE ` + strings.Join(conds, ` AND `), args
}

// ListCollaborators is one page of a repository's collaborators in id
// order, and how many there are. The effective level the permission
// filter compares is the one authz.RepoPermission gives.
func (q Q) ListCollaborators(ctx context.Context, f CollaboratorQuery) ([]CollaboratorRow, int, error) {
	where, wargs := f.where()
	args := append([]any{int(f.MemberLevel), f.Repo.ID, f.Repo.OwnerID, f.Repo.ID, f.Repo.ID}, wargs...)
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM (`+collaboratorRanks+`) x`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT `+accountCols+`, x.cperm, x.orole, x.tr, x.rr FROM (`+collaboratorRanks+`) x
 JOIN accounts a ON a.id = x.uid`+where+` ORDER BY a.id LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []CollaboratorRow{}
	for rows.Next() {
		row := CollaboratorRow{User: &model.Account{}}
		var perm, role string
		var team, orgRoles int64
		if err := scanAccount(expand{sc: rows, post: []any{&perm, &role, &team, &orgRoles}}, row.User); err != nil {
			return nil, 0, err
		}
		row.Collab, _ = authz.ParsePermission(perm)
		row.OrgRole = model.OrgRole(role)
		row.Team, row.OrgRoles = rankPermission(team), rankPermission(orgRoles)
		out = append(out, row)
	}
	return out, total, rows.Err()
}

// rankPermission is a rank read from SQL as a level (out of range: none).
func rankPermission(v int64) authz.Permission {
	if v > int64(authz.None) && v <= int64(authz.Admin) {
		return authz.Permission(v)
	}
	return authz.None
}

// Collaborator is a user's direct grant on a repository (None when none).
func (q Q) Collaborator(ctx context.Context, repoID, userID int64) (authz.Permission, error) {
	var perm string
	err := q.row(ctx, `SELECT permission FROM repo_collaborators WHERE repo_id = ? AND user_id = ?`, repoID, userID).Scan(&perm)
	if errors.Is(err, sql.ErrNoRows) {
		return authz.None, nil
	}
	if err != nil {
		return authz.None, err
	}
	p, _ := authz.ParsePermission(perm)
	return p, nil
}

// CollaboratorGrant is a user's direct grant on a repository and its
// custom repository role (0 for none); None when there is no grant.
func (q Q) CollaboratorGrant(ctx context.Context, repoID, userID int64) (authz.Permission, int64, error) {
	var perm string
	var role int64
	err := q.row(ctx, `SELECT permission, COALESCE(role_id, 0) FROM repo_collaborators WHERE repo_id = ? AND user_id = ?`,
		repoID, userID).Scan(&perm, &role)
	if errors.Is(err, sql.ErrNoRows) {
		return authz.None, 0, nil
	}
	if err != nil {
		return authz.None, 0, err
	}
	p, _ := authz.ParsePermission(perm)
	return p, role, nil
}

// RemoveCollaborator drops a user's direct grant; it reports whether there
// was one.
func (q Q) RemoveCollaborator(ctx context.Context, repoID, userID int64) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM repo_collaborators WHERE repo_id = ? AND user_id = ?`, repoID, userID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

const invitationCols = `i.id, i.repo_id, i.invitee_id, COALESCE(i.inviter_id, 0), i.permission, COALESCE(i.role_id, 0), i.created_at`

func (q Q) scanInvitation(sc scanner) (*model.RepoInvitation, error) {
	inv := &model.RepoInvitation{}
	var created int64
	if err := sc.Scan(&inv.ID, &inv.RepoID, &inv.InviteeID, &inv.InviterID, &inv.Permission, &inv.RoleID, &created); err != nil {
		return nil, err
	}
	inv.CreatedAt = fromUnix(created)
	inv.Expired = !q.Now().Before(inv.CreatedAt.Add(model.InvitationTTL))
	return inv, nil
}

// invitations loads invitations and their invitees and inviters (one query
// for all the accounts).
func (q Q) invitations(ctx context.Context, query string, args ...any) ([]*model.RepoInvitation, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	out := []*model.RepoInvitation{}
	for rows.Next() {
		inv, err := q.scanInvitation(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, inv)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(out) == 0 {
		return out, err
	}
	var ids []int64
	for _, inv := range out {
		ids = append(ids, inv.InviteeID)
		if inv.InviterID != 0 {
			ids = append(ids, inv.InviterID)
		}
	}
	in, inArgs := inList(ids)
	accts, err := q.accounts(ctx, `SELECT `+accountCols+` FROM accounts a WHERE a.id IN (`+in+`)`, inArgs...)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*model.Account, len(accts))
	for _, a := range accts {
		byID[a.ID] = a
	}
	for _, inv := range out {
		inv.Invitee, inv.Inviter = byID[inv.InviteeID], byID[inv.InviterID]
	}
	return out, nil
}

// RepoInvitationByID finds an invitation.
func (q Q) RepoInvitationByID(ctx context.Context, id int64) (*model.RepoInvitation, error) {
	list, err := q.invitations(ctx, `SELECT `+invitationCols+` FROM repo_invitations i WHERE i.id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}

// RepoInvitationFor finds the open invitation of a user to a repository.
func (q Q) RepoInvitationFor(ctx context.Context, repoID, inviteeID int64) (*model.RepoInvitation, error) {
	list, err := q.invitations(ctx, `SELECT `+invitationCols+` FROM repo_invitations i WHERE i.repo_id = ? AND i.invitee_id = ?`, repoID, inviteeID)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}

// CreateRepoInvitation inserts an invitation (ID and CreatedAt are set).
func (q Q) CreateRepoInvitation(ctx context.Context, inv *model.RepoInvitation) error {
	inv.CreatedAt = fromUnix(unix(q.Now()))
	id, err := q.insert(ctx, `INSERT INTO repo_invitations (repo_id, invitee_id, inviter_id, permission, role_id, created_at) VALUES (?,?,?,?,?,?)`,
		inv.RepoID, inv.InviteeID, idOrNil(inv.InviterID), inv.Permission, idOrNil(inv.RoleID), unix(inv.CreatedAt))
	if err != nil {
		return err
	}
	inv.ID = id
	return nil
}

// RenewRepoInvitation changes an invitation's permission and custom role
// (roleID, 0 for none) and, when renew, restarts its expiry as a new
// invitation by inviterID.
func (q Q) RenewRepoInvitation(ctx context.Context, id int64, perm string, roleID int64, renew bool, inviterID int64) error {
	if renew {
		_, err := q.exec(ctx, `UPDATE repo_invitations SET permission = ?, role_id = ?, created_at = ?, inviter_id = ? WHERE id = ?`,
			perm, idOrNil(roleID), unix(q.Now()), idOrNil(inviterID), id)
		return err
	}
	_, err := q.exec(ctx, `UPDATE repo_invitations SET permission = ?, role_id = ? WHERE id = ?`, perm, idOrNil(roleID), id)
	return err
}

// RecordInvitationSent notes that an invitation to a repository was sent
// (created or renewed), for the daily cap; notes older than a day go.
func (q Q) RecordInvitationSent(ctx context.Context, repoID int64) error {
	now := q.Now()
	if _, err := q.exec(ctx, `DELETE FROM repo_invitation_sends WHERE repo_id = ? AND created_at <= ?`,
		repoID, unix(now.Add(-24*time.Hour))); err != nil {
		return err
	}
	_, err := q.exec(ctx, `INSERT INTO repo_invitation_sends (repo_id, created_at) VALUES (?, ?)`, repoID, unix(now))
	return err
}

// InvitationsSentSince counts the invitations sent to a repository after
// since.
func (q Q) InvitationsSentSince(ctx context.Context, repoID int64, since time.Time) (int, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM repo_invitation_sends WHERE repo_id = ? AND created_at > ?`, repoID, unix(since)).Scan(&n)
	return n, err
}

// DeleteRepoInvitation removes an invitation.
func (q Q) DeleteRepoInvitation(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM repo_invitations WHERE id = ?`, id)
	return err
}

// RepoInvitations is one page of a repository's invitations, oldest first.
func (q Q) RepoInvitations(ctx context.Context, repoID int64, limit, offset int) ([]*model.RepoInvitation, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM repo_invitations WHERE repo_id = ?`, repoID).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.invitations(ctx, `SELECT `+invitationCols+` FROM repo_invitations i WHERE i.repo_id = ? ORDER BY i.id LIMIT ? OFFSET ?`, repoID, limit, offset)
	return list, total, err
}

// UserRepoInvitations is one page of a user's invitations, oldest first.
func (q Q) UserRepoInvitations(ctx context.Context, userID int64, limit, offset int) ([]*model.RepoInvitation, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM repo_invitations WHERE invitee_id = ?`, userID).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.invitations(ctx, `SELECT `+invitationCols+` FROM repo_invitations i WHERE i.invitee_id = ? ORDER BY i.id LIMIT ? OFFSET ?`, userID, limit, offset)
	return list, total, err
}

// DeleteRepoInvitationsBy removes the invitations a user sent for a
// repository and gives their ids.
func (q Q) DeleteRepoInvitationsBy(ctx context.Context, repoID, inviterID int64) ([]int64, error) {
	rows, err := q.query(ctx, `SELECT id FROM repo_invitations WHERE repo_id = ? AND inviter_id = ? ORDER BY id`, repoID, inviterID)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return ids, err
	}
	_, err = q.exec(ctx, `DELETE FROM repo_invitations WHERE repo_id = ? AND inviter_id = ?`, repoID, inviterID)
	return ids, err
}
