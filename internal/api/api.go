// Package api holds what every api/<category> package shares. The
// dependencies and lookups themselves live in internal/deps, which the
// other transports (GraphQL, the web pages) use without importing REST;
// these names keep the api packages' spelling of them.
package api

import (
	"context"
	"net/http"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/store"
)

// Deps are the explicit dependencies of the api packages.
type Deps = deps.Deps

// TokenCache caches authentications (deps.TokenCache).
type TokenCache = deps.TokenCache

// RefUpdate is one ref a push moved (deps.RefUpdate).
type RefUpdate = deps.RefUpdate

// DownloadSigner signs short-lived download URLs (deps.DownloadSigner).
type DownloadSigner = deps.DownloadSigner

// The errors the lookups answer with.
var (
	ErrArchived     = deps.ErrArchived
	ErrEmptyRepo    = deps.ErrEmptyRepo
	ErrNotSiteAdmin = deps.ErrNotSiteAdmin
)

// NewTokenCache makes a cache of authentications kept for ttl.
func NewTokenCache(ttl time.Duration) *TokenCache { return deps.NewTokenCache(ttl) }

// NeedPermission is deps.NeedPermission.
func NeedPermission(need authz.Permission) error { return deps.NeedPermission(need) }

// ViewerOf is deps.ViewerOf.
func ViewerOf(c *authz.Caller) store.Viewer { return deps.ViewerOf(c) }

// RequireUser is deps.RequireUser.
func RequireUser(r *http.Request) (*authz.Caller, error) { return deps.RequireUser(r) }

// RequireScope is deps.RequireScope.
func RequireScope(c *authz.Caller, scope string) error { return deps.RequireScope(c, scope) }

// RequireSiteAdmin is deps.RequireSiteAdmin.
func RequireSiteAdmin(r *http.Request) (*authz.Caller, error) { return deps.RequireSiteAdmin(r) }

// ValidEmail is deps.ValidEmail.
func ValidEmail(s string) bool { return deps.ValidEmail(s) }

// IdentityText is deps.IdentityText.
func IdentityText(s string) string { return deps.IdentityText(s) }

// IsEmpty is deps.IsEmpty.
func IsEmpty(ctx context.Context, g *gitrepo.Repo) (bool, error) { return deps.IsEmpty(ctx, g) }

// LoadDownloadSigner makes the signer of the download key kept in the
// database (deps.LoadDownloadSigner).
func LoadDownloadSigner(ctx context.Context, ks deps.KeyStore) (*DownloadSigner, error) {
	return deps.LoadDownloadSigner(ctx, ks)
}
