package server

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/api/meta"
)

// APIVersions are the values of X-GitHub-Api-Version hubd accepts, oldest
// first; the first is the default when a request names none.
var APIVersions = []string{"2022-11-28", "2026-03-10"}

// unclean reports whether a path has "." or ".." segments or empty inner
// segments ("//"); a trailing slash is allowed.
func unclean(p string) bool {
	segs := strings.Split(p, "/")
	for i := 1; i < len(segs); i++ {
		switch segs[i] {
		case ".", "..":
			return true
		case "":
			if i < len(segs)-1 {
				return true
			}
		}
	}
	return false
}
func supportedVersion(v string) bool {
	for _, s := range APIVersions {
		if s == v {
			return true
		}
	}
	return false
}
func selectedVersion(v string) string {
	if v == "" {
		return APIVersions[0]
	}
	return v
}
func setCORS(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "ETag, Link, Location, Retry-After, X-GitHub-OTP, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Used, X-RateLimit-Resource, X-RateLimit-Reset, X-OAuth-Scopes, X-Accepted-OAuth-Scopes, X-Poll-Interval, X-GitHub-Media-Type, X-GitHub-SSO, X-GitHub-Request-Id, Deprecation, Sunset")
}
func preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, If-Match, If-Modified-Since, If-None-Match, If-Unmodified-Since, Accept-Encoding, X-GitHub-OTP, X-Requested-With, User-Agent, GraphQL-Features, X-Github-Next-Global-ID, X-GitHub-Api-Version")
	h.Set("Access-Control-Allow-Methods", "GET, POST, PATCH, PUT, DELETE")
	h.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
}

// newRequestID mimics GitHub's request ids (five hex groups).
func newRequestID() string {
	var b [14]byte
	rand.Read(b[:])
	x := strings.ToUpper(hex.EncodeToString(b[:]))
	return x[0:4] + ":" + x[4:8] + ":" + x[8:14] + ":" + x[14:20] + ":" + x[20:28]
}

// apiHeaders are the headers of every API response: the GitHub Enterprise
// Server release hubd answers as (GHES clients read it to pick features),
// and the security headers api.github.com sends. Web pages and hubd's own
// HTML replace the Content-Security-Policy with their own.
func (s *Server) apiHeaders(h http.Header, r *http.Request) {
	h.Set("X-GitHub-Enterprise-Version", meta.GHESRelease)
	h.Set("X-Frame-Options", "deny")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-XSS-Protection", "0")
	h.Set("Referrer-Policy", "origin-when-cross-origin, strict-origin-when-cross-origin")
	h.Set("Content-Security-Policy", "default-src 'none'")
	if r.TLS != nil || strings.HasPrefix(s.deps.URLs.Web, "https://") {
		// Only over https (directly or behind a proxy that terminates it):
		// over plain http the header is meaningless, and sent by mistake it
		// would lock browsers out of a server that has no certificate.
		// GitHub also asks for preload; an operator's domain is not ours to
		// commit to browsers' preload lists.
		h.Set("Strict-Transport-Security", "max-age=31536000; includeSubdomains")
	}
}

// setVary sends Vary as api.github.com does: two fields, the first naming
// the credentials headers only when the request carried a token.
func setVary(h http.Header, authenticated bool) {
	first := "Accept"
	if authenticated {
		first = "Accept, Authorization, Cookie, X-GitHub-OTP"
	}
	h["Vary"] = []string{first, "Accept-Encoding, Accept, X-Requested-With"}
}

// nulParam finds a query parameter whose name or value holds a NUL byte.
func nulParam(r *http.Request) (string, bool) {
	if !strings.Contains(r.URL.RawQuery, "%00") {
		return "", false
	}
	for name, vals := range r.URL.Query() {
		for _, v := range vals {
			if strings.IndexByte(v, 0) >= 0 || strings.IndexByte(name, 0) >= 0 {
				return strings.ReplaceAll(name, "\x00", ""), true
			}
		}
	}
	return "", false
}
