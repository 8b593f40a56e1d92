// Package codespaces is the REST adapter of Codespaces (/user/codespaces,
// /repos/{owner}/{repo}/codespaces, the organization's lists): it parses,
// authorizes the caller's token and calls internal/codespaces.
package codespaces

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strconv"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	svc "github.com/hubd/hubd/internal/codespaces"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// API is the package.
type API struct {
	d     *api.Deps
	svc   *svc.Service
	repos *repos.Service // creates the repository a codespace is published to
}

// New makes the package; workspaces live in <gitRoot>/../codespaces.
func New(d *api.Deps, gitRoot string, tokens svc.Tokens, repoSvc *repos.Service) *API {
	root := ""
	if gitRoot != "" {
		if abs, err := filepath.Abs(gitRoot); err == nil {
			gitRoot = abs
		}
		root = filepath.Join(filepath.Dir(gitRoot), "codespaces")
	}
	s := svc.New(d.Store, d.Git, d.Jobs, d.URLs, root)
	s.Tokens = tokens
	if gitRoot != "" {
		s.Hide = []string{gitRoot}
	}
	return &API{d: d, svc: s, repos: repoSvc}
}

// Service is the codespaces service (the lead wires Env, IDE, Policy).
func (a *API) Service() *svc.Service { return a.svc }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	sc := []string{"codespace"}
	r := func(method, pattern, op string, h rest.Handler) rest.Route {
		return rest.Route{Method: method, Pattern: pattern, OperationID: "codespaces/" + op, Handler: h, Scopes: sc, Note: svc.Note}
	}
	machines := "Machine types are this host's own, not GitHub's SKUs (the whole host and half of it, or the operator's types the host can honour); no prebuilds. A running codespace's cores (a CPU quota), memory and tasks are enforced by its cgroup when hubd runs as root (rlimits otherwise, without a core limit), its workspace disk by the sandbox's watchdog."
	m := func(method, pattern, op string, h rest.Handler) rest.Route {
		rt := r(method, pattern, op, h)
		rt.Note = machines
		return rt
	}
	org := func(method, pattern, op string, h rest.Handler) rest.Route {
		return rest.Route{Method: method, Pattern: pattern, OperationID: "codespaces/" + op, Handler: h, Scopes: []string{"admin:org"}, Note: svc.Note}
	}
	return []rest.Route{
		r("GET", "/repos/{owner}/{repo}/codespaces", "list-in-repository-for-authenticated-user", a.listInRepo),
		r("POST", "/repos/{owner}/{repo}/codespaces", "create-with-repo-for-authenticated-user", a.createInRepo),
		r("GET", "/repos/{owner}/{repo}/codespaces/devcontainers", "list-devcontainers-in-repository-for-authenticated-user", a.devcontainers),
		r("GET", "/repos/{owner}/{repo}/codespaces/new", "pre-flight-with-repo-for-authenticated-user", a.preflight),
		r("GET", "/repos/{owner}/{repo}/codespaces/permissions_check", "check-permissions-for-devcontainer", a.permissionsCheck),
		r("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/codespaces", "create-with-pr-for-authenticated-user", a.createFromPull),
		r("GET", "/user/codespaces", "list-for-authenticated-user", a.listForUser),
		r("POST", "/user/codespaces", "create-for-authenticated-user", a.createForUser),
		r("GET", "/user/codespaces/{codespace_name}", "get-for-authenticated-user", a.get),
		r("PATCH", "/user/codespaces/{codespace_name}", "update-for-authenticated-user", a.update),
		r("DELETE", "/user/codespaces/{codespace_name}", "delete-for-authenticated-user", a.delete),
		r("POST", "/user/codespaces/{codespace_name}/exports", "export-for-authenticated-user", a.export),
		r("GET", "/user/codespaces/{codespace_name}/exports/{export_id}", "get-export-details-for-authenticated-user", a.getExport),
		r("POST", "/user/codespaces/{codespace_name}/publish", "publish-for-authenticated-user", a.publish),
		r("POST", "/user/codespaces/{codespace_name}/start", "start-for-authenticated-user", a.start),
		r("POST", "/user/codespaces/{codespace_name}/stop", "stop-for-authenticated-user", a.stop),
		m("GET", "/repos/{owner}/{repo}/codespaces/machines", "repo-machines-for-authenticated-user", a.repoMachines),
		m("GET", "/user/codespaces/{codespace_name}/machines", "codespace-machines-for-authenticated-user", a.codespaceMachines),
		org("GET", "/orgs/{org}/codespaces", "list-in-organization", a.listInOrg),
		org("GET", "/orgs/{org}/members/{username}/codespaces", "get-codespaces-for-user-in-org", a.listForMember),
		org("DELETE", "/orgs/{org}/members/{username}/codespaces/{codespace_name}", "delete-from-organization", a.deleteForMember),
		org("POST", "/orgs/{org}/members/{username}/codespaces/{codespace_name}/stop", "stop-in-organization", a.stopForMember),
	}
}

// caller is the user behind a codespaces operation: a classic or OAuth
// token needs the codespace scope, fine-grained and user access tokens the
// codespaces permission (write for changes); installations act for no user.
func caller(r *http.Request, write bool) (*authz.Caller, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, err
	}
	switch c.Kind {
	case authz.ClassicPAT, authz.OAuthApp:
		if !c.HasScope("codespace") {
			return nil, model.Forbidden("Resource not accessible by personal access token")
		}
	case authz.FineGrained, authz.UserToServer:
		p := c.Permissions["codespaces"]
		if p == "" || (write && p == "read") {
			if c.Kind == authz.FineGrained {
				return nil, model.Forbidden("Resource not accessible by personal access token")
			}
			return nil, model.Forbidden("Resource not accessible by integration")
		}
	}
	return c, nil
}

// mine is the caller's codespace of the path.
func (a *API) mine(r *http.Request, write bool) (*authz.Caller, *model.Codespace, error) {
	c, err := caller(r, write)
	if err != nil {
		return nil, nil, err
	}
	cs, err := a.svc.Get(r.Context(), c.UserID(), r.PathValue("codespace_name"))
	return c, cs, err
}

// render writes codespaces, their owners and repositories loaded in one
// query each.
func (a *API) render(ctx context.Context, list []*model.Codespace) ([]wire.Codespace, error) {
	owners, repoIDs := []int64{}, []int64{}
	for _, c := range list {
		owners, repoIDs = append(owners, c.OwnerID), append(repoIDs, c.RepoID)
	}
	q := a.d.Store.R()
	people, err := q.AccountsByID(ctx, owners)
	if err != nil {
		return nil, err
	}
	repos, err := q.ReposByID(ctx, repoIDs, 0)
	if err != nil {
		return nil, err
	}
	machines := map[string]*wire.CodespaceMachine{}
	for _, m := range a.svc.Machines() {
		w := toMachine(m)
		machines[m.Name] = &w
	}
	out := make([]wire.Codespace, 0, len(list))
	for _, c := range list {
		owner, repo := people[c.OwnerID], repos[c.RepoID]
		if owner == nil || repo == nil {
			return nil, model.ErrNotFound
		}
		out = append(out, a.d.URLs.ToCodespace(c, owner, repo.Repo, machines[c.Machine]))
	}
	return out, nil
}

func (a *API) one(w http.ResponseWriter, r *http.Request, status int, c *model.Codespace) error {
	out, err := a.render(r.Context(), []*model.Codespace{c})
	if err != nil {
		return err
	}
	return rest.JSON(w, status, out[0])
}

type codespaceList struct {
	TotalCount int              `json:"total_count"`
	Codespaces []wire.Codespace `json:"codespaces"`
}

func (a *API) list(w http.ResponseWriter, r *http.Request, f store.CodespaceFilter) error {
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().Codespaces(r.Context(), f, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out, err := a.render(r.Context(), list)
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, codespaceList{TotalCount: total, Codespaces: out})
}

// GET /user/codespaces
func (a *API) listForUser(w http.ResponseWriter, r *http.Request) error {
	c, err := caller(r, false)
	if err != nil {
		return err
	}
	f := store.CodespaceFilter{OwnerID: c.UserID()}
	if s := r.URL.Query().Get("repository_id"); s != "" {
		if f.RepoID, err = strconv.ParseInt(s, 10, 64); err != nil || f.RepoID <= 0 {
			return model.Unprocessable("Invalid repository_id: " + s + ".")
		}
	}
	return a.list(w, r, f)
}

// GET /repos/{owner}/{repo}/codespaces
func (a *API) listInRepo(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	c, err := caller(r, false)
	if err != nil {
		return err
	}
	return a.list(w, r, store.CodespaceFilter{OwnerID: c.UserID(), RepoID: repo.ID})
}

type createBody struct {
	Ref                    string `json:"ref"`
	Location               string `json:"location"`
	Geo                    string `json:"geo"`
	Machine                string `json:"machine"`
	DevcontainerPath       string `json:"devcontainer_path"`
	DisplayName            string `json:"display_name"`
	IdleTimeoutMinutes     *int   `json:"idle_timeout_minutes"`
	RetentionPeriodMinutes *int   `json:"retention_period_minutes"`
	RepositoryID           *int64 `json:"repository_id"`
	PullRequest            *struct {
		PullRequestNumber int64 `json:"pull_request_number"`
		RepositoryID      int64 `json:"repository_id"`
	} `json:"pull_request"`
}

func (a *API) create(w http.ResponseWriter, r *http.Request, c *authz.Caller, repo *model.Repo, b createBody, pull int64) error {
	loc, err := svc.Location(b.Location, b.Geo)
	if err != nil {
		return err
	}
	ref := b.Ref
	if pull != 0 {
		pr, err := a.d.Store.R().PullByNumber(r.Context(), repo.ID, pull)
		if err != nil {
			return err
		}
		ref = pr.HeadRef
	}
	cs, err := a.svc.Create(r.Context(), svc.CreateInput{Owner: c.User, Repo: repo, Ref: ref, PullNumber: pull, Machine: b.Machine,
		DevcontainerPath: b.DevcontainerPath, DisplayName: b.DisplayName, Location: loc, IdleTimeout: b.IdleTimeoutMinutes, Retention: b.RetentionPeriodMinutes})
	if err != nil {
		return err
	}
	return a.one(w, r, http.StatusAccepted, cs)
}

// POST /repos/{owner}/{repo}/codespaces
func (a *API) createInRepo(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	c, err := caller(r, true)
	if err != nil {
		return err
	}
	var b createBody
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	return a.create(w, r, c, repo, b, 0)
}

// POST /repos/{owner}/{repo}/pulls/{pull_number}/codespaces
func (a *API) createFromPull(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	c, err := caller(r, true)
	if err != nil {
		return err
	}
	n, err := strconv.ParseInt(r.PathValue("pull_number"), 10, 64)
	if err != nil || n <= 0 {
		return model.ErrNotFound
	}
	var b createBody
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	b.Ref = ""
	return a.create(w, r, c, repo, b, n)
}

// POST /user/codespaces
func (a *API) createForUser(w http.ResponseWriter, r *http.Request) error {
	c, err := caller(r, true)
	if err != nil {
		return err
	}
	var b createBody
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	var repoID, pull int64
	switch {
	case b.RepositoryID != nil:
		repoID = *b.RepositoryID
	case b.PullRequest != nil:
		repoID, pull = b.PullRequest.RepositoryID, b.PullRequest.PullRequestNumber
	default:
		return model.Unprocessable("Either repository_id or pull_request is required.")
	}
	v, err := a.d.Store.R().RepoByID(r.Context(), repoID, c.UserID())
	if err != nil {
		return err
	}
	if !authz.CanSee(authz.RepoPermission(c, v.Repo, v.Facts)) {
		return model.ErrNotFound
	}
	if pull != 0 {
		b.Ref = ""
	}
	return a.create(w, r, c, v.Repo, b, pull)
}

// GET /user/codespaces/{codespace_name}
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	_, cs, err := a.mine(r, false)
	if err != nil {
		return err
	}
	return a.one(w, r, http.StatusOK, cs)
}

// PATCH /user/codespaces/{codespace_name}
func (a *API) update(w http.ResponseWriter, r *http.Request) error {
	_, cs, err := a.mine(r, true)
	if err != nil {
		return err
	}
	var b struct {
		Machine       *string   `json:"machine"`
		DisplayName   *string   `json:"display_name"`
		RecentFolders *[]string `json:"recent_folders"`
	}
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	in := svc.UpdateInput{Machine: b.Machine, DisplayName: b.DisplayName}
	if b.RecentFolders != nil {
		in.RecentFolders, in.HasFolders = *b.RecentFolders, true
	}
	if err := a.svc.Update(r.Context(), cs, in); err != nil {
		return err
	}
	return a.one(w, r, http.StatusOK, cs)
}

// DELETE /user/codespaces/{codespace_name}
func (a *API) delete(w http.ResponseWriter, r *http.Request) error {
	c, cs, err := a.mine(r, true)
	if err != nil {
		return err
	}
	if err := a.svc.Delete(r.Context(), cs, c.UserID()); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusAccepted, struct{}{})
}

// POST /user/codespaces/{codespace_name}/start
func (a *API) start(w http.ResponseWriter, r *http.Request) error {
	c, cs, err := a.mine(r, true)
	if err != nil {
		return err
	}
	if err := a.svc.Start(r.Context(), cs, c.UserID()); err != nil {
		return err
	}
	return a.one(w, r, http.StatusOK, cs)
}

// POST /user/codespaces/{codespace_name}/stop
func (a *API) stop(w http.ResponseWriter, r *http.Request) error {
	c, cs, err := a.mine(r, true)
	if err != nil {
		return err
	}
	if err := a.svc.Stop(r.Context(), cs, c.UserID()); err != nil {
		return err
	}
	return a.one(w, r, http.StatusOK, cs)
}

// POST /user/codespaces/{codespace_name}/exports
func (a *API) export(w http.ResponseWriter, r *http.Request) error {
	_, cs, err := a.mine(r, true)
	if err != nil {
		return err
	}
	e, err := a.svc.Export(r.Context(), cs)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusAccepted, a.d.URLs.ToCodespaceExport(cs, e, nil))
}

// GET /user/codespaces/{codespace_name}/exports/{export_id}
func (a *API) getExport(w http.ResponseWriter, r *http.Request) error {
	_, cs, err := a.mine(r, false)
	if err != nil {
		return err
	}
	e, err := a.svc.LatestExport(r.Context(), cs, r.PathValue("export_id"))
	if err != nil {
		return err
	}
	var target *model.Repo
	if e.RepoID != 0 {
		if v, err := a.d.Store.R().RepoByID(r.Context(), e.RepoID, cs.OwnerID); err == nil {
			target = v.Repo
		} else if !errors.Is(err, model.ErrNotFound) {
			return err
		}
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToCodespaceExport(cs, e, target))
}
