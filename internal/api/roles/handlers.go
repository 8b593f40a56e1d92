package roles

import (
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/roles"
	"github.com/hubd/hubd/internal/wire"
)

// Fine-grained permissions (of fine-grained and app tokens) of the
// operations: "Custom organization roles", "Custom repository roles" (or
// "Administration"), and "Members" for assignments.
var (
	orgRolesPerm  = []string{"organization_custom_org_roles"}
	repoRolesPerm = []string{"organization_custom_roles", "organization_administration"}
	membersPerm   = []string{"members"}
)

// allowed checks that the caller's token may use the operation: one of the
// classic scopes for classic and OAuth tokens, one of the fine-grained
// permissions at level ("read" or "write") for the other kinds.
func allowed(c *authz.Caller, scopes, perms []string, level string) error {
	ok := false
	switch c.Kind {
	case authz.ClassicPAT, authz.OAuthApp:
		for _, s := range scopes {
			ok = ok || c.HasScope(s)
		}
	default:
		for _, p := range perms {
			got := c.Permissions[p]
			ok = ok || got == "admin" || got == "write" || got == level
		}
	}
	if ok {
		return nil
	}
	if c.Kind == authz.UserToServer || c.Kind == authz.Installation {
		return model.Forbidden("Resource not accessible by integration")
	}
	return model.Forbidden("Resource not accessible by personal access token")
}

// org loads the path's organization ({org}, or {organization_id} on the
// closing-down list) and the caller's standing in it, after checking the
// token.
func (a *API) org(r *http.Request, scopes, perms []string, level string) (*model.Account, svc.Actor, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, svc.Actor{}, err
	}
	var org *model.Account
	if s := r.PathValue("organization_id"); s != "" {
		id, perr := strconv.ParseInt(s, 10, 64)
		if perr != nil || id <= 0 {
			return nil, svc.Actor{}, model.ErrNotFound
		}
		org, err = a.d.Store.R().AccountByID(r.Context(), id)
		if err == nil && !org.IsOrg() {
			err = model.ErrNotFound
		}
	} else {
		org, err = a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
	}
	if err != nil {
		return nil, svc.Actor{}, err
	}
	if err := allowed(c, scopes, perms, level); err != nil {
		return nil, svc.Actor{}, err
	}
	act, err := a.svc.ActorIn(r.Context(), org, c.User)
	return org, act, err
}

// roleID reads {role_id}; anything but a positive number names no role.
func roleID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("role_id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, model.ErrNotFound
	}
	return id, nil
}

func opt[T any](o rest.Opt[T]) svc.Opt[T] {
	return svc.Opt[T]{Set: o.Set, Null: o.Null, Value: o.Value}
}

// GET /orgs/{org}/organization-roles
func (a *API) listOrgRoles(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, adminOrg, orgRolesPerm, "read")
	if err != nil {
		return err
	}
	list, err := a.svc.OrgRoles(r.Context(), org, act)
	if err != nil {
		return err
	}
	out := wire.OrganizationRoles{TotalCount: len(list), Roles: make([]wire.OrganizationRole, len(list))}
	for i, role := range list {
		out.Roles[i] = a.d.URLs.ToOrganizationRole(role, org)
	}
	return rest.JSON(w, http.StatusOK, out)
}

// GET /orgs/{org}/organization-roles/{role_id}
func (a *API) getOrgRole(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, adminOrg, orgRolesPerm, "read")
	if err != nil {
		return err
	}
	id, err := roleID(r)
	if err != nil {
		return err
	}
	role, err := a.svc.OrgRole(r.Context(), org, act, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToOrganizationRole(role, org))
}

type orgRoleBody struct {
	Name        rest.Opt[string]   `json:"name"`
	Description rest.Opt[string]   `json:"description"`
	Permissions rest.Opt[[]string] `json:"permissions"`
	BaseRole    rest.Opt[string]   `json:"base_role"`
}

func (b orgRoleBody) input() svc.OrgRoleInput {
	return svc.OrgRoleInput{Name: opt(b.Name), Description: opt(b.Description), Permissions: opt(b.Permissions), BaseRole: opt(b.BaseRole)}
}

// POST /orgs/{org}/organization-roles
func (a *API) createOrgRole(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, adminOrg, orgRolesPerm, "write")
	if err != nil {
		return err
	}
	if err := svc.MayWriteOrgRoles(act); err != nil {
		return err
	}
	var in orgRoleBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	role, err := a.svc.CreateOrgRole(r.Context(), org, act, in.input())
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, a.d.URLs.ToOrganizationRole(role, org))
}

// PATCH /orgs/{org}/organization-roles/{role_id}
func (a *API) updateOrgRole(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, adminOrg, orgRolesPerm, "write")
	if err != nil {
		return err
	}
	id, err := roleID(r)
	if err != nil {
		return err
	}
	if err := svc.MayWriteOrgRoles(act); err != nil {
		return err
	}
	var in orgRoleBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	role, err := a.svc.UpdateOrgRole(r.Context(), org, act, id, in.input())
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToOrganizationRole(role, org))
}

// DELETE /orgs/{org}/organization-roles/{role_id}
func (a *API) deleteOrgRole(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, adminOrg, orgRolesPerm, "write")
	if err != nil {
		return err
	}
	id, err := roleID(r)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteOrgRole(r.Context(), org, act, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// holder is the user or team a path names.
func holder(r *http.Request) svc.Holder {
	return svc.Holder{Login: r.PathValue("username"), TeamSlug: r.PathValue("team_slug")}
}

// PUT /orgs/{org}/organization-roles/users/{username}/{role_id} and
// .../teams/{team_slug}/{role_id}
func (a *API) assign(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, adminOrg, membersPerm, "write")
	if err != nil {
		return err
	}
	id, err := roleID(r)
	if err != nil {
		return err
	}
	if err := a.svc.Assign(r.Context(), org, act, holder(r), id); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// DELETE .../users/{username}/{role_id}, .../users/{username} and the
// teams' routes: without {role_id}, every role goes.
func (a *API) revoke(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, adminOrg, membersPerm, "write")
	if err != nil {
		return err
	}
	var id int64
	if r.PathValue("role_id") != "" {
		if id, err = roleID(r); err != nil {
			return err
		}
	}
	if err := a.svc.Revoke(r.Context(), org, act, holder(r), id); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /orgs/{org}/organization-roles/{role_id}/users
func (a *API) roleUsers(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, adminOrg, membersPerm, "read")
	if err != nil {
		return err
	}
	id, err := roleID(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.RoleUsers(r.Context(), org, act, id, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.UserRoleAssignment, len(list))
	for i, u := range list {
		out[i] = a.d.URLs.ToUserRoleAssignment(u.User, u.Assignment)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /orgs/{org}/organization-roles/{role_id}/teams
func (a *API) roleTeams(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, adminOrg, membersPerm, "read")
	if err != nil {
		return err
	}
	id, err := roleID(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.RoleTeams(r.Context(), org, act, id, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.TeamRoleAssignment, len(list))
	for i, t := range list {
		out[i] = a.d.URLs.ToTeamRoleAssignment(t.Team, t.Assignment, t.Base)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

func permissions(list []svc.Permission) []wire.FineGrainedPermission {
	out := make([]wire.FineGrainedPermission, len(list))
	for i, p := range list {
		out[i] = wire.FineGrainedPermission{Name: p.Name, Description: p.Description}
	}
	return out
}

// GET /orgs/{org}/organization-fine-grained-permissions
func (a *API) orgPermissions(w http.ResponseWriter, r *http.Request) error {
	_, act, err := a.org(r, adminOrg, orgRolesPerm, "read")
	if err != nil {
		return err
	}
	list, err := a.svc.OrgPermissionList(act)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, permissions(list))
}

// GET /orgs/{org}/repository-fine-grained-permissions (and the closing-down
// /orgs/{org}/fine_grained_permissions)
func (a *API) repoPermissions(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, adminOrRepo, repoRolesPerm, "read")
	if err != nil {
		return err
	}
	list, err := a.svc.RepoPermissionList(r.Context(), org, act)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, permissions(list))
}

// GET /orgs/{org}/custom-repository-roles (and the closing-down
// /organizations/{organization_id}/custom_roles)
func (a *API) listRepoRoles(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, adminOrRepo, repoRolesPerm, "read")
	if err != nil {
		return err
	}
	list, err := a.svc.RepoRoles(r.Context(), org, act)
	if err != nil {
		return err
	}
	out := wire.CustomRepoRoles{TotalCount: len(list), Roles: make([]wire.CustomRepoRole, len(list))}
	for i, role := range list {
		out.Roles[i] = a.d.URLs.ToCustomRepoRole(role, org)
	}
	return rest.JSON(w, http.StatusOK, out)
}

// GET /orgs/{org}/custom-repository-roles/{role_id}
func (a *API) getRepoRole(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, adminOrRepo, repoRolesPerm, "read")
	if err != nil {
		return err
	}
	id, err := roleID(r)
	if err != nil {
		return err
	}
	role, err := a.svc.RepoRole(r.Context(), org, act, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToCustomRepoRole(role, org))
}

type repoRoleBody struct {
	Name        rest.Opt[string]   `json:"name"`
	Description rest.Opt[string]   `json:"description"`
	BaseRole    rest.Opt[string]   `json:"base_role"`
	Permissions rest.Opt[[]string] `json:"permissions"`
}

func (b repoRoleBody) input() svc.RepoRoleInput {
	return svc.RepoRoleInput{Name: opt(b.Name), Description: opt(b.Description), BaseRole: opt(b.BaseRole), Permissions: opt(b.Permissions)}
}

// POST /orgs/{org}/custom-repository-roles
func (a *API) createRepoRole(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, adminOrg, repoRolesPerm, "write")
	if err != nil {
		return err
	}
	if err := svc.MayWriteRepoRoles(act); err != nil {
		return err
	}
	var in repoRoleBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	role, err := a.svc.CreateRepoRole(r.Context(), org, act, in.input())
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, a.d.URLs.ToCustomRepoRole(role, org))
}

// PATCH /orgs/{org}/custom-repository-roles/{role_id}
func (a *API) updateRepoRole(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, adminOrg, repoRolesPerm, "write")
	if err != nil {
		return err
	}
	id, err := roleID(r)
	if err != nil {
		return err
	}
	if err := svc.MayWriteRepoRoles(act); err != nil {
		return err
	}
	var in repoRoleBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	role, err := a.svc.UpdateRepoRole(r.Context(), org, act, id, in.input())
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToCustomRepoRole(role, org))
}

// DELETE /orgs/{org}/custom-repository-roles/{role_id}
func (a *API) deleteRepoRole(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, adminOrg, repoRolesPerm, "write")
	if err != nil {
		return err
	}
	id, err := roleID(r)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteRepoRole(r.Context(), org, act, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}
