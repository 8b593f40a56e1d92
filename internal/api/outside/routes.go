// Package outside is the REST adapter of an organization's outside
// collaborators: it parses requests, calls the outside service and writes
// GitHub's shapes.
package outside

import (
	"github.com/hubd/hubd/internal/api"
	svc "github.com/hubd/hubd/internal/outside"
	"github.com/hubd/hubd/internal/rest"
)

// API is the outside collaborators package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, svc: svc.New(d.Store)} }

var (
	readOrg  = []string{"admin:org", "read:org", "write:org"}
	adminOrg = []string{"admin:org"}
)

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	return []rest.Route{
		{Method: "GET", Pattern: "/orgs/{org}/outside_collaborators", OperationID: "orgs/list-outside-collaborators", Handler: a.list, Scopes: readOrg,
			Note: "hubd has no two-factor authentication: filter=2fa_disabled lists every outside collaborator, 2fa_insecure none. Only active members may list (others get 403)."},
		{Method: "PUT", Pattern: "/orgs/{org}/outside_collaborators/{username}", OperationID: "orgs/convert-member-to-outside-collaborator", Handler: a.convert, Scopes: adminOrg,
			Note: "Team access becomes direct grants and base-permission/owner access is dropped, as on GitHub; async=true converts at once and answers 202; former-member privileges are not kept for reinstatement and enterprise policies do not exist."},
		{Method: "DELETE", Pattern: "/orgs/{org}/outside_collaborators/{username}", OperationID: "orgs/remove-outside-collaborator", Handler: a.remove, Scopes: adminOrg,
			Note: "Removes grants and the user's open invitations on every repository of the organization; invitations they sent and their forks of private repositories are left."},
	}
}
