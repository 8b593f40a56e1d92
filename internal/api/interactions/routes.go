// Package interactions is the REST adapter of the Interactions category:
// interaction limits of repositories, organizations and the authenticated
// user, and the pull request creation cap with its bypass list. It parses
// requests, calls the interactions service and writes GitHub's shapes.
package interactions

import (
	"context"

	"github.com/hubd/hubd/internal/api"
	svc "github.com/hubd/hubd/internal/interactions"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// API is the interactions package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API {
	a := &API{d: d, svc: svc.New(d.Store)}
	d.Guards = append(d.Guards, func(ctx context.Context, repo *model.Repo, userID int64, kind string) error {
		if kind == "review" {
			kind = "comment" // a review is commenting
		}
		return a.svc.MayInteract(ctx, repo, userID, kind)
	})
	return a
}

// Service is the interactions service, for the code paths that must call
// MayInteract.
func (a *API) Service() *svc.Service { return a.svc }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	repo := []string{"repo", "public_repo"}
	orgRead := []string{"admin:org", "read:org"}
	orgWrite := []string{"admin:org"}
	user := []string{"user"}
	// What every limit-setting route shares: how "contributed" is judged,
	// and that enforcement rests on the write paths calling MayInteract.
	note := "contributors_only and existing_users count as contributors the authors of pull requests merged into the default branch (commits pushed directly are not looked at)."
	capNote := "The cap is enforced where pull requests are opened through MayInteract (kind pull); draft pull requests neither count toward the cap nor are stopped by it."
	return []rest.Route{
		{Method: "GET", Pattern: "/orgs/{org}/interaction-limits", OperationID: "interactions/get-restrictions-for-org", Handler: a.getOrg, Scopes: orgRead},
		{Method: "PUT", Pattern: "/orgs/{org}/interaction-limits", OperationID: "interactions/set-restrictions-for-org", Handler: a.setOrg, Scopes: orgWrite, Note: note},
		{Method: "DELETE", Pattern: "/orgs/{org}/interaction-limits", OperationID: "interactions/remove-restrictions-for-org", Handler: a.removeOrg, Scopes: orgWrite},
		{Method: "GET", Pattern: "/orgs/{org}/interaction-limits/pulls/creation-cap", OperationID: "interactions/get-pull-request-creation-cap-for-org", Handler: a.getOrgCap, Scopes: orgRead},
		{Method: "PATCH", Pattern: "/orgs/{org}/interaction-limits/pulls/creation-cap", OperationID: "interactions/update-pull-request-creation-cap-for-org", Handler: a.updateOrgCap, Scopes: orgWrite, Note: capNote},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/interaction-limits", OperationID: "interactions/get-restrictions-for-repo", Handler: a.getRepo, Scopes: repo},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/interaction-limits", OperationID: "interactions/set-restrictions-for-repo", Handler: a.setRepo, Scopes: repo, Note: note},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/interaction-limits", OperationID: "interactions/remove-restrictions-for-repo", Handler: a.removeRepo, Scopes: repo},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/interaction-limits/pulls/bypass-list", OperationID: "interactions/get-pull-request-bypass-list-for-repo", Handler: a.getBypass, Scopes: repo},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/interaction-limits/pulls/bypass-list", OperationID: "interactions/set-pull-request-bypass-list-for-repo", Handler: a.addBypass, Scopes: repo},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/interaction-limits/pulls/bypass-list", OperationID: "interactions/remove-pull-request-bypass-list-for-repo", Handler: a.removeBypass, Scopes: repo},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/interaction-limits/pulls/creation-cap", OperationID: "interactions/get-pull-request-creation-cap-for-repo", Handler: a.getRepoCap, Scopes: repo},
		{Method: "PATCH", Pattern: "/repos/{owner}/{repo}/interaction-limits/pulls/creation-cap", OperationID: "interactions/update-pull-request-creation-cap-for-repo", Handler: a.updateRepoCap, Scopes: repo, Note: capNote},

		{Method: "GET", Pattern: "/user/interaction-limits", OperationID: "interactions/get-restrictions-for-authenticated-user", Handler: a.getUser, Scopes: user},
		{Method: "PUT", Pattern: "/user/interaction-limits", OperationID: "interactions/set-restrictions-for-authenticated-user", Handler: a.setUser, Scopes: user, Note: note},
		{Method: "DELETE", Pattern: "/user/interaction-limits", OperationID: "interactions/remove-restrictions-for-authenticated-user", Handler: a.removeUser, Scopes: user},
	}
}
