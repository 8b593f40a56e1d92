package outside

import (
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	svc "github.com/hubd/hubd/internal/outside"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// tokenMay reports whether the caller's credential may act on the
// organization's members: one of the classic scopes for classic and OAuth
// tokens, the "members" organization permission at level for the others.
func tokenMay(c *authz.Caller, level string, scopes []string) error {
	ok := false
	switch c.Kind {
	case authz.ClassicPAT, authz.OAuthApp:
		for _, s := range scopes {
			if c.HasScope(s) {
				ok = true
			}
		}
	default:
		got := c.Permissions["members"]
		ok = got == "admin" || got == "write" || got == level
	}
	if ok {
		return nil
	}
	if c.Kind == authz.UserToServer || c.Kind == authz.Installation {
		return model.Forbidden("Resource not accessible by integration")
	}
	return model.Forbidden("Resource not accessible by personal access token")
}

// caller finds the signed-in user and the organization, and checks the
// token.
func (a *API) caller(r *http.Request, level string, scopes []string) (*authz.Caller, *model.Account, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, nil, err
	}
	org, err := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return nil, nil, err
	}
	if err := tokenMay(c, level, scopes); err != nil {
		return nil, nil, err
	}
	return c, org, nil
}

// GET /orgs/{org}/outside_collaborators
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.caller(r, "read", readOrg)
	if err != nil {
		return err
	}
	f, err := svc.ParseFilter(r.URL.Query().Get("filter"))
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.List(r.Context(), org, c.User.ID, f, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.SimpleUser, 0, len(list))
	for _, u := range list {
		out = append(out, a.d.URLs.ToSimpleUser(u))
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

type convertBody struct {
	Async *bool `json:"async"`
}

// PUT /orgs/{org}/outside_collaborators/{username}
func (a *API) convert(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.caller(r, "write", adminOrg)
	if err != nil {
		return err
	}
	var in convertBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if err := a.svc.Convert(r.Context(), org, c.User.ID, r.PathValue("username")); err != nil {
		return err
	}
	if in.Async != nil && *in.Async {
		// The conversion is one short transaction: it is already done, but
		// the client asked for the asynchronous answer.
		return rest.JSON(w, http.StatusAccepted, struct{}{})
	}
	return rest.NoContent(w)
}

// DELETE /orgs/{org}/outside_collaborators/{username}
func (a *API) remove(w http.ResponseWriter, r *http.Request) error {
	c, org, err := a.caller(r, "write", adminOrg)
	if err != nil {
		return err
	}
	if err := a.svc.Remove(r.Context(), org, c.User.ID, r.PathValue("username")); err != nil {
		return err
	}
	return rest.NoContent(w)
}
