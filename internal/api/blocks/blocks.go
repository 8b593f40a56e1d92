package blocks

import (
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

func (a *API) users(list []*model.Block) []wire.SimpleUser {
	out := make([]wire.SimpleUser, 0, len(list))
	for _, b := range list {
		out = append(out, a.d.URLs.ToSimpleUser(b.Blocked))
	}
	return out
}

// GET /user/blocks
func (a *API) listMine(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.ListForUser(r.Context(), c, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, a.users(list))
}

// GET /user/blocks/{username}
func (a *API) checkMine(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	if err := a.svc.CheckUser(r.Context(), c, r.PathValue("username")); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// PUT /user/blocks/{username}
func (a *API) blockMine(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	if err := a.svc.BlockUser(r.Context(), c, r.PathValue("username")); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// DELETE /user/blocks/{username}
func (a *API) unblockMine(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	if err := a.svc.UnblockUser(r.Context(), c, r.PathValue("username")); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /orgs/{org}/blocks
func (a *API) listOrg(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.ListForOrg(r.Context(), c, r.PathValue("org"), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, a.users(list))
}

// GET /orgs/{org}/blocks/{username}
func (a *API) checkOrg(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	if err := a.svc.CheckOrg(r.Context(), c, r.PathValue("org"), r.PathValue("username")); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// PUT /orgs/{org}/blocks/{username}
func (a *API) blockOrg(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	if err := a.svc.BlockForOrg(r.Context(), c, r.PathValue("org"), r.PathValue("username")); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// DELETE /orgs/{org}/blocks/{username}
func (a *API) unblockOrg(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	if err := a.svc.UnblockForOrg(r.Context(), c, r.PathValue("org"), r.PathValue("username")); err != nil {
		return err
	}
	return rest.NoContent(w)
}
