package variables

import (
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/variables"
	"github.com/hubd/hubd/internal/wire"
)

// handlers serve one kind of variables (actions or agents); env marks
// the environment routes.
type handlers struct {
	a    *API
	kind string
	env  bool
}

// repo is the path's repository for variables: collaborators with write
// access read them, admins change them. Installation tokens act for no
// user: the fine-grained permission the server checked is what counts.
func (h handlers) repo(r *http.Request, write bool) (*model.Repo, error) {
	need := authz.Write
	if write {
		need = authz.Admin
	}
	if rest.Caller(r).Kind == authz.Installation {
		need = authz.Read
	}
	repo, _, err := h.a.d.Repo(r, need)
	return repo, err
}

// org is the path's organization for a caller who may manage its
// variables: admin:org for classic and OAuth tokens, an installation on
// the organization, or a user holding the organization permission.
func (h handlers) org(r *http.Request) (*model.Account, error) {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return nil, rest.ErrRequiresAuth
	}
	org, err := h.a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return nil, err
	}
	if done, err := c.OrgToken(org.ID, "admin:org"); done {
		if err != nil {
			return nil, err
		}
		return org, nil
	}
	if _, err := api.RequireUser(r); err != nil {
		return nil, err
	}
	return org, h.a.svc.MayManageOrg(r.Context(), org, c.User)
}

// scope is the variables' owner named by the path.
func (h handlers) scope(r *http.Request, write bool) (svc.Scope, error) {
	sc := svc.Scope{Kind: h.kind}
	var err error
	if r.PathValue("org") != "" {
		sc.Org, err = h.org(r)
		return sc, err
	}
	if sc.Repo, err = h.repo(r, write); err != nil {
		return sc, err
	}
	if h.env {
		sc.Env, err = h.a.envs.Get(r.Context(), sc.Repo, r.PathValue("environment_name"))
	}
	return sc, err
}

func (h handlers) login(sc svc.Scope) string {
	if sc.Org != nil {
		return sc.Org.Login
	}
	return sc.Repo.Owner.Login
}

func (h handlers) writeList(w http.ResponseWriter, r *http.Request, p rest.Page, login string, list []*model.Variable, total int) error {
	out := make([]wire.Variable, len(list))
	for i, v := range list {
		out[i] = h.a.d.URLs.ToVariable(v, login)
	}
	rest.SetLink(w, r, h.a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, struct {
		TotalCount int             `json:"total_count"`
		Variables  []wire.Variable `json:"variables"`
	}{total, out})
}

// GET .../variables (repository, organization, environment)
func (h handlers) list(w http.ResponseWriter, r *http.Request) error {
	sc, err := h.scope(r, false)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := h.a.svc.List(r.Context(), sc, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	return h.writeList(w, r, p, h.login(sc), list, total)
}

// GET /repos/{owner}/{repo}/{kind}/organization-variables
func (h handlers) listShared(w http.ResponseWriter, r *http.Request) error {
	repo, err := h.repo(r, false)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := h.a.svc.SharedWith(r.Context(), h.kind, repo, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	return h.writeList(w, r, p, repo.Owner.Login, list, total)
}

// GET .../variables/{name}
func (h handlers) get(w http.ResponseWriter, r *http.Request) error {
	sc, err := h.scope(r, false)
	if err != nil {
		return err
	}
	v, err := h.a.svc.Get(r.Context(), sc, r.PathValue("name"))
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, h.a.d.URLs.ToVariable(v, h.login(sc)))
}

type body struct {
	Name       *string  `json:"name"`
	Value      *string  `json:"value"`
	Visibility *string  `json:"visibility"`
	Repos      *[]int64 `json:"selected_repository_ids"`
}

func (b body) input() svc.Input {
	return svc.Input{Name: b.Name, Value: b.Value, Visibility: b.Visibility, Repos: b.Repos}
}

// POST .../variables
func (h handlers) create(w http.ResponseWriter, r *http.Request) error {
	sc, err := h.scope(r, true)
	if err != nil {
		return err
	}
	var b body
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	if _, err := h.a.svc.Create(r.Context(), sc, rest.Caller(r).UserID(), b.input()); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, struct{}{})
}

// PATCH .../variables/{name}
func (h handlers) update(w http.ResponseWriter, r *http.Request) error {
	sc, err := h.scope(r, true)
	if err != nil {
		return err
	}
	var b body
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	if err := h.a.svc.Update(r.Context(), sc, rest.Caller(r).UserID(), r.PathValue("name"), b.input()); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// DELETE .../variables/{name}
func (h handlers) delete(w http.ResponseWriter, r *http.Request) error {
	sc, err := h.scope(r, true)
	if err != nil {
		return err
	}
	if err := h.a.svc.Delete(r.Context(), sc, rest.Caller(r).UserID(), r.PathValue("name")); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /orgs/{org}/{kind}/variables/{name}/repositories
func (h handlers) listRepos(w http.ResponseWriter, r *http.Request) error {
	sc, err := h.scope(r, false)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	ids, total, err := h.a.svc.SelectedRepos(r.Context(), sc, r.PathValue("name"), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out, err := h.minimal(r, ids)
	if err != nil {
		return err
	}
	rest.SetLink(w, r, h.a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, struct {
		TotalCount   int                      `json:"total_count"`
		Repositories []wire.MinimalRepository `json:"repositories"`
	}{total, out})
}

// minimal converts repositories by id with their facts loaded in one
// batch.
func (h handlers) minimal(r *http.Request, ids []int64) ([]wire.MinimalRepository, error) {
	c := rest.Caller(r)
	q := h.a.d.Store.R()
	views, err := q.ReposByID(r.Context(), ids, c.UserID())
	if err != nil {
		return nil, err
	}
	facts, err := q.RepoFacts(r.Context(), ids)
	if err != nil {
		return nil, err
	}
	out := make([]wire.MinimalRepository, 0, len(ids))
	for _, id := range ids {
		v := views[id]
		if v == nil {
			continue
		}
		access := wire.Access{Perm: authz.RepoPermission(c, v.Repo, v.Facts), Authenticated: c.Authenticated()}
		out = append(out, h.a.d.URLs.ToMinimalRepository(v.Repo, repos.Counts(h.a.d, v.Repo, facts[id]), access))
	}
	return out, nil
}

// PUT /orgs/{org}/{kind}/variables/{name}/repositories
func (h handlers) setRepos(w http.ResponseWriter, r *http.Request) error {
	sc, err := h.scope(r, true)
	if err != nil {
		return err
	}
	var b body
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	if b.Repos == nil {
		return model.Invalid("Variable", "selected_repository_ids", "missing_field")
	}
	if err := h.a.svc.SetRepos(r.Context(), sc, rest.Caller(r).UserID(), r.PathValue("name"), *b.Repos, "set"); err != nil {
		return err
	}
	return rest.NoContent(w)
}

func (h handlers) oneRepo(w http.ResponseWriter, r *http.Request, op string) error {
	sc, err := h.scope(r, true)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(r.PathValue("repository_id"), 10, 64)
	if err != nil || id <= 0 {
		return model.ErrNotFound
	}
	if err := h.a.svc.SetRepos(r.Context(), sc, rest.Caller(r).UserID(), r.PathValue("name"), []int64{id}, op); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// PUT /orgs/{org}/{kind}/variables/{name}/repositories/{repository_id}
func (h handlers) addRepo(w http.ResponseWriter, r *http.Request) error {
	return h.oneRepo(w, r, "add")
}

// DELETE /orgs/{org}/{kind}/variables/{name}/repositories/{repository_id}
func (h handlers) removeRepo(w http.ResponseWriter, r *http.Request) error {
	return h.oneRepo(w, r, "remove")
}
