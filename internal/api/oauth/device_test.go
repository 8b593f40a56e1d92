package oauth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
)

// ghClientID is the GitHub CLI's OAuth app, which hubd ships.
const ghClientID = "178c6fc778ccc68e1d6a"

func startDevice(t *testing.T, env *apitest.Env, clientID, scope string) url.Values {
	t.Helper()
	st, got, _ := tokenPost(t, env, "/login/device/code", "", url.Values{"client_id": {clientID}, "scope": {scope}})
	if st != 200 || len(got.Get("device_code")) != 40 || len(got.Get("user_code")) != 9 || got.Get("verification_uri") != env.URL+"/login/device" ||
		got.Get("expires_in") != "900" || got.Get("interval") != "5" {
		t.Fatalf("device code: %d %v", st, got)
	}
	return got
}

func poll(t *testing.T, env *apitest.Env, clientID, deviceCode string) url.Values {
	t.Helper()
	st, got, _ := tokenPost(t, env, "/login/oauth/access_token", "application/json", url.Values{"client_id": {clientID},
		"device_code": {deviceCode}, "grant_type": {"urn:ietf:params:oauth:grant-type:device_code"}})
	if st != 200 {
		t.Fatalf("poll: %d %v", st, got)
	}
	return got
}

// TestDeviceFlow drives the device flow over HTTP as gh does it.
func TestDeviceFlow(t *testing.T) {
	env, clk := newEnv(t)
	mona, _ := env.NewUser("mona", false)
	env.SetPassword(mona.Login, password)

	d := startDevice(t, env, ghClientID, "repo read:org gist")
	dc := d.Get("device_code")
	if got := poll(t, env, ghClientID, dc); got.Get("error") != "authorization_pending" || got.Get("error_description") == "" {
		t.Fatalf("first poll: %v", got)
	}
	// Polling again at once: slow down, five seconds more.
	if got := poll(t, env, ghClientID, dc); got.Get("error") != "slow_down" || got.Get("interval") != "10" {
		t.Fatalf("fast poll: %v", got)
	}
	clk.advance(11 * time.Second)
	if got := poll(t, env, ghClientID, dc); got.Get("error") != "authorization_pending" {
		t.Fatalf("poll after the interval: %v", got)
	}

	// A wrong code on the page, then the right one (any case, no hyphen).
	b := env.Browser()
	if p := b.Get("/login/device"); p.Status != http.StatusFound || !strings.HasPrefix(p.Location, "/login?") {
		t.Fatalf("device page signed out: %d %q", p.Status, p.Location)
	}
	b.SignIn(mona.Login, password)
	page := b.Get("/login/device")
	if p := b.Submit(page, "user_code", "BBBB-BBBB"); p.Status != 422 || !strings.Contains(p.Body, "Incorrect code") {
		t.Fatalf("wrong user code: %d\n%s", p.Status, p.Body)
	}
	confirm := b.Submit(page, "user_code", strings.ToLower(strings.ReplaceAll(d.Get("user_code"), "-", "")))
	if confirm.Status != 200 || !strings.Contains(confirm.Body, "GitHub CLI") {
		t.Fatalf("confirm: %d\n%s", confirm.Status, confirm.Body)
	}
	if p := b.Submit(confirm, "authorize", "1"); p.Status != 200 || !strings.Contains(p.Body, "all set") {
		t.Fatalf("authorize: %d\n%s", p.Status, p.Body)
	}
	clk.advance(11 * time.Second)
	got := poll(t, env, ghClientID, dc)
	if !strings.HasPrefix(got.Get("access_token"), "gho_") || got.Get("scope") != "repo,read:org,gist" || got.Get("token_type") != "bearer" {
		t.Fatalf("token: %v", got)
	}
	r := env.Must(200, "GET", "/user", got.Get("access_token"), nil)
	if r.Header.Get("X-OAuth-Scopes") != "gist, read:org, repo" {
		t.Errorf("scopes: %q", r.Header.Get("X-OAuth-Scopes"))
	}
	// The device code is spent.
	if got := poll(t, env, ghClientID, dc); got.Get("error") != "incorrect_device_code" {
		t.Errorf("spent device code: %v", got)
	}

	// Denied.
	d = startDevice(t, env, ghClientID, "repo")
	env.ApproveDevice(mona.Login, password, d.Get("user_code"), false)
	if got := poll(t, env, ghClientID, d.Get("device_code")); got.Get("error") != "access_denied" {
		t.Errorf("denied: %v", got)
	}
	// Expired after 15 minutes, for the poller and on the page.
	d = startDevice(t, env, ghClientID, "repo")
	clk.advance(16 * time.Minute)
	if got := poll(t, env, ghClientID, d.Get("device_code")); got.Get("error") != "expired_token" {
		t.Errorf("expired: %v", got)
	}
	if p := b.Submit(b.Get("/login/device"), "user_code", d.Get("user_code")); p.Status != 422 {
		t.Errorf("expired user code on the page: %d", p.Status)
	}

	// Errors of the endpoints.
	if got := poll(t, env, ghClientID, "0123456789"); got.Get("error") != "incorrect_device_code" {
		t.Errorf("unknown device code: %v", got)
	}
	if _, got, _ := tokenPost(t, env, "/login/oauth/access_token", "", url.Values{"client_id": {ghClientID}, "grant_type": {"password"}}); got.Get("error") != "unsupported_grant_type" {
		t.Errorf("grant type: %v", got)
	}
	if got := poll(t, env, "Ov23linope0000000000", "x"); got.Get("error") != "incorrect_client_credentials" {
		t.Errorf("unknown client: %v", got)
	}
	noDevice := createOAuthApp(t, env, "mona", "Web Only", "https://web.example/cb", false)
	st, got, _ := tokenPost(t, env, "/login/device/code", "application/json", url.Values{"client_id": {noDevice.ClientID}})
	if st != 400 || got.Get("error") != "device_flow_disabled" {
		t.Errorf("device flow disabled: %d %v", st, got)
	}
	if got := poll(t, env, noDevice.ClientID, "x"); got.Get("error") != "device_flow_disabled" {
		t.Errorf("device flow disabled, polling: %v", got)
	}
	// An OAuth app with the device flow enabled, JSON in and out.
	withDevice := createOAuthApp(t, env, "mona", "Device Tool", "https://dev.example/cb", true)
	r = env.Do("POST", env.URL+"/login/device/code", "", map[string]string{"client_id": withDevice.ClientID, "scope": "gist"},
		"Accept: application/json", "Content-Type: application/json")
	var start struct {
		DeviceCode string `json:"device_code"`
		UserCode   string `json:"user_code"`
		Interval   int    `json:"interval"`
	}
	r.JSON(t, &start)
	if r.StatusCode != 200 || start.Interval != 5 || start.UserCode == "" {
		t.Fatalf("json device code: %d %s", r.StatusCode, r.Body)
	}
	env.ApproveDevice(mona.Login, password, start.UserCode, true)
	if got := poll(t, env, withDevice.ClientID, start.DeviceCode); !strings.HasPrefix(got.Get("access_token"), "gho_") || got.Get("scope") != "gist" {
		t.Errorf("device tool token: %v", got)
	}
}
