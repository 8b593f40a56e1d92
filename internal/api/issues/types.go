package issues

import (
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// Issue types (the issue service's rules: org owners manage them, members
// list them, repositories offer the enabled ones).

func (a *API) typeRoutes() []rest.Route {
	readOrg, adminOrg := []string{"admin:org", "read:org", "write:org"}, []string{"admin:org"}
	return []rest.Route{
		{Method: "GET", Pattern: "/orgs/{org}/issue-types", OperationID: "orgs/list-issue-types", Handler: a.listOrgTypes, Scopes: readOrg},
		{Method: "POST", Pattern: "/orgs/{org}/issue-types", OperationID: "orgs/create-issue-type", Handler: a.createType, Scopes: adminOrg},
		{Method: "PUT", Pattern: "/orgs/{org}/issue-types/{issue_type_id}", OperationID: "orgs/update-issue-type", Handler: a.updateType, Scopes: adminOrg},
		{Method: "DELETE", Pattern: "/orgs/{org}/issue-types/{issue_type_id}", OperationID: "orgs/delete-issue-type", Handler: a.deleteType, Scopes: adminOrg},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/issue-types", OperationID: "repos/list-issue-types", Handler: a.listRepoTypes, Scopes: read},
	}
}

// typeOrg is the path's organization with the signed-in caller.
func (a *API) typeOrg(r *http.Request) (*authz.Caller, *model.Account, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, nil, err
	}
	org, err := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
	return c, org, err
}

func typesJSON(list []*model.IssueType) []wire.IssueType {
	out := make([]wire.IssueType, len(list))
	for i, t := range list {
		out[i] = wire.ToIssueType(t)
	}
	return out
}

// GET /orgs/{org}/issue-types: the organization's members.
func (a *API) listOrgTypes(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.typeOrg(r)
	if err != nil {
		return err
	}
	list, err := a.svc.OrgIssueTypes(r.Context(), c, org)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, typesJSON(list))
}

// GET /repos/{owner}/{repo}/issue-types: whoever reads the repository.
func (a *API) listRepoTypes(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepo(r, authz.Read)
	if err != nil {
		return err
	}
	list, err := a.svc.RepoIssueTypes(r.Context(), x.Repo)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, typesJSON(list))
}

type typeBody struct {
	Name        string           `json:"name"`
	IsEnabled   bool             `json:"is_enabled"`
	Description rest.Opt[string] `json:"description"`
	Color       rest.Opt[string] `json:"color"`
}

func (b typeBody) input() issues.TypeInput {
	in := issues.TypeInput{Name: b.Name, Enabled: b.IsEnabled}
	if v, ok := b.Description.Get(); ok {
		in.Description = &v
	}
	if v, ok := b.Color.Get(); ok {
		in.Color = &v
	}
	return in
}

// POST /orgs/{org}/issue-types: the organization's owners.
func (a *API) createType(w http.ResponseWriter, r *http.Request) error {
	return a.writeType(w, r, func(c *authz.Caller, org *model.Account, in issues.TypeInput) (*model.IssueType, error) {
		return a.svc.CreateIssueType(r.Context(), c, org, in)
	})
}

// PUT /orgs/{org}/issue-types/{issue_type_id}: the organization's owners.
func (a *API) updateType(w http.ResponseWriter, r *http.Request) error {
	id, err := pathInt(r, "issue_type_id")
	if err != nil {
		return err
	}
	return a.writeType(w, r, func(c *authz.Caller, org *model.Account, in issues.TypeInput) (*model.IssueType, error) {
		return a.svc.UpdateIssueType(r.Context(), c, org, id, in)
	})
}

// writeType reads a type body and answers with the type write stores.
func (a *API) writeType(w http.ResponseWriter, r *http.Request, write func(*authz.Caller, *model.Account, issues.TypeInput) (*model.IssueType, error)) error {
	c, org, err := a.typeOrg(r)
	if err != nil {
		return err
	}
	var b typeBody
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	t, err := write(c, org, b.input())
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToIssueType(t))
}

// DELETE /orgs/{org}/issue-types/{issue_type_id}: the organization's owners.
func (a *API) deleteType(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.typeOrg(r)
	if err != nil {
		return err
	}
	id, err := pathInt(r, "issue_type_id")
	if err != nil {
		return err
	}
	if err := a.svc.DeleteIssueType(r.Context(), c, org, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}
