package enterprise

import (
	"context"
	"slices"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/enterpriseteams"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Role is one of the enterprise's roles. hubd's are GitHub's predefined
// enterprise roles (source Predefined); custom enterprise roles have no
// operations in GitHub's REST description and are not kept.
type Role struct {
	ID          int64
	Name        string
	Description string
	Permissions []string
}

// rolesSince is when the predefined roles exist from (their created_at).
var rolesSince = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// Roles are the predefined enterprise roles, by id.
var Roles = []Role{
	{ID: 1, Name: "app_manager", Description: "Can view, create, edit and delete the GitHub App registrations the enterprise owns.",
		Permissions: authz.EnterpriseRolePermissions[1]},
	{ID: 2, Name: "security_manager", Description: "Can view security results and manage the enterprise's security settings; " +
		"reads the code of every repository and writes every security alert in the enterprise.",
		Permissions: authz.EnterpriseRolePermissions[2]},
}

// RolesCreated is the created_at and updated_at of the predefined roles.
func RolesCreated() time.Time { return rolesSince }

// ListRoles is the enterprise's roles.
func (s *Service) ListRoles() []Role { return Roles }

// GetRole is one role; not found for an unknown id.
func (s *Service) GetRole(id int64) (Role, error) {
	i := slices.IndexFunc(Roles, func(r Role) bool { return r.ID == id })
	if i < 0 {
		return Role{}, model.ErrNotFound
	}
	return Roles[i], nil
}

func (s *Service) user(ctx context.Context, login string) (*model.Account, error) {
	u, err := s.st.R().AccountByLogin(ctx, login)
	if err != nil {
		return nil, err
	}
	if u.Type != model.TypeUser {
		return nil, model.ErrNotFound
	}
	return u, nil
}

func (s *Service) team(ctx context.Context, slug string) (*model.EnterpriseTeam, error) {
	return enterpriseteams.New(s.st).Get(ctx, slug)
}

// AssignUser gives a user a role (assigning it again changes nothing).
func (s *Service) AssignUser(ctx context.Context, actorID int64, login string, roleID int64, on bool) error {
	role, err := s.GetRole(roleID)
	if err != nil {
		return err
	}
	u, err := s.user(ctx, login)
	if err != nil {
		return err
	}
	return s.st.Tx(ctx, func(tx store.Q) error {
		changed, err := tx.SetEnterpriseRoleUser(ctx, role.ID, u.ID, on)
		if err != nil || !changed {
			return err
		}
		return tx.AppendEvent(ctx, roleEvent(on), actorID, 0, 0, map[string]any{"role_id": role.ID, "role": role.Name, "user_id": u.ID})
	})
}

// AssignTeam gives an enterprise team (so its members) a role, or revokes it.
func (s *Service) AssignTeam(ctx context.Context, actorID int64, slug string, roleID int64, on bool) error {
	role, err := s.GetRole(roleID)
	if err != nil {
		return err
	}
	t, err := s.team(ctx, slug)
	if err != nil {
		return err
	}
	return s.st.Tx(ctx, func(tx store.Q) error {
		changed, err := tx.SetEnterpriseRoleTeam(ctx, role.ID, t.ID, on)
		if err != nil || !changed {
			return err
		}
		return tx.AppendEvent(ctx, roleEvent(on), actorID, 0, 0, map[string]any{"role_id": role.ID, "role": role.Name, "team_id": t.ID})
	})
}

// RevokeAllUser revokes every role assigned to a user directly (those
// held through teams stay).
func (s *Service) RevokeAllUser(ctx context.Context, actorID int64, login string) error {
	u, err := s.user(ctx, login)
	if err != nil {
		return err
	}
	return s.st.Tx(ctx, func(tx store.Q) error {
		if err := tx.ClearEnterpriseRolesOfUser(ctx, u.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "enterprise_role.revoked", actorID, 0, 0, map[string]any{"user_id": u.ID, "all": true})
	})
}

// RevokeAllTeam revokes every role of an enterprise team.
func (s *Service) RevokeAllTeam(ctx context.Context, actorID int64, slug string) error {
	t, err := s.team(ctx, slug)
	if err != nil {
		return err
	}
	return s.st.Tx(ctx, func(tx store.Q) error {
		if err := tx.ClearEnterpriseRolesOfTeam(ctx, t.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "enterprise_role.revoked", actorID, 0, 0, map[string]any{"team_id": t.ID, "all": true})
	})
}

func roleEvent(on bool) string {
	if on {
		return "enterprise_role.assigned"
	}
	return "enterprise_role.revoked"
}

// RoleUsers is one page of the users who hold a role, directly or through
// enterprise teams, and their count.
func (s *Service) RoleUsers(ctx context.Context, roleID int64, limit, offset int) ([]store.EnterpriseRoleHolder, int, error) {
	if _, err := s.GetRole(roleID); err != nil {
		return nil, 0, err
	}
	return s.st.R().EnterpriseRoleUsers(ctx, roleID, limit, offset)
}

// RoleTeams is one page of the enterprise teams a role is assigned to and
// their count.
func (s *Service) RoleTeams(ctx context.Context, roleID int64, limit, offset int) ([]*model.EnterpriseTeam, int, error) {
	if _, err := s.GetRole(roleID); err != nil {
		return nil, 0, err
	}
	return s.st.R().EnterpriseRoleTeams(ctx, roleID, limit, offset)
}
