package rulesets

import (
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/rest"
)

// Enterprise rulesets (docs: enterprise-admin/rules): the enterprise's
// owners with admin:enterprise manage them.

const noteEnterprise = "Enterprise rulesets apply to the repositories of the organizations their organization_name or " +
	"organization_id condition selects that their repository_name condition selects (user-owned repositories are in " +
	"no organization), and are enforced and listed (GET .../rules/branches/{branch}, ruleset_source_type Enterprise) " +
	"where organization rulesets are. Bypass actors also take EnterpriseOwner (hubd's site administrators); " +
	"organization_property and repository_property conditions are refused (hubd keeps no custom properties), " +
	"EnterpriseRole and Team bypass actors too. " + entApp + enforced

// entApp says who reaches the enterprise's operations.
const entApp = "Enterprise owners' classic tokens, and a GitHub App installed on the enterprise with Enterprise " +
	"administration (its installation token, or its user access token for a site administrator). "

func (a *API) enterpriseCaller(r *http.Request) (*authz.Caller, error) {
	return a.d.RequireEnterpriseOwner(r, "admin:enterprise", "manage enterprise rulesets")
}

// POST /enterprises/{enterprise}/rulesets
func (a *API) enterpriseCreate(w http.ResponseWriter, r *http.Request) error {
	c, err := a.enterpriseCaller(r)
	if err != nil {
		return err
	}
	in, err := decode(r)
	if err != nil {
		return err
	}
	rs, err := a.svc.EnterpriseCreate(r.Context(), c.UserID(), in)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, a.renderOrg(rs)[0])
}

// GET /enterprises/{enterprise}/rulesets/{ruleset_id}
func (a *API) enterpriseGet(w http.ResponseWriter, r *http.Request) error {
	if _, err := a.enterpriseCaller(r); err != nil {
		return err
	}
	id, err := pathID(r, "ruleset_id")
	if err != nil {
		return err
	}
	rs, err := a.svc.EnterpriseGet(r.Context(), id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.renderOrg(rs)[0])
}

// PUT /enterprises/{enterprise}/rulesets/{ruleset_id}
func (a *API) enterpriseUpdate(w http.ResponseWriter, r *http.Request) error {
	c, err := a.enterpriseCaller(r)
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
	rs, err := a.svc.EnterpriseUpdate(r.Context(), c.UserID(), id, in)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.renderOrg(rs)[0])
}

// DELETE /enterprises/{enterprise}/rulesets/{ruleset_id}
func (a *API) enterpriseDelete(w http.ResponseWriter, r *http.Request) error {
	c, err := a.enterpriseCaller(r)
	if err != nil {
		return err
	}
	id, err := pathID(r, "ruleset_id")
	if err != nil {
		return err
	}
	if err := a.svc.EnterpriseDelete(r.Context(), c.UserID(), id); err != nil {
		return err
	}
	return rest.NoContent(w)
}
