package store

import (
	"context"

	"github.com/hubd/hubd/internal/model"
)

// CreateOrg inserts an organization and makes adminUserID its first admin.
func (q Q) CreateOrg(ctx context.Context, org *model.Account, adminUserID int64) error {
	org.Type = model.TypeOrganization
	if err := q.CreateAccount(ctx, org); err != nil {
		return err
	}
	return q.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: adminUserID, Role: model.RoleAdmin, State: "active"})
}

// SetMembership adds a member or changes their role and state.
func (q Q) SetMembership(ctx context.Context, m *model.Membership) error {
	m.CreatedAt = q.Now()
	_, err := q.exec(ctx, `INSERT INTO org_members (org_id, user_id, role, state, created_at) VALUES (?,?,?,?,?)
 ON CONFLICT (org_id, user_id) DO UPDATE SET role = excluded.role, state = excluded.state`,
		m.OrgID, m.UserID, string(m.Role), m.State, unix(m.CreatedAt))
	return err
}

// Membership finds a user's membership of an organization.
func (q Q) Membership(ctx context.Context, orgID, userID int64) (*model.Membership, error) {
	m := &model.Membership{OrgID: orgID, UserID: userID}
	var created int64
	err := q.row(ctx, `SELECT role, state, created_at FROM org_members WHERE org_id = ? AND user_id = ?`, orgID, userID).
		Scan(&m.Role, &m.State, &created)
	m.CreatedAt = fromUnix(created)
	return m, notFound(err)
}
