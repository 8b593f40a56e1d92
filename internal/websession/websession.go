// Package websession holds what the browser-facing transports (the sign-in
// pages of internal/oauthweb and the pages of internal/web) share about a
// browser: the session and CSRF cookies and the double-submit check of a
// form's authenticity_token. It knows nothing of users; the oauth service
// resolves a session cookie.
package websession

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/oauth"
)

// Cookie and form field names.
const (
	SessionCookie = "hubd_session"
	CSRFCookie    = "hubd_csrf"
	CSRFField     = "authenticity_token"
)

// Secure reports whether cookies must be Secure: over TLS, or when the
// external URL is https (a TLS-terminating proxy in front).
func Secure(r *http.Request, baseURL string) bool {
	return r.TLS != nil || strings.HasPrefix(baseURL, "https://")
}

// SetCookie sets an HttpOnly, SameSite=Lax cookie for the whole site.
func SetCookie(w http.ResponseWriter, r *http.Request, baseURL, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: Secure(r, baseURL), MaxAge: maxAge})
}

// CSRF is the browser's CSRF token, set as a cookie on first use.
func CSRF(w http.ResponseWriter, r *http.Request, baseURL string) string {
	if c, err := r.Cookie(CSRFCookie); err == nil && len(c.Value) >= 32 {
		return c.Value
	}
	v := oauth.NewSessionSecret()
	SetCookie(w, r, baseURL, CSRFCookie, v, 0)
	// The same request may render a form after setting it.
	r.AddCookie(&http.Cookie{Name: CSRFCookie, Value: v})
	return v
}

// CheckCSRF reports whether a POST form carries the browser's CSRF token.
func CheckCSRF(r *http.Request) bool {
	c, err := r.Cookie(CSRFCookie)
	if err != nil || len(c.Value) < 32 {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(c.Value), []byte(r.PostFormValue(CSRFField))) == 1
}

// Session is the session cookie's value ("" when there is none).
func Session(r *http.Request) string {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return ""
	}
	return c.Value
}
