package roles

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

const repoRoleResource = "OrganizationCustomRepositoryRole"

// MaxRepoRoles is how many custom repository roles an organization may
// have, as GitHub documents ("up to 5 custom repository roles").
const MaxRepoRoles = 5

// mayReadRepoRoles lets through those GitHub lets read custom repository
// roles and the repository permissions: organization owners (and holders
// of the roles permissions) and administrators of any of its
// repositories. Anyone else outside the organization finds nothing.
func (s *Service) mayReadRepoRoles(ctx context.Context, org *model.Account, a Actor) error {
	if a.Holds(ReadRepoRoles) || a.Holds(WriteRepoRoles) {
		return nil
	}
	if a.User != nil {
		ok, err := s.Store.R().AdministersAnyRepo(ctx, org.ID, a.User.ID)
		if err != nil || ok {
			return err
		}
	}
	if !a.Member() {
		return model.ErrNotFound
	}
	return errNotOwner
}

// RepoRoles lists the organization's custom repository roles.
func (s *Service) RepoRoles(ctx context.Context, org *model.Account, a Actor) ([]*model.CustomRepoRole, error) {
	if err := s.mayReadRepoRoles(ctx, org, a); err != nil {
		return nil, err
	}
	return s.Store.R().CustomRepoRoles(ctx, org.ID)
}

// RepoRole is one custom repository role of the organization.
func (s *Service) RepoRole(ctx context.Context, org *model.Account, a Actor, id int64) (*model.CustomRepoRole, error) {
	if err := s.mayReadRepoRoles(ctx, org, a); err != nil {
		return nil, err
	}
	return s.Store.R().CustomRepoRole(ctx, org.ID, id)
}

// RepoPermissionList is GET /orgs/{org}/repository-fine-grained-permissions.
func (s *Service) RepoPermissionList(ctx context.Context, org *model.Account, a Actor) ([]Permission, error) {
	if err := s.mayReadRepoRoles(ctx, org, a); err != nil {
		return nil, err
	}
	return RepoPermissions, nil
}

// RepoRoleInput is a custom repository role as a client sends it.
type RepoRoleInput struct {
	Name        Opt[string]
	Description Opt[string]
	BaseRole    Opt[string] // read, triage, write, maintain
	Permissions Opt[[]string]
}

func applyRepoRole(ctx context.Context, q store.Q, r *model.CustomRepoRole, in RepoRoleInput, creating bool) error {
	if creating || in.Name.Set && !in.Name.Null {
		name, err := cleanName(repoRoleResource, in.Name.Value)
		if err != nil {
			return err
		}
		if builtinRepoRoles[strings.ToLower(name)] {
			return model.Custom(repoRoleResource, "name", "Name "+name+" is the name of a built-in repository role.")
		}
		if other, err := q.CustomRepoRoleByName(ctx, r.OrgID, name); err == nil && other.ID != r.ID {
			return taken(repoRoleResource, name)
		} else if err != nil && !errors.Is(err, model.ErrNotFound) {
			return err
		}
		r.Name = name
	}
	if in.Description.Set {
		r.Description = cleanDescription(in.Description)
	}
	if creating || in.BaseRole.Set && !in.BaseRole.Null {
		switch in.BaseRole.Value {
		case "read", "triage", "write", "maintain":
			r.BaseRole = in.BaseRole.Value
		case "":
			return missing(repoRoleResource, "base_role")
		default:
			return &model.ValidationError{Errors: []model.FieldError{{Resource: repoRoleResource, Field: "base_role", Code: "invalid", Value: in.BaseRole.Value}}}
		}
	}
	if creating || in.Permissions.Set && !in.Permissions.Null {
		perms, err := cleanPerms(repoRoleResource, in.Permissions.Value, func(p string) bool { return repoPermSet[p] })
		if err != nil {
			return err
		}
		r.Permissions = perms
	}
	return nil
}

// CreateRepoRole makes a custom repository role.
func (s *Service) CreateRepoRole(ctx context.Context, org *model.Account, a Actor, in RepoRoleInput) (*model.CustomRepoRole, error) {
	if err := require(a, WriteRepoRoles); err != nil {
		return nil, err
	}
	r := &model.CustomRepoRole{OrgID: org.ID}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := applyRepoRole(ctx, tx, r, in, true); err != nil {
			return err
		}
		existing, err := tx.CustomRepoRoles(ctx, org.ID)
		if err != nil {
			return err
		}
		if len(existing) >= MaxRepoRoles {
			return model.Custom(repoRoleResource, "name", "An organization can have up to "+strconv.Itoa(MaxRepoRoles)+" custom repository roles.")
		}
		if err := tx.CreateCustomRepoRole(ctx, r); errors.Is(err, store.ErrDuplicate) {
			return taken(repoRoleResource, r.Name)
		} else if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "custom_repository_role", a.id(), 0, org.ID, map[string]any{"action": "created",
			"role_id": r.ID, "name": r.Name, "base_role": r.BaseRole, "permissions": r.Permissions})
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// UpdateRepoRole edits a custom repository role; a new base role applies
// at once to every grant of the role.
func (s *Service) UpdateRepoRole(ctx context.Context, org *model.Account, a Actor, id int64, in RepoRoleInput) (*model.CustomRepoRole, error) {
	if err := require(a, WriteRepoRoles); err != nil {
		return nil, err
	}
	var out *model.CustomRepoRole
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		r, err := tx.CustomRepoRole(ctx, org.ID, id)
		if err != nil {
			return err
		}
		oldBase := r.BaseRole
		if err := applyRepoRole(ctx, tx, r, in, false); err != nil {
			return err
		}
		if err := tx.UpdateCustomRepoRole(ctx, r); errors.Is(err, store.ErrDuplicate) {
			return taken(repoRoleResource, r.Name)
		} else if err != nil {
			return err
		}
		if r.BaseRole != oldBase {
			if err := tx.SetCustomRepoRoleBase(ctx, r.ID, baseLevel(r.BaseRole)); err != nil {
				return err
			}
		}
		out = r
		return tx.AppendEvent(ctx, "custom_repository_role", a.id(), 0, org.ID, map[string]any{"action": "edited",
			"role_id": r.ID, "name": r.Name, "base_role": r.BaseRole, "permissions": r.Permissions})
	})
	return out, err
}

// DeleteRepoRole removes a custom repository role: the users, teams and
// invitations that had it keep its base role, as GitHub reassigns the
// inherited role.
func (s *Service) DeleteRepoRole(ctx context.Context, org *model.Account, a Actor, id int64) error {
	if err := require(a, WriteRepoRoles); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		r, err := tx.CustomRepoRole(ctx, org.ID, id)
		if errors.Is(err, model.ErrNotFound) {
			return nil // GitHub answers 204 for a role that is not there
		}
		if err != nil {
			return err
		}
		if err := tx.DeleteCustomRepoRole(ctx, r.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "custom_repository_role", a.id(), 0, org.ID, map[string]any{"action": "deleted",
			"role_id": r.ID, "name": r.Name, "base_role": r.BaseRole})
	})
}
