// Package apps is the REST adapter of GitHub Apps (the "apps" category of
// GitHub's description and GET /orgs/{org}/installations): the app and its
// installations for the app itself (JWT), installation tokens, the
// repositories an installation reaches, installations seen by a user, and
// hubd's site-administration routes that register and install apps. It
// parses requests, calls the apps service (internal/apps) and writes
// GitHub's shapes.
package apps

import (
	"github.com/hubd/hubd/internal/api"
	svc "github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/rest"
)

// API is the apps package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package and its service; revoked tokens leave the
// authentication cache at once.
func New(d *api.Deps) *API {
	s := &svc.Service{Store: d.Store, Revoked: func() {
		if d.Tokens != nil {
			d.Tokens.Flush()
		}
	}}
	return &API{d: d, svc: s}
}

// Service is the apps service.
func (a *API) Service() *svc.Service { return a.svc }

// Notes of the operations hubd serves only in part.
const (
	noteUserInstallations = "The installations on the user's account and on organizations they are an active member of (with a user access token, of its app only); " +
		"installations reaching only repositories the user collaborates on elsewhere are not listed."
	noteUserInstallationRepos = "The installation's repositories the user can see (with a user access token, of its app's installations only)."
	noteListInstallations     = "outdated is accepted and ignored."
	noteEnterprise            = "hubd has one enterprise (GitHub Enterprise Server style: slug from hubd serve --enterprise, default hubd; every organization belongs to it; the site administrators own it). " +
		"Called by an app installed on the enterprise (hubd app install --enterprise): its installation token, or its user access token for a site administrator; " +
		"like GitHub, no other credential (classic tokens of site administrators included) is accepted."
	noteEnterpriseInstall = noteEnterprise + " An app already installed on the organization is unsuspended and answered (200) as it is: hubd has no pending installation or update requests to approve."
	noteGetBySlug         = "Every app is public in hubd: GitHub shows a private app only to its owner and the accounts it is installed on."
)

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	const inst = "/app/installations/{installation_id}"
	const ent = "/enterprises/{enterprise}/apps"
	const entOrg = ent + "/organizations/{org}/installations"
	site := []string{"site_admin"}
	return []rest.Route{
		// The app itself, with a JWT (GET /app also with its installation tokens).
		{Method: "GET", Pattern: "/app", OperationID: "apps/get-authenticated", Handler: a.getApp},
		{Method: "GET", Pattern: "/app/installations", OperationID: "apps/list-installations", Handler: a.listInstallations, Note: noteListInstallations},
		{Method: "GET", Pattern: inst, OperationID: "apps/get-installation", Handler: a.getInstallation},
		{Method: "DELETE", Pattern: inst, OperationID: "apps/delete-installation", Handler: a.deleteInstallation},
		{Method: "POST", Pattern: inst + "/access_tokens", OperationID: "apps/create-installation-access-token", Handler: a.createToken},
		{Method: "PUT", Pattern: inst + "/suspended", OperationID: "apps/suspend-installation", Handler: a.suspend},
		{Method: "DELETE", Pattern: inst + "/suspended", OperationID: "apps/unsuspend-installation", Handler: a.unsuspend},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/installation", OperationID: "apps/get-repo-installation", Handler: a.repoInstallation},
		{Method: "GET", Pattern: "/orgs/{org}/installation", OperationID: "apps/get-org-installation", Handler: a.orgInstallation},
		{Method: "GET", Pattern: "/enterprises/{enterprise}/installation", OperationID: "apps/get-enterprise-installation", Handler: a.enterpriseInstallation},
		{Method: "GET", Pattern: "/users/{username}/installation", OperationID: "apps/get-user-installation", Handler: a.userInstallation},
		{Method: "GET", Pattern: "/apps/{app_slug}", OperationID: "apps/get-by-slug", Handler: a.getBySlug, Note: noteGetBySlug},

		// An installation, with its installation token.
		{Method: "GET", Pattern: "/installation/repositories", OperationID: "apps/list-repos-accessible-to-installation", Handler: a.installationRepos},
		{Method: "DELETE", Pattern: "/installation/token", OperationID: "apps/revoke-installation-access-token", Handler: a.revokeToken},

		// A user's view of the installations they can reach.
		{Method: "GET", Pattern: "/user/installations", OperationID: "apps/list-installations-for-authenticated-user", Handler: a.userInstallations,
			Scopes: []string{}, Note: noteUserInstallations},
		{Method: "GET", Pattern: "/user/installations/{installation_id}/repositories", OperationID: "apps/list-installation-repos-for-authenticated-user",
			Handler: a.userInstallationRepos, Scopes: []string{}, Note: noteUserInstallationRepos},
		{Method: "PUT", Pattern: "/user/installations/{installation_id}/repositories/{repository_id}", OperationID: "apps/add-repo-to-installation-for-authenticated-user",
			Handler: a.addRepo, Scopes: []string{"repo"}},
		{Method: "DELETE", Pattern: "/user/installations/{installation_id}/repositories/{repository_id}", OperationID: "apps/remove-repo-from-installation-for-authenticated-user",
			Handler: a.removeRepo, Scopes: []string{"repo"}},
		{Method: "GET", Pattern: "/orgs/{org}/installations", OperationID: "orgs/list-app-installations", Handler: a.orgInstallations,
			Scopes: []string{"read:org"}},

		// The enterprise's organization installations, by an app installed
		// on the enterprise (enterprise.go).
		{Method: "GET", Pattern: ent + "/installable_organizations", OperationID: "enterprise-apps/installable-organizations", Handler: a.installableOrgs, Note: noteEnterprise},
		{Method: "GET", Pattern: ent + "/installable_organizations/{org}/accessible_repositories", OperationID: "enterprise-apps/installable-organization-accessible-repositories",
			Handler: a.orgAccessibleRepos},
		{Method: "GET", Pattern: entOrg, OperationID: "enterprise-apps/organization-installations", Handler: a.enterpriseOrgInstallations},
		{Method: "POST", Pattern: entOrg, OperationID: "enterprise-apps/create-installation", Handler: a.enterpriseInstall, Note: noteEnterpriseInstall},
		{Method: "DELETE", Pattern: entOrg + "/{installation_id}", OperationID: "enterprise-apps/delete-installation", Handler: a.enterpriseUninstall},
		{Method: "GET", Pattern: entOrg + "/{installation_id}/repositories", OperationID: "enterprise-apps/organization-installation-repositories",
			Handler: a.enterpriseInstallationRepos},
		{Method: "PATCH", Pattern: entOrg + "/{installation_id}/repositories", OperationID: "enterprise-apps/change-installation-repository-access-selection",
			Handler: a.enterpriseSetRepos},
		{Method: "PATCH", Pattern: entOrg + "/{installation_id}/repositories/add", OperationID: "enterprise-apps/grant-repository-access-to-installation",
			Handler: a.enterpriseAddRepos},
		{Method: "PATCH", Pattern: entOrg + "/{installation_id}/repositories/remove", OperationID: "enterprise-apps/remove-repository-access-to-installation",
			Handler: a.enterpriseRemoveRepos},

		// hubd's own site administration: GitHub registers apps in its web
		// interface (or the manifest flow), which hubd does not have.
		{Method: "POST", Pattern: "/admin/apps", OperationID: "hubd/create-app", Handler: a.adminCreate, Scopes: site, Extension: true},
		{Method: "POST", Pattern: "/admin/apps/{app_slug}/installations", OperationID: "hubd/install-app", Handler: a.adminInstall, Scopes: site, Extension: true},
	}
}
