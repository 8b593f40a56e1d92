// Package codespacesecrets is the REST adapter of Codespaces secrets (the
// development environment secrets of users, organizations and
// repositories, kept by the one secrets store) and of the organization's
// Codespaces access policy, over internal/codespaces/secrets.
package codespacesecrets

import (
	"github.com/hubd/hubd/internal/api"
	cs "github.com/hubd/hubd/internal/codespaces/secrets"
	"github.com/hubd/hubd/internal/rest"
	sealed "github.com/hubd/hubd/internal/secrets"
)

// API is the package.
type API struct {
	d   *api.Deps
	svc *cs.Service
}

// New makes the package over the secrets store's service.
func New(d *api.Deps, s *sealed.Service) *API {
	return &API{d: d, svc: cs.New(d.Store, s)}
}

// Service is the Codespaces secrets service (EnvFor, MayCreate).
func (a *API) Service() *cs.Service { return a.svc }

const noteAccess = "The policy is kept and enforced by MayCreate for hubd's codespaces; there is no billing behind it."

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	user, org, repo := "/user/codespaces/secrets", "/orgs/{org}/codespaces/secrets", "/repos/{owner}/{repo}/codespaces/secrets"
	us, os, rs := []string{"codespace", "codespace:secrets"}, []string{"admin:org"}, []string{"repo"}
	return []rest.Route{
		{Method: "GET", Pattern: user, OperationID: "codespaces/list-secrets-for-authenticated-user", Handler: a.list(userScope), Scopes: us},
		{Method: "GET", Pattern: user + "/public-key", OperationID: "codespaces/get-public-key-for-authenticated-user", Handler: a.publicKey(userScope), Scopes: us},
		{Method: "GET", Pattern: user + "/{secret_name}", OperationID: "codespaces/get-secret-for-authenticated-user", Handler: a.get(userScope), Scopes: us},
		{Method: "PUT", Pattern: user + "/{secret_name}", OperationID: "codespaces/create-or-update-secret-for-authenticated-user", Handler: a.put(userScope), Scopes: us},
		{Method: "DELETE", Pattern: user + "/{secret_name}", OperationID: "codespaces/delete-secret-for-authenticated-user", Handler: a.del(userScope), Scopes: us},
		{Method: "GET", Pattern: user + "/{secret_name}/repositories", OperationID: "codespaces/list-repositories-for-secret-for-authenticated-user", Handler: a.selectedRepos(userScope), Scopes: us},
		{Method: "PUT", Pattern: user + "/{secret_name}/repositories", OperationID: "codespaces/set-repositories-for-secret-for-authenticated-user", Handler: a.setRepos(userScope), Scopes: us},
		{Method: "PUT", Pattern: user + "/{secret_name}/repositories/{repository_id}", OperationID: "codespaces/add-repository-for-secret-for-authenticated-user", Handler: a.addRepo(userScope, false), Scopes: us},
		{Method: "DELETE", Pattern: user + "/{secret_name}/repositories/{repository_id}", OperationID: "codespaces/remove-repository-for-secret-for-authenticated-user", Handler: a.addRepo(userScope, true), Scopes: us},

		{Method: "GET", Pattern: org, OperationID: "codespaces/list-org-secrets", Handler: a.list(orgScope), Scopes: os},
		{Method: "GET", Pattern: org + "/public-key", OperationID: "codespaces/get-org-public-key", Handler: a.publicKey(orgScope), Scopes: os},
		{Method: "GET", Pattern: org + "/{secret_name}", OperationID: "codespaces/get-org-secret", Handler: a.get(orgScope), Scopes: os},
		{Method: "PUT", Pattern: org + "/{secret_name}", OperationID: "codespaces/create-or-update-org-secret", Handler: a.put(orgScope), Scopes: os},
		{Method: "DELETE", Pattern: org + "/{secret_name}", OperationID: "codespaces/delete-org-secret", Handler: a.del(orgScope), Scopes: os},
		{Method: "GET", Pattern: org + "/{secret_name}/repositories", OperationID: "codespaces/list-selected-repos-for-org-secret", Handler: a.selectedRepos(orgScope), Scopes: os},
		{Method: "PUT", Pattern: org + "/{secret_name}/repositories", OperationID: "codespaces/set-selected-repos-for-org-secret", Handler: a.setRepos(orgScope), Scopes: os},
		{Method: "PUT", Pattern: org + "/{secret_name}/repositories/{repository_id}", OperationID: "codespaces/add-selected-repo-to-org-secret", Handler: a.addRepo(orgScope, false), Scopes: os},
		{Method: "DELETE", Pattern: org + "/{secret_name}/repositories/{repository_id}", OperationID: "codespaces/remove-selected-repo-from-org-secret", Handler: a.addRepo(orgScope, true), Scopes: os},

		{Method: "GET", Pattern: repo, OperationID: "codespaces/list-repo-secrets", Handler: a.list(repoScope), Scopes: rs},
		{Method: "GET", Pattern: repo + "/public-key", OperationID: "codespaces/get-repo-public-key", Handler: a.publicKey(repoScope), Scopes: rs},
		{Method: "GET", Pattern: repo + "/{secret_name}", OperationID: "codespaces/get-repo-secret", Handler: a.get(repoScope), Scopes: rs},
		{Method: "PUT", Pattern: repo + "/{secret_name}", OperationID: "codespaces/create-or-update-repo-secret", Handler: a.put(repoScope), Scopes: rs},
		{Method: "DELETE", Pattern: repo + "/{secret_name}", OperationID: "codespaces/delete-repo-secret", Handler: a.del(repoScope), Scopes: rs},

		{Method: "PUT", Pattern: "/orgs/{org}/codespaces/access", OperationID: "codespaces/set-codespaces-access", Handler: a.setAccess, Scopes: os, Note: noteAccess},
		{Method: "POST", Pattern: "/orgs/{org}/codespaces/access/selected_users", OperationID: "codespaces/set-codespaces-access-users", Handler: a.accessUsers(false), Scopes: os, Note: noteAccess},
		{Method: "DELETE", Pattern: "/orgs/{org}/codespaces/access/selected_users", OperationID: "codespaces/delete-codespaces-access-users", Handler: a.accessUsers(true), Scopes: os, Note: noteAccess},
	}
}
