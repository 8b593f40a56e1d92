// Package forks is the REST adapter of forks: creating a fork and listing a
// repository's forks. The rules live in internal/forks.
package forks

import (
	"bytes"
	"io"
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	svc "github.com/hubd/hubd/internal/forks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
)

// API is the forks package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package; the service registers the job that copies forks.
func New(d *api.Deps) *API {
	return &API{d: d, svc: svc.New(d.Store, d.Git, d.Jobs)}
}

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	return []rest.Route{
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/forks", OperationID: "repos/list-forks", Handler: a.list,
			Note: "hubd counts no stars or watchers yet: sort=stargazers and sort=watchers order as newest."},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/forks", OperationID: "repos/create-fork", Handler: a.create, Scopes: []string{"public_repo", "repo"},
			Note: "A private fork's access is its own (owner, collaborators, organization): it inherits no team access from its upstream, and it is not deleted when its owner loses access to the upstream, as on GitHub."},
	}
}

type createBody struct {
	Organization rest.Opt[string] `json:"organization"`
	Name         rest.Opt[string] `json:"name"`
	DefaultOnly  rest.Opt[bool]   `json:"default_branch_only"`
}

// POST /repos/{owner}/{repo}/forks: 202 with the fork at once (or the
// caller's existing repository in the network); git follows in a job.
func (a *API) create(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	parent, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	var in createBody
	if err := decodeNullable(r, &in); err != nil {
		return err
	}
	org, _ := in.Organization.Get()
	name, _ := in.Name.Get()
	only, _ := in.DefaultOnly.Get()
	ctx := r.Context()
	fork, _, err := a.svc.Create(ctx, c, parent, perm, svc.Input{Organization: org, Name: name, DefaultBranchOnly: only})
	if err != nil {
		return err
	}
	// The caller's permission on the fork (their own, or through the
	// organization), as a read of it would compute it.
	v, err := a.d.Store.R().RepoByID(ctx, fork.ID, c.UserID())
	if err != nil {
		return err
	}
	out, err := repos.Full(ctx, a.d, c, v.Repo, authz.RepoPermission(c, v.Repo, v.Facts))
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusAccepted, out)
}

// decodeNullable decodes a body the spec allows to be null (as absent).
func decodeNullable(r *http.Request, v any) error {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return rest.Decode(r, v) // let Decode answer for the read error
	}
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		b = nil
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return rest.Decode(r, v)
}

// GET /repos/{owner}/{repo}/forks
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	parent, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	c := rest.Caller(r)
	p := rest.ParsePage(r)
	sort := r.URL.Query().Get("sort")
	switch sort {
	case "", "newest", "oldest", "stargazers", "watchers":
	default:
		return model.Unprocessable("Invalid value for 'sort': " + sort)
	}
	ctx := r.Context()
	list, total, err := a.svc.List(ctx, parent, svc.ListQuery{Viewer: api.ViewerOf(c), Sort: sort, Limit: p.Limit(), Offset: p.Offset()})
	if err != nil {
		return err
	}
	out, err := repos.MinimalList(ctx, a.d, c, list)
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}
