// Package pullstacks is the REST adapter of pull request stacks: it parses
// requests, calls the stack service (internal/pullstacks) and writes
// GitHub's shapes.
package pullstacks

import (
	"github.com/hubd/hubd/internal/api"
	svc "github.com/hubd/hubd/internal/pullstacks"
	"github.com/hubd/hubd/internal/rest"
)

// API is the pull request stacks package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, svc: svc.New(d.Store)} }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	read := []string{"repo"}
	write := []string{"repo"}
	return []rest.Route{
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/stacks", OperationID: "pull-request-stacks/list", Handler: a.list, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/stacks", OperationID: "pull-request-stacks/create", Handler: a.create, Scopes: write},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/stacks/{stack_number}", OperationID: "pull-request-stacks/get", Handler: a.get, Scopes: read},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/stacks/{stack_number}/add", OperationID: "pull-request-stacks/add", Handler: a.add, Scopes: write},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/stacks/{stack_number}/unstack", OperationID: "pull-request-stacks/unstack", Handler: a.unstack, Scopes: write},
	}
}
