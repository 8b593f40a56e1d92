// Package roles is the service of organization roles and custom repository
// roles. Organization roles (GitHub's predefined all_repo_* roles and an
// organization's custom ones) are assigned to members and teams: their
// base role gives that level on every repository of the organization
// (authz.RepoFacts.OrgRoles), and their organization permissions let
// holders manage roles. Custom repository roles are granted to
// collaborators and teams on single repositories and act as their base
// role in every check (see Grant). The package holds who may see and
// manage both, their validation, and the grant names other domains accept.
package roles

import (
	"context"
	"errors"
	"sort"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service is the roles service.
type Service struct {
	Store *store.Store
}

// New makes the service.
func New(s *store.Store) *Service { return &Service{Store: s} }

// Actor is who acts on an organization's roles: a user, their active role
// in the organization ("" when none) and the organization permissions
// their organization roles give them.
type Actor struct {
	User  *model.Account
	Role  model.OrgRole
	perms map[string]bool
}

// Owner reports whether the actor owns the organization.
func (a Actor) Owner() bool { return a.Role == model.RoleAdmin }

// Member reports whether the actor is an active member.
func (a Actor) Member() bool { return a.Role != "" }

// Holds reports whether the actor may do what an organization permission
// allows: owners may do everything, members what their roles include.
func (a Actor) Holds(perm string) bool { return a.Owner() || a.Member() && a.perms[perm] }

func (a Actor) id() int64 {
	if a.User == nil {
		return 0
	}
	return a.User.ID
}

// ActorIn is u's standing in org.
func (s *Service) ActorIn(ctx context.Context, org *model.Account, u *model.Account) (Actor, error) {
	a := Actor{User: u, perms: map[string]bool{}}
	if u == nil {
		return a, nil
	}
	q := s.Store.R()
	m, err := q.Membership(ctx, org.ID, u.ID)
	if errors.Is(err, model.ErrNotFound) {
		return a, nil
	}
	if err != nil {
		return a, err
	}
	if m.State != store.StateActive {
		return a, nil
	}
	a.Role = m.Role
	ids, err := q.OrgRoleIDsOf(ctx, org.ID, u.ID)
	if err != nil || len(ids) == 0 {
		return a, err
	}
	held := map[int64]bool{}
	for _, id := range ids {
		held[id] = true
	}
	own, err := q.OrgRoles(ctx, org.ID)
	if err != nil {
		return a, err
	}
	for _, r := range append(own, Predefined...) {
		if held[r.ID] {
			for _, p := range r.Permissions {
				a.perms[p] = true
			}
		}
	}
	return a, nil
}

// errNotOwner is GitHub's 403 for a member who may not manage the
// organization (its wording names repositories for organizations too).
var errNotOwner = model.Forbidden("Must have admin rights to Repository.")

// require lets the actor through when they hold one of perms (owners hold
// every permission): anyone outside the organization finds nothing, a
// member without them is refused.
func require(a Actor, perms ...string) error {
	for _, p := range perms {
		if a.Holds(p) {
			return nil
		}
	}
	if !a.Member() {
		return model.ErrNotFound
	}
	return errNotOwner
}

// MayWriteOrgRoles is nil when the actor may create, change and delete
// custom organization roles (transports check it before reading a body).
func MayWriteOrgRoles(a Actor) error { return require(a, WriteOrgRoles) }

// MayWriteRepoRoles is nil when the actor may create, change and delete
// custom repository roles.
func MayWriteRepoRoles(a Actor) error { return require(a, WriteRepoRoles) }

// requireOwner lets owners through only.
func requireOwner(a Actor) error {
	if a.Owner() {
		return nil
	}
	if !a.Member() {
		return model.ErrNotFound
	}
	return errNotOwner
}

// Opt is an optional value of a request: Set when present, Null when sent
// as null.
type Opt[T any] struct {
	Set, Null bool
	Value     T
}

// cleanPerms checks permission names against known (and also for
// repository permissions) and drops duplicates, keeping the order.
func cleanPerms(resource string, in []string, known func(string) bool) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, p := range in {
		if !known(p) {
			return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: resource, Field: "permissions", Code: "invalid", Value: p}}}
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

func missing(resource, field string) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: resource, Field: field, Code: "missing_field"}}}
}

func taken(resource, name string) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: resource, Field: "name", Code: "already_exists", Value: name}}}
}

// cleanName trims a role name; empty is a missing field.
func cleanName(resource, name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", missing(resource, "name")
	}
	if len(name) > 100 {
		return "", &model.ValidationError{Errors: []model.FieldError{{Resource: resource, Field: "name", Code: "invalid", Value: name}}}
	}
	return name, nil
}

func cleanDescription(d Opt[string]) *string {
	if d.Null || strings.TrimSpace(d.Value) == "" {
		return nil
	}
	v := d.Value
	return &v
}

// baseLevel is a base role as a level (None for "" and "none").
func baseLevel(base string) authz.Permission {
	p, _ := authz.ParsePermission(base)
	return p
}

// Grant is what a collaborator or a team is given on a repository: a
// level, or an organization's custom repository role (RoleID, Role), which
// acts as its base level Perm in every check.
type Grant struct {
	Perm   authz.Permission
	RoleID int64
	Role   string
}

// Name is the grant's role_name: the custom role's name or the level's.
func (g Grant) Name() string {
	if g.RoleID != 0 {
		return g.Role
	}
	return g.Perm.String()
}

// CustomGrant finds the custom repository role of an organization named
// name (ignoring case) as a grant; model.ErrNotFound when there is none.
func CustomGrant(ctx context.Context, q store.Q, orgID int64, name string) (Grant, error) {
	if orgID == 0 || name == "" {
		return Grant{}, model.ErrNotFound
	}
	r, err := q.CustomRepoRoleByName(ctx, orgID, name)
	if err != nil {
		return Grant{}, err
	}
	return Grant{Perm: baseLevel(r.BaseRole), RoleID: r.ID, Role: r.Name}, nil
}

// sortRoles orders roles by id.
func sortRoles(list []*model.OrganizationRole) {
	sort.SliceStable(list, func(i, j int) bool { return list[i].ID < list[j].ID })
}
