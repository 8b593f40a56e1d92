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

// page answers a page of keys, each converted by conv, with its Link
// header; list is the service's read of the page p.
func page[T any](w http.ResponseWriter, r *http.Request, a *API, p rest.Page,
	list func(limit, offset int) ([]*model.PublicKey, int, error), conv func(*model.PublicKey) T) error {
	keys, total, err := list(p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]T, len(keys))
	for i, k := range keys {
		out[i] = conv(k)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// mine is the caller (who must be a user) and the {key_id} of the path.
func mine(r *http.Request) (*authz.Caller, int64, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, 0, err
	}
	id, err := keyID(r)
	return c, id, err
}

// deployKey is the repository, which the caller must administer, and the
// {key_id} of the path.
func (a *API) deployKey(r *http.Request) (*model.Repo, int64, error) {
	repo, _, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return nil, 0, err
	}
	id, err := keyID(r)
	return repo, id, err
}

// GET /user/keys
func (a *API) listMine(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	return page(w, r, a, rest.ParsePage(r), func(limit, offset int) ([]*model.PublicKey, int, error) {
		return a.svc.ListMine(r.Context(), c, limit, offset)
	}, a.d.URLs.ToKey)
}

// GET /user/keys/{key_id}
func (a *API) getMine(w http.ResponseWriter, r *http.Request) error {
	c, id, err := mine(r)
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
	c, id, err := mine(r)
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
	return page(w, r, a, rest.ParsePage(r), func(limit, offset int) ([]*model.PublicKey, int, error) {
		return a.svc.ListForUser(r.Context(), r.PathValue("username"), limit, offset)
	}, wire.ToKeySimple)
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
	return page(w, r, a, rest.ParsePage(r), func(limit, offset int) ([]*model.PublicKey, int, error) {
		return a.svc.ListAll(r.Context(), since, q.Get("sort"), q.Get("direction") == "asc", limit, offset)
	}, a.d.URLs.ToPublicKeyFull)
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
	return page(w, r, a, rest.ParsePage(r), func(limit, offset int) ([]*model.PublicKey, int, error) {
		return a.svc.ListDeploy(r.Context(), repo, limit, offset)
	}, func(k *model.PublicKey) wire.DeployKey { return a.d.URLs.ToDeployKey(repo, k) })
}

// GET /repos/{owner}/{repo}/keys/{key_id}
func (a *API) getDeploy(w http.ResponseWriter, r *http.Request) error {
	repo, id, err := a.deployKey(r)
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
	repo, id, err := a.deployKey(r)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteDeploy(r.Context(), rest.Caller(r), repo, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}
