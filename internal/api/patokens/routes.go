// Package patokens is the REST adapter of fine-grained personal access
// tokens: an organization's requests and grants (GitHub's "Personal access
// tokens" operations under Organizations, which only GitHub Apps call:
// installation tokens on the organization with the permission, and user
// access tokens of its owners) and hubd's own routes that create tokens
// (GitHub does it in its web interface) and set an organization's policy.
// It parses requests, calls the service (internal/patokens) and writes
// GitHub's shapes.
package patokens

import (
	"github.com/hubd/hubd/internal/api"
	svc "github.com/hubd/hubd/internal/patokens"
	"github.com/hubd/hubd/internal/rest"
)

// API is the package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package and its service; tokens whose access changes
// leave the authentication cache at once.
func New(d *api.Deps) *API {
	return &API{d: d, svc: &svc.Service{Store: d.Store, Revoked: func() {
		if d.Tokens != nil {
			d.Tokens.Flush()
		}
	}}}
}

// Service is the fine-grained token service (the CLI creates tokens with it).
func (a *API) Service() *svc.Service { return a.svc }

const noteLastUsed = "hubd does not record when a token was last used (no write on the read path): token_last_used_at is null and last_used_before/last_used_after match no token."

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	const reqs, grants = "/orgs/{org}/personal-access-token-requests", "/orgs/{org}/personal-access-tokens"
	return []rest.Route{
		{Method: "GET", Pattern: reqs, OperationID: "orgs/list-pat-grant-requests", Handler: a.listRequests, Note: noteLastUsed},
		{Method: "POST", Pattern: reqs, OperationID: "orgs/review-pat-grant-requests-in-bulk", Handler: a.reviewBulk},
		{Method: "POST", Pattern: reqs + "/{pat_request_id}", OperationID: "orgs/review-pat-grant-request", Handler: a.reviewOne},
		{Method: "GET", Pattern: reqs + "/{pat_request_id}/repositories", OperationID: "orgs/list-pat-grant-request-repositories", Handler: a.requestRepos},
		{Method: "GET", Pattern: grants, OperationID: "orgs/list-pat-grants", Handler: a.listGrants, Note: noteLastUsed},
		{Method: "POST", Pattern: grants, OperationID: "orgs/update-pat-accesses", Handler: a.revokeBulk},
		{Method: "POST", Pattern: grants + "/{pat_id}", OperationID: "orgs/update-pat-access", Handler: a.revokeOne},
		{Method: "GET", Pattern: grants + "/{pat_id}/repositories", OperationID: "orgs/list-pat-grant-repositories", Handler: a.grantRepos},

		// hubd's own: GitHub creates tokens and sets the policy in its web interface.
		{Method: "POST", Pattern: "/admin/users/{username}/personal-access-tokens", OperationID: "hubd/create-fine-grained-token",
			Handler: a.create, Scopes: []string{"user"}, Extension: true},
		{Method: "GET", Pattern: "/admin/organizations/{org}/personal-access-token-policy", OperationID: "hubd/get-pat-policy",
			Handler: a.getPolicy, Scopes: []string{"admin:org"}, Extension: true},
		{Method: "PUT", Pattern: "/admin/organizations/{org}/personal-access-token-policy", OperationID: "hubd/set-pat-policy",
			Handler: a.setPolicy, Scopes: []string{"admin:org"}, Extension: true},
	}
}
