package server

import (
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/catalogue"
	"github.com/hubd/hubd/internal/rest"
)

// writesRepository reports whether a route changes the repository it
// names, from the route table and the one table of fine-grained
// permissions (authz.WritesRepository): the repository lookup every
// /repos/{owner}/{repo} handler starts with (api.Deps.Repo) refuses such
// an operation outside the caller's grant (authz.Authorize).
func writesRepository(rt *rest.Route) bool {
	if approvals[rt.OperationID] {
		return true
	}
	var category, subcategory string
	if op, ok := catalogue.ByID(rt.OperationID); ok {
		category, subcategory = op.Category, op.Subcategory
	}
	sets, known := authz.RequiredPermissions(rt.OperationID, category, subcategory, rt.Method)
	return authz.WritesRepository(sets, known, rt.Method)
}

// approvals change what runs in a repository although GitHub lets a
// reviewer make them with read access (deployments: read): only inside
// the token's grant.
var approvals = map[string]bool{"actions/review-pending-deployments-for-run": true}
