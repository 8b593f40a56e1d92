package secrets_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/store"
)

// appToken installs an app with permissions on every repository of acme
// and returns an installation token of it.
func appToken(t *testing.T, e *apitest.Env, name string, perms map[string]string) string {
	t.Helper()
	var app struct {
		Slug string `json:"slug"`
	}
	e.Must(http.StatusCreated, "POST", "/admin/apps", e.AdminToken, map[string]any{"owner": "acme", "name": name, "default_permissions": perms}).JSON(t, &app)
	var in struct {
		ID int64 `json:"id"`
	}
	e.Must(http.StatusCreated, "POST", "/admin/apps/"+app.Slug+"/installations", e.AdminToken, map[string]any{"account": "acme", "repository_selection": "all"}).JSON(t, &in)
	inst, err := e.Store.R().InstallationByID(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	var tok string
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		tok, _, err = tx.CreateInstallationToken(ctx, inst, inst.Permissions, nil, e.Store.Now().Add(time.Hour))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestAppSecrets: an app with the secrets and organization_secrets
// permissions manages the secrets of the organization it is installed on;
// one without them is refused; a token with too few scopes finds nothing.
func TestAppSecrets(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	e.Must(http.StatusCreated, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	if _, _, err := e.GitHub(tok).Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("app"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	bot := e.GitHub(appToken(t, e, "Secret Keeper", map[string]string{"secrets": "write", "organization_secrets": "write", "metadata": "read"}))
	key, _, err := bot.Actions.GetRepoPublicKey(ctx, "acme", "app")
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := bot.Actions.CreateOrUpdateRepoSecret(ctx, "acme", "app", "FROM_APP", github.SecretRequest{KeyID: key.GetKeyID(), EncryptedValue: seal(t, key, "a")}); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("app, repository secret: %v", err)
	}
	okey, _, err := bot.Actions.GetOrgPublicKey(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bot.Actions.CreateOrUpdateOrgSecret(ctx, "acme", "FROM_APP", github.SecretOrgRequest{KeyID: okey.GetKeyID(), EncryptedValue: seal(t, okey, "o"), Visibility: "all"}); err != nil {
		t.Fatalf("app, organization secret: %v", err)
	}

	reader := e.GitHub(appToken(t, e, "Reader", map[string]string{"contents": "read", "metadata": "read"}))
	if _, _, err := reader.Actions.ListRepoSecrets(ctx, "acme", "app", nil); status(err) != http.StatusForbidden {
		t.Errorf("app without secrets: %v", err)
	}
	if _, _, err := reader.Actions.ListOrgSecrets(ctx, "acme", nil); status(err) != http.StatusForbidden {
		t.Errorf("app without organization_secrets: %v", err)
	}
	// Classic tokens need repo (repository) and admin:org (organization).
	narrow := e.GitHub(e.Token(mona, "read:org,user"))
	if _, _, err := narrow.Actions.ListRepoSecrets(ctx, "acme", "app", nil); status(err) != http.StatusNotFound {
		t.Errorf("token without repo: %v", err)
	}
	if _, _, err := narrow.Actions.ListOrgSecrets(ctx, "acme", nil); status(err) != http.StatusNotFound {
		t.Errorf("token without admin:org: %v", err)
	}
	if l, _, err := e.GitHub(tok).Actions.ListOrgSecrets(ctx, "acme", nil); err != nil || l.TotalCount != 1 {
		t.Errorf("owner sees %+v: %v", l, err)
	}
}
