package sshkeys

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// keyID is the {key_id} of the path; a malformed one names no key.
func keyID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("key_id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, model.ErrNotFound
	}
	return id, nil
}

// GET /user/keys
func (a *API) listMine(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.ListMine(r.Context(), c, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.Key, len(list))
	for i, k := range list {
		out[i] = a.d.URLs.ToKey(k)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /user/keys/{key_id}
func (a *API) getMine(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := keyID(r)
	if err != nil {
		return err
	}
	k, err := a.svc.GetMine(r.Context(), c, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToKey(k))
}

type keyBody struct {
	Title    string `json:"title"`
	Key      string `json:"key"`
	ReadOnly bool   `json:"read_only"`
}

// POST /user/keys
func (a *API) createMine(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	if err := a.svc.MayAdd(c); err != nil {
		return err
	}
	var in keyBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	k, err := a.svc.AddMine(r.Context(), c, in.Title, in.Key)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, a.d.URLs.ToKey(k))
}

// DELETE /user/keys/{key_id}
func (a *API) deleteMine(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := keyID(r)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteMine(r.Context(), c, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /users/{username}/keys
func (a *API) listForUser(w http.ResponseWriter, r *http.Request) error {
	p := rest.ParsePage(r)
	list, total, err := a.svc.ListForUser(r.Context(), r.PathValue("username"), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.KeySimple, len(list))
	for i, k := range list {
		out[i] = wire.ToKeySimple(k)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /admin/keys
func (a *API) listAll(w http.ResponseWriter, r *http.Request) error {
	if _, err := api.RequireSiteAdmin(r); err != nil {
		return err
	}
	q := r.URL.Query()
	var since time.Time
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return model.Unprocessable("Invalid value for `since`: " + v)
		}
		since = t
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.ListAll(r.Context(), since, q.Get("sort"), q.Get("direction") == "asc", p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.PublicKeyFull, len(list))
	for i, k := range list {
		out[i] = a.d.URLs.ToPublicKeyFull(k)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// DELETE /admin/keys/{key_ids}
func (a *API) deleteAny(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireSiteAdmin(r)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(strings.TrimSpace(r.PathValue("key_ids")), 10, 64)
	if err != nil || id <= 0 {
		return model.ErrNotFound
	}
	if err := a.svc.DeleteAny(r.Context(), c, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /repos/{owner}/{repo}/keys
func (a *API) listDeploy(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.ListDeploy(r.Context(), repo, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.DeployKey, len(list))
	for i, k := range list {
		out[i] = a.d.URLs.ToDeployKey(repo, k)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/keys/{key_id}
func (a *API) getDeploy(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return err
	}
	id, err := keyID(r)
	if err != nil {
		return err
	}
	k, err := a.svc.GetDeploy(r.Context(), repo, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToDeployKey(repo, k))
}

// POST /repos/{owner}/{repo}/keys
func (a *API) createDeploy(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return err
	}
	var in keyBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	k, err := a.svc.AddDeploy(r.Context(), rest.Caller(r), repo, in.Title, in.Key, in.ReadOnly)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, a.d.URLs.ToDeployKey(repo, k))
}

// DELETE /repos/{owner}/{repo}/keys/{key_id}
func (a *API) deleteDeploy(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return err
	}
	id, err := keyID(r)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteDeploy(r.Context(), rest.Caller(r), repo, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}
