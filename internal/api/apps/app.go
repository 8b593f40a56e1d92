package apps

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/api"
	svc "github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// requireJWT lets through an app authenticated with its JSON web token:
// other credentials are not a JWT, as GitHub answers them.
func requireJWT(r *http.Request) (*authz.Caller, error) {
	c := rest.Caller(r)
	switch {
	case c.Kind == authz.AppJWT:
		return c, nil
	case !c.Authenticated():
		return nil, rest.ErrRequiresAuth
	}
	return nil, svc.ErrJWTDecode
}

// GET /app: the app of the JWT (or of the installation token).
func (a *API) getApp(w http.ResponseWriter, r *http.Request) error {
	c := rest.Caller(r)
	if c.Kind != authz.Installation {
		if _, err := requireJWT(r); err != nil {
			return err
		}
	}
	q := a.d.Store.R()
	app, err := q.AppByID(r.Context(), c.AppID)
	if err != nil {
		return err
	}
	n, err := q.CountInstallations(r.Context(), app.ID)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToIntegration(app, &n))
}

// GET /apps/{app_slug}: any caller sees an app.
func (a *API) getBySlug(w http.ResponseWriter, r *http.Request) error {
	app, err := a.d.Store.R().AppBySlug(r.Context(), r.PathValue("app_slug"))
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToIntegration(app, nil))
}

// sinceParam reads the since parameter (an ISO 8601 timestamp).
func sinceParam(r *http.Request) (*time.Time, error) {
	s := r.URL.Query().Get("since")
	if s == "" {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return &t, nil
		}
	}
	return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Installation", Field: "since", Code: "invalid", Value: s}}}
}

func (a *API) installations(list []*model.Installation) []wire.Installation {
	out := make([]wire.Installation, len(list))
	for i, in := range list {
		out[i] = a.d.URLs.ToInstallation(in)
	}
	return out
}

// GET /app/installations
func (a *API) listInstallations(w http.ResponseWriter, r *http.Request) error {
	c, err := requireJWT(r)
	if err != nil {
		return err
	}
	since, err := sinceParam(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().ListAppInstallations(r.Context(), c.AppID, since, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, a.installations(list))
}

// installationParam reads {installation_id}; a malformed one names nothing.
func installationParam(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("installation_id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, model.ErrNotFound
	}
	return id, nil
}

// ownInstallation loads the {installation_id} of the JWT's app.
func (a *API) ownInstallation(r *http.Request) (*model.Installation, error) {
	c, err := requireJWT(r)
	if err != nil {
		return nil, err
	}
	id, err := installationParam(r)
	if err != nil {
		return nil, err
	}
	return a.svc.AppInstallation(r.Context(), c.AppID, id)
}

// GET /app/installations/{installation_id}
func (a *API) getInstallation(w http.ResponseWriter, r *http.Request) error {
	in, err := a.ownInstallation(r)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToInstallation(in))
}

// DELETE /app/installations/{installation_id}: the app uninstalls itself.
func (a *API) deleteInstallation(w http.ResponseWriter, r *http.Request) error {
	in, err := a.ownInstallation(r)
	if err != nil {
		return err
	}
	if err := a.svc.Delete(r.Context(), in.App.BotID, in); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// PUT /app/installations/{installation_id}/suspended
func (a *API) suspend(w http.ResponseWriter, r *http.Request) error {
	return a.setSuspended(w, r, true)
}

// DELETE /app/installations/{installation_id}/suspended
func (a *API) unsuspend(w http.ResponseWriter, r *http.Request) error {
	return a.setSuspended(w, r, false)
}

func (a *API) setSuspended(w http.ResponseWriter, r *http.Request, on bool) error {
	in, err := a.ownInstallation(r)
	if err != nil {
		return err
	}
	// The app suspends itself: its bot is who did it.
	bot, err := a.d.Store.R().AccountByID(r.Context(), in.App.BotID)
	if err != nil {
		return err
	}
	if err := a.svc.Suspend(r.Context(), in, on, bot); err != nil {
		return err
	}
	return rest.NoContent(w)
}

type tokenBody struct {
	Repositories  []string          `json:"repositories"`
	RepositoryIDs []int64           `json:"repository_ids"`
	Permissions   map[string]string `json:"permissions"`
}

// POST /app/installations/{installation_id}/access_tokens
func (a *API) createToken(w http.ResponseWriter, r *http.Request) error {
	in, err := a.ownInstallation(r)
	if err != nil {
		return err
	}
	var body tokenBody
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	tok, err := a.svc.CreateToken(r.Context(), in, svc.TokenRequest{Repositories: body.Repositories, RepositoryIDs: body.RepositoryIDs, Permissions: body.Permissions})
	if err != nil {
		return err
	}
	out := wire.InstallationToken{Token: tok.Token, ExpiresAt: wire.Time(tok.ExpiresAt), Permissions: tok.Permissions, RepositorySelection: tok.Selection}
	if tok.RepoIDs != nil {
		// The repositories the token was narrowed to, as the bot sees them.
		list, _, err := a.d.Store.R().InstallationRepos(r.Context(), store.InstallationReposQuery{Installation: in, RepoIDs: tok.RepoIDs,
			ViewerID: in.App.BotID, Limit: svc.MaxTokenRepositories})
		if err != nil {
			return err
		}
		caller := &authz.Caller{Kind: authz.Installation, User: &model.Account{ID: in.App.BotID}, Permissions: tok.Permissions,
			InstallationTargetID: in.AccountID, RepoIDs: svc.IDSet(tok.RepoIDs)}
		if out.Repositories, err = repos.RepositoryList(r.Context(), a.d, caller, list); err != nil {
			return err
		}
	}
	return rest.JSON(w, http.StatusCreated, out)
}

// appInstallationOn answers the JWT's app's installation on an account
// (404 when there is none).
func (a *API) appInstallationOn(w http.ResponseWriter, r *http.Request, account *model.Account) error {
	c, err := requireJWT(r)
	if err != nil {
		return err
	}
	in, err := a.d.Store.R().InstallationOn(r.Context(), c.AppID, account.ID)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToInstallation(in))
}

// GET /repos/{owner}/{repo}/installation: the installation that reaches
// the repository.
func (a *API) repoInstallation(w http.ResponseWriter, r *http.Request) error {
	c, err := requireJWT(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	q := a.d.Store.R()
	v, err := q.RepoByName(ctx, r.PathValue("owner"), r.PathValue("repo"), 0)
	if err != nil {
		return err
	}
	in, err := q.InstallationOn(ctx, c.AppID, v.Repo.OwnerID)
	if err != nil {
		return err
	}
	ok, err := q.InstallationCovers(ctx, in, v.Repo.ID)
	if err != nil {
		return err
	}
	if !ok {
		return model.ErrNotFound
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToInstallation(in))
}

// GET /orgs/{org}/installation
func (a *API) orgInstallation(w http.ResponseWriter, r *http.Request) error {
	if _, err := requireJWT(r); err != nil {
		return err
	}
	org, err := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return err
	}
	return a.appInstallationOn(w, r, org)
}

// GET /users/{username}/installation
func (a *API) userInstallation(w http.ResponseWriter, r *http.Request) error {
	if _, err := requireJWT(r); err != nil {
		return err
	}
	u, err := a.d.Store.R().AccountByLogin(r.Context(), r.PathValue("username"))
	if err != nil {
		return err
	}
	return a.appInstallationOn(w, r, u)
}

// GET /installation/repositories: what the installation token reaches.
func (a *API) installationRepos(w http.ResponseWriter, r *http.Request) error {
	c := rest.Caller(r)
	if c.Kind != authz.Installation {
		if !c.Authenticated() {
			return rest.ErrRequiresAuth
		}
		return model.Forbidden("Resource not accessible by integration")
	}
	ctx := r.Context()
	in, err := a.d.Store.R().InstallationByID(ctx, c.InstallationID)
	if err != nil {
		return err
	}
	f := store.InstallationReposQuery{Installation: in, ViewerID: c.UserID()}
	selection := in.Selection
	if c.RepoIDs != nil && in.Selection == model.SelectAll {
		// A token narrowed to some repositories lists those.
		selection = model.SelectSelected
	}
	if c.RepoIDs != nil {
		f.RepoIDs = make([]int64, 0, len(c.RepoIDs))
		for id := range c.RepoIDs {
			f.RepoIDs = append(f.RepoIDs, id)
		}
	}
	return a.writeRepos(w, r, c, f, selection)
}

// writeRepos answers one page of an installation's repositories.
func (a *API) writeRepos(w http.ResponseWriter, r *http.Request, c *authz.Caller, f store.InstallationReposQuery, selection string) error {
	p := rest.ParsePage(r)
	f.Limit, f.Offset = p.Limit(), p.Offset()
	list, total, err := a.d.Store.R().InstallationRepos(r.Context(), f)
	if err != nil {
		return err
	}
	out, err := repos.RepositoryList(r.Context(), a.d, c, list)
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, wire.InstallationRepositories{TotalCount: total, RepositorySelection: selection, Repositories: out})
}

// DELETE /installation/token: the token revokes itself.
func (a *API) revokeToken(w http.ResponseWriter, r *http.Request) error {
	c := rest.Caller(r)
	if c.Kind != authz.Installation {
		if !c.Authenticated() {
			return rest.ErrRequiresAuth
		}
		return model.Forbidden("Resource not accessible by integration")
	}
	if err := a.svc.RevokeToken(r.Context(), c); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// errNotUser is the answer of the user routes to an app.
var errNotUser = model.Forbidden("Resource not accessible by integration")

// userCaller lets through a user with a classic (or OAuth) token.
func userCaller(r *http.Request) (*authz.Caller, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, err
	}
	if c.Kind == authz.Installation || c.Kind == authz.AppJWT {
		return nil, errNotUser
	}
	return c, nil
}

// GET /user/installations
func (a *API) userInstallations(w http.ResponseWriter, r *http.Request) error {
	c, err := userCaller(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().UserInstallations(r.Context(), c.UserID(), userApp(c), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, wire.InstallationList{TotalCount: total, Installations: a.installations(list)})
}

// userApp is the app a user access token narrows the user to (0 for
// other tokens).
func userApp(c *authz.Caller) int64 {
	if c.Kind == authz.UserToServer {
		return c.AppID
	}
	return 0
}

// userInstallationParam loads an installation the user may see.
func (a *API) userInstallationParam(r *http.Request, c *authz.Caller) (*model.Installation, error) {
	id, err := installationParam(r)
	if err != nil {
		return nil, err
	}
	return a.d.Store.R().UserInstallation(r.Context(), c.UserID(), userApp(c), id)
}

// GET /user/installations/{installation_id}/repositories: the
// installation's repositories the user can see.
func (a *API) userInstallationRepos(w http.ResponseWriter, r *http.Request) error {
	c, err := userCaller(r)
	if err != nil {
		return err
	}
	in, err := a.userInstallationParam(r, c)
	if err != nil {
		return err
	}
	// The installation's repositories, of which the user sees those the
	// repository lookups would show them.
	ctx := r.Context()
	q := a.d.Store.R()
	all, _, err := q.InstallationRepos(ctx, store.InstallationReposQuery{Installation: in, ViewerID: c.UserID(), Limit: maxListed})
	if err != nil {
		return err
	}
	visible := make([]int64, 0, len(all))
	for _, v := range all {
		if authz.CanSee(authz.RepoPermission(c, v.Repo, v.Facts)) {
			visible = append(visible, v.Repo.ID)
		}
	}
	return a.writeRepos(w, r, c, store.InstallationReposQuery{Installation: in, RepoIDs: visible, ViewerID: c.UserID()}, in.Selection)
}

// maxListed bounds the repositories of an installation a user's view is
// computed from.
const maxListed = 10000

// repositoryParam loads the {repository_id} as the caller sees it.
func (a *API) repositoryParam(r *http.Request, c *authz.Caller) (*model.Repo, authz.Permission, error) {
	id, err := strconv.ParseInt(r.PathValue("repository_id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, authz.None, model.ErrNotFound
	}
	v, err := a.d.Store.R().RepoByID(r.Context(), id, c.UserID())
	if err != nil {
		return nil, authz.None, err
	}
	perm := authz.RepoPermission(c, v.Repo, v.Facts)
	if !authz.CanSee(perm) {
		return nil, authz.None, model.ErrNotFound
	}
	return v.Repo, perm, nil
}

// PUT /user/installations/{installation_id}/repositories/{repository_id}
func (a *API) addRepo(w http.ResponseWriter, r *http.Request) error { return a.setRepo(w, r, true) }

// DELETE /user/installations/{installation_id}/repositories/{repository_id}
func (a *API) removeRepo(w http.ResponseWriter, r *http.Request) error { return a.setRepo(w, r, false) }

func (a *API) setRepo(w http.ResponseWriter, r *http.Request, add bool) error {
	c, err := userCaller(r)
	if err != nil {
		return err
	}
	if err := api.RequireScope(c, "repo"); err != nil {
		return err
	}
	in, err := a.userInstallationParam(r, c)
	if err != nil {
		return err
	}
	repo, perm, err := a.repositoryParam(r, c)
	if err != nil {
		return err
	}
	if perm < authz.Admin {
		return api.NeedPermission(authz.Admin)
	}
	if err := a.svc.SetRepository(r.Context(), c.UserID(), in, repo, add); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /orgs/{org}/installations: for the organization's owners.
func (a *API) orgInstallations(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	q := a.d.Store.R()
	org, err := q.OrgByLogin(ctx, r.PathValue("org"))
	if err != nil {
		return err
	}
	if c.Kind == authz.Installation {
		// An installation on the organization with its administration.
		if c.InstallationTargetID != org.ID {
			return errNotUser
		}
	} else {
		if err := api.RequireScope(c, "read:org"); err != nil {
			return err
		}
		m, err := q.Membership(ctx, org.ID, c.UserID())
		if errors.Is(err, model.ErrNotFound) || (err == nil && (m.Role != model.RoleAdmin || m.State != "active")) {
			if !c.SiteAdmin() {
				return model.Forbidden("You must be an organization owner to list the installations.")
			}
		} else if err != nil {
			return err
		}
	}
	p := rest.ParsePage(r)
	list, total, err := q.AccountInstallations(ctx, org.ID, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, wire.InstallationList{TotalCount: total, Installations: a.installations(list)})
}
