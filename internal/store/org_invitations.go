package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// Organization invitations (org_invitations, owned by internal/orgmembers).
// A pending membership of an organization is an open invitation: one that
// was neither accepted nor cancelled and is younger than
// model.OrgInvitationTTL. org_members holds active members only.

const orgInvCols = `i.id, i.org_id, COALESCE(i.invitee_id, 0), COALESCE(i.email, ''), i.role, COALESCE(i.reinstate_role, ''),
 COALESCE(i.inviter_id, 0), i.source, i.created_at, i.accepted_at, i.cancelled_at,
 (SELECT COUNT(*) FROM org_invitation_teams it WHERE it.invitation_id = i.id)`

// orgInvOpen holds invitations neither accepted nor cancelled.
const orgInvOpen = `i.accepted_at IS NULL AND i.cancelled_at IS NULL`

// orgInvFor matches the invitations of a user: by account, or by an email
// address nobody's account had when invited that is now theirs. Arguments:
// the user's id twice.
const orgInvFor = `(i.invitee_id = ? OR (i.invitee_id IS NULL AND i.email IS NOT NULL
 AND LOWER(i.email) = (SELECT LOWER(u.email) FROM accounts u WHERE u.id = ? AND u.email <> '')))`

// orgInvRole is the organization role accepting an invitation gives, in SQL.
const orgInvRole = `CASE WHEN i.role = 'admin' OR (i.role = 'reinstate' AND i.reinstate_role = 'admin') THEN 'admin' ELSE 'member' END`

// inviteCutoff is the created_at an invitation must be younger than to be
// pending.
func (q Q) inviteCutoff() int64 { return unix(q.Now().Add(-model.OrgInvitationTTL)) }

func (q Q) scanOrgInvitation(sc scanner) (*model.OrgInvitation, error) {
	inv := &model.OrgInvitation{}
	var created int64
	var accepted, cancelled sql.NullInt64
	var reinstate string
	if err := sc.Scan(&inv.ID, &inv.OrgID, &inv.InviteeID, &inv.Email, &inv.Role, &reinstate, &inv.InviterID,
		&inv.Source, &created, &accepted, &cancelled, &inv.TeamCount); err != nil {
		return nil, err
	}
	inv.ReinstateRole = model.OrgRole(reinstate)
	inv.CreatedAt, inv.AcceptedAt, inv.CancelledAt = fromUnix(created), fromNullUnix(accepted), fromNullUnix(cancelled)
	inv.Expired = inv.AcceptedAt == nil && inv.CancelledAt == nil && created <= q.inviteCutoff()
	return inv, nil
}

// orgInvitations loads invitations with their invitees and inviters (one
// query for all the accounts).
func (q Q) orgInvitations(ctx context.Context, query string, args ...any) ([]*model.OrgInvitation, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	out := []*model.OrgInvitation{}
	for rows.Next() {
		inv, err := q.scanOrgInvitation(rows)
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
		for _, id := range []int64{inv.InviteeID, inv.InviterID} {
			if id != 0 {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return out, nil
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

func (q Q) oneOrgInvitation(ctx context.Context, query string, args ...any) (*model.OrgInvitation, error) {
	list, err := q.orgInvitations(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}

// CreateOrgInvitation inserts an invitation (ID and CreatedAt are set).
func (q Q) CreateOrgInvitation(ctx context.Context, inv *model.OrgInvitation) error {
	inv.CreatedAt = fromUnix(unix(q.Now()))
	if inv.Source == "" {
		inv.Source = "member"
	}
	var email, reinstate any
	if inv.Email != "" {
		email = inv.Email
	}
	if inv.ReinstateRole != "" {
		reinstate = string(inv.ReinstateRole)
	}
	id, err := q.insert(ctx, `INSERT INTO org_invitations (org_id, invitee_id, email, role, reinstate_role, inviter_id, source, created_at)
 VALUES (?,?,?,?,?,?,?,?)`, inv.OrgID, idOrNil(inv.InviteeID), email, inv.Role, reinstate, idOrNil(inv.InviterID), inv.Source,
		unix(inv.CreatedAt))
	inv.ID = id
	return err
}

// OrgInvitation finds an invitation of an organization in any state.
func (q Q) OrgInvitation(ctx context.Context, orgID, id int64) (*model.OrgInvitation, error) {
	return q.oneOrgInvitation(ctx, `SELECT `+orgInvCols+` FROM org_invitations i WHERE i.org_id = ? AND i.id = ?`, orgID, id)
}

// PendingOrgInvitation finds a user's pending invitation to an
// organization (by account or by their email address).
func (q Q) PendingOrgInvitation(ctx context.Context, orgID, userID int64) (*model.OrgInvitation, error) {
	return q.oneOrgInvitation(ctx, `SELECT `+orgInvCols+` FROM org_invitations i WHERE i.org_id = ? AND `+orgInvOpen+
		` AND i.created_at > ? AND `+orgInvFor+` ORDER BY i.id DESC LIMIT 1`, orgID, q.inviteCutoff(), userID, userID)
}

// PendingOrgInvitationByEmail finds the pending invitation of an email
// address (ignoring case) to an organization.
func (q Q) PendingOrgInvitationByEmail(ctx context.Context, orgID int64, email string) (*model.OrgInvitation, error) {
	return q.oneOrgInvitation(ctx, `SELECT `+orgInvCols+` FROM org_invitations i WHERE i.org_id = ? AND `+orgInvOpen+
		` AND i.created_at > ? AND LOWER(i.email) = LOWER(?) ORDER BY i.id DESC LIMIT 1`, orgID, q.inviteCutoff(), email)
}

// OrgInvitationQuery selects an organization's invitations.
type OrgInvitationQuery struct {
	OrgID  int64
	TeamID int64 // only those that include this team (0: all)
	// Failed lists the expired invitations instead of the pending ones.
	Failed bool
	// Role keeps the invitations listed with this role ("" for all): a
	// reinstate invitation is listed with the role it restores.
	Role          string
	Limit, Offset int
}

// OrgInvitations is one page of an organization's pending (or failed)
// invitations, oldest first, with the total for the Link header.
func (q Q) OrgInvitations(ctx context.Context, f OrgInvitationQuery) ([]*model.OrgInvitation, int, error) {
	w := `i.org_id = ? AND ` + orgInvOpen + ` AND i.created_at > ?`
	if f.Failed {
		w = `i.org_id = ? AND ` + orgInvOpen + ` AND i.created_at <= ?`
	}
	args := []any{f.OrgID, q.inviteCutoff()}
	switch f.Role {
	case "":
	case model.InviteAdmin:
		w += ` AND (i.role = 'admin' OR (i.role = 'reinstate' AND i.reinstate_role = 'admin'))`
	case model.InviteDirectMember:
		w += ` AND (i.role = 'direct_member' OR (i.role = 'reinstate' AND COALESCE(i.reinstate_role, '') <> 'admin'))`
	default:
		w += ` AND i.role = ?`
		args = append(args, f.Role)
	}
	if f.TeamID != 0 {
		w += ` AND EXISTS (SELECT 1 FROM org_invitation_teams t WHERE t.invitation_id = i.id AND t.team_id = ?)`
		args = append(args, f.TeamID)
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM org_invitations i WHERE `+w, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.orgInvitations(ctx, `SELECT `+orgInvCols+` FROM org_invitations i WHERE `+w+` ORDER BY i.id LIMIT ? OFFSET ?`,
		append(args, f.Limit, f.Offset)...)
	return list, total, err
}

// CountOrgInvitationsSince counts the invitations an organization sent
// since a time, whatever became of them (the invitation rate limit).
func (q Q) CountOrgInvitationsSince(ctx context.Context, orgID int64, since time.Time) (int, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM org_invitations WHERE org_id = ? AND created_at > ?`, orgID, unix(since)).Scan(&n)
	return n, err
}

// LockOrgInvitations serializes the writers of an organization's
// invitations until the transaction ends: on PostgreSQL it locks the
// organization's row, so two invitations of one user, or two past the rate
// limit, cannot be created at once (SQLite runs one writer at a time). The
// lock (NO KEY UPDATE) does not conflict with the key-share locks of
// inserts that reference the organization, such as a team being created.
func (q Q) LockOrgInvitations(ctx context.Context, orgID int64) error {
	if !q.s.pg {
		return nil
	}
	var id int64
	return q.row(ctx, `SELECT id FROM accounts WHERE id = ? FOR NO KEY UPDATE`, orgID).Scan(&id)
}

// SetOrgInvitationRole changes an open invitation's role.
func (q Q) SetOrgInvitationRole(ctx context.Context, id int64, role string, reinstate model.OrgRole) error {
	var r any
	if reinstate != "" {
		r = string(reinstate)
	}
	_, err := q.exec(ctx, `UPDATE org_invitations SET role = ?, reinstate_role = ? WHERE id = ?`, role, r, id)
	return err
}

// CancelOrgInvitation cancels an invitation (its teams stay recorded with
// it).
func (q Q) CancelOrgInvitation(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `UPDATE org_invitations SET cancelled_at = ? WHERE id = ? AND cancelled_at IS NULL`, unix(q.Now()), id)
	return err
}

// SetOrgInvitationTeam adds a team to an invitation with the role the
// invitee gets in it (member or maintainer), or changes that role.
func (q Q) SetOrgInvitationTeam(ctx context.Context, invitationID, teamID int64, role string) error {
	_, err := q.exec(ctx, `INSERT INTO org_invitation_teams (invitation_id, team_id, role, created_at) VALUES (?,?,?,?)
 ON CONFLICT (invitation_id, team_id) DO UPDATE SET role = excluded.role`, invitationID, teamID, role, unix(q.Now()))
	return err
}

// RemoveOrgInvitationTeam takes a team off an invitation; model.ErrNotFound
// when it was not on it.
func (q Q) RemoveOrgInvitationTeam(ctx context.Context, invitationID, teamID int64) error {
	res, err := q.exec(ctx, `DELETE FROM org_invitation_teams WHERE invitation_id = ? AND team_id = ?`, invitationID, teamID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// OrgInvitationTeams is one page of the teams of an invitation in id order,
// with the total.
func (q Q) OrgInvitationTeams(ctx context.Context, invitationID int64, limit, offset int) ([]*model.Team, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM org_invitation_teams WHERE invitation_id = ?`, invitationID).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.teams(ctx, teamSelect+` JOIN org_invitation_teams it ON it.team_id = t.id WHERE it.invitation_id = ?
 ORDER BY t.id LIMIT ? OFFSET ?`, invitationID, limit, offset)
	return list, total, err
}

// PendingTeamMembership is a user's membership of a team through their
// pending invitation to its organization (model.ErrNotFound when none).
func (q Q) PendingTeamMembership(ctx context.Context, teamID, userID int64) (*model.TeamMembership, error) {
	m := &model.TeamMembership{TeamID: teamID, UserID: userID, State: StatePending}
	var created int64
	err := q.row(ctx, `SELECT it.role, it.created_at FROM org_invitation_teams it
 JOIN org_invitations i ON i.id = it.invitation_id JOIN teams t ON t.id = it.team_id AND t.org_id = i.org_id
 WHERE it.team_id = ? AND `+orgInvOpen+` AND i.created_at > ? AND `+orgInvFor+` ORDER BY i.id DESC LIMIT 1`,
		teamID, q.inviteCutoff(), userID, userID).Scan(&m.Role, &created)
	m.CreatedAt = fromUnix(created)
	return m, notFound(err)
}

// InvitedTeam is a team an accepted invitation made its invitee a member
// of.
type InvitedTeam struct {
	TeamID int64
	Role   string
}

// acceptOrgInvitations closes a new active member's open invitations to an
// organization (expired ones stay as failed): they are accepted, and their
// teams become the member's team memberships.
func (q Q) acceptOrgInvitations(ctx context.Context, orgID, userID int64) ([]InvitedTeam, error) {
	rows, err := q.query(ctx, `SELECT i.id FROM org_invitations i WHERE i.org_id = ? AND `+orgInvOpen+` AND i.created_at > ? AND `+orgInvFor,
		orgID, q.inviteCutoff(), userID, userID)
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
		return nil, err
	}
	var out []InvitedTeam
	now := unix(q.Now())
	for _, id := range ids {
		teams, err := q.query(ctx, `SELECT it.team_id, it.role FROM org_invitation_teams it JOIN teams t ON t.id = it.team_id
 WHERE it.invitation_id = ? AND t.org_id = ? ORDER BY it.team_id`, id, orgID)
		if err != nil {
			return nil, err
		}
		var these []InvitedTeam
		for teams.Next() {
			var it InvitedTeam
			if err := teams.Scan(&it.TeamID, &it.Role); err != nil {
				teams.Close()
				return nil, err
			}
			these = append(these, it)
		}
		teams.Close()
		if err := teams.Err(); err != nil {
			return nil, err
		}
		for _, it := range these {
			if err := q.SetTeamMember(ctx, &model.TeamMembership{TeamID: it.TeamID, UserID: userID, Role: it.Role, State: StateActive}); err != nil {
				return nil, err
			}
		}
		out = append(out, these...)
		if _, err := q.exec(ctx, `UPDATE org_invitations SET accepted_at = ?, invitee_id = ? WHERE id = ?`, now, userID, id); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// AcceptOrgInvitation makes the user a pending invitation is for an active
// member with the invitation's role; its teams become their team
// memberships, which it returns.
func (q Q) AcceptOrgInvitation(ctx context.Context, inv *model.OrgInvitation, userID int64) ([]InvitedTeam, error) {
	if err := q.upsertMember(ctx, &model.Membership{OrgID: inv.OrgID, UserID: userID, Role: inv.MemberRole(), State: StateActive}); err != nil {
		return nil, err
	}
	return q.acceptOrgInvitations(ctx, inv.OrgID, userID)
}

// cancelOrgInvitations cancels a user's open invitations to an
// organization; it reports whether there was a pending one.
func (q Q) cancelOrgInvitations(ctx context.Context, orgID, userID int64) (bool, error) {
	var n int
	if err := q.row(ctx, `SELECT COUNT(*) FROM org_invitations i WHERE i.org_id = ? AND `+orgInvOpen+` AND i.created_at > ? AND `+orgInvFor,
		orgID, q.inviteCutoff(), userID, userID).Scan(&n); err != nil {
		return false, err
	}
	if n == 0 {
		return false, nil
	}
	_, err := q.exec(ctx, `UPDATE org_invitations SET cancelled_at = ? WHERE id IN (SELECT i.id FROM org_invitations i
 WHERE i.org_id = ? AND `+orgInvOpen+` AND i.created_at > ? AND `+orgInvFor+`)`, unix(q.Now()), orgID, q.inviteCutoff(), userID, userID)
	return true, err
}

// FormerMember is the role a user had in an organization when they were
// last removed from it, and when; model.ErrNotFound when they never were.
func (q Q) FormerMember(ctx context.Context, orgID, userID int64) (model.OrgRole, time.Time, error) {
	var role string
	var at int64
	err := q.row(ctx, `SELECT role, removed_at FROM org_former_members WHERE org_id = ? AND user_id = ?`, orgID, userID).Scan(&role, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return "", time.Time{}, model.ErrNotFound
	}
	return model.OrgRole(role), fromUnix(at), err
}

func (q Q) recordFormerMember(ctx context.Context, orgID, userID int64, role model.OrgRole) error {
	_, err := q.exec(ctx, `INSERT INTO org_former_members (org_id, user_id, role, removed_at) VALUES (?,?,?,?)
 ON CONFLICT (org_id, user_id) DO UPDATE SET role = excluded.role, removed_at = excluded.removed_at`,
		orgID, userID, string(role), unix(q.Now()))
	return err
}

// UserByEmail finds the user whose account email is email, ignoring case
// (GHES keeps addresses unique); model.ErrNotFound when none.
func (q Q) UserByEmail(ctx context.Context, email string) (*model.Account, error) {
	list, err := q.accounts(ctx, `SELECT `+accountCols+` FROM accounts a WHERE LOWER(a.email) = LOWER(?) AND a.type = ? ORDER BY a.id LIMIT 1`,
		email, string(model.TypeUser))
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}
