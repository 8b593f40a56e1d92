// Package repos serves the Repositories category: creating, reading,
// updating, deleting and listing repositories, and their topics. The rules
// of creating, updating and deleting are the repository service's
// (internal/repos), which GraphQL runs too.
package repos

import (
	"net/http"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	reposvc "github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// API is the repos package.
type API struct {
	d     *api.Deps
	svc   *reposvc.Service
	cache *rendered // repository objects of the lists
}

// New makes the package and the repository service (which detects license
// and language after every push).
func New(d *api.Deps) *API {
	return &API{d: d, svc: reposvc.New(d), cache: newRendered()}
}

// Service is the repository service the package runs.
func (a *API) Service() *reposvc.Service { return a.svc }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	return []rest.Route{
		{Method: "POST", Pattern: "/user/repos", OperationID: "repos/create-for-authenticated-user", Handler: a.createForUser, Scopes: []string{"public_repo", "repo"}},
		{Method: "POST", Pattern: "/orgs/{org}/repos", OperationID: "repos/create-in-org", Handler: a.createInOrg, Scopes: []string{"public_repo", "repo"}},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}", OperationID: "repos/get", Handler: a.get, Scopes: []string{"repo"}},
		{Method: "PATCH", Pattern: "/repos/{owner}/{repo}", OperationID: "repos/update", Handler: a.update, Scopes: []string{"public_repo", "repo"}},
		{Method: "DELETE", Pattern: "/repos/{owner}/{repo}", OperationID: "repos/delete", Handler: a.delete, Scopes: []string{"delete_repo"}},
		{Method: "GET", Pattern: "/user/repos", OperationID: "repos/list-for-authenticated-user", Handler: a.listForAuthenticatedUser, Scopes: []string{"repo"}},
		{Method: "GET", Pattern: "/users/{username}/repos", OperationID: "repos/list-for-user", Handler: a.listForUser},
		{Method: "GET", Pattern: "/orgs/{org}/repos", OperationID: "repos/list-for-org", Handler: a.listForOrg},
		{Method: "GET", Pattern: "/repositories", OperationID: "repos/list-public", Handler: a.listPublic},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/topics", OperationID: "repos/get-all-topics", Handler: a.getTopics},
		{Method: "PUT", Pattern: "/repos/{owner}/{repo}/topics", OperationID: "repos/replace-all-topics", Handler: a.replaceTopics, Scopes: []string{"public_repo", "repo"}},
	}
}

// counts are a repository's counters and detected facts: open issues and
// forks come with the row (stars and watchers too, which the wire
// converters read from the repository itself).
func (a *API) counts(r *model.Repo, f store.RepoFacts) wire.RepoCounts {
	return reposvc.Counts(a.d, r, f)
}

func (a *API) full(r *http.Request, repo *model.Repo, perm authz.Permission) (wire.FullRepository, error) {
	return a.svc.Full(r.Context(), rest.Caller(r), repo, perm)
}

// writeFull answers a repository as GET /repos/{owner}/{repo} shows it.
func (a *API) writeFull(w http.ResponseWriter, r *http.Request, status int, repo *model.Repo, perm authz.Permission) error {
	out, err := a.full(r, repo, perm)
	if err != nil {
		return err
	}
	return rest.JSON(w, status, out)
}

// POST /user/repos
func (a *API) createForUser(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	var in reposvc.CreateInput
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	repo, err := a.svc.Create(r.Context(), c, c.User, in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", a.d.URLs.RepoAPIURL(repo))
	return a.writeFull(w, r, http.StatusCreated, repo, authz.Admin)
}

// POST /orgs/{org}/repos: org admins always; members when the organization
// lets them create repositories of the requested visibility.
func (a *API) createInOrg(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	org, err := a.d.Store.R().AccountByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return err
	}
	if !org.IsOrg() {
		return rest.ErrNotFound
	}
	// Membership is checked before the body is read (and again by the
	// service): an outsider is refused whatever it sent.
	if _, err := a.svc.OrgCreator(r.Context(), c, org); err != nil {
		return err
	}
	var in reposvc.CreateInput
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	repo, err := a.svc.Create(r.Context(), c, org, in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", a.d.URLs.RepoAPIURL(repo))
	return a.writeFull(w, r, http.StatusCreated, repo, authz.Admin)
}

// GET /repos/{owner}/{repo}
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	gen := a.d.Store.WriteGen() // before reading: a write meanwhile makes what is read stale
	repo, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	// GitHub dates a repository's representation by its updated_at; the
	// server's conditional-request code honours the header.
	w.Header().Set("Last-Modified", repo.UpdatedAt.UTC().Format(http.TimeFormat))
	// The object of a public repository that is neither a fork nor made
	// from a template depends on the caller only through their permission
	// and whether they are signed in (a fork embeds its parent with the
	// caller's permission on it; a private repository carries a clone
	// token of the caller's), so it is rendered once per write generation
	// for each, as the lists render theirs.
	if repo.Private() || repo.ParentID != 0 || repo.TemplateID != 0 {
		return a.writeFull(w, r, http.StatusOK, repo, perm)
	}
	now := time.Now()
	key := renderKey{repo: repo.ID, shape: shapeFull, perm: perm, authn: rest.Caller(r).Authenticated()}
	b, ok := a.cache.get(key, gen, now)
	if !ok {
		out, err := a.full(r, repo, perm)
		if err != nil {
			return err
		}
		if b, err = marshal(out); err != nil {
			return err
		}
		b = append(b, '\n') // the whole body, as rest.JSON writes it
		a.cache.put(key, renderEntry{gen: gen, expires: expiry(repo.ID, now), json: b})
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(b)
	return err
}

// PATCH /repos/{owner}/{repo}: admins change settings, rename (the old name
// then redirects), change visibility and archive.
func (a *API) update(w http.ResponseWriter, r *http.Request) error {
	found, perm, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return err
	}
	var in reposvc.UpdateInput
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	repo, err := a.svc.Update(r.Context(), rest.Caller(r), found, in)
	if err != nil {
		return err
	}
	return a.writeFull(w, r, http.StatusOK, repo, perm)
}

// DELETE /repos/{owner}/{repo}: admins; classic tokens need delete_repo.
func (a *API) delete(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Admin)
	if err != nil {
		return err
	}
	if err := a.svc.Delete(r.Context(), rest.Caller(r), repo); err != nil {
		return err
	}
	return rest.NoContent(w)
}
