package main

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	appIDLine    = regexp.MustCompile(`(?m)^app id: (\d+)$`)
	clientIDLine = regexp.MustCompile(`(?m)^client id: (Iv23li[A-Za-z0-9]{14})$`)
	secretLine   = regexp.MustCompile(`(?m)^client secret: ([0-9a-f]{40})$`)
	installLine  = regexp.MustCompile(`(?m)^installation id: (\d+) `)
)

// hubd app create prints the app's id, client id, client secret and
// private key once; hubd app install installs it; the key signs a JWT that
// gets an installation token from the server.
func TestAppCommands(t *testing.T) {
	c := newCLI(t)
	c.ok("user", "create", "--login", "mona")
	c.ok("org", "create", "--login", "acme", "--admin", "mona")
	tok := strings.TrimSpace(c.ok("token", "create", "--user", "mona", "--scopes", "repo"))

	out := c.ok("app", "create", "--owner", "acme", "--name", "CI Bot", "--permissions", "issues:write,contents:read", "--events", "issues,push")
	id, client, secret := appIDLine.FindStringSubmatch(out), clientIDLine.FindStringSubmatch(out), secretLine.FindStringSubmatch(out)
	if id == nil || client == nil || secret == nil || !strings.Contains(out, "-----BEGIN RSA PRIVATE KEY-----") {
		t.Fatalf("app create printed:\n%s", out)
	}
	key := out[strings.Index(out, "-----BEGIN RSA PRIVATE KEY-----"):]

	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"app", "create", "--owner", "acme", "--name", "ci bot"}, "name: already taken"},
		{[]string{"app", "create", "--owner", "nobody", "--name", "X"}, `no user or organization "nobody"`},
		{[]string{"app", "create", "--owner", "acme", "--name", "X", "--permissions", "issues:admin"}, "unknown permission or level issues:admin"},
		{[]string{"app", "create", "--owner", "acme"}, "--owner and --name are required"},
		{[]string{"app", "install", "--app", "nope", "--account", "acme"}, `no app "nope"`},
		{[]string{"app", "install", "--app", "ci-bot", "--account", "acme", "--repos", "missing"}, "no repository acme/missing"},
		{[]string{"app", "install", "--app", "ci-bot", "--account", "acme", "--all", "--repos", "a"}, "--all and --repos exclude each other"},
		{[]string{"app", "install", "--app", "ci-bot", "--enterprise", "--account", "acme"}, "--enterprise excludes --account, --repos and --all"},
		{[]string{"app", "install", "--app", "nope", "--enterprise"}, `no app "nope"`},
		{[]string{"app", "frobnicate"}, "unknown subcommand"},
	} {
		if _, errs, code := c.run(tc.args...); code == 0 || !strings.Contains(errs, tc.err) {
			t.Errorf("hubd %v: exit %d, stderr %q; want %q", tc.args, code, errs, tc.err)
		}
	}

	s := c.serve()
	if st, _, _ := s.do(t, "POST", "/api/v3/orgs/acme/repos", tok, `{"name":"site","private":true}`); st != 201 {
		t.Fatalf("create acme/site: %d", st)
	}
	s.do(t, "POST", "/api/v3/orgs/acme/repos", tok, `{"name":"other","private":true}`)
	// Provisioning beside a running server works.
	out = c.ok("app", "install", "--app", "ci-bot", "--account", "acme", "--repos", "site")
	m := installLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("app install printed %q", out)
	}
	if _, errs, code := c.run("app", "install", "--app", "ci-bot", "--account", "acme", "--all"); code == 0 || !strings.Contains(errs, "account: already taken") {
		t.Fatalf("installed twice: %d %q", code, errs)
	}

	// On the enterprise: once.
	if out := c.ok("app", "install", "--app", "ci-bot", "--enterprise"); !strings.Contains(out, "(ci-bot on the enterprise)") {
		t.Fatalf("app install --enterprise printed %q", out)
	}
	if _, errs, code := c.run("app", "install", "--app", "ci-bot", "--enterprise"); code == 0 || !strings.Contains(errs, "enterprise: already taken") {
		t.Fatalf("installed on the enterprise twice: %d %q", code, errs)
	}

	now := time.Now().Unix()
	jwt := signTestJWT(t, key, map[string]any{"iat": now - 30, "exp": now + 300, "iss": client[1]})
	st, _, got := s.do(t, "POST", "/api/v3/app/installations/"+m[1]+"/access_tokens", jwt, "")
	ghs, _ := got["token"].(string)
	if st != 201 || !strings.HasPrefix(ghs, "ghs_") {
		t.Fatalf("access token: %d %v", st, got)
	}
	st, _, list := s.get(t, "/api/v3/installation/repositories", ghs)
	if st != 200 || list["total_count"] != float64(1) || list["repository_selection"] != "selected" {
		t.Fatalf("installation repositories: %d %v", st, list)
	}
	st, _, issue := s.do(t, "POST", "/api/v3/repos/acme/site/issues", ghs, `{"title":"hello"}`)
	if user, _ := issue["user"].(map[string]any); st != 201 || user["login"] != "ci-bot[bot]" || user["type"] != "Bot" {
		t.Fatalf("issue by the bot: %d %v", st, issue)
	}
	if st, _, _ := s.get(t, "/api/v3/repos/acme/other", ghs); st != 404 {
		t.Fatalf("repository outside the installation: %d", st)
	}
	appID, _ := strconv.ParseInt(id[1], 10, 64)
	if st, _, app := s.get(t, "/api/v3/app", signTestJWT(t, key, map[string]any{"iat": now - 30, "exp": now + 300, "iss": appID})); st != 200 || app["slug"] != "ci-bot" {
		t.Fatalf("GET /app: %d %v", st, app)
	}
	s.stop(t)
}

// signTestJWT signs claims with an RS256 key in PEM (PKCS #1).
func signTestJWT(t *testing.T, pemKey string, claims map[string]any) string {
	t.Helper()
	b, _ := pem.Decode([]byte(pemKey))
	if b == nil {
		t.Fatal("no PEM block")
	}
	k, err := x509.ParsePKCS1PrivateKey(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	part := func(v any) string {
		j, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(j)
	}
	in := part(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + part(claims)
	sum := sha256.Sum256([]byte(in))
	sig, err := rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return in + "." + base64.RawURLEncoding.EncodeToString(sig)
}
