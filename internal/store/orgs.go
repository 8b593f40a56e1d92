package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/hubd/hubd/internal/model"
)

// Membership states: org_members holds active members; a pending
// membership is an open invitation (org_invitations.go).
const (
	StateActive  = "active"
	StatePending = "pending"
)

// CreateOrg inserts an organization and makes adminUserID its first admin.
func (q Q) CreateOrg(ctx context.Context, org *model.Account, adminUserID int64) error {
	org.Type = model.TypeOrganization
	if err := q.CreateAccount(ctx, org); err != nil {
		return err
	}
	return q.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: adminUserID, Role: model.RoleAdmin, State: StateActive})
}

// NewOrg is an organization with GitHub's default settings: members may
// create every kind of repository, projects are enabled, base permission
// read.
func NewOrg(login string) *model.Account {
	return &model.Account{Login: login, Type: model.TypeOrganization, DefaultRepoPermission: "read",
		MembersCanCreateRepos: true, MembersCanCreatePublicRepos: true, MembersCanCreatePrivRepos: true,
		MembersCanCreateIntRepos: true, HasOrgProjects: true, HasRepoProjects: true}
}

// OrgByLogin finds an organization by login, ignoring case; users are not
// found.
func (q Q) OrgByLogin(ctx context.Context, login string) (*model.Account, error) {
	a, err := q.AccountByLogin(ctx, login)
	if err != nil {
		return nil, err
	}
	if !a.IsOrg() {
		return nil, model.ErrNotFound
	}
	return a, nil
}

// SetMembership adds an active member or changes their role; for a
// pending membership it invites the user (an invitation without inviter,
// or the role of their pending one changes). A user who becomes active
// accepts their open invitations: its teams become their team memberships.
func (q Q) SetMembership(ctx context.Context, m *model.Membership) error {
	if m.State == StatePending {
		return q.setPendingMembership(ctx, m)
	}
	if err := q.upsertMember(ctx, m); err != nil {
		return err
	}
	_, err := q.acceptOrgInvitations(ctx, m.OrgID, m.UserID)
	return err
}

// A membership set here is direct: one that existed only through
// enterprise teams (via_enterprise) stops depending on them.
func (q Q) upsertMember(ctx context.Context, m *model.Membership) error {
	m.CreatedAt, m.State = q.Now(), StateActive
	_, err := q.exec(ctx, `INSERT INTO org_members (org_id, user_id, role, state, created_at) VALUES (?,?,?,?,?)
 ON CONFLICT (org_id, user_id) DO UPDATE SET role = excluded.role, state = excluded.state, via_enterprise = ?`,
		m.OrgID, m.UserID, string(m.Role), m.State, unix(m.CreatedAt), false)
	return err
}

// setPendingMembership invites a user; an active member stops being one
// (with their team memberships) until they accept.
func (q Q) setPendingMembership(ctx context.Context, m *model.Membership) error {
	res, err := q.exec(ctx, `DELETE FROM org_members WHERE org_id = ? AND user_id = ?`, m.OrgID, m.UserID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		if err := q.RemoveOrgTeamMemberships(ctx, m.OrgID, m.UserID); err != nil {
			return err
		}
	}
	role := model.InviteDirectMember
	if m.Role == model.RoleAdmin {
		role = model.InviteAdmin
	}
	inv, err := q.PendingOrgInvitation(ctx, m.OrgID, m.UserID)
	switch {
	case errors.Is(err, model.ErrNotFound):
		inv = &model.OrgInvitation{OrgID: m.OrgID, InviteeID: m.UserID, Role: role}
		if err := q.CreateOrgInvitation(ctx, inv); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		if err := q.SetOrgInvitationRole(ctx, inv.ID, role, ""); err != nil {
			return err
		}
	}
	m.CreatedAt = inv.CreatedAt
	return nil
}

// Membership finds a user's membership of an organization: active, or
// pending while an invitation for them is (its role is the one accepting
// gives).
func (q Q) Membership(ctx context.Context, orgID, userID int64) (*model.Membership, error) {
	m := &model.Membership{OrgID: orgID, UserID: userID}
	var created int64
	err := q.row(ctx, `SELECT role, state, created_at FROM org_members WHERE org_id = ? AND user_id = ?`, orgID, userID).
		Scan(&m.Role, &m.State, &created)
	m.CreatedAt = fromUnix(created)
	if !errors.Is(err, sql.ErrNoRows) {
		return m, err
	}
	inv, err := q.PendingOrgInvitation(ctx, orgID, userID)
	if err != nil {
		return nil, err
	}
	m.Role, m.State, m.CreatedAt = inv.MemberRole(), StatePending, inv.CreatedAt
	return m, nil
}

// RemoveMembership removes an active member (their team memberships go
// with it, and their role is kept for a later "reinstate" invitation) or
// cancels the user's pending invitation; model.ErrNotFound when there was
// neither.
func (q Q) RemoveMembership(ctx context.Context, orgID, userID int64) error {
	var role string
	err := q.row(ctx, `SELECT role FROM org_members WHERE org_id = ? AND user_id = ?`, orgID, userID).Scan(&role)
	if errors.Is(err, sql.ErrNoRows) {
		found, err := q.cancelOrgInvitations(ctx, orgID, userID)
		if err == nil && !found {
			err = model.ErrNotFound
		}
		return err
	}
	if err != nil {
		return err
	}
	if _, err := q.exec(ctx, `DELETE FROM org_members WHERE org_id = ? AND user_id = ?`, orgID, userID); err != nil {
		return err
	}
	if err := q.recordFormerMember(ctx, orgID, userID, model.OrgRole(role)); err != nil {
		return err
	}
	// Team memberships and organization roles go with the organization
	// membership (a user invited again later does not get them back).
	if _, err := q.exec(ctx, `DELETE FROM org_role_assignments WHERE org_id = ? AND user_id = ?`, orgID, userID); err != nil {
		return err
	}
	return q.RemoveOrgTeamMemberships(ctx, orgID, userID)
}

// CountActiveAdmins counts an organization's active owners (the last one may
// not leave or be demoted). Inside a transaction on PostgreSQL it locks those
// rows, so two owners removing each other at once cannot both succeed
// (SQLite runs one writer at a time).
func (q Q) CountActiveAdmins(ctx context.Context, orgID int64) (int, error) {
	query := `SELECT user_id FROM org_members WHERE org_id = ? AND role = ? AND state = ?`
	if q.s.pg {
		query += ` FOR UPDATE`
	}
	rows, err := q.query(ctx, query, orgID, string(model.RoleAdmin), StateActive)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		n++
	}
	return n, rows.Err()
}

// SetMemberPublic publicizes or conceals an active membership;
// model.ErrNotFound when the user is not an active member.
func (q Q) SetMemberPublic(ctx context.Context, orgID, userID int64, public bool) error {
	res, err := q.exec(ctx, `UPDATE org_members SET public = ? WHERE org_id = ? AND user_id = ? AND state = ?`,
		public, orgID, userID, StateActive)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// IsPublicMember reports whether the user is an active, public member.
func (q Q) IsPublicMember(ctx context.Context, orgID, userID int64) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM org_members WHERE org_id = ? AND user_id = ? AND state = ? AND public = ?`,
		orgID, userID, StateActive, true).Scan(&n)
	return n > 0, err
}

// MemberFilter selects the active members of an organization.
type MemberFilter struct {
	Role       model.OrgRole // "" for every role
	PublicOnly bool
}

func (f MemberFilter) where(orgID int64) (string, []any) {
	w := `m.org_id = ? AND m.state = ?`
	args := []any{orgID, StateActive}
	if f.Role != "" {
		w += ` AND m.role = ?`
		args = append(args, string(f.Role))
	}
	if f.PublicOnly {
		w += ` AND m.public = ?`
		args = append(args, true)
	}
	return w, args
}

// OrgMembers lists a page of an organization's active members in id order,
// with the total for the Link header.
func (q Q) OrgMembers(ctx context.Context, orgID int64, f MemberFilter, limit, offset int) ([]*model.Account, int, error) {
	w, args := f.where(orgID)
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM org_members m WHERE `+w, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.accounts(ctx, `SELECT `+accountCols+` FROM org_members m JOIN accounts a ON a.id = m.user_id
 WHERE `+w+` ORDER BY a.id LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	return list, total, err
}

// OrgsOfUser lists a page of the organizations a user is an active member of
// (only publicized memberships when publicOnly), in id order, with the total.
func (q Q) OrgsOfUser(ctx context.Context, userID int64, publicOnly bool, limit, offset int) ([]*model.Account, int, error) {
	w := `m.user_id = ? AND m.state = ?`
	args := []any{userID, StateActive}
	if publicOnly {
		w += ` AND m.public = ?`
		args = append(args, true)
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM org_members m WHERE `+w, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.accounts(ctx, `SELECT `+accountCols+` FROM org_members m JOIN accounts a ON a.id = m.org_id
 WHERE `+w+` ORDER BY a.id LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	return list, total, err
}

// UserMembership is a membership with its organization loaded.
type UserMembership struct {
	model.Membership
	Org *model.Account
}

// MembershipsOfUser lists a page of a user's memberships (state "" for
// active and pending; pending ones are their open invitations),
// organizations loaded in the same query, in organization id order, with
// the total.
func (q Q) MembershipsOfUser(ctx context.Context, userID int64, state string, limit, offset int) ([]UserMembership, int, error) {
	union := `SELECT m.org_id AS oid, m.role AS role, 'active' AS state, m.created_at AS created_at FROM org_members m
 WHERE m.user_id = ? AND m.state = 'active'
 UNION ALL
 SELECT i.org_id, ` + orgInvRole + `, 'pending', i.created_at FROM org_invitations i
 WHERE ` + orgInvOpen + ` AND i.created_at > ? AND ` + orgInvFor
	args := []any{userID, q.inviteCutoff(), userID, userID}
	w := ``
	if state != "" {
		w = ` WHERE x.state = ?`
		args = append(args, state)
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM (`+union+`) x`+w, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT x.role, x.state, x.created_at, `+accountCols+` FROM (`+union+`) x
 JOIN accounts a ON a.id = x.oid`+w+` ORDER BY a.id, x.state LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []UserMembership
	for rows.Next() {
		var um UserMembership
		var created int64
		org := &model.Account{}
		err := scanAccount(prefixScanner{rows, []any{&um.Role, &um.State, &created}}, org)
		if err != nil {
			return nil, 0, err
		}
		um.OrgID, um.UserID, um.CreatedAt, um.Org = org.ID, userID, fromUnix(created), org
		out = append(out, um)
	}
	return out, total, rows.Err()
}

// prefixScanner scans leading columns into head before the account columns.
type prefixScanner struct {
	sc   scanner
	head []any
}

func (p prefixScanner) Scan(dest ...any) error {
	return p.sc.Scan(append(append([]any{}, p.head...), dest...)...)
}
