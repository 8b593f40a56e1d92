package roles

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

const orgRoleResource = "OrganizationRole"

// orgRole finds a role of org by id: a predefined role, or one of the
// organization's own.
func (s *Service) orgRole(ctx context.Context, q store.Q, org *model.Account, id int64) (*model.OrganizationRole, error) {
	if r := predefinedByID(id); r != nil {
		return r, nil
	}
	return q.OrgRole(ctx, org.ID, id)
}

// OrgRoles lists the roles of org: the predefined ones, then the
// organization's own, each in id order.
func (s *Service) OrgRoles(ctx context.Context, org *model.Account, a Actor) ([]*model.OrganizationRole, error) {
	if err := require(a, ReadOrgRoles, WriteOrgRoles); err != nil {
		return nil, err
	}
	own, err := s.Store.R().OrgRoles(ctx, org.ID)
	if err != nil {
		return nil, err
	}
	out := append([]*model.OrganizationRole{}, Predefined...)
	return append(out, own...), nil
}

// OrgRole is one role of org.
func (s *Service) OrgRole(ctx context.Context, org *model.Account, a Actor, id int64) (*model.OrganizationRole, error) {
	if err := require(a, ReadOrgRoles, WriteOrgRoles); err != nil {
		return nil, err
	}
	return s.orgRole(ctx, s.Store.R(), org, id)
}

// OrgPermissionList is GET /orgs/{org}/organization-fine-grained-permissions.
func (s *Service) OrgPermissionList(a Actor) ([]Permission, error) {
	if err := require(a, ReadOrgRoles, WriteOrgRoles); err != nil {
		return nil, err
	}
	return OrgPermissions, nil
}

// OrgRoleInput is a custom organization role as a client sends it.
type OrgRoleInput struct {
	Name        Opt[string]
	Description Opt[string]
	Permissions Opt[[]string]
	BaseRole    Opt[string] // read, triage, write, maintain, admin; "none" clears it (update)
}

// applyOrgRole validates in and sets it on r.
func applyOrgRole(ctx context.Context, q store.Q, r *model.OrganizationRole, in OrgRoleInput, creating bool) error {
	if creating || in.Name.Set && !in.Name.Null {
		name, err := cleanName(orgRoleResource, in.Name.Value)
		if err != nil {
			return err
		}
		for _, p := range Predefined {
			if strings.EqualFold(p.Name, name) {
				return taken(orgRoleResource, name)
			}
		}
		if other, err := q.OrgRoleByName(ctx, r.OrgID, name); err == nil && other.ID != r.ID {
			return taken(orgRoleResource, name)
		} else if err != nil && !errors.Is(err, model.ErrNotFound) {
			return err
		}
		r.Name = name
	}
	if in.Description.Set {
		r.Description = cleanDescription(in.Description)
	}
	if in.BaseRole.Set && !in.BaseRole.Null {
		switch in.BaseRole.Value {
		case "none", "":
			r.BaseRole = ""
		case "read", "triage", "write", "maintain", "admin":
			r.BaseRole = in.BaseRole.Value
		default:
			return &model.ValidationError{Errors: []model.FieldError{{Resource: orgRoleResource, Field: "base_role", Code: "invalid", Value: in.BaseRole.Value}}}
		}
	}
	if creating || in.Permissions.Set && !in.Permissions.Null {
		perms, err := cleanPerms(orgRoleResource, in.Permissions.Value, func(p string) bool { return orgPermSet[p] || repoPermSet[p] })
		if err != nil {
			return err
		}
		r.Permissions = perms
	}
	repoPerms := false
	for _, p := range r.Permissions {
		repoPerms = repoPerms || repoPermSet[p]
	}
	if repoPerms && r.BaseRole == "" {
		return model.Custom(orgRoleResource, "base_role", "A base role is required for a role with repository permissions.")
	}
	if len(r.Permissions) == 0 && r.BaseRole == "" {
		return model.Custom(orgRoleResource, "permissions", "A role needs at least one permission or a base role.")
	}
	return nil
}

// CreateOrgRole makes a custom organization role.
func (s *Service) CreateOrgRole(ctx context.Context, org *model.Account, a Actor, in OrgRoleInput) (*model.OrganizationRole, error) {
	if err := require(a, WriteOrgRoles); err != nil {
		return nil, err
	}
	r := &model.OrganizationRole{OrgID: org.ID, Source: model.RoleSourceOrganization}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := applyOrgRole(ctx, tx, r, in, true); err != nil {
			return err
		}
		if err := tx.CreateOrgRole(ctx, r, IsPredefined); errors.Is(err, store.ErrDuplicate) {
			return taken(orgRoleResource, r.Name)
		} else if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "organization_role", a.id(), 0, org.ID, map[string]any{"action": "created",
			"role_id": r.ID, "name": r.Name, "base_role": r.BaseRole, "permissions": r.Permissions})
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// errPredefined refuses changes to a predefined role.
func errPredefined(r *model.OrganizationRole) error {
	return model.Custom(orgRoleResource, "id", "The predefined role "+r.Name+" cannot be changed or deleted.")
}

// UpdateOrgRole edits a custom organization role; its holders' access
// follows a new base role at once.
func (s *Service) UpdateOrgRole(ctx context.Context, org *model.Account, a Actor, id int64, in OrgRoleInput) (*model.OrganizationRole, error) {
	if err := require(a, WriteOrgRoles); err != nil {
		return nil, err
	}
	var out *model.OrganizationRole
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		r, err := s.orgRole(ctx, tx, org, id)
		if err != nil {
			return err
		}
		if r.Source == model.RoleSourcePredefined {
			return errPredefined(r)
		}
		if err := applyOrgRole(ctx, tx, r, in, false); err != nil {
			return err
		}
		if err := tx.UpdateOrgRole(ctx, r, baseLevel(r.BaseRole)); errors.Is(err, store.ErrDuplicate) {
			return taken(orgRoleResource, r.Name)
		} else if err != nil {
			return err
		}
		out = r
		return tx.AppendEvent(ctx, "organization_role", a.id(), 0, org.ID, map[string]any{"action": "edited",
			"role_id": r.ID, "name": r.Name, "base_role": r.BaseRole, "permissions": r.Permissions})
	})
	return out, err
}

// DeleteOrgRole removes a custom organization role and its assignments.
func (s *Service) DeleteOrgRole(ctx context.Context, org *model.Account, a Actor, id int64) error {
	if err := require(a, WriteOrgRoles); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		r, err := s.orgRole(ctx, tx, org, id)
		if errors.Is(err, model.ErrNotFound) {
			return nil // GitHub answers 204 for a role that is not there
		}
		if err != nil {
			return err
		}
		if r.Source == model.RoleSourcePredefined {
			return errPredefined(r)
		}
		if err := tx.DeleteOrgRole(ctx, org.ID, r.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "organization_role", a.id(), 0, org.ID, map[string]any{"action": "deleted",
			"role_id": r.ID, "name": r.Name})
	})
}

// Holder names who a role is assigned to: a user's login or a team's
// slug.
type Holder struct {
	Login, TeamSlug string
}

// holder resolves h in org: a user (organizations are not users) or a
// team of org; model.ErrNotFound when there is none.
func holder(ctx context.Context, q store.Q, org *model.Account, h Holder) (store.OrgRoleHolder, map[string]any, error) {
	if h.TeamSlug != "" {
		t, err := q.TeamBySlug(ctx, org.ID, h.TeamSlug)
		if err != nil {
			return store.OrgRoleHolder{}, nil, err
		}
		return store.OrgRoleHolder{TeamID: t.ID}, map[string]any{"team_id": t.ID, "team": t.Slug}, nil
	}
	u, err := q.AccountByLogin(ctx, h.Login)
	if err != nil {
		return store.OrgRoleHolder{}, nil, err
	}
	if u.IsOrg() {
		return store.OrgRoleHolder{}, nil, model.ErrNotFound
	}
	return store.OrgRoleHolder{UserID: u.ID}, map[string]any{"user_id": u.ID, "user": u.Login}, nil
}

// Assign gives role id to a member or a team of org. Only owners assign
// roles; a user must be an active member.
func (s *Service) Assign(ctx context.Context, org *model.Account, a Actor, h Holder, id int64) error {
	if err := requireOwner(a); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		who, payload, err := holder(ctx, tx, org, h)
		if err != nil {
			return err
		}
		r, err := s.orgRole(ctx, tx, org, id)
		if err != nil {
			return err
		}
		if who.UserID != 0 {
			m, err := tx.Membership(ctx, org.ID, who.UserID)
			if err != nil && !errors.Is(err, model.ErrNotFound) {
				return err
			}
			if err != nil || m.State != store.StateActive {
				return model.Unprocessable("User must be a member of the organization to be assigned an organization role.")
			}
		}
		added, err := tx.AssignOrgRole(ctx, org.ID, r.ID, who, baseLevel(r.BaseRole))
		if err != nil || !added {
			return err
		}
		payload["action"], payload["role_id"], payload["name"] = "assigned", r.ID, r.Name
		return tx.AppendEvent(ctx, "organization_role", a.id(), 0, org.ID, payload)
	})
}

// Revoke takes role id (0: every role) from a user or a team of org; it
// answers alike whether or not they had it.
func (s *Service) Revoke(ctx context.Context, org *model.Account, a Actor, h Holder, id int64) error {
	if err := requireOwner(a); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		who, payload, err := holder(ctx, tx, org, h)
		if err != nil {
			return err
		}
		if id != 0 {
			if _, err := s.orgRole(ctx, tx, org, id); err != nil {
				return err
			}
		}
		gone, err := tx.RevokeOrgRoles(ctx, org.ID, id, who)
		if err != nil {
			return err
		}
		for _, rid := range gone {
			p := map[string]any{"action": "revoked", "role_id": rid}
			for k, v := range payload {
				p[k] = v
			}
			if err := tx.AppendEvent(ctx, "organization_role", a.id(), 0, org.ID, p); err != nil {
				return err
			}
		}
		return nil
	})
}

// RoleUser is a user holding a role and how.
type RoleUser struct {
	User       *model.Account
	Assignment model.RoleAssignment
}

// RoleUsers is a page of the active members holding role id (assigned to
// them or to a team they are in or below), with the total.
func (s *Service) RoleUsers(ctx context.Context, org *model.Account, a Actor, id int64, limit, offset int) ([]RoleUser, int, error) {
	if err := requireOwner(a); err != nil {
		return nil, 0, err
	}
	q := s.Store.R()
	r, err := s.orgRole(ctx, q, org, id)
	if err != nil {
		return nil, 0, err
	}
	list, total, err := q.OrgRoleUsers(ctx, org.ID, r.ID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	ids := make([]int64, len(list))
	for i, u := range list {
		ids[i] = u.ID
	}
	how, err := q.OrgRoleUserAssignments(ctx, org.ID, r.ID, ids)
	if err != nil {
		return nil, 0, err
	}
	out := make([]RoleUser, len(list))
	for i, u := range list {
		out[i] = RoleUser{User: u}
		if h := how[u.ID]; h != nil {
			out[i].Assignment = *h
		}
	}
	return out, total, nil
}

// RoleTeam is a team holding a role and how.
type RoleTeam struct {
	Team       *model.Team
	Assignment model.RoleAssignment
	Base       authz.Permission // the role's base level
}

// RoleTeams is a page of the teams holding role id (assigned to them or to
// an ancestor), with the total.
func (s *Service) RoleTeams(ctx context.Context, org *model.Account, a Actor, id int64, limit, offset int) ([]RoleTeam, int, error) {
	if err := requireOwner(a); err != nil {
		return nil, 0, err
	}
	q := s.Store.R()
	r, err := s.orgRole(ctx, q, org, id)
	if err != nil {
		return nil, 0, err
	}
	list, total, err := q.OrgRoleTeams(ctx, org.ID, r.ID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	assigned, err := q.OrgRoleAssignedTeams(ctx, org.ID, r.ID)
	if err != nil {
		return nil, 0, err
	}
	parents, err := q.TeamParents(ctx, org.ID)
	if err != nil {
		return nil, 0, err
	}
	byID := map[int64]*model.Team{}
	out := make([]RoleTeam, len(list))
	for i, t := range list {
		out[i] = RoleTeam{Team: t, Base: baseLevel(r.BaseRole), Assignment: model.RoleAssignment{Direct: assigned[t.ID]}}
		for p := parents[t.ID]; p != 0; p = parents[p] {
			if !assigned[p] {
				continue
			}
			anc := byID[p]
			if anc == nil {
				if anc, err = q.TeamByID(ctx, p); err != nil {
					return nil, 0, err
				}
				byID[p] = anc
			}
			out[i].Assignment.Teams = append(out[i].Assignment.Teams, anc)
		}
	}
	return out, total, nil
}
