package hooks_test

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/hooks/hookstest"
)

// appJWT signs a JWT for app id with its private key (RS256), as
// ghinstallation does: issued 30 seconds ago, valid two minutes.
func appJWT(t *testing.T, f *fixture, id int64, pemKey string) string {
	t.Helper()
	block, _ := pem.Decode([]byte(pemKey))
	if block == nil {
		t.Fatal("the app's key is not PEM")
	}
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	part := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	now := f.e.Store.Now().Unix()
	signing := part(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + part(map[string]any{"iat": now - 30, "exp": now + 120, "iss": id})
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// TestAppHook: an app sets its webhook with its JWT and receives the
// events its installation subscribed to, for the repositories the
// installation reaches, with the installation in each payload.
func TestAppHook(t *testing.T) {
	f := newFixture(t)
	f.e.Must(http.StatusCreated, "POST", "/admin/organizations", f.e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	for _, name := range []string{"widgets", "secret"} {
		if _, _, err := f.gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr(name), AutoInit: github.Ptr(true)}); err != nil {
			t.Fatal(err)
		}
	}
	var app struct {
		ID   int64  `json:"id"`
		Slug string `json:"slug"`
		PEM  string `json:"pem"`
	}
	f.e.Must(http.StatusCreated, "POST", "/admin/apps", f.e.AdminToken, map[string]any{
		"owner": "acme", "name": "Hooked Bot", "url": "https://example.com/bot",
		"default_permissions": map[string]string{"issues": "write"}, "default_events": []string{"issues"},
	}).JSON(t, &app)
	var inst struct {
		ID int64 `json:"id"`
	}
	f.e.Must(http.StatusCreated, "POST", "/admin/apps/"+app.Slug+"/installations", f.e.AdminToken, map[string]any{
		"account": "acme", "repository_selection": "selected", "repositories": []string{"widgets"},
	}).JSON(t, &inst)
	jwt := "Authorization: Bearer " + appJWT(t, f, app.ID, app.PEM)

	r := f.e.Must(http.StatusOK, "GET", "/app/hook/config", "", nil, jwt)
	if strings.Contains(string(r.Body), `"url"`) {
		t.Errorf("config before any URL: %s", r.Body)
	}
	f.e.Must(http.StatusOK, "GET", "/app/hook/deliveries", "", nil, jwt)
	r = f.e.Do("PATCH", "/app/hook/config", "", map[string]any{"secret": "x"}, jwt)
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "Config must contain URL") {
		t.Errorf("first config without url: %d %s", r.StatusCode, r.Body)
	}
	const secret = "app secret"
	r = f.e.Must(http.StatusOK, "PATCH", "/app/hook/config", "", map[string]any{"url": f.recv.URL, "secret": secret}, jwt)
	if !strings.Contains(string(r.Body), `"secret":"********"`) || !strings.Contains(string(r.Body), `"content_type":"json"`) {
		t.Errorf("config: %s", r.Body)
	}
	// Setting the URL the first time pings it, as GitHub does.
	ping := f.recv.WaitFor(t, "ping", "")
	f.check(ping, secret)
	if pm := ping.Map(t); pm["hook"].(map[string]any)["app_id"] != float64(app.ID) || pm["hook"].(map[string]any)["type"] != "App" {
		t.Errorf("app ping %.500s", ping.Payload)
	}
	// Other credentials are not the app's JWT.
	f.e.Must(http.StatusUnauthorized, "GET", "/app/hook/config", f.token, nil)
	f.e.Must(http.StatusUnauthorized, "GET", "/app/hook/deliveries", "", nil)

	if _, _, err := f.gh.Issues.Create(ctx, "acme", "secret", github.CreateIssueRequest{Title: "not installed here"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.gh.Issues.Create(ctx, "acme", "widgets", github.CreateIssueRequest{Title: "for the bot"}); err != nil {
		t.Fatal(err)
	}
	d := f.recv.WaitFor(t, "issues", "opened")
	f.check(d, secret)
	if tt := d.Header.Get("X-GitHub-Hook-Installation-Target-Type"); tt != "integration" || d.Header.Get("X-GitHub-Hook-Installation-Target-ID") != itoa(app.ID) {
		t.Errorf("target %s %s", tt, d.Header.Get("X-GitHub-Hook-Installation-Target-ID"))
	}
	m := d.Map(t)
	if in := m["installation"].(map[string]any); in["id"] != float64(inst.ID) {
		t.Errorf("installation %v", in)
	}
	if m["issue"].(map[string]any)["title"] != "for the bot" {
		t.Errorf("issue %v", m["issue"])
	}
	// A push is no event of the installation's.
	dir := f.cloneOf("acme/widgets")
	commit(t, dir, "w.txt", "w\n", "w")
	git(t, dir, "push", "-q", "origin", "main")
	if _, _, err := f.gh.Issues.Create(ctx, "acme", "widgets", github.CreateIssueRequest{Title: "second"}); err != nil {
		t.Fatal(err)
	}
	f.recv.Wait(t, "the second issue", func(*hookstest.Delivery) bool { return f.recv.Count("issues", "opened") == 2 })
	hookstest.Drain(t, f.e)
	for _, d := range f.recv.All() {
		if d.Event() != "issues" && d.Event() != "ping" || strings.Contains(string(d.Payload), "not installed here") {
			t.Errorf("the app got %s: %.200s", d.Event(), d.Payload)
		}
	}

	var list []map[string]any
	f.e.Must(http.StatusOK, "GET", "/app/hook/deliveries?per_page=1", "", nil, jwt).JSON(t, &list)
	if len(list) != 1 || list[0]["installation_id"] != float64(inst.ID) || list[0]["event"] != "issues" {
		t.Fatalf("app deliveries %v", list)
	}
	id := itoa(int64(list[0]["id"].(float64)))
	f.e.Must(http.StatusOK, "GET", "/app/hook/deliveries/"+id, "", nil, jwt)
	f.e.Must(http.StatusAccepted, "POST", "/app/hook/deliveries/"+id+"/attempts", "", nil, jwt)
	f.recv.Wait(t, "the redelivery", func(*hookstest.Delivery) bool { return f.recv.Count("issues", "opened") == 3 })
	f.e.Must(http.StatusNotFound, "GET", "/app/hook/deliveries/999999", "", nil, jwt)
}
