package codespacesecrets

import (
	"errors"
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	cs "github.com/hubd/hubd/internal/codespaces/secrets"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// target is the secret scope a request addresses and who acts on it.
type target struct {
	Scope  model.SecretScope
	Caller *authz.Caller
	Org    *model.Account // organization scope
	Repo   *model.Repo    // repository scope
	// Path is the scope's secrets path below the API root (the base of
	// selected_repositories_url).
	Path string
}

func (t *target) actor() int64 { return t.Caller.UserID() }

// scope finds a request's target and checks the caller may manage it.
type scope func(a *API, r *http.Request) (*target, error)

// userScope: the caller's own secrets. Classic and OAuth tokens need the
// codespace (or codespace:secrets) scope; fine-grained tokens and user
// access tokens the Codespaces user secrets permission the gate checked.
func userScope(a *API, r *http.Request) (*target, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, err
	}
	if c.Kind == authz.Installation {
		return nil, model.Forbidden("Resource not accessible by integration")
	}
	if err := api.RequireScope(c, "codespace:secrets"); err != nil {
		return nil, err
	}
	return &target{Scope: cs.UserScope(c.UserID()), Caller: c, Path: "/user/codespaces/secrets"}, nil
}

// orgAdmin finds the organization of the request and checks the caller
// administers it: classic and OAuth tokens need admin:org (403), apps
// installed on it pass with the permission the gate checked, members who
// are not owners get a 403 and everyone else a 404.
func (a *API) orgAdmin(r *http.Request) (*model.Account, *authz.Caller, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, nil, err
	}
	ctx := r.Context()
	org, err := a.d.Store.R().OrgByLogin(ctx, r.PathValue("org"))
	if err != nil {
		return nil, nil, err
	}
	if done, err := c.OrgToken(org.ID, "admin:org"); done {
		return org, c, err
	}
	m, err := a.d.Store.R().Membership(ctx, org.ID, c.UserID())
	if err != nil && !errors.Is(err, model.ErrNotFound) {
		return nil, nil, err
	}
	if m == nil || m.Role != model.RoleAdmin || m.State != "active" {
		if m != nil && m.State == "active" || c.SiteAdmin() {
			return nil, nil, model.Forbidden("Must be an organization owner.")
		}
		return nil, nil, model.ErrNotFound
	}
	return org, c, nil
}

// orgScope: the organization's Codespaces secrets.
func orgScope(a *API, r *http.Request) (*target, error) {
	org, c, err := a.orgAdmin(r)
	if err != nil {
		return nil, err
	}
	return &target{Scope: cs.OrgScope(org.ID), Caller: c, Org: org, Path: "/orgs/" + org.Login + "/codespaces/secrets"}, nil
}

// repoScope: the repository's Codespaces secrets, managed by its
// administrators (installations with the Codespaces secrets permission the
// gate checked; other tokens also need their user to be an administrator).
func repoScope(a *API, r *http.Request) (*target, error) {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return nil, rest.ErrRequiresAuth
	}
	if (c.Kind == authz.ClassicPAT || c.Kind == authz.OAuthApp) && !c.HasScope("repo") {
		return nil, model.ErrNotFound
	}
	repo, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return nil, err
	}
	switch c.Kind {
	case authz.Installation:
		perm = authz.Admin
	case authz.FineGrained, authz.UserToServer:
		// The user's own permission, without the token's narrowing.
		user := *c
		user.Kind, user.Scopes = authz.ClassicPAT, authz.Scopes{"repo": true}
		v, err := a.d.Store.R().RepoByID(r.Context(), repo.ID, c.UserID())
		if err != nil {
			return nil, err
		}
		perm = authz.RepoPermission(&user, v.Repo, v.Facts)
	}
	if perm < authz.Admin {
		return nil, api.NeedPermission(authz.Admin)
	}
	return &target{Scope: cs.RepoScope(repo.ID), Caller: c, Repo: repo, Path: "/repos/" + repo.FullName() + "/codespaces/secrets"}, nil
}
