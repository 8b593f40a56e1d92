package store

import (
	"context"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// outsideWhere selects the outside collaborators of an organization: users
// with a direct grant on at least one repository it owns and no active
// membership of it. Arguments: org id, org id, active state.
const outsideWhere = `a.type = 'User'
 AND EXISTS (SELECT 1 FROM repo_collaborators c JOIN repos r ON r.id = c.repo_id WHERE c.user_id = a.id AND r.owner_id = ?)
 AND NOT EXISTS (SELECT 1 FROM org_members m WHERE m.org_id = ? AND m.user_id = a.id AND m.state = ?)`

// OutsideCollaborators is one page of an organization's outside
// collaborators in id order, with the total for the Link header.
func (q Q) OutsideCollaborators(ctx context.Context, orgID int64, limit, offset int) ([]*model.Account, int, error) {
	args := []any{orgID, orgID, StateActive}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM accounts a WHERE `+outsideWhere, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.accounts(ctx, `SELECT `+accountCols+` FROM accounts a WHERE `+outsideWhere+` ORDER BY a.id LIMIT ? OFFSET ?`,
		append(args, limit, offset)...)
	return list, total, err
}

// OrgRepoInvitation names an open repository invitation.
type OrgRepoInvitation struct {
	ID, RepoID int64
}

// RemoveFromOrgRepos drops every direct grant of userID on the
// organization's repositories and every open invitation of theirs to them;
// it gives the repositories whose grant went and the invitations deleted,
// for the caller's events.
func (q Q) RemoveFromOrgRepos(ctx context.Context, orgID, userID int64) (repoIDs []int64, invs []OrgRepoInvitation, err error) {
	rows, err := q.query(ctx, `SELECT c.repo_id FROM repo_collaborators c JOIN repos r ON r.id = c.repo_id
 WHERE c.user_id = ? AND r.owner_id = ? ORDER BY c.repo_id`, userID, orgID)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, nil, err
		}
		repoIDs = append(repoIDs, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	rows, err = q.query(ctx, `SELECT i.id, i.repo_id FROM repo_invitations i JOIN repos r ON r.id = i.repo_id
 WHERE i.invitee_id = ? AND r.owner_id = ? ORDER BY i.id`, userID, orgID)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var inv OrgRepoInvitation
		if err := rows.Scan(&inv.ID, &inv.RepoID); err != nil {
			rows.Close()
			return nil, nil, err
		}
		invs = append(invs, inv)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if len(repoIDs) > 0 {
		if _, err := q.exec(ctx, `DELETE FROM repo_collaborators WHERE user_id = ? AND repo_id IN (SELECT id FROM repos WHERE owner_id = ?)`,
			userID, orgID); err != nil {
			return nil, nil, err
		}
	}
	if len(invs) > 0 {
		if _, err := q.exec(ctx, `DELETE FROM repo_invitations WHERE invitee_id = ? AND repo_id IN (SELECT id FROM repos WHERE owner_id = ?)`,
			userID, orgID); err != nil {
			return nil, nil, err
		}
	}
	return repoIDs, invs, nil
}

// TeamRepoGrant is what a member's teams give them on one repository.
type TeamRepoGrant struct {
	RepoID int64
	Perm   authz.Permission
}

// TeamGrantsOfMember lists the repositories of an organization that an
// active member reaches through their teams (teamGrant's rule: their teams
// and those teams' ancestors), with the highest permission, in repository
// id order. Empty for a user who is not an active member.
func (q Q) TeamGrantsOfMember(ctx context.Context, orgID, userID int64) ([]TeamRepoGrant, error) {
	rows, err := q.query(ctx, `SELECT x.id, x.g FROM (SELECT r.id AS id, `+teamGrant+` AS g FROM repos r
 JOIN org_members m ON m.org_id = r.owner_id AND m.user_id = ? AND m.state = ?
 WHERE r.owner_id = ?) x WHERE x.g IS NOT NULL ORDER BY x.id`, userID, StateActive, orgID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TeamRepoGrant
	for rows.Next() {
		var g TeamRepoGrant
		var p int64
		if err := rows.Scan(&g.RepoID, &p); err != nil {
			return nil, err
		}
		g.Perm = authz.Permission(p)
		out = append(out, g)
	}
	return out, rows.Err()
}
