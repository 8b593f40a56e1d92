package enterpriseteams

import (
	"errors"
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	svc "github.com/hubd/hubd/internal/enterpriseteams"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

const noteOrgs = "An assignment gives the organization the team (slug ent:..., members the enterprise team's) to grant repositories to, " +
	"and makes its members members of the organization; unassigning (or a member leaving, or the team's deletion) takes " +
	"them away, except memberships the organization gave directly. organization_selection_type all assigns nothing by itself."

// relationRoutes are the memberships and organization assignments. The
// description names the team {enterprise-team}; the routes spell it
// {enterprise_team} (catalogue.SpecPath maps it back).
func (a *API) relationRoutes() []rest.Route {
	read, write := []string{"read:enterprise", "admin:enterprise"}, []string{"admin:enterprise"}
	m := "/enterprises/{enterprise}/teams/{enterprise_team}/memberships"
	o := "/enterprises/{enterprise}/teams/{enterprise_team}/organizations"
	return []rest.Route{
		{Method: "GET", Pattern: m, OperationID: "enterprise-team-memberships/list", Handler: a.relations(false), Scopes: read},
		{Method: "POST", Pattern: m + "/add", OperationID: "enterprise-team-memberships/bulk-add", Handler: a.bulk(false, true), Scopes: write},
		{Method: "POST", Pattern: m + "/remove", OperationID: "enterprise-team-memberships/bulk-remove", Handler: a.bulk(false, false), Scopes: write},
		{Method: "GET", Pattern: m + "/{username}", OperationID: "enterprise-team-memberships/get", Handler: a.relation(false), Scopes: read},
		{Method: "PUT", Pattern: m + "/{username}", OperationID: "enterprise-team-memberships/add", Handler: a.one(false, true), Scopes: write},
		{Method: "DELETE", Pattern: m + "/{username}", OperationID: "enterprise-team-memberships/remove", Handler: a.one(false, false), Scopes: write},
		{Method: "GET", Pattern: o, OperationID: "enterprise-team-organizations/get-assignments", Handler: a.relations(true), Scopes: read, Note: noteOrgs},
		{Method: "POST", Pattern: o + "/add", OperationID: "enterprise-team-organizations/bulk-add", Handler: a.bulk(true, true), Scopes: write, Note: noteOrgs},
		{Method: "POST", Pattern: o + "/remove", OperationID: "enterprise-team-organizations/bulk-remove", Handler: a.bulk(true, false), Scopes: write, Note: noteOrgs},
		{Method: "GET", Pattern: o + "/{org}", OperationID: "enterprise-team-organizations/get-assignment", Handler: a.relation(true), Scopes: read, Note: noteOrgs},
		{Method: "PUT", Pattern: o + "/{org}", OperationID: "enterprise-team-organizations/add", Handler: a.one(true, true), Scopes: write, Note: noteOrgs},
		{Method: "DELETE", Pattern: o + "/{org}", OperationID: "enterprise-team-organizations/delete", Handler: a.one(true, false), Scopes: write, Note: noteOrgs},
	}
}

func (a *API) render(accts []*model.Account, org bool) any {
	if org {
		out := make([]wire.OrganizationSimple, len(accts))
		for i, o := range accts {
			out[i] = a.d.URLs.ToOrgSimple(o)
		}
		return out
	}
	out := make([]wire.SimpleUser, len(accts))
	for i, u := range accts {
		out[i] = a.d.URLs.ToSimpleUser(u)
	}
	return out
}

func (a *API) renderOne(acct *model.Account, org bool) any {
	if org {
		return a.d.URLs.ToOrgSimple(acct)
	}
	return a.d.URLs.ToSimpleUser(acct)
}

func target(r *http.Request, org bool) string {
	if org {
		return r.PathValue("org")
	}
	return r.PathValue("username")
}

// GET .../memberships, .../organizations
func (a *API) relations(org bool) rest.Handler {
	return a.handle("read:enterprise", false, func(w http.ResponseWriter, r *http.Request, _ *authz.Caller, _ svc.Input) error {
		p := rest.ParsePage(r)
		list, total, err := a.svc.Members(r.Context(), r.PathValue("enterprise_team"), p.Limit(), p.Offset())
		if org {
			list, total, err = a.svc.Orgs(r.Context(), r.PathValue("enterprise_team"), p.Limit(), p.Offset())
		}
		if err != nil {
			return err
		}
		rest.SetLink(w, r, a.d.URLs.API, p, total)
		return rest.JSON(w, http.StatusOK, a.render(list, org))
	})
}

// GET .../memberships/{username}, .../organizations/{org}
func (a *API) relation(org bool) rest.Handler {
	return a.handle("read:enterprise", false, func(w http.ResponseWriter, r *http.Request, _ *authz.Caller, _ svc.Input) error {
		get := a.svc.Member
		if org {
			get = a.svc.Org
		}
		acct, err := get(r.Context(), r.PathValue("enterprise_team"), target(r, org))
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, a.renderOne(acct, org))
	})
}

func (a *API) change(r *http.Request, c *authz.Caller, org, on bool, names []string) ([]*model.Account, error) {
	if org {
		return a.svc.ChangeOrgs(r.Context(), c.UserID(), r.PathValue("enterprise_team"), names, on)
	}
	mode := "remove"
	if on {
		mode = "add"
	}
	return a.svc.ChangeMembers(r.Context(), c.UserID(), r.PathValue("enterprise_team"), names, mode)
}

type bulkBody struct {
	Usernames []string `json:"usernames"`
	Orgs      []string `json:"organization_slugs"`
}

// POST .../memberships/add|remove, .../organizations/add|remove
func (a *API) bulk(org, on bool) rest.Handler {
	return a.handle("admin:enterprise", false, func(w http.ResponseWriter, r *http.Request, c *authz.Caller, _ svc.Input) error {
		var b bulkBody
		if err := rest.Decode(r, &b); err != nil {
			return err
		}
		names := b.Usernames
		if org {
			names = b.Orgs
		}
		accts, err := a.change(r, c, org, on, names)
		if err != nil {
			return err
		}
		if org && !on {
			return rest.NoContent(w)
		}
		return rest.JSON(w, http.StatusOK, a.render(accts, org))
	})
}

// PUT and DELETE .../memberships/{username}, .../organizations/{org}
func (a *API) one(org, on bool) rest.Handler {
	return a.handle("admin:enterprise", false, func(w http.ResponseWriter, r *http.Request, c *authz.Caller, _ svc.Input) error {
		accts, err := a.change(r, c, org, on, []string{target(r, org)})
		var ve *model.ValidationError
		if errors.As(err, &ve) {
			return model.ErrNotFound // the path's user or organization does not exist
		}
		if err != nil {
			return err
		}
		if !on {
			return rest.NoContent(w)
		}
		return rest.JSON(w, http.StatusCreated, a.renderOne(accts[0], org))
	})
}
