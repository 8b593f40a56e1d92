package secrets

import (
	"errors"
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// Target is the secret scope a request addresses, with who acts and what
// renders its secrets.
type Target struct {
	Scope model.SecretScope
	Actor int64
	Repo  *model.Repo    // repository and environment scopes
	Org   *model.Account // organization scope
	// Path is the scope's secrets path below the API root (the base of
	// selected_repositories_url), e.g. /orgs/acme/actions/secrets.
	Path string
}

// Scope finds a request's target and checks that the caller may manage
// its secrets.
type Scope func(a *API, r *http.Request) (*Target, error)

// tokenScope: a classic or OAuth token needs scope (without it the
// secrets are hidden, as GitHub does for settings).
func tokenScope(c *authz.Caller, scope string) error {
	if (c.Kind == authz.ClassicPAT || c.Kind == authz.OAuthApp) && !c.Scopes.Has(scope) {
		return model.ErrNotFound
	}
	return nil
}

// adminOf is the 403 or nil for a caller on a repository they see: its
// administrators manage its secrets. Installation tokens act with the
// secrets permission the route's gate checked; the other tokens also need
// their user to be an administrator.
func (a *API) adminOf(r *http.Request) (*model.Repo, *authz.Caller, error) {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return nil, nil, rest.ErrRequiresAuth
	}
	if err := tokenScope(c, "repo"); err != nil {
		return nil, nil, err
	}
	repo, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return nil, nil, err
	}
	switch c.Kind {
	case authz.Installation:
		return repo, c, nil
	case authz.FineGrained, authz.UserToServer:
		// The user's own permission, without the token's narrowing (the
		// gate checked the token's secrets permission).
		user := *c
		user.Kind, user.Scopes = authz.ClassicPAT, authz.Scopes{"repo": true}
		v, err := a.d.Store.R().RepoByID(r.Context(), repo.ID, c.UserID())
		if err != nil {
			return nil, nil, err
		}
		perm = authz.RepoPermission(&user, v.Repo, v.Facts)
	}
	if perm < authz.Admin {
		return nil, nil, api.NeedPermission(authz.Admin)
	}
	return repo, c, nil
}

// repoScope: the repository's secrets of app.
func repoScope(app string) Scope {
	return func(a *API, r *http.Request) (*Target, error) {
		repo, c, err := a.adminOf(r)
		if err != nil {
			return nil, err
		}
		return &Target{Scope: model.SecretScope{App: app, Kind: model.SecretRepository, OwnerID: repo.ID}, Actor: c.UserID(), Repo: repo,
			Path: "/repos/" + repo.FullName() + "/" + app + "/secrets"}, nil
	}
}

// EnvScope is the scope of an environment's secrets of app: env names the
// environment of the request on its repository (model.ErrNotFound when
// there is none). The environment operations (under
// /repos/{owner}/{repo}/environments/{environment_name}/secrets) are the
// repository handlers on this scope.
func EnvScope(app string, env func(r *http.Request, repo *model.Repo) (string, error)) Scope {
	return func(a *API, r *http.Request) (*Target, error) {
		repo, c, err := a.adminOf(r)
		if err != nil {
			return nil, err
		}
		name, err := env(r, repo)
		if err != nil {
			return nil, err
		}
		return &Target{Scope: model.SecretScope{App: app, Kind: model.SecretEnvironment, OwnerID: repo.ID, Env: name}, Actor: c.UserID(), Repo: repo,
			Path: "/repos/" + repo.FullName() + "/environments/" + name + "/secrets"}, nil
	}
}

// orgScope: the organization's secrets of app, managed by its owners (and
// by apps installed on it, with the organization secrets permission the
// gate checked); everyone else finds none.
func orgScope(app string) Scope {
	return func(a *API, r *http.Request) (*Target, error) {
		c, err := api.RequireUser(r)
		if err != nil {
			return nil, err
		}
		if err := tokenScope(c, "admin:org"); err != nil {
			return nil, err
		}
		ctx := r.Context()
		org, err := a.d.Store.R().OrgByLogin(ctx, r.PathValue("org"))
		if err != nil {
			return nil, err
		}
		t := &Target{Scope: model.SecretScope{App: app, Kind: model.SecretOrganization, OwnerID: org.ID}, Actor: c.UserID(), Org: org,
			Path: "/orgs/" + org.Login + "/" + app + "/secrets"}
		if c.Kind == authz.Installation {
			if c.InstallationTargetID != org.ID {
				return nil, model.ErrNotFound
			}
			return t, nil
		}
		m, err := a.d.Store.R().Membership(ctx, org.ID, c.UserID())
		if err != nil && !errors.Is(err, model.ErrNotFound) {
			return nil, err
		}
		if m == nil || m.Role != model.RoleAdmin || m.State != "active" {
			if m != nil && m.State == "active" || c.SiteAdmin() {
				return nil, model.Forbidden("Must be an organization owner.")
			}
			return nil, model.ErrNotFound
		}
		return t, nil
	}
}
