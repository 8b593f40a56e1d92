// Package enterpriseteams is the REST transport of the enterprise's teams
// (internal/enterpriseteams): /enterprises/{enterprise}/teams. SCIM groups
// (internal/api/scim) are enterprise teams too.
package enterpriseteams

import (
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/enterprise"
	svc "github.com/hubd/hubd/internal/enterpriseteams"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// API is the package.
type API struct {
	d     *api.Deps
	svc   *svc.Service
	roles *enterprise.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, svc: svc.New(d.Store), roles: enterprise.New(d.Store)} }

const noteTeams = "Teams of hubd's one enterprise; group_id is set for SCIM groups and not writable here; notification_setting is not kept."

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	read, write := []string{"read:enterprise", "admin:enterprise"}, []string{"admin:enterprise"}
	b := "/enterprises/{enterprise}/teams"
	return append([]rest.Route{
		{Method: "GET", Pattern: b, OperationID: "enterprise-teams/list", Handler: a.list, Scopes: read, Note: noteTeams},
		{Method: "POST", Pattern: b, OperationID: "enterprise-teams/create", Handler: a.create, Scopes: write, Note: noteTeams},
		{Method: "GET", Pattern: b + "/{team_slug}", OperationID: "enterprise-teams/get", Handler: a.get, Scopes: read},
		{Method: "PATCH", Pattern: b + "/{team_slug}", OperationID: "enterprise-teams/update", Handler: a.update, Scopes: write, Note: noteTeams},
		{Method: "DELETE", Pattern: b + "/{team_slug}", OperationID: "enterprise-teams/delete", Handler: a.remove, Scopes: write},
	}, append(a.relationRoutes(), a.roleRoutes()...)...)
}

// Team is components/schemas/enterprise-team.
type Team struct {
	ID           int64   `json:"id"`
	Name         string  `json:"name"`
	Description  string  `json:"description"`
	Slug         string  `json:"slug"`
	URL          string  `json:"url"`
	OrgSelection string  `json:"organization_selection_type"`
	GroupID      *string `json:"group_id"`
	HTMLURL      string  `json:"html_url"`
	MembersURL   string  `json:"members_url"`
	CreatedAt    string  `json:"created_at"`
	UpdatedAt    string  `json:"updated_at"`
}

func (a *API) toTeam(t *model.EnterpriseTeam) Team {
	e := a.d.URLs.EnterpriseSlug()
	url := a.d.URLs.API + "/enterprises/" + e + "/teams/" + t.Slug
	var group *string
	if t.GroupID != "" {
		group = &t.GroupID
	}
	return Team{ID: t.ID, Name: t.Name, Description: t.Description, Slug: t.Slug, URL: url, OrgSelection: t.OrgSelection,
		GroupID: group, HTMLURL: a.d.URLs.Web + "/enterprises/" + e + "/teams/" + strings.TrimPrefix(t.Slug, svc.SlugPrefix),
		MembersURL: url + "/memberships{/member}", CreatedAt: wire.Time(t.CreatedAt), UpdatedAt: wire.Time(t.UpdatedAt)}
}

// body is a create or update body.
type body struct {
	Name         rest.Opt[string] `json:"name"`
	Description  rest.Opt[string] `json:"description"`
	OrgSelection *string          `json:"organization_selection_type"`
	GroupID      rest.Opt[string] `json:"group_id"`
	SyncToOrgs   *string          `json:"sync_to_organizations"` // retired: ignored, as GitHub does
}

func (b body) input() (svc.Input, error) {
	in := svc.Input{OrgSelection: b.OrgSelection}
	if v, ok := b.Name.Get(); ok {
		in.Name = &v
	}
	if b.Description.Set {
		v := b.Description.Value // null clears
		in.Description = &v
	}
	if _, ok := b.GroupID.Get(); ok {
		return in, model.Custom("EnterpriseTeam", "group_id", "hubd links identity provider groups through SCIM only (/scim/v2/enterprises/{enterprise}/Groups).")
	}
	return in, nil
}

// handle authorizes with scope and reads the body of a write.
func (a *API) handle(scope string, decode bool, h func(w http.ResponseWriter, r *http.Request, c *authz.Caller, in svc.Input) error) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, err := a.d.RequireEnterpriseOwner(r, scope, "manage enterprise teams")
		if err != nil {
			return err
		}
		var in svc.Input
		if decode {
			var b body
			if err := rest.Decode(r, &b); err != nil {
				return err
			}
			if in, err = b.input(); err != nil {
				return err
			}
		}
		return h(w, r, c, in)
	}
}

// GET /enterprises/{enterprise}/teams
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	return a.handle("read:enterprise", false, func(w http.ResponseWriter, r *http.Request, _ *authz.Caller, _ svc.Input) error {
		p := rest.ParsePage(r)
		teams, total, err := a.svc.List(r.Context(), p.Limit(), p.Offset())
		if err != nil {
			return err
		}
		out := make([]Team, len(teams))
		for i, t := range teams {
			out[i] = a.toTeam(t)
		}
		rest.SetLink(w, r, a.d.URLs.API, p, total)
		return rest.JSON(w, http.StatusOK, out)
	})(w, r)
}

// POST /enterprises/{enterprise}/teams
func (a *API) create(w http.ResponseWriter, r *http.Request) error {
	return a.handle("admin:enterprise", true, func(w http.ResponseWriter, r *http.Request, c *authz.Caller, in svc.Input) error {
		t, err := a.svc.Create(r.Context(), c.UserID(), in)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusCreated, a.toTeam(t))
	})(w, r)
}

// GET /enterprises/{enterprise}/teams/{team_slug}
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	return a.handle("read:enterprise", false, func(w http.ResponseWriter, r *http.Request, _ *authz.Caller, _ svc.Input) error {
		t, err := a.svc.Get(r.Context(), r.PathValue("team_slug"))
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, a.toTeam(t))
	})(w, r)
}

// PATCH /enterprises/{enterprise}/teams/{team_slug}
func (a *API) update(w http.ResponseWriter, r *http.Request) error {
	return a.handle("admin:enterprise", true, func(w http.ResponseWriter, r *http.Request, c *authz.Caller, in svc.Input) error {
		t, err := a.svc.Update(r.Context(), c.UserID(), r.PathValue("team_slug"), in)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, a.toTeam(t))
	})(w, r)
}

// DELETE /enterprises/{enterprise}/teams/{team_slug}
func (a *API) remove(w http.ResponseWriter, r *http.Request) error {
	return a.handle("admin:enterprise", false, func(w http.ResponseWriter, r *http.Request, c *authz.Caller, _ svc.Input) error {
		if err := a.svc.Remove(r.Context(), c.UserID(), r.PathValue("team_slug")); err != nil {
			return err
		}
		return rest.NoContent(w)
	})(w, r)
}
