package server

import (
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/catalogue"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// errPAT is GitHub's answer to a fine-grained personal access token on an
// operation it may not call, or without the permission it needs.
var errPAT = model.Forbidden(authz.ErrPATMessage)

// patGate applies, before a route runs, what a fine-grained personal
// access token may call: the operations GitHub lets them (the user token
// badge, but for those only GitHub Apps may call), with the fine-grained
// permission each needs (the one table authz.RequiredPermissions, named in
// X-Accepted-GitHub-Permissions); an operation on an organization's own
// settings only on the organization the token targets, once it lets the
// token in. Its repositories are narrowed by authz.RepoPermission.
func patGate(w http.ResponseWriter, r *http.Request, info *rest.Info, rt *rest.Route) error {
	c := info.Caller
	if rt == nil {
		return nil // web pages and unknown paths: as for any user token
	}
	info.OperationID = rt.OperationID
	var category, subcategory string
	if op, ok := catalogue.ByID(rt.OperationID); ok {
		if !authz.FineGrainedOperation(rt.OperationID, op.Tokens) {
			return errPAT
		}
		category, subcategory = op.Category, op.Subcategory
		info.DocsURL = catalogue.DocsURL(rt.OperationID)
	}
	sets, known := authz.RequiredPermissions(rt.OperationID, category, subcategory, rt.Method)
	if !known {
		return errPAT
	}
	if len(sets) > 0 {
		w.Header().Set("X-Accepted-GitHub-Permissions", authz.AcceptedHeader(sets))
	}
	if !authz.AllowedBy(sets, authz.WithMetadata(c.Permissions)) {
		return errPAT
	}
	if authz.OrganizationOnly(sets) {
		if org, ok := patternValue(rt.Pattern, r.URL.Path, "org"); ok && (!c.OwnerAccess || !strings.EqualFold(c.ResourceOwnerLogin, org)) {
			return errPAT
		}
	}
	return nil
}

// patternValue is the value a route pattern's {name} segment takes in
// path ("" and false when the pattern has none).
func patternValue(pattern, path, name string) (string, bool) {
	ps, vs := strings.Split(strings.Trim(pattern, "/"), "/"), strings.Split(strings.Trim(path, "/"), "/")
	for i, p := range ps {
		if p == "{"+name+"}" && i < len(vs) {
			return vs[i], true
		}
	}
	return "", false
}
