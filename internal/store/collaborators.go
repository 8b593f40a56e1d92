package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// CollaboratorQuery selects the users GET .../collaborators lists; the
// service fills it from the repository and authz's rules.
type CollaboratorQuery struct {
	Repo        *model.Repo
	Affiliation model.CollaboratorAffiliation
	// MembersHaveAccess: active members of the owning organization get
	// access through it (a base permission above none, or an internal
	// repository); MemberLevel is that access.
	MembersHaveAccess bool
	MemberLevel       authz.Permission
	// BaseLevel is what everyone has (read on public repositories).
	BaseLevel authz.Permission
	// Level keeps users whose effective permission is exactly it (None:
	// any).
	Level         authz.Permission
	Limit, Offset int
}

// CollaboratorRow is a listed user with what authz needs about them.
type CollaboratorRow struct {
	User    *model.Account
	Collab  authz.Permission // direct grant, None when none
	OrgRole model.OrgRole    // active membership of the owning org, "" when none
}

// rankOf turns a stored permission name into authz's order, in SQL.
const rankOf = `CASE c.permission WHEN 'admin' THEN 5 WHEN 'maintain' THEN 4 WHEN 'write' THEN 3 WHEN 'triage' THEN 2 WHEN 'read' THEN 1 ELSE 0 END`

// collaboratorSet is the inner query of a collaborator list: each listed
// user with their grant's rank (cr), the rank the owner and organization
// give them (orank) and their org role. Arguments: owner id, member rank,
// repo id, owner id.
func (f *CollaboratorQuery) collaboratorSet() string {
	var cond string
	switch f.Affiliation {
	case model.AffiliationDirect:
		cond = `c.user_id IS NOT NULL`
	case model.AffiliationOutside:
		cond = `c.user_id IS NOT NULL AND m.user_id IS NULL`
	default:
		cond = `c.user_id IS NOT NULL OR a.id = r.owner_id OR m.role = 'admin'`
		if f.MembersHaveAccess {
			cond += ` OR m.role = 'member'`
		}
	}
	return `SELECT a.id AS uid, ` + rankOf + ` AS cr, COALESCE(c.permission, '') AS cperm, COALESCE(m.role, '') AS orole,
 CASE WHEN a.id = ? OR m.role = 'admin' THEN 5 WHEN m.role = 'member' THEN ? ELSE 0 END AS orank
 FROM accounts a JOIN repos r ON r.id = ?
 LEFT JOIN repo_collaborators c ON c.repo_id = r.id AND c.user_id = a.id
 LEFT JOIN org_members m ON m.org_id = r.owner_id AND m.user_id = a.id AND m.state = 'active'
 WHERE a.type = 'User' AND (` + cond + `)`
}

// ListCollaborators is one page of a repository's collaborators in id
// order, and how many there are. The effective level computed here in SQL
// (for the permission filter) is the one authz.RepoPermission gives.
func (q Q) ListCollaborators(ctx context.Context, f CollaboratorQuery) ([]CollaboratorRow, int, error) {
	memberRank := 0
	if f.MembersHaveAccess {
		memberRank = int(f.MemberLevel)
	}
	base := strconv.Itoa(int(f.BaseLevel))
	eff := `(CASE WHEN x.cr >= x.orank AND x.cr >= ` + base + ` THEN x.cr WHEN x.orank >= ` + base + ` THEN x.orank ELSE ` + base + ` END)`
	inner := f.collaboratorSet()
	args := []any{f.Repo.OwnerID, memberRank, f.Repo.ID}
	where := ""
	if f.Level != authz.None {
		where = ` WHERE ` + eff + ` = ?`
		args = append(args, int(f.Level))
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM (`+inner+`) x`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT `+accountCols+`, x.cperm, x.orole FROM (`+inner+`) x JOIN accounts a ON a.id = x.uid`+where+
		` ORDER BY a.id LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []CollaboratorRow{}
	for rows.Next() {
		row := CollaboratorRow{User: &model.Account{}}
		var perm, role string
		if err := scanAccount(expand{sc: rows, post: []any{&perm, &role}}, row.User); err != nil {
			return nil, 0, err
		}
		row.Collab, _ = authz.ParsePermission(perm)
		row.OrgRole = model.OrgRole(role)
		out = append(out, row)
	}
	return out, total, rows.Err()
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

const invitationCols = `i.id, i.repo_id, i.invitee_id, COALESCE(i.inviter_id, 0), i.permission, i.created_at`

func (q Q) scanInvitation(sc scanner) (*model.RepoInvitation, error) {
	inv := &model.RepoInvitation{}
	var created int64
	if err := sc.Scan(&inv.ID, &inv.RepoID, &inv.InviteeID, &inv.InviterID, &inv.Permission, &created); err != nil {
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
	id, err := q.insert(ctx, `INSERT INTO repo_invitations (repo_id, invitee_id, inviter_id, permission, created_at) VALUES (?,?,?,?,?)`,
		inv.RepoID, inv.InviteeID, idOrNil(inv.InviterID), inv.Permission, unix(inv.CreatedAt))
	if err != nil {
		return err
	}
	inv.ID = id
	return nil
}

// RenewRepoInvitation changes an invitation's permission and, when renew,
// restarts its expiry as a new invitation by inviterID.
func (q Q) RenewRepoInvitation(ctx context.Context, id int64, perm string, renew bool, inviterID int64) error {
	if renew {
		_, err := q.exec(ctx, `UPDATE repo_invitations SET permission = ?, created_at = ?, inviter_id = ? WHERE id = ?`,
			perm, unix(q.Now()), idOrNil(inviterID), id)
		return err
	}
	_, err := q.exec(ctx, `UPDATE repo_invitations SET permission = ? WHERE id = ?`, perm, id)
	return err
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

// ReposByIDs loads repositories with a viewer's facts (absent ids are
// left out), for lists whose items carry a repository.
func (q Q) ReposByIDs(ctx context.Context, ids []int64, viewerID int64) (map[int64]*RepoView, error) {
	out := map[int64]*RepoView{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	list, err := q.repoViews(ctx, repoSelect+` WHERE r.id IN (`+in+`)`, append([]any{viewerID, viewerID}, args...)...)
	if err != nil {
		return nil, err
	}
	for _, v := range list {
		out[v.Repo.ID] = v
	}
	return out, nil
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
