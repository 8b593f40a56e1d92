// Package roles is the REST adapter of organization roles and custom
// repository roles: it parses requests, calls the roles service and writes
// GitHub's shapes.
package roles

import (
	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/roles"
)

// API is the roles package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, svc: svc.New(d.Store)} }

// Classic scopes of the route table.
var (
	adminOrg     = []string{"admin:org"}
	adminOrRepo  = []string{"admin:org", "repo"}
	orgRolesNote = "Organization permissions of custom roles are recorded; hubd enforces the four role-management ones " +
		"(read/write_organization_custom_org_role, read/write_organization_custom_repo_role). Repository permissions " +
		"beyond the base role are recorded, not enforced: the base role gives its level on every repository."
	predefinedNote = "The base role of an assigned role gives its level on every repository of the organization; the " +
		"security and Actions permissions of security_manager and ci_cd_admin have nothing to act on in hubd."
	repoRolesNote = "A custom repository role acts as its base role in every check; its additional repository " +
		"permissions are recorded, not enforced."
	listNote = "The predefined all_repo_read ... all_repo_admin roles carry GitHub's ids (8132-8136); security_manager " +
		"and ci_cd_admin carry hubd's own (8137, 8138)."
	permsNote = "Lists the fine-grained permissions hubd knows, a subset of GitHub's."
)

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	const or, cr = "/orgs/{org}/organization-roles", "/orgs/{org}/custom-repository-roles"
	return []rest.Route{
		{Method: "GET", Pattern: or, OperationID: "orgs/list-org-roles", Handler: a.listOrgRoles, Scopes: adminOrg, Note: listNote},
		{Method: "POST", Pattern: or, OperationID: "orgs/create-custom-organization-role", Handler: a.createOrgRole, Scopes: adminOrg, Note: orgRolesNote},
		{Method: "GET", Pattern: or + "/{role_id}", OperationID: "orgs/get-org-role", Handler: a.getOrgRole, Scopes: adminOrg},
		{Method: "PATCH", Pattern: or + "/{role_id}", OperationID: "orgs/patch-custom-organization-role", Handler: a.updateOrgRole, Scopes: adminOrg, Note: orgRolesNote},
		{Method: "DELETE", Pattern: or + "/{role_id}", OperationID: "orgs/delete-custom-organization-role", Handler: a.deleteOrgRole, Scopes: adminOrg},
		{Method: "GET", Pattern: or + "/{role_id}/users", OperationID: "orgs/list-org-role-users", Handler: a.roleUsers, Scopes: adminOrg},
		{Method: "GET", Pattern: or + "/{role_id}/teams", OperationID: "orgs/list-org-role-teams", Handler: a.roleTeams, Scopes: adminOrg},
		{Method: "PUT", Pattern: or + "/users/{username}/{role_id}", OperationID: "orgs/assign-user-to-org-role", Handler: a.assign, Scopes: adminOrg, Note: predefinedNote},
		{Method: "DELETE", Pattern: or + "/users/{username}/{role_id}", OperationID: "orgs/revoke-org-role-user", Handler: a.revoke, Scopes: adminOrg},
		{Method: "DELETE", Pattern: or + "/users/{username}", OperationID: "orgs/revoke-all-org-roles-user", Handler: a.revoke, Scopes: adminOrg},
		{Method: "PUT", Pattern: or + "/teams/{team_slug}/{role_id}", OperationID: "orgs/assign-team-to-org-role", Handler: a.assign, Scopes: adminOrg, Note: predefinedNote},
		{Method: "DELETE", Pattern: or + "/teams/{team_slug}/{role_id}", OperationID: "orgs/revoke-org-role-team", Handler: a.revoke, Scopes: adminOrg},
		{Method: "DELETE", Pattern: or + "/teams/{team_slug}", OperationID: "orgs/revoke-all-org-roles-team", Handler: a.revoke, Scopes: adminOrg},
		{Method: "GET", Pattern: "/orgs/{org}/organization-fine-grained-permissions", OperationID: "orgs/list-organization-fine-grained-permissions", Handler: a.orgPermissions, Scopes: adminOrg, Note: permsNote},

		{Method: "GET", Pattern: cr, OperationID: "orgs/list-custom-repo-roles", Handler: a.listRepoRoles, Scopes: adminOrRepo},
		{Method: "POST", Pattern: cr, OperationID: "orgs/create-custom-repo-role", Handler: a.createRepoRole, Scopes: adminOrg, Note: repoRolesNote},
		{Method: "GET", Pattern: cr + "/{role_id}", OperationID: "orgs/get-custom-repo-role", Handler: a.getRepoRole, Scopes: adminOrRepo},
		{Method: "PATCH", Pattern: cr + "/{role_id}", OperationID: "orgs/update-custom-repo-role", Handler: a.updateRepoRole, Scopes: adminOrg, Note: repoRolesNote},
		{Method: "DELETE", Pattern: cr + "/{role_id}", OperationID: "orgs/delete-custom-repo-role", Handler: a.deleteRepoRole, Scopes: adminOrg},
		{Method: "GET", Pattern: "/orgs/{org}/repository-fine-grained-permissions", OperationID: "orgs/list-repo-fine-grained-permissions", Handler: a.repoPermissions, Scopes: adminOrRepo, Note: permsNote},

		// The closing-down routes of custom repository roles, on the same
		// roles.
		{Method: "GET", Pattern: "/organizations/{organization_id}/custom_roles", OperationID: "orgs/list-custom-roles", Handler: a.listRepoRoles, Scopes: adminOrRepo},
		{Method: "POST", Pattern: "/orgs/{org}/custom_roles", OperationID: "orgs/create-custom-role", Handler: a.createRepoRole, Scopes: adminOrg, Note: repoRolesNote},
		{Method: "GET", Pattern: "/orgs/{org}/custom_roles/{role_id}", OperationID: "orgs/get-custom-role", Handler: a.getRepoRole, Scopes: adminOrRepo},
		{Method: "PATCH", Pattern: "/orgs/{org}/custom_roles/{role_id}", OperationID: "orgs/update-custom-role", Handler: a.updateRepoRole, Scopes: adminOrg, Note: repoRolesNote},
		{Method: "DELETE", Pattern: "/orgs/{org}/custom_roles/{role_id}", OperationID: "orgs/delete-custom-role", Handler: a.deleteRepoRole, Scopes: adminOrg},
		{Method: "GET", Pattern: "/orgs/{org}/fine_grained_permissions", OperationID: "orgs/list-fine-grained-permissions", Handler: a.repoPermissions, Scopes: adminOrRepo, Note: permsNote},
	}
}
