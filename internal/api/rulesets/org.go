package rulesets

import (
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// orgCaller is the signed-in caller and the path's organization, after
// checking the token may manage it: admin:org for classic and OAuth
// tokens (read:org too for reads), the organization_administration
// permission for the other kinds. The service decides whether the user
// may.
func (a *API) orgCaller(r *http.Request, write bool) (*authz.Caller, *model.Account, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, nil, err
	}
	org, err := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return nil, nil, err
	}
	switch c.Kind {
	case authz.ClassicPAT, authz.OAuthApp:
		if !c.HasScope("admin:org") && (write || !c.HasScope("read:org")) {
			return nil, nil, model.Forbidden("Resource not accessible by personal access token")
		}
	default:
		got := c.Permissions["organization_administration"]
		if got != "write" && got != "admin" && (write || got != "read") {
			return nil, nil, model.Forbidden("Resource not accessible by integration")
		}
	}
	return c, org, nil
}

func (a *API) renderOrg(list ...*model.Ruleset) []wire.RepositoryRuleset {
	out := make([]wire.RepositoryRuleset, len(list))
	for i, rs := range list {
		// Only those who may manage the rulesets reach these routes.
		out[i] = a.d.URLs.ToRepositoryRuleset(rs, true, "")
	}
	return out
}

// GET /orgs/{org}/rulesets
func (a *API) orgList(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.orgCaller(r, false)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.OrgList(r.Context(), org, c.User, targets(r), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, a.renderOrg(list...))
}

// POST /orgs/{org}/rulesets
func (a *API) orgCreate(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.orgCaller(r, true)
	if err != nil {
		return err
	}
	in, err := decode(r)
	if err != nil {
		return err
	}
	rs, err := a.svc.OrgCreate(r.Context(), org, c.User, in)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, a.renderOrg(rs)[0])
}

// GET /orgs/{org}/rulesets/{ruleset_id}
func (a *API) orgGet(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.orgCaller(r, false)
	if err != nil {
		return err
	}
	id, err := pathID(r, "ruleset_id")
	if err != nil {
		return err
	}
	rs, err := a.svc.OrgGet(r.Context(), org, c.User, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.renderOrg(rs)[0])
}

// PUT /orgs/{org}/rulesets/{ruleset_id}
func (a *API) orgUpdate(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.orgCaller(r, true)
	if err != nil {
		return err
	}
	id, err := pathID(r, "ruleset_id")
	if err != nil {
		return err
	}
	in, err := decode(r)
	if err != nil {
		return err
	}
	rs, err := a.svc.OrgUpdate(r.Context(), org, c.User, id, in)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.renderOrg(rs)[0])
}

// DELETE /orgs/{org}/rulesets/{ruleset_id}
func (a *API) orgDelete(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.orgCaller(r, true)
	if err != nil {
		return err
	}
	id, err := pathID(r, "ruleset_id")
	if err != nil {
		return err
	}
	if err := a.svc.OrgDelete(r.Context(), org, c.User, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}

func (a *API) orgRuleset(r *http.Request) (*model.Ruleset, error) {
	c, org, err := a.orgCaller(r, false)
	if err != nil {
		return nil, err
	}
	id, err := pathID(r, "ruleset_id")
	if err != nil {
		return nil, err
	}
	return a.svc.OrgGet(r.Context(), org, c.User, id)
}

// GET /orgs/{org}/rulesets/{ruleset_id}/history
func (a *API) orgHistory(w http.ResponseWriter, r *http.Request) error {
	rs, err := a.orgRuleset(r)
	if err != nil {
		return err
	}
	return a.writeHistory(w, r, rs)
}

// GET /orgs/{org}/rulesets/{ruleset_id}/history/{version_id}
func (a *API) orgVersion(w http.ResponseWriter, r *http.Request) error {
	rs, err := a.orgRuleset(r)
	if err != nil {
		return err
	}
	return a.writeVersion(w, r, rs)
}
