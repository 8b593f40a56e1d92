// Package autolinks is the REST adapter of a repository's autolink
// references (GET/POST /repos/{owner}/{repo}/autolinks, GET/DELETE
// .../autolinks/{autolink_id}); the rules live in internal/autolinks.
package autolinks

import (
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	svc "github.com/hubd/hubd/internal/autolinks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// API is the autolinks package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, svc: svc.New(d.Store)} }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	scopes := []string{"repo"}
	return []rest.Route{
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/autolinks", OperationID: "repos/list-autolinks", Handler: a.list, Scopes: scopes},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/autolinks", OperationID: "repos/create-autolink", Handler: a.create, Scopes: scopes},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/autolinks/{autolink_id}", OperationID: "repos/get-autolink", Handler: a.get, Scopes: scopes},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}/autolinks/{autolink_id}", OperationID: "repos/delete-autolink", Handler: a.remove, Scopes: scopes},
	}
}

// GET /repos/{owner}/{repo}/autolinks (administrators only, unpaginated
// as GitHub's).
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return err
	}
	list, err := a.d.Store.R().Autolinks(r.Context(), repo.ID)
	if err != nil {
		return err
	}
	out := make([]wire.Autolink, len(list))
	for i, l := range list {
		out[i] = wire.ToAutolink(l)
	}
	return rest.JSON(w, http.StatusOK, out)
}

type createBody struct {
	KeyPrefix      string `json:"key_prefix"`
	URLTemplate    string `json:"url_template"`
	IsAlphanumeric *bool  `json:"is_alphanumeric"`
}

// POST /repos/{owner}/{repo}/autolinks
func (a *API) create(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return err
	}
	var in createBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	alnum := in.IsAlphanumeric == nil || *in.IsAlphanumeric
	l, err := a.svc.Create(r.Context(), repo, rest.Caller(r).UserID(), svc.Input{KeyPrefix: in.KeyPrefix, URLTemplate: in.URLTemplate, Alphanumeric: alnum})
	if err != nil {
		return err
	}
	w.Header().Set("Location", a.d.URLs.API+"/repos/"+repo.FullName()+"/autolinks/"+strconv.FormatInt(l.ID, 10))
	return rest.JSON(w, http.StatusCreated, wire.ToAutolink(l))
}

func (a *API) one(r *http.Request) (*model.Repo, int64, error) {
	repo, _, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return nil, 0, err
	}
	id, err := strconv.ParseInt(r.PathValue("autolink_id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, 0, model.ErrNotFound
	}
	return repo, id, nil
}

// GET /repos/{owner}/{repo}/autolinks/{autolink_id}
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	repo, id, err := a.one(r)
	if err != nil {
		return err
	}
	l, err := a.d.Store.R().AutolinkByID(r.Context(), repo.ID, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToAutolink(l))
}

// DELETE /repos/{owner}/{repo}/autolinks/{autolink_id}
func (a *API) remove(w http.ResponseWriter, r *http.Request) error {
	repo, id, err := a.one(r)
	if err != nil {
		return err
	}
	if err := a.svc.Delete(r.Context(), repo, rest.Caller(r).UserID(), id); err != nil {
		return err
	}
	return rest.NoContent(w)
}
