// Package secrets is the REST adapter of secrets: the Actions secrets of
// repositories and organizations and the agents' secrets, one set of
// handlers over the secrets service (internal/secrets) for every feature.
// Environment secrets are the same handlers on an environment scope
// (EnvScope), registered with environments.
package secrets

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/environments"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/secrets"
)

// API is the secrets package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package and its service (keys: the operator's
// --secrets-key list, nil for the key kept in the database); with an
// actions service, its jobs get the secrets they may see.
func New(d *api.Deps, keys [][]byte, runs *actions.Service) *API {
	s := &svc.Service{Store: d.Store, Keys: keys}
	if runs != nil {
		runs.Exec.SpecHooks = append(runs.Exec.SpecHooks, actions.SecretsHook(s.Values, s.EnvironmentValues))
	}
	if err := s.Load(context.Background()); err != nil {
		slog.Error("secrets: server key", "err", err) // retried on first use
	}
	if len(keys) > 0 && d.Git != nil {
		// A serving hubd whose key was rotated moves the values still
		// under former keys to the current one.
		go func() {
			if err := s.Reencrypt(context.Background()); err != nil {
				slog.Error("secrets: re-encryption under the current key", "err", err)
			}
		}()
	}
	return &API{d: d, svc: s}
}

// EnvironmentRoutes are the five operations on an environment's Actions
// secrets; envs finds the environment (404 when the repository has none
// of that name; names are case-insensitive, as GitHub's).
func (a *API) EnvironmentRoutes(envs *environments.Service) []rest.Route {
	sc := EnvScope("actions", func(r *http.Request, repo *model.Repo) (string, error) {
		e, err := envs.Get(r.Context(), repo, r.PathValue("environment_name"))
		if err != nil {
			return "", err
		}
		return strings.ToLower(e.Name), nil
	})
	env := "/repos/{owner}/{repo}/environments/{environment_name}/secrets"
	scopes := []string{"repo"}
	return []rest.Route{
		{Method: "GET", Pattern: env, OperationID: "actions/list-environment-secrets", Handler: a.List(sc), Scopes: scopes},
		{Method: "GET", Pattern: env + "/public-key", OperationID: "actions/get-environment-public-key", Handler: a.PublicKey(sc), Scopes: scopes},
		{Method: "GET", Pattern: env + "/{secret_name}", OperationID: "actions/get-environment-secret", Handler: a.Get(sc), Scopes: scopes},
		{Method: "PUT", Pattern: env + "/{secret_name}", OperationID: "actions/create-or-update-environment-secret", Handler: a.Put(sc), Scopes: scopes},
		{Method: "DELETE", Pattern: env + "/{secret_name}", OperationID: "actions/delete-environment-secret", Handler: a.Delete(sc), Scopes: scopes},
	}
}

// Service is the secrets service.
func (a *API) Service() *svc.Service { return a.svc }

const noteAgents = "The secrets are kept and listed as GitHub does; hubd runs no coding agent, so nothing reads them yet."

// Routes is the package's route table: the same operations for Actions and
// for agents.
func (a *API) Routes() []rest.Route {
	var out []rest.Route
	for _, app := range []string{"actions", "agents"} {
		repo := "/repos/{owner}/{repo}/" + app
		org := "/orgs/{org}/" + app + "/secrets"
		rs, os := repoScope(app), orgScope(app)
		note := ""
		if app == "agents" {
			note = noteAgents
		}
		repoScopes, orgScopes := []string{"repo"}, []string{"admin:org"}
		out = append(out,
			rest.Route{Method: "GET", Pattern: repo + "/secrets", OperationID: app + "/list-repo-secrets", Handler: a.List(rs), Scopes: repoScopes, Note: note},
			rest.Route{Method: "GET", Pattern: repo + "/secrets/public-key", OperationID: app + "/get-repo-public-key", Handler: a.PublicKey(rs), Scopes: repoScopes, Note: note},
			rest.Route{Method: "GET", Pattern: repo + "/secrets/{secret_name}", OperationID: app + "/get-repo-secret", Handler: a.Get(rs), Scopes: repoScopes, Note: note},
			rest.Route{Method: "PUT", Pattern: repo + "/secrets/{secret_name}", OperationID: app + "/create-or-update-repo-secret", Handler: a.Put(rs), Scopes: repoScopes, Note: note},
			rest.Route{Method: "DELETE", Pattern: repo + "/secrets/{secret_name}", OperationID: app + "/delete-repo-secret", Handler: a.Delete(rs), Scopes: repoScopes, Note: note},
			rest.Route{Method: "GET", Pattern: repo + "/organization-secrets", OperationID: app + "/list-repo-organization-secrets", Handler: a.listForRepo(app), Scopes: repoScopes, Note: note},

			rest.Route{Method: "GET", Pattern: org, OperationID: app + "/list-org-secrets", Handler: a.List(os), Scopes: orgScopes, Note: note},
			rest.Route{Method: "GET", Pattern: org + "/public-key", OperationID: app + "/get-org-public-key", Handler: a.PublicKey(os), Scopes: orgScopes, Note: note},
			rest.Route{Method: "GET", Pattern: org + "/{secret_name}", OperationID: app + "/get-org-secret", Handler: a.Get(os), Scopes: orgScopes, Note: note},
			rest.Route{Method: "PUT", Pattern: org + "/{secret_name}", OperationID: app + "/create-or-update-org-secret", Handler: a.Put(os), Scopes: orgScopes, Note: note},
			rest.Route{Method: "DELETE", Pattern: org + "/{secret_name}", OperationID: app + "/delete-org-secret", Handler: a.Delete(os), Scopes: orgScopes, Note: note},
			rest.Route{Method: "GET", Pattern: org + "/{secret_name}/repositories", OperationID: app + "/list-selected-repos-for-org-secret", Handler: a.selectedRepos(os), Scopes: orgScopes, Note: note},
			rest.Route{Method: "PUT", Pattern: org + "/{secret_name}/repositories", OperationID: app + "/set-selected-repos-for-org-secret", Handler: a.setRepos(os), Scopes: orgScopes, Note: note},
			rest.Route{Method: "PUT", Pattern: org + "/{secret_name}/repositories/{repository_id}", OperationID: app + "/add-selected-repo-to-org-secret", Handler: a.addRepo(os, false), Scopes: orgScopes, Note: note},
			rest.Route{Method: "DELETE", Pattern: org + "/{secret_name}/repositories/{repository_id}", OperationID: app + "/remove-selected-repo-from-org-secret", Handler: a.addRepo(os, true), Scopes: orgScopes, Note: note},
		)
	}
	return out
}
