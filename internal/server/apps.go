package server

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/catalogue"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/oauth"
	"github.com/hubd/hubd/internal/rest"
)

// errIntegration is GitHub's answer to an installation token on an
// operation it may not call, or without the permission the operation
// needs.
var errIntegration = model.Forbidden("Resource not accessible by integration")

// appJWT authenticates a GitHub App's JSON web token against the store's
// clock.
func (s *Server) appJWT(r *http.Request, tok string) (*authz.Caller, error) {
	svc := apps.Service{Store: s.deps.Store}
	c, _, err := svc.AuthenticateJWT(r.Context(), tok, s.deps.Store.Now())
	return c, err
}

// appGate applies, before a route runs, what GitHub App credentials may
// call (rt is nil for a path that is no route):
//
//   - an app's JWT: only the operations an app calls as itself
//     (apps.JWTOperations); elsewhere it is no credential, 401;
//   - an installation token: only operations with GitHub's installation
//     token badge (the catalogue's IAT), a user access token only those
//     with the user access token badge (UAT), and only with the fine-grained
//     permission the operation needs (authz.RequiredPermissions), which
//     X-Accepted-GitHub-Permissions names; 403 otherwise, and 403 while
//     the installation is suspended.
//
// Neither kind is served web pages.
func (s *Server) appGate(w http.ResponseWriter, r *http.Request, info *rest.Info, rt *rest.Route) error {
	c := info.Caller
	if c.Kind == authz.ClientCredentials {
		// A client's id and secret open only the /applications operations.
		if rt == nil || !oauth.ClientOperations[rt.OperationID] {
			return rest.ErrBadCredentials
		}
		info.OperationID = rt.OperationID
		w.Header().Del("X-OAuth-Scopes")
		return nil
	}
	if c.Kind == authz.FineGrained {
		return patGate(w, r, info, rt) // server/patokens.go
	}
	if c.Kind != authz.AppJWT && c.Kind != authz.Installation && c.Kind != authz.UserToServer {
		return nil
	}
	h := w.Header()
	h.Del("X-OAuth-Scopes") // no classic scopes to report
	if rt == nil {
		return rest.ErrNotFound
	}
	info.OperationID = rt.OperationID
	if !rt.Extension {
		info.DocsURL = catalogue.DocsURL(rt.OperationID)
	}
	if c.Kind == authz.AppJWT {
		if !apps.JWTOperations[rt.OperationID] {
			return rest.ErrBadCredentials
		}
		return nil
	}
	var category, subcategory string
	if op, ok := catalogue.ByID(rt.OperationID); ok {
		badge := "IAT"
		if c.Kind == authz.UserToServer {
			badge = "UAT" // a GitHub App acting for a user (authz/uat.go)
		}
		if !slices.Contains(op.Tokens, badge) {
			return errIntegration
		}
		category, subcategory = op.Category, op.Subcategory
	}
	sets, known := authz.RequiredPermissions(rt.OperationID, category, subcategory, rt.Method)
	if !known {
		return errIntegration
	}
	if len(sets) > 0 {
		h.Set("X-Accepted-GitHub-Permissions", authz.AcceptedHeader(sets))
	}
	if c.InstallationSuspended {
		return apps.ErrSuspended
	}
	if !authz.AllowedBy(sets, c.Permissions) {
		return errIntegration
	}
	return nil
}

// appRateKey counts an app's JWT requests per app, at the installation
// rate (they are no user's and no address's).
func appRateKey(c *authz.Caller) (key, class string, ok bool) {
	if c != nil && c.Kind == authz.AppJWT {
		return "app:" + strconv.FormatInt(c.AppID, 10), "installation", true
	}
	return "", "", false
}
