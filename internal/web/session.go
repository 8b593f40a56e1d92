package web

import (
	"context"
	"errors"
	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/patokens"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/collaborators"
	"github.com/hubd/hubd/internal/hooks"
	"github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/notifications"
	"github.com/hubd/hubd/internal/protection"
	"github.com/hubd/hubd/internal/pullreviews"
	"github.com/hubd/hubd/internal/pulls"
	"github.com/hubd/hubd/internal/refs"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/rulesets"
	"github.com/hubd/hubd/internal/runners"
	"github.com/hubd/hubd/internal/secrets"
	"github.com/hubd/hubd/internal/sshkeys"
	"github.com/hubd/hubd/internal/teams"
	"github.com/hubd/hubd/internal/variables"
	"github.com/hubd/hubd/internal/websession"
)

// Services are the domain services the pages' forms run: the same ones
// REST and GraphQL run, so a page follows every rule they do.
type Services struct {
	// Sessions resolves a browser's session cookie (internal/oauth).
	Sessions interface {
		SessionUser(ctx context.Context, cookie string) (*model.Account, error)
	}
	Issues  *issues.Service
	Pulls   *pulls.Service
	Reviews *pullreviews.Service
	Refs    *refs.Service
	// Actions runs the re-run and cancel buttons and reads job logs.
	Actions *actions.Service
	// Artifacts holds the artifacts a run page offers to download.
	Artifacts *actions.Storage
	// The site and settings pages (site.go, settings.go).
	Notifications *notifications.Service
	Teams         *teams.Service
	SSHKeys       *sshkeys.Service
	Hooks         *hooks.Service
	Secrets       *secrets.Service
	Variables     *variables.Service
	Runners       *runners.Service
	Protection    *protection.Service
	Rulesets      *rulesets.Service
	Collaborators *collaborators.Service
	// PATokens creates personal access tokens from the tokens page.
	PATokens *patokens.Service
}

// Use installs the services (server/build.go).
func (h *Handler) Use(s Services) { h.svc = s }

// sessionScopes are what a signed-in browser may do: everything its user
// may (GitHub's web session is not limited by OAuth scopes).
var sessionScopes = authz.ParseScopes("repo, workflow, write:packages, delete:packages, admin:org, admin:public_key, admin:repo_hook, admin:org_hook, gist, notifications, user, delete_repo, write:discussion, admin:enterprise, admin:gpg_key, admin:ssh_signing_key, project, codespace, audit_log")

// signIn makes the request's caller the user of its session cookie when
// it presented no token; an unknown or expired session is anonymous.
func (h *Handler) signIn(r *http.Request) error {
	info := rest.From(r)
	if info == nil || info.Caller.Authenticated() || h.svc.Sessions == nil {
		return nil
	}
	v := websession.Session(r)
	if v == "" {
		return nil
	}
	u, err := h.svc.Sessions.SessionUser(r.Context(), v)
	if errors.Is(err, model.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	info.Caller = &authz.Caller{Kind: authz.ClassicPAT, User: u, Scopes: sessionScopes}
	return nil
}

// user is the signed-in user (or the token's), nil for anonymous readers.
func user(r *http.Request) *model.Account {
	c := rest.Caller(r)
	if c == nil {
		return nil
	}
	return c.User
}

// wantsHTML reports whether the client asked for a page (a browser's
// Accept names text/html).
func wantsHTML(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// maxForm bounds a form's body (a review with its comments fits).
const maxForm = 1 << 20

// form parses a POST form and checks its CSRF token; false when it
// answered (403 for a missing or wrong token, as GitHub's "Your browser
// did something unexpected").
func (h *Handler) form(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "Bad form.", http.StatusBadRequest)
		return false
	}
	if !websession.CheckCSRF(r) {
		http.Error(w, "Your browser did something unexpected. Please try again.", http.StatusForbidden)
		return false
	}
	return true
}

// signInFirst sends an anonymous browser to /login and back.
func (h *Handler) signInFirst(w http.ResponseWriter, r *http.Request) bool {
	http.Redirect(w, r, "/login?return_to="+urlQueryEscape(r.URL.RequestURI()), http.StatusFound)
	return true
}

// csrf is the browser's CSRF token for the page's forms.
func (x *req) csrf() string { return websession.CSRF(x.w, x.r, x.h.d.URLs.Web) }
