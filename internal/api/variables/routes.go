// Package variables is the REST adapter of configuration variables (docs:
// actions/variables, agents/variables) at organization, repository and
// environment level, over the variables service.
package variables

import (
	"github.com/hubd/hubd/internal/api"
	envsvc "github.com/hubd/hubd/internal/environments"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/variables"
)

// API serves the variables routes.
type API struct {
	d    *api.Deps
	svc  *svc.Service
	envs *envsvc.Service
}

// New makes the package; envs finds the environments of environment
// variables.
func New(d *api.Deps, envs *envsvc.Service) *API {
	return &API{d: d, svc: svc.New(d.Store), envs: envs}
}

// Service is the variables service (jobs' spec hook).
func (a *API) Service() *svc.Service { return a.svc }

// noteAgents: agents variables are kept and served, nothing reads them.
// Actions variables have no note: jobs see them as the vars context
// (environment over repository over organization; organization and
// repository values up to 256 KB, taken by name).
const noteAgents = "Stored and served with the rules of Actions variables; no coding agent runs on hubd to read them."

// Routes is the package's route table: the same handlers serve Actions
// and agents variables, told apart by their kind.
func (a *API) Routes() []rest.Route {
	repo, org := []string{"repo"}, []string{"admin:org"}
	var out []rest.Route
	for _, kind := range []string{model.VariablesActions, model.VariablesAgents} {
		h := handlers{a: a, kind: kind}
		note := ""
		if kind == model.VariablesAgents {
			note = noteAgents
		}
		r := "/repos/{owner}/{repo}/" + kind
		o := "/orgs/{org}/" + kind + "/variables"
		id := func(s string) string { return kind + "/" + s }
		out = append(out,
			rest.Route{Method: "GET", Pattern: r + "/organization-variables", OperationID: id("list-repo-organization-variables"), Handler: h.listShared, Scopes: repo, Note: note},
			rest.Route{Method: "GET", Pattern: r + "/variables", OperationID: id("list-repo-variables"), Handler: h.list, Scopes: repo, Note: note},
			rest.Route{Method: "POST", Pattern: r + "/variables", OperationID: id("create-repo-variable"), Handler: h.create, Scopes: repo, Note: note},
			rest.Route{Method: "GET", Pattern: r + "/variables/{name}", OperationID: id("get-repo-variable"), Handler: h.get, Scopes: repo, Note: note},
			rest.Route{Method: "PATCH", Pattern: r + "/variables/{name}", OperationID: id("update-repo-variable"), Handler: h.update, Scopes: repo, Note: note},
			rest.Route{Method: "DELETE", Pattern: r + "/variables/{name}", OperationID: id("delete-repo-variable"), Handler: h.delete, Scopes: repo, Note: note},
			rest.Route{Method: "GET", Pattern: o, OperationID: id("list-org-variables"), Handler: h.list, Scopes: org, Note: note},
			rest.Route{Method: "POST", Pattern: o, OperationID: id("create-org-variable"), Handler: h.create, Scopes: org, Note: note},
			rest.Route{Method: "GET", Pattern: o + "/{name}", OperationID: id("get-org-variable"), Handler: h.get, Scopes: org, Note: note},
			rest.Route{Method: "PATCH", Pattern: o + "/{name}", OperationID: id("update-org-variable"), Handler: h.update, Scopes: org, Note: note},
			rest.Route{Method: "DELETE", Pattern: o + "/{name}", OperationID: id("delete-org-variable"), Handler: h.delete, Scopes: org, Note: note},
			rest.Route{Method: "GET", Pattern: o + "/{name}/repositories", OperationID: id("list-selected-repos-for-org-variable"), Handler: h.listRepos, Scopes: org, Note: note},
			rest.Route{Method: "PUT", Pattern: o + "/{name}/repositories", OperationID: id("set-selected-repos-for-org-variable"), Handler: h.setRepos, Scopes: org, Note: note},
			rest.Route{Method: "PUT", Pattern: o + "/{name}/repositories/{repository_id}", OperationID: id("add-selected-repo-to-org-variable"), Handler: h.addRepo, Scopes: org, Note: note},
			rest.Route{Method: "DELETE", Pattern: o + "/{name}/repositories/{repository_id}", OperationID: id("remove-selected-repo-from-org-variable"), Handler: h.removeRepo, Scopes: org, Note: note},
		)
	}
	h := handlers{a: a, kind: model.VariablesActions, env: true}
	e := "/repos/{owner}/{repo}/environments/{environment_name}/variables"
	return append(out,
		rest.Route{Method: "GET", Pattern: e, OperationID: "actions/list-environment-variables", Handler: h.list, Scopes: repo},
		rest.Route{Method: "POST", Pattern: e, OperationID: "actions/create-environment-variable", Handler: h.create, Scopes: repo},
		rest.Route{Method: "GET", Pattern: e + "/{name}", OperationID: "actions/get-environment-variable", Handler: h.get, Scopes: repo},
		rest.Route{Method: "PATCH", Pattern: e + "/{name}", OperationID: "actions/update-environment-variable", Handler: h.update, Scopes: repo},
		rest.Route{Method: "DELETE", Pattern: e + "/{name}", OperationID: "actions/delete-environment-variable", Handler: h.delete, Scopes: repo},
	)
}
