package deps

import (
	"errors"
	"net/http"
	"net/mail"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// RequireUser answers 401 unless a user is behind the request.
func RequireUser(r *http.Request) (*authz.Caller, error) {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return nil, rest.ErrRequiresAuth
	}
	if c.User == nil {
		// Installation tokens act for no user.
		return nil, model.Forbidden("Resource not accessible by integration")
	}
	return c, nil
}

// RequireScope answers 403 when a classic token lacks the scope (or one that
// implies it).
func RequireScope(c *authz.Caller, scope string) error {
	if !c.HasScope(scope) {
		return model.Forbidden("Resource not accessible by personal access token")
	}
	return nil
}

// UserCounts loads the counters of a full user object.
func (d *Deps) UserCounts(r *http.Request, a *model.Account) (wire.UserCounts, error) {
	c, err := d.Store.R().CountsFor(r.Context(), a.ID)
	return wire.UserCounts(c), err
}

// ValidEmail accepts a plain address (no display name).
func ValidEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && strings.Contains(s, "@")
}

// ErrNotSiteAdmin is the 403 of a signed-in user who is not a site
// administrator.
var ErrNotSiteAdmin = model.Forbidden("Must be a site administrator.")

// RequireSiteAdmin lets through a site administrator using a classic (or
// OAuth) token with the site_admin scope. GHES documents these endpoints as
// classic-token only, so fine-grained and GitHub App tokens get a 403.
func RequireSiteAdmin(r *http.Request) (*authz.Caller, error) {
	c, err := RequireUser(r)
	if err != nil {
		return nil, err
	}
	switch c.Kind {
	case authz.FineGrained:
		return nil, model.Forbidden("Resource not accessible by personal access token")
	case authz.UserToServer:
		return nil, model.Forbidden("Resource not accessible by integration")
	}
	if !c.SiteAdmin() {
		return nil, ErrNotSiteAdmin
	}
	if err := RequireScope(c, "site_admin"); err != nil {
		return nil, err
	}
	return c, nil
}

// RequireEnterpriseOwner authorizes an operation of hubd's one enterprise:
// the path's {enterprise}, when it has one, must be its slug (else not
// found), and the caller a site administrator (hubd's enterprise owners)
// whose classic token carries scope. what names the operations in the
// 403 a non-administrator gets. A GitHub App installed on the enterprise
// acts as an owner too: its installation token, or its user access token
// for a site administrator (enterpriseApp); the fine-grained permission
// the operation needs (authz's rules) was checked before the handler ran.
func (d *Deps) RequireEnterpriseOwner(r *http.Request, scope, what string) (*authz.Caller, error) {
	if e := r.PathValue("enterprise"); e != "" && !strings.EqualFold(e, d.URLs.EnterpriseSlug()) {
		return nil, model.ErrNotFound
	}
	c := rest.Caller(r)
	if c.Authenticated() && (c.Kind == authz.Installation || c.Kind == authz.UserToServer) {
		return d.enterpriseApp(r, c)
	}
	switch {
	case !c.Authenticated():
		return nil, rest.ErrRequiresAuth
	case c.Kind == authz.FineGrained:
		return nil, model.Forbidden("Resource not accessible by personal access token")
	case c.User == nil || c.Kind == authz.UserToServer || c.Kind == authz.Installation:
		return nil, model.Forbidden("Resource not accessible by integration")
	case !c.SiteAdmin():
		return nil, model.Forbidden("You must be an enterprise owner (a site administrator) to " + what + ".")
	case !c.HasScope(scope):
		return nil, model.Forbidden("Resource not accessible by personal access token")
	}
	return c, nil
}

var errIntegration = model.Forbidden("Resource not accessible by integration")

// enterpriseApp lets through an installation token of an installation on
// the enterprise, and a user access token of an app installed on the
// enterprise acting for a site administrator; any other app token gets
// GitHub's 403.
func (d *Deps) enterpriseApp(r *http.Request, c *authz.Caller) (*authz.Caller, error) {
	ctx := r.Context()
	if c.Kind == authz.Installation {
		in, err := d.Store.R().InstallationByID(ctx, c.InstallationID)
		if errors.Is(err, model.ErrNotFound) || (err == nil && !in.Enterprise) {
			return nil, errIntegration
		}
		if err != nil {
			return nil, err
		}
		return c, nil
	}
	if !c.SiteAdmin() {
		return nil, errIntegration
	}
	if _, err := d.Store.R().EnterpriseInstallation(ctx, c.AppID); errors.Is(err, model.ErrNotFound) {
		return nil, errIntegration
	} else if err != nil {
		return nil, err
	}
	return c, nil
}
