package server

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/rest"
)

// authenticate reads the credentials, if any. Bad credentials are a 401 even
// on endpoints that do not need authentication, as on GitHub.
func (s *Server) authenticate(r *http.Request, info *rest.Info) error {
	tok, present := credentials(r)
	if !present {
		return nil
	}
	if tok == "" {
		return rest.ErrBadCredentials
	}
	c, ok, err := s.deps.Tokens.Get(r.Context(), tok, s.deps.Store)
	if err != nil {
		return err
	}
	if !ok {
		return rest.ErrBadCredentials
	}
	info.Caller = c
	return nil
}

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
