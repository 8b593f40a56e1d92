// Package forks is the REST adapter of forks: creating a fork and listing a
// repository's forks. The rules live in internal/forks.
package forks

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	svc "github.com/hubd/hubd/internal/forks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// API is the forks package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package; the service registers the jobs that copy forks
// and fill repositories generated from templates.
func New(d *api.Deps) *API {
	s := svc.New(d.Store, d.Git, d.Jobs)
	s.Identity = d.Signature
	s.RecordPush = func(ctx context.Context, repo *model.Repo, actorID int64, updates []svc.RefUpdate) error {
		list := make([]api.RefUpdate, len(updates))
		for i, u := range updates {
			list[i] = api.RefUpdate{Ref: u.Ref, Old: u.Old, New: u.New}
		}
		return d.RecordPush(ctx, repo, actorID, list, false)
	}
	return &API{d: d, svc: s}
}

// Service is the fork service (GraphQL's cloneTemplateRepository runs it).
func (a *API) Service() *svc.Service { return a.svc }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	return []rest.Route{
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/forks", OperationID: "repos/list-forks", Handler: a.list,
			Note: "hubd counts no stars or watchers yet: sort=stargazers and sort=watchers order as newest."},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/forks", OperationID: "repos/create-fork", Handler: a.create, Scopes: []string{"public_repo", "repo"},
			Note: "A private fork's access is its own (owner, collaborators, organization): it inherits no team access from its upstream, and it is not deleted when its owner loses access to the upstream, as on GitHub."},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/merge-upstream", OperationID: "repos/merge-upstream", Handler: a.mergeUpstream, Scopes: []string{"public_repo", "repo"},
			Note: "Rulesets and the workflow scope apply to the synced branch; classic branch protection does not (as for git pushes, see the protection routes)."},
		{Method: "POST", Pattern: "/repos/{template_owner}/{template_repo}/generate", OperationID: "repos/create-using-template", Handler: a.generate, Scopes: []string{"public_repo", "repo"}},
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
	return a.writeMade(w, r, http.StatusAccepted, fork)
}

// writeMade answers a repository just made (or handed back) as a read of
// it shows it, with the caller's permission on it (their own, or through
// the organization).
func (a *API) writeMade(w http.ResponseWriter, r *http.Request, status int, repo *model.Repo) error {
	ctx, c := r.Context(), rest.Caller(r)
	v, err := a.d.Store.R().RepoByID(ctx, repo.ID, c.UserID())
	if err != nil {
		return err
	}
	out, err := repos.Full(ctx, a.d, c, v.Repo, authz.RepoPermission(c, v.Repo, v.Facts))
	if err != nil {
		return err
	}
	if status == http.StatusCreated {
		w.Header().Set("Location", a.d.URLs.RepoAPIURL(v.Repo))
	}
	return rest.JSON(w, status, out)
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

// POST /repos/{owner}/{repo}/merge-upstream
func (a *API) mergeUpstream(w http.ResponseWriter, r *http.Request) error {
	fork, perm, err := a.d.Repo(r, authz.Write)
	if err != nil {
		return err
	}
	var in struct {
		Branch rest.Opt[string] `json:"branch"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	branch, _ := in.Branch.Get()
	res, err := a.svc.MergeUpstream(r.Context(), rest.Caller(r), fork, perm, branch)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.MergedUpstream{Message: res.Message, MergeType: res.MergeType, BaseBranch: res.BaseBranch})
}

// POST /repos/{template_owner}/{template_repo}/generate: 201 with the new
// repository at once; its files follow in a job.
func (a *API) generate(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	// The template is looked up like any repository of the path.
	r.SetPathValue("owner", r.PathValue("template_owner"))
	r.SetPathValue("repo", r.PathValue("template_repo"))
	tmpl, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	var in struct {
		Owner              rest.Opt[string] `json:"owner"`
		Name               rest.Opt[string] `json:"name"`
		Description        rest.Opt[string] `json:"description"`
		IncludeAllBranches rest.Opt[bool]   `json:"include_all_branches"`
		Private            rest.Opt[bool]   `json:"private"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	gi := svc.GenerateInput{Visibility: model.Public}
	gi.Owner, _ = in.Owner.Get()
	gi.Name, _ = in.Name.Get()
	gi.Description, _ = in.Description.Get()
	gi.IncludeAllBranches, _ = in.IncludeAllBranches.Get()
	if p, _ := in.Private.Get(); p {
		gi.Visibility = model.Private
	}
	repo, err := a.svc.Generate(r.Context(), c, tmpl, perm, gi)
	if err != nil {
		return err
	}
	return a.writeMade(w, r, http.StatusCreated, repo)
}
