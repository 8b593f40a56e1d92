package enterpriseteams

import (
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/enterprise"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// Enterprise roles (docs: enterprise-admin/enterprise-roles) live here
// because they are assigned to enterprise teams.

const noteRoles = "GitHub's predefined enterprise roles (1 app_manager, 2 security_manager); custom enterprise roles have " +
	"no REST operations and are not kept. Assignments to users and enterprise teams are stored, listed (a team's members " +
	"hold its roles: assignment indirect, or mixed with a direct one) and revoked. security_manager is enforced where " +
	"hubd has security results: its holders list and manage every organization's repository security advisories as " +
	"the organization's security managers do; its repository-contents read and app_manager's app registrations grant " +
	"nothing yet. Enterprise owners' classic " +
	"tokens, and a GitHub App installed on the enterprise with Enterprise administration (its installation token, or " +
	"its user access token for a site administrator)."

func (a *API) roleRoutes() []rest.Route {
	read, write := []string{"read:enterprise", "admin:enterprise"}, []string{"admin:enterprise"}
	b := "/enterprises/{enterprise}/enterprise-roles"
	return []rest.Route{
		{Method: "GET", Pattern: b, OperationID: "enterprise-admin/list-enterprise-roles", Handler: a.roleList, Scopes: read, Note: noteRoles},
		{Method: "GET", Pattern: b + "/{role_id}", OperationID: "enterprise-admin/get-enterprise-role", Handler: a.roleGet, Scopes: read, Note: noteRoles},
		{Method: "GET", Pattern: b + "/{role_id}/users", OperationID: "enterprise-admin/list-enterprise-role-users", Handler: a.roleUsers, Scopes: read, Note: noteRoles},
		{Method: "GET", Pattern: b + "/{role_id}/teams", OperationID: "enterprise-admin/list-enterprise-role-teams", Handler: a.roleTeams, Scopes: read, Note: noteRoles},
		{Method: "PUT", Pattern: b + "/users/{username}/{role_id}", OperationID: "enterprise-admin/assign-enterprise-role-to-user", Handler: a.roleAssignUser(true), Scopes: write, Note: noteRoles},
		{Method: "DELETE", Pattern: b + "/users/{username}/{role_id}", OperationID: "enterprise-admin/remove-enterprise-user-role-assignment", Handler: a.roleAssignUser(false), Scopes: write, Note: noteRoles},
		{Method: "DELETE", Pattern: b + "/users/{username}", OperationID: "enterprise-admin/remove-all-enterprise-roles-from-user", Handler: a.roleRevokeAllUser, Scopes: write, Note: noteRoles},
		{Method: "PUT", Pattern: b + "/teams/{team_slug}/{role_id}", OperationID: "enterprise-admin/assign-team-to-enterprise-role", Handler: a.roleAssignTeam(true), Scopes: write, Note: noteRoles},
		{Method: "DELETE", Pattern: b + "/teams/{team_slug}/{role_id}", OperationID: "enterprise-admin/revoke-enterprise-role-team", Handler: a.roleAssignTeam(false), Scopes: write, Note: noteRoles},
		{Method: "DELETE", Pattern: b + "/teams/{team_slug}", OperationID: "enterprise-admin/revoke-all-enterprise-roles-team", Handler: a.roleRevokeAllTeam, Scopes: write, Note: noteRoles},
	}
}

// Role is components/schemas/enterprise-role.
type Role struct {
	ID          int64           `json:"id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Source      string          `json:"source"`
	Permissions []string        `json:"permissions"`
	Enterprise  wire.Enterprise `json:"enterprise"`
	CreatedAt   string          `json:"created_at"`
	UpdatedAt   string          `json:"updated_at"`
}

// RoleUser is components/schemas/enterprise-user-role-assignment.
type RoleUser struct {
	wire.SimpleUser
	Assignment    string `json:"assignment"`
	InheritedFrom []Team `json:"inherited_from"`
}

func (a *API) toRole(r enterprise.Role) Role {
	at := wire.Time(enterprise.RolesCreated())
	return Role{ID: r.ID, Name: r.Name, Description: r.Description, Source: "Predefined", Permissions: r.Permissions,
		Enterprise: a.d.URLs.ToEnterprise(), CreatedAt: at, UpdatedAt: at}
}

func (a *API) roleAuth(r *http.Request, scope string) (*authz.Caller, error) {
	return a.d.RequireEnterpriseOwner(r, scope, "manage enterprise roles")
}

func roleID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("role_id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, model.ErrNotFound
	}
	return id, nil
}

// GET /enterprises/{enterprise}/enterprise-roles
func (a *API) roleList(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.roleAuth(r, "read:enterprise"); err != nil {
		return err
	}
	list := a.roles.ListRoles()
	out := make([]Role, len(list))
	for i, x := range list {
		out[i] = a.toRole(x)
	}
	return rest.JSON(w, http.StatusOK, map[string]any{"total_count": len(out), "roles": out})
}

// GET /enterprises/{enterprise}/enterprise-roles/{role_id}
func (a *API) roleGet(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.roleAuth(r, "read:enterprise"); err != nil {
		return err
	}
	id, err := roleID(r)
	if err != nil {
		return err
	}
	role, err := a.roles.GetRole(id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.toRole(role))
}

// GET /enterprises/{enterprise}/enterprise-roles/{role_id}/users
func (a *API) roleUsers(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.roleAuth(r, "read:enterprise"); err != nil {
		return err
	}
	id, err := roleID(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.roles.RoleUsers(r.Context(), id, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]RoleUser, len(list))
	for i, h := range list {
		ru := RoleUser{SimpleUser: a.d.URLs.ToSimpleUser(h.User), InheritedFrom: make([]Team, len(h.Teams))}
		for k, t := range h.Teams {
			ru.InheritedFrom[k] = a.toTeam(t)
		}
		switch {
		case h.Direct && len(h.Teams) > 0:
			ru.Assignment = "mixed"
		case h.Direct:
			ru.Assignment = "direct"
		default:
			ru.Assignment = "indirect"
		}
		out[i] = ru
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /enterprises/{enterprise}/enterprise-roles/{role_id}/teams
func (a *API) roleTeams(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.roleAuth(r, "read:enterprise"); err != nil {
		return err
	}
	id, err := roleID(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.roles.RoleTeams(r.Context(), id, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]Team, len(list))
	for i, t := range list {
		out[i] = a.toTeam(t)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// PUT and DELETE /enterprises/{enterprise}/enterprise-roles/users/{username}/{role_id}
func (a *API) roleAssignUser(on bool) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := a.roleAuth(r, "admin:enterprise")
		if err != nil {
			return err
		}
		id, err := roleID(r)
		if err != nil {
			return err
		}
		if err := a.roles.AssignUser(r.Context(), c.UserID(), r.PathValue("username"), id, on); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}

// PUT and DELETE /enterprises/{enterprise}/enterprise-roles/teams/{team_slug}/{role_id}
func (a *API) roleAssignTeam(on bool) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := a.roleAuth(r, "admin:enterprise")
		if err != nil {
			return err
		}
		id, err := roleID(r)
		if err != nil {
			return err
		}
		if err := a.roles.AssignTeam(r.Context(), c.UserID(), r.PathValue("team_slug"), id, on); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}

// DELETE /enterprises/{enterprise}/enterprise-roles/users/{username}
func (a *API) roleRevokeAllUser(w http.ResponseWriter, r *http.Request) error {
	c, err := a.roleAuth(r, "admin:enterprise")
	if err != nil {
		return err
	}
	if err := a.roles.RevokeAllUser(r.Context(), c.UserID(), r.PathValue("username")); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// DELETE /enterprises/{enterprise}/enterprise-roles/teams/{team_slug}
func (a *API) roleRevokeAllTeam(w http.ResponseWriter, r *http.Request) error {
	c, err := a.roleAuth(r, "admin:enterprise")
	if err != nil {
		return err
	}
	if err := a.roles.RevokeAllTeam(r.Context(), c.UserID(), r.PathValue("team_slug")); err != nil {
		return err
	}
	return rest.NoContent(w)
}
