package server

import (
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/githttp"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/oauth"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/tempclone"
)

// authenticate reads the credentials, if any. Bad credentials are a 401 even
// on endpoints that do not need authentication, as on GitHub.
//
// After too many failures from one client address, bad credentials from
// there answer 403 for a while (see ratelimit.Logins). Valid credentials
// still work: hubd's tokens cannot be guessed, and refusing them would let
// anyone behind the same address (a proxy, a NAT) lock everyone else out
// with a few bad requests.
func (s *Server) authenticate(r *http.Request, info *rest.Info) error {
	tok, present := credentials(r)
	if !present {
		return nil
	}
	var c *authz.Caller
	ok := false
	var refused error = rest.ErrBadCredentials
	id, secret, basic := r.BasicAuth()
	switch {
	case basic && secret != "" && s.Clients != nil && oauth.LooksLikeClientID(id):
		// An OAuth client's id and secret (the /applications operations).
		var err error
		if c, ok, err = s.Clients(r, id, secret); err != nil {
			return err
		}
	case tok != "" && apps.LooksLikeJWT(tok):
		// A GitHub App's JSON web token (server/apps.go).
		var err error
		var he *model.HTTPError
		if c, err = s.appJWT(r, tok); err == nil {
			ok = true
		} else if errors.As(err, &he) {
			refused = err // GitHub's words for what is wrong with it
		} else {
			return err
		}
	case tok != "" && s.deps.CloneTokens != nil && tempclone.Looks(tok):
		// A repository's temp_clone_token: for git only.
		if _, _, _, git := githttp.Match(r.URL.Path); git {
			var err error
			if c, ok, err = s.cloneCaller(r, tok); err != nil {
				return err
			}
		}
	case tok != "":
		var err error
		if c, ok, err = s.deps.Tokens.Get(r.Context(), tok, s.deps.Store); err != nil {
			return err
		}
	}
	if !ok {
		addr, _ := ratelimit.KeyFor(nil, r.RemoteAddr)
		if _, locked := s.logins.Locked(addr); locked {
			return errLoginAttempts
		}
		s.logins.Fail(addr)
		return refused
	}
	info.Caller = c
	return nil
}

// errLoginAttempts is GitHub's answer during a failed-login lockout.
var errLoginAttempts = &model.HTTPError{Status: http.StatusForbidden, Message: "Maximum number of login attempts exceeded. Please try again later."}

// credentials extracts a token from Authorization: "token X", "Bearer X",
// or Basic with the token as password (or as user name with an empty or
// x-oauth-basic password, as git and some clients send it).
func credentials(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", false
	}
	scheme, rest, _ := strings.Cut(h, " ")
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(scheme) {
	case "token", "bearer":
		return rest, true
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(rest)
		if err != nil {
			return "", true
		}
		user, pass, _ := strings.Cut(string(raw), ":")
		if pass == "" || pass == "x-oauth-basic" {
			return user, true
		}
		return pass, true
	}
	return "", true
}

// LoginLimiter is the failed-login counter (tests set its clock).
func (s *Server) LoginLimiter() *ratelimit.Logins { return s.logins }

// cloneCaller authenticates a temp_clone_token: its user, narrowed to
// reading its repository, until it expires. A token of a deleted user or
// repository is refused.
func (s *Server) cloneCaller(r *http.Request, tok string) (*authz.Caller, bool, error) {
	repoID, userID, exp, ok := s.deps.CloneTokens.Check(tok)
	if !ok {
		return nil, false, nil
	}
	q := s.deps.Store.R()
	u, err := q.AccountByID(r.Context(), userID)
	if errors.Is(err, model.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	v, err := q.RepoByID(r.Context(), repoID, userID)
	if errors.Is(err, model.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return tempclone.Caller(u, v.Repo, exp), true, nil
}
