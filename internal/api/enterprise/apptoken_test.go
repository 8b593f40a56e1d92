package enterprise_test

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
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

// jwtFor signs an app's JWT (RS256) with its private key.
func jwtFor(t *testing.T, pemKey string, appID, now int64) string {
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
	signing := enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." +
		enc(map[string]any{"iat": now - 30, "exp": now + 120, "iss": appID})
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// enterpriseAppToken registers an app with perms, installs it on the
// enterprise, and returns an installation token obtained with the app's JWT through go-github.
func enterpriseAppToken(t *testing.T, e *apitest.Env, name string, perms map[string]string) string {
	t.Helper()
	var app struct {
		ID   int64  `json:"id"`
		Slug string `json:"slug"`
		PEM  string `json:"pem"`
	}
	e.Must(201, "POST", "/admin/apps", e.AdminToken, map[string]any{"owner": "hubadmin", "name": name,
		"default_permissions": perms}).JSON(t, &app)
	var in struct {
		ID int64 `json:"id"`
	}
	body := map[string]any{"target_type": "Enterprise"}
	e.Must(201, "POST", "/admin/apps/"+app.Slug+"/installations", e.AdminToken, body).JSON(t, &in)
	jwt := jwtFor(t, app.PEM, app.ID, e.Store.Now().Unix())
	tok, _, err := e.GitHub(jwt).Apps.CreateInstallationToken(context.Background(), in.ID, nil)
	if err != nil {
		t.Fatalf("installation token: %v", err)
	}
	return tok.GetToken()
}

// An installation of a GitHub App on the enterprise with "Enterprise
// administration" acts as an enterprise owner on the enterprise's
// operations; read suffices for reads only; an app installed on the
// enterprise without it, or installed elsewhere, is refused.
func TestEnterpriseInstallationToken(t *testing.T) {
	ctx := context.Background()
	e := apitest.New(t)
	admin := enterpriseAppToken(t, e, "Enterprise Admin", map[string]string{"enterprise_administration": "write"})
	reader := enterpriseAppToken(t, e, "Enterprise Reader", map[string]string{"enterprise_administration": "read"})
	other := enterpriseAppToken(t, e, "Org Installer", map[string]string{"enterprise_organization_installations": "write"})

	gh := e.GitHub(admin)
	var roles struct {
		TotalCount int `json:"total_count"`
	}
	e.Must(200, "GET", "/enterprises/hubd/enterprise-roles", admin, nil).JSON(t, &roles)
	if roles.TotalCount == 0 {
		t.Fatalf("roles with the enterprise installation token: %+v", roles)
	}
	if _, _, err := gh.Enterprise.ListConsumedLicenses(ctx, "hubd", nil); err != nil {
		t.Fatalf("consumed licenses: %v", err)
	}
	var rs map[string]any
	e.Must(201, "POST", "/enterprises/hubd/rulesets", admin, map[string]any{"name": "app rules", "enforcement": "active",
		"conditions": map[string]any{"organization_name": map[string]any{"include": []string{"~ALL"}, "exclude": []string{}},
			"repository_name": map[string]any{"include": []string{"~ALL"}, "exclude": []string{}}},
		"rules": []map[string]any{{"type": "deletion"}}}).JSON(t, &rs)
	id := int64(rs["id"].(float64))
	path := "/enterprises/hubd/rulesets/" + jsonNum(id)
	e.Must(200, "GET", path, reader, nil)
	r := e.Must(403, "DELETE", path, reader, nil)
	if got := r.Header.Get("X-Accepted-GitHub-Permissions"); got != "enterprise_administration=write" {
		t.Fatalf("accepted permissions = %q", got)
	}
	e.Must(403, "GET", path, other, nil)
	e.Must(204, "DELETE", path, admin, nil)
	e.Must(404, "GET", path, admin, nil)
	// Another enterprise's slug is not found.
	e.Must(404, "GET", "/enterprises/other/enterprise-roles", admin, nil)
}

func jsonNum(n int64) string { b, _ := json.Marshal(n); return string(b) }
