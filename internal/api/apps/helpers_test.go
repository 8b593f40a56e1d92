package apps_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
)

var ctx = context.Background()

// world is an organization acme (owner alice) with private repositories
// widgets, gadgets and secret, bob's public repository bob/pub, and an app
// "Triage Bot" owned by acme (issues: write, contents: read) installed on
// acme for widgets and gadgets.
type world struct {
	t        *testing.T
	e        *apitest.Env
	alice    *model.Account
	aliceTok string
	bobTok   string
	repos    map[string]int64 // "acme/widgets" -> id
	app      createdApp
	inst     int64
}

// createdApp is the answer of POST /admin/apps.
type createdApp struct {
	ID           int64             `json:"id"`
	Slug         string            `json:"slug"`
	ClientID     string            `json:"client_id"`
	ClientSecret string            `json:"client_secret"`
	PEM          string            `json:"pem"`
	Permissions  map[string]string `json:"permissions"`
	Events       []string          `json:"events"`
}

func newWorld(t *testing.T, opts ...apitest.Options) *world {
	t.Helper()
	e := apitest.New(t, opts...)
	w := &world{t: t, e: e, repos: map[string]int64{}}
	w.alice, w.aliceTok = e.NewUser("alice", false)
	_, w.bobTok = e.NewUser("bob", false)
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "alice"})
	for _, name := range []string{"widgets", "gadgets", "secret"} {
		r, _, err := e.GitHub(w.aliceTok).Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr(name), Private: github.Ptr(true), AutoInit: github.Ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		w.repos["acme/"+name] = r.GetID()
	}
	r, _, err := e.GitHub(w.bobTok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("pub"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	w.repos["bob/pub"] = r.GetID()
	e.Must(201, "POST", "/admin/apps", e.AdminToken, map[string]any{
		"owner": "acme", "name": "Triage Bot", "description": "Sorts issues", "url": "https://example.com/triage",
		"default_permissions": map[string]string{"issues": "write", "contents": "read"},
		"default_events":      []string{"issues", "push"},
	}).JSON(t, &w.app)
	var in struct {
		ID int64 `json:"id"`
	}
	e.Must(201, "POST", "/admin/apps/"+w.app.Slug+"/installations", e.AdminToken, map[string]any{
		"account": "acme", "repository_selection": "selected", "repositories": []string{"widgets", "gadgets"},
	}).JSON(t, &in)
	w.inst = in.ID
	return w
}

// now is the server's clock (the store's).
func (w *world) now() time.Time { return w.e.Store.Now() }

// jwt signs claims as the app with its private key (RS256, written here
// from RFC 7515 rather than taken from the server's verifier).
func (w *world) jwt(claims map[string]any) string { return signJWT(w.t, w.app.PEM, "RS256", claims) }

// appJWT is a JWT as ghinstallation makes one: issued 30 seconds ago,
// expiring in two minutes, iss the app id.
func (w *world) appJWT() string {
	now := w.now().Unix()
	return w.jwt(map[string]any{"iat": now - 30, "exp": now + 120, "iss": w.app.ID})
}

func signJWT(t *testing.T, pemKey, alg string, claims map[string]any) string {
	t.Helper()
	block, _ := pem.Decode([]byte(pemKey))
	if block == nil {
		t.Fatal("private key is not PEM")
	}
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signing := enc(map[string]string{"alg": alg, "typ": "JWT"}) + "." + enc(claims)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// otherKey is a private key no app has.
func otherKey(t *testing.T) string {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
}

// bearer sends a request with Authorization: Bearer.
func (w *world) bearer(method, path, tok string, body any) *apitest.Response {
	w.t.Helper()
	return w.e.Do(method, path, "", body, "Authorization: Bearer "+tok)
}

// message is the message of an error answer.
func message(t *testing.T, r *apitest.Response) string {
	t.Helper()
	var m struct {
		Message string `json:"message"`
	}
	r.JSON(t, &m)
	return m.Message
}

// expect fails unless r has status and (when not empty) message.
func expect(t *testing.T, what string, r *apitest.Response, status int, msg string) {
	t.Helper()
	if r.StatusCode != status {
		t.Fatalf("%s: status %d, want %d: %.300s", what, r.StatusCode, status, r.Body)
	}
	if msg != "" {
		if got := message(t, r); got != msg {
			t.Fatalf("%s: message %q, want %q", what, got, msg)
		}
	}
}

// token gets an installation token through go-github, as ghinstallation
// does: a JWT in the Authorization header of POST
// /app/installations/{id}/access_tokens.
func (w *world) token(opts *github.InstallationTokenOptions) *github.InstallationToken {
	w.t.Helper()
	tok, resp, err := w.e.GitHub(w.appJWT()).Apps.CreateInstallationToken(ctx, w.inst, opts)
	if err != nil || resp.StatusCode != http.StatusCreated {
		w.t.Fatalf("create installation token: %v", err)
	}
	return tok
}
