package store

import (
	"context"

	"github.com/hubd/hubd/internal/model"
)

// Membership states.
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

// SetMembership adds a member or changes their role and state.
func (q Q) SetMembership(ctx context.Context, m *model.Membership) error {
	m.CreatedAt = q.Now()
	_, err := q.exec(ctx, `INSERT INTO org_members (org_id, user_id, role, state, created_at) VALUES (?,?,?,?,?)
 ON CONFLICT (org_id, user_id) DO UPDATE SET role = excluded.role, state = excluded.state`,
		m.OrgID, m.UserID, string(m.Role), m.State, unix(m.CreatedAt))
	return err
}

// Membership finds a user's membership of an organization (active or
// pending).
func (q Q) Membership(ctx context.Context, orgID, userID int64) (*model.Membership, error) {
	m := &model.Membership{OrgID: orgID, UserID: userID}
	var created int64
	err := q.row(ctx, `SELECT role, state, created_at FROM org_members WHERE org_id = ? AND user_id = ?`, orgID, userID).
		Scan(&m.Role, &m.State, &created)
	m.CreatedAt = fromUnix(created)
	return m, notFound(err)
}

// RemoveMembership deletes a membership or pending invitation;
// model.ErrNotFound when there was none.
func (q Q) RemoveMembership(ctx context.Context, orgID, userID int64) error {
	res, err := q.exec(ctx, `DELETE FROM org_members WHERE org_id = ? AND user_id = ?`, orgID, userID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	// Team memberships go with the organization membership (a user invited
	// again later does not get old teams back).
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
// active and pending), organizations loaded in the same query, with the
// total.
func (q Q) MembershipsOfUser(ctx context.Context, userID int64, state string, limit, offset int) ([]UserMembership, int, error) {
	w := `m.user_id = ?`
	args := []any{userID}
	if state != "" {
		w += ` AND m.state = ?`
		args = append(args, state)
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM org_members m WHERE `+w, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT m.role, m.state, m.created_at, `+accountCols+` FROM org_members m
 JOIN accounts a ON a.id = m.org_id WHERE `+w+` ORDER BY a.id LIMIT ? OFFSET ?`, append(args, limit, offset)...)
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
