package oauth_test

import (
	"context"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/oauth"
	"github.com/hubd/hubd/internal/ratelimit"
)

const password = "correct horse battery"

// clock lets a test move the store's time forward while the server runs.
type clock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

func newEnv(t *testing.T) (*apitest.Env, *clock) {
	env := apitest.New(t)
	c := &clock{}
	env.Store.SetClock(c.now)
	return env, c
}

// tokenPost posts form parameters to a token endpoint as an OAuth client
// does and returns the answer decoded from the encoding accept asks for.
func tokenPost(t *testing.T, env *apitest.Env, path, accept string, form url.Values) (int, url.Values, string) {
	t.Helper()
	headers := []string{"Content-Type: application/x-www-form-urlencoded"}
	if accept != "" {
		headers = append(headers, "Accept: "+accept)
	} else {
		headers = append(headers, "Accept: */*")
	}
	r := env.Do("POST", env.URL+path, "", form.Encode(), headers...)
	ct := r.Header.Get("Content-Type")
	out := url.Values{}
	switch {
	case strings.HasPrefix(ct, "application/json"):
		m := map[string]any{}
		r.JSON(t, &m)
		for k, v := range m {
			switch v := v.(type) {
			case string:
				out.Set(k, v)
			case float64:
				out.Set(k, strconv.FormatFloat(v, 'f', -1, 64))
			}
		}
	case strings.HasPrefix(ct, "application/xml"):
		var doc struct {
			Fields []struct {
				XMLName xml.Name
				Value   string `xml:",chardata"`
			} `xml:",any"`
		}
		if err := xml.Unmarshal(r.Body, &doc); err != nil {
			t.Fatalf("xml: %v: %s", err, r.Body)
		}
		for _, f := range doc.Fields {
			out.Set(f.XMLName.Local, f.Value)
		}
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
		var err error
		if out, err = url.ParseQuery(string(r.Body)); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("%s: content type %q: %s", path, ct, r.Body)
	}
	return r.StatusCode, out, ct
}

type oauthApp struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

func createOAuthApp(t *testing.T, env *apitest.Env, owner, name, callback string, device bool) oauthApp {
	t.Helper()
	var a oauthApp
	env.Must(201, "POST", "/admin/oauth-apps", env.AdminToken, map[string]any{"owner": owner, "name": name,
		"callback_url": callback, "device_flow": device}).JSON(t, &a)
	if !strings.HasPrefix(a.ClientID, "Ov23li") || len(a.ClientID) != 20 || len(a.ClientSecret) != 40 {
		t.Fatalf("oauth app: %+v", a)
	}
	return a
}

// consent runs the web flow's browser side: authorize, answer, and the
// Location the browser is sent back to.
func consent(t *testing.T, b *apitest.Browser, query url.Values, approve bool) *url.URL {
	t.Helper()
	p := b.Get("/login/oauth/authorize?" + query.Encode())
	if p.Status != http.StatusOK {
		t.Fatalf("authorize: %d %s\n%s", p.Status, p.Location, p.Body)
	}
	answer := "0"
	if approve {
		answer = "1"
	}
	p = b.Submit(p, "authorize", answer)
	if p.Status != http.StatusFound {
		t.Fatalf("consent: %d\n%s", p.Status, p.Body)
	}
	u, err := url.Parse(p.Location)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestWebFlow(t *testing.T) {
	env, _ := newEnv(t)
	mona, _ := env.NewUser("mona", false)
	env.SetPassword(mona.Login, password)
	app := createOAuthApp(t, env, "mona", "Octo Tool", "https://tool.example/cb", false)
	b := env.Browser()
	q := url.Values{"client_id": {app.ClientID}, "scope": {"repo gist nonsense"}, "state": {"st-1"}}

	// Not signed in: to /login and back.
	p := b.Get("/login/oauth/authorize?" + q.Encode())
	if p.Status != http.StatusFound || !strings.HasPrefix(p.Location, "/login?") {
		t.Fatalf("authorize signed out: %d %q", p.Status, p.Location)
	}
	login := b.Get(p.Location)
	if bad := b.Submit(login, "login", "mona", "password", "wrong password"); bad.Status != 422 || !strings.Contains(bad.Body, "Incorrect username or password.") {
		t.Fatalf("wrong password: %d\n%s", bad.Status, bad.Body)
	}
	if bad := b.Post("/session", url.Values{"login": {"mona"}, "password": {password}}); bad.Status != http.StatusForbidden {
		t.Fatalf("sign in without the CSRF token: %d", bad.Status)
	}
	p = b.Submit(login, "login", "mona", "password", password)
	if p.Status != http.StatusFound || !strings.HasPrefix(p.Location, "/login/oauth/authorize?") {
		t.Fatalf("sign in: %d %q", p.Status, p.Location)
	}
	cookie := p.Header.Get("Set-Cookie")
	if !strings.Contains(cookie, "hubd_session=") || !strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Lax") {
		t.Errorf("session cookie: %q", cookie)
	}
	back := consent(t, b, q, true)
	if back.Host != "tool.example" || back.Path != "/cb" || back.Query().Get("state") != "st-1" || back.Query().Get("code") == "" {
		t.Fatalf("redirect: %s", back)
	}
	code := back.Query().Get("code")

	// The code for a token, form-encoded by default.
	form := url.Values{"client_id": {app.ClientID}, "client_secret": {app.ClientSecret}, "code": {code}}
	st, got, ct := tokenPost(t, env, "/login/oauth/access_token", "", form)
	if st != 200 || !strings.HasPrefix(got.Get("access_token"), "gho_") || got.Get("scope") != "repo,gist" || got.Get("token_type") != "bearer" {
		t.Fatalf("exchange (%s): %d %v", ct, st, got)
	}
	gho := got.Get("access_token")
	r := env.Must(200, "GET", "/user", gho, nil)
	if r.Header.Get("X-OAuth-Scopes") != "gist, repo" || !strings.Contains(string(r.Body), `"login":"mona"`) {
		t.Errorf("gho_ token: scopes %q body %.100s", r.Header.Get("X-OAuth-Scopes"), r.Body)
	}
	// A code is good once.
	if _, got, _ := tokenPost(t, env, "/login/oauth/access_token", "", form); got.Get("error") != "bad_verification_code" {
		t.Errorf("code reuse: %v", got)
	}

	// JSON, with a redirect_uri that must match the one authorized.
	q2 := url.Values{"client_id": {app.ClientID}, "scope": {"read:user"}, "redirect_uri": {"https://tool.example/cb/done"}}
	back = consent(t, b, q2, true)
	if back.Path != "/cb/done" || back.Query().Has("state") {
		t.Fatalf("redirect to a path below the callback: %s", back)
	}
	form = url.Values{"client_id": {app.ClientID}, "client_secret": {app.ClientSecret}, "code": {back.Query().Get("code")}, "redirect_uri": {"https://tool.example/cb"}}
	if _, got, _ := tokenPost(t, env, "/login/oauth/access_token", "application/json", form); got.Get("error") != "redirect_uri_mismatch" || got.Get("error_description") == "" || got.Get("error_uri") == "" {
		t.Errorf("redirect_uri mismatch: %v", got)
	}
	form.Set("redirect_uri", "https://tool.example/cb/done")
	st, got, ct = tokenPost(t, env, "/login/oauth/access_token", "application/json", form)
	if st != 200 || !strings.HasPrefix(ct, "application/json") || !strings.HasPrefix(got.Get("access_token"), "gho_") || got.Get("scope") != "read:user" {
		t.Fatalf("json exchange: %d %s %v", st, ct, got)
	}

	// XML. mona granted repo before: no consent page this time, back at
	// once with a code for the scope asked.
	back = remembered(t, b, url.Values{"client_id": {app.ClientID}, "scope": {"repo"}, "state": {"st-r"}})
	if back.Host != "tool.example" || back.Query().Get("state") != "st-r" {
		t.Fatalf("remembered consent: %s", back)
	}
	form = url.Values{"client_id": {app.ClientID}, "client_secret": {app.ClientSecret}, "code": {back.Query().Get("code")}}
	if _, got, _ := tokenPost(t, env, "/login/oauth/access_token", "application/json", url.Values{"client_id": {app.ClientID}, "client_secret": {"0000"}, "code": {back.Query().Get("code")}}); got.Get("error") != "incorrect_client_credentials" {
		t.Errorf("wrong secret: %v", got)
	}
	st, got, ct = tokenPost(t, env, "/login/oauth/access_token", "application/xml", form)
	if st != 200 || !strings.HasPrefix(ct, "application/xml") || !strings.HasPrefix(got.Get("access_token"), "gho_") || got.Get("scope") != "repo" {
		t.Fatalf("xml exchange: %d %s %v", st, ct, got)
	}

	// No scope asked: every scope granted so far (GitHub's rule).
	back = remembered(t, b, url.Values{"client_id": {app.ClientID}})
	_, got2, _ := tokenPost(t, env, "/login/oauth/access_token", "", url.Values{"client_id": {app.ClientID}, "client_secret": {app.ClientSecret}, "code": {back.Query().Get("code")}})
	if got2.Get("scope") != "repo,gist,read:user" {
		t.Errorf("scopes of a flow without scope after earlier grants: %v", got2)
	}
	// Denied (a scope never granted asks again): back with GitHub's error
	// and the state; the grant is unchanged.
	back = consent(t, b, url.Values{"client_id": {app.ClientID}, "scope": {"admin:org"}, "state": {"st-2"}}, false)
	if back.Host != "tool.example" || back.Query().Get("error") != "access_denied" || back.Query().Get("state") != "st-2" {
		t.Errorf("denied: %s", back)
	}
	// PKCE: the code needs its verifier; only S256 challenges are taken.
	verifier := "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	back = remembered(t, b, url.Values{"client_id": {app.ClientID}, "scope": {"gist"}, "code_challenge": {oauth.PKCEChallenge(verifier)}, "code_challenge_method": {"S256"}})
	form = url.Values{"client_id": {app.ClientID}, "client_secret": {app.ClientSecret}, "code": {back.Query().Get("code")}, "code_verifier": {"wrong-verifier"}}
	if _, got, _ := tokenPost(t, env, "/login/oauth/access_token", "", form); got.Get("error") != "bad_verification_code" {
		t.Errorf("wrong code_verifier: %v", got)
	}
	form.Set("code_verifier", verifier)
	if _, got, _ := tokenPost(t, env, "/login/oauth/access_token", "", form); !strings.HasPrefix(got.Get("access_token"), "gho_") {
		t.Errorf("PKCE exchange: %v", got)
	}
	p = b.Get("/login/oauth/authorize?" + url.Values{"client_id": {app.ClientID}, "code_challenge": {"abc"}, "code_challenge_method": {"plain"}}.Encode())
	if u, _ := url.Parse(p.Location); p.Status != 302 || u.Query().Get("error") != "invalid_request" {
		t.Errorf("plain PKCE: %d %q", p.Status, p.Location)
	}
	// A redirect_uri elsewhere: the error goes to the registered callback.
	for _, bad := range []string{"https://evil.example/cb", "https://tool.example/other", "https://tool.example:8443/cb", "http://tool.example/cb", "https://tool.example/cb/../x"} {
		p := b.Get("/login/oauth/authorize?" + url.Values{"client_id": {app.ClientID}, "redirect_uri": {bad}, "state": {"st-3"}}.Encode())
		u, _ := url.Parse(p.Location)
		if p.Status != 302 || u == nil || u.Host != "tool.example" || u.Path != "/cb" || u.Query().Get("error") != "redirect_uri_mismatch" || u.Query().Get("state") != "st-3" {
			t.Errorf("redirect_uri %s: %d %q", bad, p.Status, p.Location)
		}
	}
	if p := b.Get("/login/oauth/authorize?client_id=Ov23linope0000000000"); p.Status != 404 {
		t.Errorf("unknown client: %d", p.Status)
	}
	// Consent needs the CSRF token.
	if p := b.Post("/login/oauth/authorize", url.Values{"client_id": {app.ClientID}, "authorize": {"1"}}); p.Status != http.StatusForbidden {
		t.Errorf("consent without CSRF token: %d", p.Status)
	}
	// Signing out ends the session.
	home := b.Get("/login/device")
	action, v := home.Form()
	_ = action
	if p := b.Post("/logout", url.Values{"authenticity_token": {v.Get("authenticity_token")}}); p.Status != http.StatusFound {
		t.Fatalf("logout: %d", p.Status)
	}
	if p := b.Get("/login/device"); p.Status != http.StatusFound {
		t.Errorf("after logout: %d", p.Status)
	}

	// The /applications operations through go-github, with the client's
	// id and secret.
	ctx := context.Background()
	tp := &github.BasicAuthTransport{Username: app.ClientID, Password: app.ClientSecret}
	gh, err := github.NewClient(github.WithHTTPClient(tp.Client()), github.WithEnterpriseURLs(env.URL+"/", env.URL+"/"))
	if err != nil {
		t.Fatal(err)
	}
	auth, _, err := gh.Authorizations.Check(ctx, app.ClientID, gho)
	if err != nil || auth.GetToken() != gho || auth.GetUser().GetLogin() != "mona" || auth.GetApp().GetClientID() != app.ClientID || len(auth.Scopes) != 2 {
		t.Fatalf("check: %v %+v", err, auth)
	}
	if _, resp, err := gh.Authorizations.Check(ctx, app.ClientID, "gho_unknown"); err == nil || resp.StatusCode != 404 {
		t.Errorf("check an unknown token: %v", err)
	}
	env.Must(401, "POST", "/applications/"+app.ClientID+"/token", "", map[string]string{"access_token": gho})
	env.Must(422, "POST", "/applications/"+app.ClientID+"/token", "", map[string]string{}, basic(app))
	other := createOAuthApp(t, env, "mona", "Other Tool", "https://other.example/", false)
	env.Must(404, "POST", "/applications/"+other.ClientID+"/token", "", map[string]string{"access_token": gho}, basic(app))
	env.Must(404, "POST", "/applications/"+other.ClientID+"/token", "", map[string]string{"access_token": gho}, basic(other))
	env.Must(401, "GET", "/user", "", nil, basic(app)) // a client's secret opens only /applications

	reset, _, err := gh.Authorizations.Reset(ctx, app.ClientID, gho)
	if err != nil || !strings.HasPrefix(reset.GetToken(), "gho_") || reset.GetToken() == gho {
		t.Fatalf("reset: %v %+v", err, reset)
	}
	env.Must(401, "GET", "/user", gho, nil)
	env.Must(200, "GET", "/user", reset.GetToken(), nil)
	if _, err := gh.Authorizations.Revoke(ctx, app.ClientID, reset.GetToken()); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	r = env.Must(401, "GET", "/user", reset.GetToken(), nil)
	if !strings.Contains(string(r.Body), "Bad credentials") {
		t.Errorf("revoked: %s", r.Body)
	}
	// Deleting the grant revokes every token of the app for the user.
	b = b2(t, env)
	back = remembered(t, b, url.Values{"client_id": {app.ClientID}, "scope": {"repo"}})
	_, g1, _ := tokenPost(t, env, "/login/oauth/access_token", "", url.Values{"client_id": {app.ClientID}, "client_secret": {app.ClientSecret}, "code": {back.Query().Get("code")}})
	if _, err := gh.Authorizations.DeleteGrant(ctx, app.ClientID, g1.Get("access_token")); err != nil {
		t.Fatalf("delete grant: %v", err)
	}
	env.Must(401, "GET", "/user", g1.Get("access_token"), nil)
	env.Must(401, "GET", "/user", got.Get("access_token"), nil) // the XML one, same app and user
	// ... and forgets the consent: the next flow asks again.
	if p := b.Get("/login/oauth/authorize?" + url.Values{"client_id": {app.ClientID}, "scope": {"repo"}}.Encode()); p.Status != http.StatusOK {
		t.Errorf("authorize after the grant was deleted: %d %q", p.Status, p.Location)
	}
}

// remembered runs the web flow for a client the signed-in user already
// authorized for the scopes asked: no consent page, straight back.
func remembered(t *testing.T, b *apitest.Browser, query url.Values) *url.URL {
	t.Helper()
	p := b.Get("/login/oauth/authorize?" + query.Encode())
	if p.Status != http.StatusFound {
		t.Fatalf("authorize (remembered): %d\n%s", p.Status, p.Body)
	}
	u, err := url.Parse(p.Location)
	if err != nil || u.Query().Get("code") == "" {
		t.Fatalf("authorize (remembered): %q %v", p.Location, err)
	}
	return u
}

func basic(a oauthApp) string {
	req, _ := http.NewRequest("GET", "/", nil)
	req.SetBasicAuth(a.ClientID, a.ClientSecret)
	return "Authorization: " + req.Header.Get("Authorization")
}

// b2 is a fresh browser signed in as mona.
func b2(t *testing.T, env *apitest.Env) *apitest.Browser {
	b := env.Browser()
	b.SignIn("mona", password)
	return b
}

// TestSignInLockout: failed sign-ins count in the server's failed-login
// lockout; while it lasts even the right password is refused.
func TestSignInLockout(t *testing.T) {
	limits := ratelimit.DefaultLimits()
	limits.Anonymous, limits.Authenticated, limits.LoginFailures = 1000, 1000, 2
	env := apitest.New(t, apitest.Options{Limits: &limits})
	mona, _ := env.NewUser("mona", false)
	env.SetPassword(mona.Login, password)
	b := env.Browser()
	for i := 0; i < 2; i++ {
		if p := b.Submit(b.Get("/login"), "login", "mona", "password", "nope nope"); p.Status != 422 || !strings.Contains(p.Body, "Incorrect username or password.") {
			t.Fatalf("failure %d: %d", i, p.Status)
		}
	}
	if p := b.Submit(b.Get("/login"), "login", "mona", "password", password); p.Status != 422 || !strings.Contains(p.Body, "Too many sign-in attempts") {
		t.Fatalf("locked out: %d\n%s", p.Status, p.Body)
	}
}

// TestClientSecretGuessing: wrong client secrets at the token endpoint
// count in the failed-login limit; past it, wrong secrets from that
// address get 403 with GitHub's lockout words, while the right secret
// still gets its token.
func TestClientSecretGuessing(t *testing.T) {
	limits := ratelimit.DefaultLimits()
	limits.Anonymous, limits.Authenticated, limits.LoginFailures = 1000, 1000, 3
	env := apitest.New(t, apitest.Options{Limits: &limits})
	mona, _ := env.NewUser("mona", false)
	env.SetPassword(mona.Login, password)
	app := createOAuthApp(t, env, "mona", "Guessed", "https://tool.example/cb", false)
	b := b2(t, env)
	code := func() string {
		return consent(t, b, url.Values{"client_id": {app.ClientID}, "scope": {"repo"}}, true).Query().Get("code")
	}
	c := code()
	for i := 0; i < 3; i++ {
		st, got, _ := tokenPost(t, env, "/login/oauth/access_token", "application/json", url.Values{"client_id": {app.ClientID}, "client_secret": {fmt.Sprintf("guess-%d", i)}, "code": {c}})
		if st != 200 || got.Get("error") != "incorrect_client_credentials" {
			t.Fatalf("guess %d: %d %v", i, st, got)
		}
	}
	st, got, _ := tokenPost(t, env, "/login/oauth/access_token", "application/json", url.Values{"client_id": {app.ClientID}, "client_secret": {"guess-4"}, "code": {c}})
	if st != 403 || got.Get("error") != "incorrect_client_credentials" || got.Get("error_description") != "Maximum number of login attempts exceeded. Please try again later." {
		t.Fatalf("guess past the limit: %d %v", st, got)
	}
	st, got, _ = tokenPost(t, env, "/login/oauth/access_token", "application/json", url.Values{"client_id": {app.ClientID}, "client_secret": {app.ClientSecret}, "code": {c}})
	if st != 200 || !strings.HasPrefix(got.Get("access_token"), "gho_") {
		t.Fatalf("the right secret during the lockout: %d %v", st, got)
	}
}

// TestAdminOAuthApps: a site administrator lists, reads and deletes OAuth
// apps; deleting one revokes its tokens and forgets its consents.
func TestAdminOAuthApps(t *testing.T) {
	env, _ := newEnv(t)
	mona, monaTok := env.NewUser("mona", false)
	env.SetPassword(mona.Login, password)
	app := createOAuthApp(t, env, "mona", "Octo Tool", "https://tool.example/cb", true)
	createOAuthApp(t, env, "mona", "Second Tool", "https://second.example/cb", false)

	var list []map[string]any
	r := env.Must(200, "GET", "/admin/oauth-apps?per_page=2", env.AdminToken, nil)
	r.JSON(t, &list)
	if len(list) != 2 || list[0]["client_id"] != "178c6fc778ccc68e1d6a" || list[0]["owner"] != nil || list[1]["client_id"] != app.ClientID ||
		list[1]["owner"].(map[string]any)["login"] != "mona" || list[1]["device_flow"] != true || list[1]["client_secret"] != nil {
		t.Fatalf("list: %v", list)
	}
	if l := r.Header.Get("Link"); !strings.Contains(l, `page=2>; rel="next"`) {
		t.Errorf("Link: %q", l)
	}
	env.Must(200, "GET", "/admin/oauth-apps?page=2&per_page=2", env.AdminToken, nil).JSON(t, &list)
	if len(list) != 1 || list[0]["name"] != "Second Tool" {
		t.Fatalf("page 2: %v", list)
	}
	var one map[string]any
	env.Must(200, "GET", "/admin/oauth-apps/"+app.ClientID, env.AdminToken, nil).JSON(t, &one)
	if one["name"] != "Octo Tool" || one["callback_url"] != "https://tool.example/cb" {
		t.Fatalf("get: %v", one)
	}
	env.Must(403, "GET", "/admin/oauth-apps", monaTok, nil)
	env.Must(403, "DELETE", "/admin/oauth-apps/"+app.ClientID, monaTok, nil)
	env.Must(404, "GET", "/admin/oauth-apps/Ov23linope0000000000", env.AdminToken, nil)

	b := b2(t, env)
	back := consent(t, b, url.Values{"client_id": {app.ClientID}, "scope": {"repo"}}, true)
	_, got, _ := tokenPost(t, env, "/login/oauth/access_token", "", url.Values{"client_id": {app.ClientID}, "client_secret": {app.ClientSecret}, "code": {back.Query().Get("code")}})
	gho := got.Get("access_token")
	env.Must(200, "GET", "/user", gho, nil)

	env.Must(204, "DELETE", "/admin/oauth-apps/"+app.ClientID, env.AdminToken, nil)
	env.Must(401, "GET", "/user", gho, nil)
	env.Must(404, "GET", "/admin/oauth-apps/"+app.ClientID, env.AdminToken, nil)
	env.Must(404, "DELETE", "/admin/oauth-apps/"+app.ClientID, env.AdminToken, nil)
	if p := b.Get("/login/oauth/authorize?client_id=" + app.ClientID); p.Status != 404 {
		t.Errorf("authorize for a deleted app: %d", p.Status)
	}
	if st, got, _ := tokenPost(t, env, "/login/oauth/access_token", "", url.Values{"client_id": {app.ClientID}, "client_secret": {app.ClientSecret}, "code": {"x"}}); st != 200 || got.Get("error") != "incorrect_client_credentials" {
		t.Errorf("token endpoint for a deleted app: %d %v", st, got)
	}
}
