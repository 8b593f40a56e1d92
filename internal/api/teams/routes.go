// Package teams is the REST adapter of organization teams: it parses
// requests, calls the teams service and writes GitHub's shapes.
package teams

import (
	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/teams"
)

// API is the teams package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, svc: svc.New(d.Store)} }

// Classic scopes of the route table.
var (
	readOrg  = []string{"admin:org", "read:org", "write:org"}
	writeOrg = []string{"admin:org", "write:org"}
	repoOrg  = []string{"admin:org", "repo"}
)

// customRoles is the limit of team grants: a custom repository role acts
// as its base role.
const customRoles = "A custom repository role name is accepted and acts as the role's base role in every check; its additional repository permissions are recorded, not enforced."

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	const t, l = "/orgs/{org}/teams/{team_slug}", "/teams/{team_id}"
	return []rest.Route{
		{Method: "GET", Pattern: "/orgs/{org}/teams", OperationID: "teams/list", Handler: a.list, Scopes: readOrg},
		{Method: "POST", Pattern: "/orgs/{org}/teams", OperationID: "teams/create", Handler: a.create, Scopes: writeOrg,
			Note: "LDAP mapping (ldap_dn) is not supported."},
		{Method: "GET", Pattern: t, OperationID: "teams/get-by-name", Handler: a.get, Scopes: readOrg},
		{Method: "PATCH", Pattern: t, OperationID: "teams/update-in-org", Handler: a.update, Scopes: writeOrg},
		{Method: "DELETE", Pattern: t, OperationID: "teams/delete-in-org", Handler: a.delete, Scopes: writeOrg},

		{Method: "GET", Pattern: t + "/members", OperationID: "teams/list-members-in-org", Handler: a.members, Scopes: readOrg},
		{Method: "GET", Pattern: t + "/memberships/{username}", OperationID: "teams/get-membership-for-user-in-org", Handler: a.getMembership, Scopes: readOrg},
		{Method: "PUT", Pattern: t + "/memberships/{username}", OperationID: "teams/add-or-update-membership-for-user-in-org", Handler: a.setMembership, Scopes: writeOrg},
		{Method: "DELETE", Pattern: t + "/memberships/{username}", OperationID: "teams/remove-membership-for-user-in-org", Handler: a.removeMembership, Scopes: writeOrg},
		{Method: "GET", Pattern: t + "/invitations", OperationID: "teams/list-pending-invitations-in-org", Handler: a.invitations, Scopes: readOrg},

		{Method: "GET", Pattern: t + "/repos", OperationID: "teams/list-repos-in-org", Handler: a.repos, Scopes: readOrg},
		{Method: "GET", Pattern: t + "/repos/{owner}/{repo}", OperationID: "teams/check-permissions-for-repo-in-org", Handler: a.checkRepo, Scopes: readOrg},
		{Method: "PUT", Pattern: t + "/repos/{owner}/{repo}", OperationID: "teams/add-or-update-repo-permissions-in-org", Handler: a.addRepo, Scopes: repoOrg,
			Note: customRoles},
		{Method: "DELETE", Pattern: t + "/repos/{owner}/{repo}", OperationID: "teams/remove-repo-in-org", Handler: a.removeRepo, Scopes: repoOrg},

		{Method: "GET", Pattern: t + "/teams", OperationID: "teams/list-child-in-org", Handler: a.children, Scopes: readOrg},

		// The legacy routes find the team by id and behave alike.
		{Method: "GET", Pattern: l, OperationID: "teams/get-legacy", Handler: a.get, Scopes: readOrg},
		{Method: "PATCH", Pattern: l, OperationID: "teams/update-legacy", Handler: a.update, Scopes: writeOrg},
		{Method: "DELETE", Pattern: l, OperationID: "teams/delete-legacy", Handler: a.delete, Scopes: writeOrg},
		{Method: "GET", Pattern: l + "/members", OperationID: "teams/list-members-legacy", Handler: a.members, Scopes: readOrg},
		{Method: "GET", Pattern: l + "/memberships/{username}", OperationID: "teams/get-membership-for-user-legacy", Handler: a.getMembership, Scopes: readOrg},
		{Method: "PUT", Pattern: l + "/memberships/{username}", OperationID: "teams/add-or-update-membership-for-user-legacy", Handler: a.setMembership, Scopes: writeOrg},
		{Method: "DELETE", Pattern: l + "/memberships/{username}", OperationID: "teams/remove-membership-for-user-legacy", Handler: a.removeMembership, Scopes: writeOrg},
		{Method: "GET", Pattern: l + "/invitations", OperationID: "teams/list-pending-invitations-legacy", Handler: a.invitations, Scopes: readOrg},
		{Method: "GET", Pattern: l + "/members/{username}", OperationID: "teams/get-member-legacy", Handler: a.getMemberLegacy, Scopes: readOrg},
		{Method: "PUT", Pattern: l + "/members/{username}", OperationID: "teams/add-member-legacy", Handler: a.addMemberLegacy, Scopes: repoOrg},
		{Method: "DELETE", Pattern: l + "/members/{username}", OperationID: "teams/remove-member-legacy", Handler: a.removeMemberLegacy, Scopes: repoOrg},
		{Method: "GET", Pattern: l + "/repos", OperationID: "teams/list-repos-legacy", Handler: a.repos, Scopes: readOrg},
		{Method: "GET", Pattern: l + "/repos/{owner}/{repo}", OperationID: "teams/check-permissions-for-repo-legacy", Handler: a.checkRepo, Scopes: readOrg},
		{Method: "PUT", Pattern: l + "/repos/{owner}/{repo}", OperationID: "teams/add-or-update-repo-permissions-legacy", Handler: a.addRepo, Scopes: repoOrg,
			Note: customRoles},
		{Method: "DELETE", Pattern: l + "/repos/{owner}/{repo}", OperationID: "teams/remove-repo-legacy", Handler: a.removeRepo, Scopes: repoOrg},
		{Method: "GET", Pattern: l + "/teams", OperationID: "teams/list-child-legacy", Handler: a.children, Scopes: readOrg},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/teams", OperationID: "repos/list-teams", Handler: a.repoTeams, Scopes: []string{"public_repo", "repo"}},

		{Method: "GET", Pattern: "/user/teams", OperationID: "teams/list-for-authenticated-user", Handler: a.listForUser, Scopes: []string{"read:org", "repo", "user"}},
	}
}
