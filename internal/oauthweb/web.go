// Package oauthweb serves the pages of GitHub's sign-in and user
// authorization flows that live outside the API (on github.com, or at the
// root of a GitHub Enterprise host): /login and /logout, the web flow's
// /login/oauth/authorize consent page and /login/oauth/access_token, and
// the device flow's /login/device/code and /login/device. It parses
// forms, calls internal/oauth and writes minimal HTML or GitHub's
// token-endpoint answers (form-encoded, JSON or XML as Accept asks).
//
// Sessions are a random cookie (HttpOnly, SameSite=Lax, Secure over TLS)
// whose hash is stored; every form POST carries a CSRF token that must
// equal a second random cookie (double submit).
package oauthweb

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"html/template"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/oauth"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/websession"
)

// Cookie names (internal/websession, shared with the pages of internal/web).
const (
	SessionCookie = websession.SessionCookie
	CSRFCookie    = websession.CSRFCookie
)

// Handler serves the pages.
type Handler struct {
	Svc     *oauth.Service
	BaseURL string // the external URL, e.g. https://hubd.example
	// Logins counts failed sign-ins per client address, shared with the
	// API's failed authentications (nil: no lockout).
	Logins *ratelimit.Logins
}

// New makes the handler.
func New(svc *oauth.Service, baseURL string) *Handler {
	return &Handler{Svc: svc, BaseURL: strings.TrimSuffix(baseURL, "/")}
}

// Serves reports whether path is one of the pages.
func (h *Handler) Serves(path string) bool {
	switch path {
	case "/login", "/logout", "/session", "/login/oauth/authorize", "/login/oauth/access_token", "/login/device/code", "/login/device":
		return true
	}
	return false
}

// ServeHTTP dispatches by path and method.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "deny")
	var err error
	switch r.URL.Path + " " + r.Method {
	case "/login GET":
		err = h.loginPage(w, r, "")
	case "/login POST", "/session POST":
		err = h.login(w, r)
	case "/logout POST":
		err = h.logout(w, r)
	case "/login/oauth/authorize GET":
		err = h.authorizePage(w, r)
	case "/login/oauth/authorize POST":
		err = h.authorize(w, r)
	case "/login/oauth/access_token POST":
		err = h.accessToken(w, r)
	case "/login/device/code POST":
		err = h.deviceCode(w, r)
	case "/login/device GET":
		err = h.devicePage(w, r)
	case "/login/device POST":
		err = h.device(w, r)
	default:
		w.Header().Set("Allow", allowed(r.URL.Path))
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	if err != nil {
		slog.Error("oauthweb", "path", r.URL.Path, "err", err)
		http.Error(w, "Something went wrong.", http.StatusInternalServerError)
	}
}

func allowed(path string) string {
	switch path {
	case "/login", "/login/oauth/authorize", "/login/device":
		return "GET, POST"
	}
	return "POST"
}

var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}} · hubd</title></head>
<body><main>
<h1>{{.Title}}</h1>
{{if .Error}}<p class="flash-error" role="alert">{{.Error}}</p>{{end}}
{{if .User}}<p>Signed in as <strong>{{.User}}</strong>.</p>{{end}}
{{range .Lines}}<p>{{.}}</p>{{end}}
{{if .Action}}<form method="post" action="{{.Action}}">
<input type="hidden" name="authenticity_token" value="{{.CSRF}}">
{{range $k, $v := .Hidden}}<input type="hidden" name="{{$k}}" value="{{$v}}">
{{end}}{{range .Fields}}<label>{{.Label}} <input type="{{.Type}}" name="{{.Name}}" value="{{.Value}}" autocomplete="off"></label>
{{end}}{{range .Buttons}}<button type="submit" name="{{.Name}}" value="{{.Value}}">{{.Label}}</button>
{{end}}</form>{{end}}
</main></body></html>
`))

type field struct{ Label, Type, Name, Value string }
type button struct{ Label, Name, Value string }

type view struct {
	Title, Error, User, Action, CSRF string
	Lines                            []string
	Hidden                           map[string]string
	Fields                           []field
	Buttons                          []button
}

func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, v view) error {
	v.CSRF = h.csrf(w, r)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; form-action 'self' http: https:; style-src 'unsafe-inline'")
	w.WriteHeader(status)
	return page.Execute(w, v)
}

func (h *Handler) setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	websession.SetCookie(w, r, h.BaseURL, name, value, maxAge)
}

// csrf is the CSRF token of the browser, set as a cookie on first use.
func (h *Handler) csrf(w http.ResponseWriter, r *http.Request) string {
	return websession.CSRF(w, r, h.BaseURL)
}

// checkCSRF reports whether a POST form carries the browser's CSRF token.
func checkCSRF(r *http.Request) bool { return websession.CheckCSRF(r) }

func forbiddenCSRF(w http.ResponseWriter) error {
	http.Error(w, "Your browser did something unexpected. Please try again.", http.StatusForbidden)
	return nil
}

// user is the signed-in user, nil when there is none.
func (h *Handler) user(r *http.Request) (*model.Account, error) {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return nil, nil
	}
	u, err := h.Svc.SessionUser(r.Context(), c.Value)
	if errors.Is(err, model.ErrNotFound) {
		return nil, nil
	}
	return u, err
}

// localPath keeps a return_to on this host: a path, never "//host" or a
// scheme (no open redirect).
func localPath(s string) string {
	if s == "" || s[0] != '/' || strings.HasPrefix(s, "//") || strings.HasPrefix(s, "/\\") || strings.ContainsAny(s, "\r\n") {
		return "/"
	}
	return s
}

func (h *Handler) loginPage(w http.ResponseWriter, r *http.Request, msg string) error {
	ret := localPath(r.FormValue("return_to"))
	status := http.StatusOK
	if msg != "" {
		status = http.StatusUnprocessableEntity
	}
	return h.render(w, r, status, view{Title: "Sign in to hubd", Error: msg, Action: "/session",
		Hidden:  map[string]string{"return_to": ret},
		Fields:  []field{{Label: "Username", Type: "text", Name: "login", Value: r.FormValue("login")}, {Label: "Password", Type: "password", Name: "password"}},
		Buttons: []button{{Label: "Sign in", Name: "commit", Value: "Sign in"}}})
}

func (h *Handler) login(w http.ResponseWriter, r *http.Request) error {
	if !checkCSRF(r) {
		return forbiddenCSRF(w)
	}
	addr, _ := ratelimit.KeyFor(nil, r.RemoteAddr)
	if h.Logins != nil {
		if _, locked := h.Logins.Locked(addr); locked {
			return h.loginPage(w, r, "Too many sign-in attempts. Please try again later.")
		}
	}
	_, cookie, err := h.Svc.SignIn(r.Context(), r.PostFormValue("login"), r.PostFormValue("password"))
	if errors.Is(err, oauth.ErrSignIn) {
		if h.Logins != nil {
			h.Logins.Fail(addr)
		}
		return h.loginPage(w, r, err.Error())
	}
	if err != nil {
		return err
	}
	h.setCookie(w, r, SessionCookie, cookie, int(oauth.SessionTTL.Seconds()))
	http.Redirect(w, r, localPath(r.PostFormValue("return_to")), http.StatusFound)
	return nil
}

func (h *Handler) logout(w http.ResponseWriter, r *http.Request) error {
	if !checkCSRF(r) {
		return forbiddenCSRF(w)
	}
	if c, err := r.Cookie(SessionCookie); err == nil {
		if err := h.Svc.SignOut(r.Context(), c.Value); err != nil {
			return err
		}
	}
	h.setCookie(w, r, SessionCookie, "", -1)
	http.Redirect(w, r, "/", http.StatusFound)
	return nil
}

// requireUser sends the browser to sign in first, back here after.
func (h *Handler) requireUser(w http.ResponseWriter, r *http.Request) (*model.Account, bool, error) {
	u, err := h.user(r)
	if err != nil || u != nil {
		return u, err == nil, err
	}
	q := url.Values{"return_to": {r.URL.RequestURI()}}
	if l := r.URL.Query().Get("login"); l != "" {
		q.Set("login", l)
	}
	http.Redirect(w, r, "/login?"+q.Encode(), http.StatusFound)
	return nil, false, nil
}

// client finds the client of a request's client_id; a 404 page when none.
func (h *Handler) client(w http.ResponseWriter, r *http.Request, id string) (*model.OAuthClient, error) {
	c, err := h.Svc.Client(r.Context(), id)
	if errors.Is(err, model.ErrNotFound) {
		http.Error(w, "Not Found", http.StatusNotFound)
		return nil, nil
	}
	return c, err
}

// redirectError sends the browser back to the client with GitHub's error
// parameters.
func redirectError(w http.ResponseWriter, r *http.Request, to, code, desc, uri, state string) {
	u, _ := url.Parse(to)
	q := u.Query()
	q.Set("error", code)
	q.Set("error_description", desc)
	q.Set("error_uri", uri)
	if state != "" {
		q.Set("state", state)
	}
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

const authorizeDocs = "https://docs.github.com/enterprise-server@3.19/apps/oauth-apps/maintaining-oauth-apps/troubleshooting-authorization-request-errors"

// authorizeParams checks the client and redirect_uri of an authorization
// request: ok is false when the answer is already written.
func (h *Handler) authorizeParams(w http.ResponseWriter, r *http.Request, form url.Values) (*model.OAuthClient, string, bool, error) {
	c, err := h.client(w, r, form.Get("client_id"))
	if c == nil || err != nil {
		return nil, "", false, err
	}
	redirect := form.Get("redirect_uri")
	if redirect == "" {
		redirect = c.CallbackURL
	}
	if c.CallbackURL == "" {
		http.Error(w, "This application has no callback URL.", http.StatusBadRequest)
		return nil, "", false, nil
	}
	if ch := form.Get("code_challenge"); (ch != "" || form.Get("code_challenge_method") != "") && !oauth.ValidChallenge(ch, form.Get("code_challenge_method")) {
		redirectError(w, r, c.CallbackURL, "invalid_request", "The code_challenge must be a S256 challenge (code_challenge_method=S256).",
			authorizeDocs, form.Get("state"))
		return nil, "", false, nil
	}
	if !oauth.RedirectAllowed(c.CallbackURL, redirect) {
		// GitHub sends the error to the registered callback, never to the
		// URL asked for (no open redirect).
		redirectError(w, r, c.CallbackURL, "redirect_uri_mismatch",
			"The redirect_uri MUST match the registered callback URL for this application.", authorizeDocs+"#redirect-uri-mismatch", form.Get("state"))
		return nil, "", false, nil
	}
	return c, redirect, true, nil
}

// GET /login/oauth/authorize: the consent page of the web flow.
func (h *Handler) authorizePage(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	c, redirect, ok, err := h.authorizeParams(w, r, q)
	if !ok {
		return err
	}
	u, ok, err := h.requireUser(w, r)
	if !ok {
		return err
	}
	scopes := ""
	if !c.GitHubApp() {
		scopes = oauth.NormalizeScopes(q.Get("scope"))
	}
	// Authorized before, for no less than asked: back at once.
	if granted, ok, err := h.Svc.Remembered(r.Context(), u, c, scopes); err != nil {
		return err
	} else if ok {
		code, err := h.Svc.AuthorizeRemembered(r.Context(), u, c, redirect, granted, q.Get("code_challenge"))
		if err != nil {
			return err
		}
		redirectCode(w, r, redirect, code, q.Get("state"))
		return nil
	}
	lines := []string{c.Name + " wants to access your " + u.Login + " account."}
	if scopes != "" {
		lines = append(lines, "Scopes: "+strings.ReplaceAll(scopes, ",", ", "))
	}
	return h.render(w, r, http.StatusOK, view{Title: "Authorize " + c.Name, User: u.Login, Lines: lines, Action: "/login/oauth/authorize",
		Hidden: map[string]string{"client_id": c.ClientID, "redirect_uri": redirect, "scope": scopes, "state": q.Get("state"),
			"code_challenge": q.Get("code_challenge"), "code_challenge_method": q.Get("code_challenge_method")},
		Buttons: []button{{Label: "Authorize " + c.Name, Name: "authorize", Value: "1"}, {Label: "Cancel", Name: "authorize", Value: "0"}}})
}

// POST /login/oauth/authorize: the user's answer; back to the client with
// a code, or with access_denied.
func (h *Handler) authorize(w http.ResponseWriter, r *http.Request) error {
	if !checkCSRF(r) {
		return forbiddenCSRF(w)
	}
	u, err := h.user(r)
	if err != nil {
		return err
	}
	if u == nil {
		http.Redirect(w, r, "/login", http.StatusFound)
		return nil
	}
	c, redirect, ok, err := h.authorizeParams(w, r, r.PostForm)
	if !ok {
		return err
	}
	state := r.PostFormValue("state")
	if r.PostFormValue("authorize") != "1" {
		redirectError(w, r, redirect, "access_denied", "The user has denied your application access.", authorizeDocs+"#access-denied", state)
		return nil
	}
	scopes := ""
	if !c.GitHubApp() {
		scopes = oauth.NormalizeScopes(r.PostFormValue("scope"))
	}
	code, err := h.Svc.Authorize(r.Context(), u, c, r.PostFormValue("redirect_uri"), scopes, r.PostFormValue("code_challenge"))
	if err != nil {
		return err
	}
	redirectCode(w, r, redirect, code, state)
	return nil
}

// redirectCode sends the user back to the client with a code and the
// client's state.
func redirectCode(w http.ResponseWriter, r *http.Request, redirect, code, state string) {
	to, _ := url.Parse(redirect)
	v := to.Query()
	v.Set("code", code)
	if state != "" {
		v.Set("state", state)
	}
	to.RawQuery = v.Encode()
	http.Redirect(w, r, to.String(), http.StatusFound)
}

// params reads the parameters of the token endpoints: the query, a form
// body, or a JSON body (Octokit sends JSON).
func params(r *http.Request) (url.Values, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "application/json" {
		v := r.URL.Query()
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if len(body) > 0 && json.Unmarshal(body, &m) != nil {
			return v, nil
		}
		for k, x := range m {
			switch x := x.(type) {
			case string:
				v.Set(k, x)
			case float64:
				v.Set(k, strconv.FormatFloat(x, 'f', -1, 64))
			}
		}
		return v, nil
	}
	if err := r.ParseForm(); err != nil {
		return url.Values{}, nil
	}
	return r.Form, nil
}

// POST /login/oauth/access_token: codes, device codes and refresh tokens
// for tokens.
func (h *Handler) accessToken(w http.ResponseWriter, r *http.Request) error {
	p, err := params(r)
	if err != nil {
		return err
	}
	in := oauth.TokenRequest{ClientID: p.Get("client_id"), ClientSecret: p.Get("client_secret"), GrantType: p.Get("grant_type"),
		Code: p.Get("code"), RedirectURI: p.Get("redirect_uri"), DeviceCode: p.Get("device_code"), RefreshToken: p.Get("refresh_token"),
		CodeVerifier: p.Get("code_verifier")}
	if id, secret, ok := r.BasicAuth(); ok && in.ClientSecret == "" {
		in.ClientID, in.ClientSecret = id, secret
	}
	g, err := h.Svc.Token(r.Context(), in)
	if err != nil {
		return writeError(w, r, h.clientFailure(r, err))
	}
	out := []kv{{"access_token", g.AccessToken}}
	if g.ExpiresIn > 0 {
		out = append(out, kv{"expires_in", g.ExpiresIn}, kv{"refresh_token", g.RefreshToken}, kv{"refresh_token_expires_in", g.RefreshTokenExpiresIn})
	}
	out = append(out, kv{"scope", g.Scope}, kv{"token_type", "bearer"})
	return write(w, r, http.StatusOK, out)
}

// POST /login/device/code: the device flow's first step.
func (h *Handler) deviceCode(w http.ResponseWriter, r *http.Request) error {
	p, err := params(r)
	if err != nil {
		return err
	}
	d, err := h.Svc.StartDevice(r.Context(), p.Get("client_id"), p.Get("scope"))
	if err != nil {
		return writeError(w, r, err)
	}
	return write(w, r, http.StatusOK, []kv{{"device_code", d.DeviceCode}, {"user_code", d.UserCode},
		{"verification_uri", h.BaseURL + "/login/device"}, {"expires_in", d.ExpiresIn}, {"interval", d.Interval}})
}

type kv struct {
	K string
	V any
}

// write answers in the encoding Accept asks for: JSON, XML, or (by
// default) application/x-www-form-urlencoded, as GitHub does.
func write(w http.ResponseWriter, r *http.Request, status int, fields []kv) error {
	accept := r.Header.Get("Accept")
	switch {
	case strings.Contains(accept, "application/json"):
		var b strings.Builder
		b.WriteByte('{')
		for i, f := range fields {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(f.K)
			v, _ := json.Marshal(f.V)
			b.Write(k)
			b.WriteByte(':')
			b.Write(v)
		}
		b.WriteByte('}')
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		_, err := io.WriteString(w, b.String())
		return err
	case strings.Contains(accept, "application/xml"):
		w.Header().Set("Content-Type", "application/xml; charset=utf-8")
		w.WriteHeader(status)
		var b strings.Builder
		b.WriteString("<OAuth>")
		for _, f := range fields {
			b.WriteString("<" + f.K + ">")
			xml.EscapeText(&b, []byte(toString(f.V)))
			b.WriteString("</" + f.K + ">")
		}
		b.WriteString("</OAuth>")
		_, err := io.WriteString(w, b.String())
		return err
	}
	v := url.Values{}
	for _, f := range fields {
		v.Set(f.K, toString(f.V))
	}
	w.Header().Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	w.WriteHeader(status)
	_, err := io.WriteString(w, v.Encode())
	return err
}

func toString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	}
	return ""
}

// clientFailure counts a wrong client secret at the token endpoint in the
// server's failed-login limit (per client address, shared with sign-ins
// and the API's bad credentials); once it is reached, wrong secrets from
// there get 403 and GitHub's lockout words until the window ends, so
// secrets cannot be guessed at speed. Right ones still work, as on the API
// (server.authenticate says why).
func (h *Handler) clientFailure(r *http.Request, err error) error {
	var oe *oauth.Error
	if h.Logins == nil || !errors.As(err, &oe) || oe.Code != "incorrect_client_credentials" {
		return err
	}
	addr, _ := ratelimit.KeyFor(nil, r.RemoteAddr)
	if _, locked := h.Logins.Locked(addr); locked {
		return &oauth.Error{Status: http.StatusForbidden, Code: oe.Code, Description: "Maximum number of login attempts exceeded. Please try again later.", URI: oe.URI}
	}
	h.Logins.Fail(addr)
	return err
}

func writeError(w http.ResponseWriter, r *http.Request, err error) error {
	var oe *oauth.Error
	if !errors.As(err, &oe) {
		return err
	}
	fields := []kv{{"error", oe.Code}, {"error_description", oe.Description}, {"error_uri", oe.URI}}
	if oe.Interval > 0 {
		fields = append(fields, kv{"interval", oe.Interval})
	}
	return write(w, r, oe.Status, fields)
}

// GET /login/device: the signed-in user enters the code a device shows.
func (h *Handler) devicePage(w http.ResponseWriter, r *http.Request) error {
	u, ok, err := h.requireUser(w, r)
	if !ok {
		return err
	}
	return h.codeForm(w, r, u, "", http.StatusOK)
}

func (h *Handler) codeForm(w http.ResponseWriter, r *http.Request, u *model.Account, msg string, status int) error {
	return h.render(w, r, status, view{Title: "Device Activation", User: u.Login, Error: msg, Action: "/login/device",
		Lines:   []string{"Enter the code displayed on your device."},
		Fields:  []field{{Label: "Code", Type: "text", Name: "user_code", Value: r.FormValue("user_code")}},
		Buttons: []button{{Label: "Continue", Name: "commit", Value: "Continue"}}})
}

// POST /login/device: the code entered (a confirmation page), then the
// user's answer.
func (h *Handler) device(w http.ResponseWriter, r *http.Request) error {
	if !checkCSRF(r) {
		return forbiddenCSRF(w)
	}
	u, ok, err := h.requireUser(w, r)
	if !ok {
		return err
	}
	ctx := r.Context()
	code, c, err := h.Svc.PendingDevice(ctx, r.PostFormValue("user_code"))
	if errors.Is(err, model.ErrNotFound) {
		return h.codeForm(w, r, u, "Incorrect code. Please check the code and try again.", http.StatusUnprocessableEntity)
	}
	if err != nil {
		return err
	}
	switch r.PostFormValue("authorize") {
	case "1", "0":
		return h.decide(ctx, w, r, u, code, c, r.PostFormValue("authorize") == "1")
	}
	lines := []string{c.Name + " wants to access your " + u.Login + " account."}
	if code.Scopes != "" {
		lines = append(lines, "Scopes: "+strings.ReplaceAll(code.Scopes, ",", ", "))
	}
	return h.render(w, r, http.StatusOK, view{Title: "Authorize " + c.Name, User: u.Login, Lines: lines, Action: "/login/device",
		Hidden:  map[string]string{"user_code": r.PostFormValue("user_code")},
		Buttons: []button{{Label: "Authorize " + c.Name, Name: "authorize", Value: "1"}, {Label: "Cancel", Name: "authorize", Value: "0"}}})
}

func (h *Handler) decide(ctx context.Context, w http.ResponseWriter, r *http.Request, u *model.Account, code *model.OAuthCode, c *model.OAuthClient, approve bool) error {
	if err := h.Svc.DecideDevice(ctx, u, code, approve); err != nil {
		if errors.Is(err, model.ErrNotFound) {
			return h.codeForm(w, r, u, "Incorrect code. Please check the code and try again.", http.StatusUnprocessableEntity)
		}
		return err
	}
	msg := "Congratulations, you're all set! Your device is now connected."
	if !approve {
		msg = "Access denied: " + c.Name + " was not authorized."
	}
	return h.render(w, r, http.StatusOK, view{Title: "Device Activation", User: u.Login, Lines: []string{msg}})
}
