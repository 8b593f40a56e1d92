// Package statuses is the REST adapter of commit statuses: it parses
// requests, calls the statuses service and writes GitHub's shapes.
package statuses

import (
	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/statuses"
)

// API is the commit-statuses package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API {
	a := &API{d: d}
	a.svc = svc.New(d.Store, a.resolve)
	return a
}

// Routes is the package's route table. Refs are single path segments here,
// as in GitHub's paths (a branch with a slash is reached by its sha).
func (a *API) Routes() []rest.Route {
	read := []string{"repo"}
	write := []string{"repo:status", "repo"}
	return []rest.Route{
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/statuses/{sha}", OperationID: "repos/create-commit-status", Handler: a.create, Scopes: write,
			Note: "A classic token needs repo (or public_repo for a public repository): one holding only repo:status is not accepted yet."},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/commits/{ref}/statuses", OperationID: "repos/list-commit-statuses-for-ref", Handler: a.list, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/commits/{ref}/status", OperationID: "repos/get-combined-status-for-ref", Handler: a.combined, Scopes: read},
	}
}
