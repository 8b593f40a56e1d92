package codespacesecrets_test

import (
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
	cs "github.com/hubd/hubd/internal/codespaces/secrets"
	sealed "github.com/hubd/hubd/internal/secrets"
)

// TestGhCodespacesSecrets: the GitHub CLI's own flow for Codespaces
// secrets, `gh secret set --user --repos`, `--app codespaces` for a
// repository and an organization (gh fetches each public key and seals
// the value), list and delete; a codespace then gets the values gh
// sealed.
func TestGhCodespacesSecrets(t *testing.T) {
	e := apitest.New(t)
	mona, tok, gh := user(e, "mona")
	e.Must(http.StatusCreated, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	tools, _, err := gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("tools"), Private: github.Ptr(true), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	g := ghcli.Start(t, e)
	g.LoginAs("mona", tok)
	g.Must("secret", "set", "MY_TOKEN", "--user", "--repos", "acme/tools", "--body", "mine")
	g.Must("secret", "set", "CS_REPO", "--app", "codespaces", "-R", "acme/tools", "--body", "repo value")
	g.Must("secret", "set", "CS_ORG", "--app", "codespaces", "--org", "acme", "--visibility", "all", "--body", "org value")

	sel, _, err := gh.Codespaces.ListSelectedReposForUserSecret(ctx, "MY_TOKEN", nil)
	if err != nil || sel.GetTotalCount() != 1 || sel.Repositories[0].GetID() != tools.GetID() {
		t.Fatalf("repositories gh selected: %+v %v", sel, err)
	}
	if out := g.Must("secret", "list", "--user"); !strings.Contains(out, "MY_TOKEN") {
		t.Fatalf("gh secret list --user:\n%s", out)
	}
	if out := g.Must("secret", "list", "--app", "codespaces", "-R", "acme/tools"); !strings.Contains(out, "CS_REPO") {
		t.Fatalf("gh secret list --app codespaces:\n%s", out)
	}
	if out := g.Must("secret", "list", "--app", "codespaces", "--org", "acme"); !strings.Contains(out, "CS_ORG") {
		t.Fatalf("gh secret list --app codespaces --org:\n%s", out)
	}
	env, err := cs.New(e.Store, &sealed.Service{Store: e.Store}).EnvFor(ctx, mona.ID, tools.GetID())
	if want := map[string]string{"MY_TOKEN": "mine", "CS_REPO": "repo value", "CS_ORG": "org value"}; err != nil || !maps.Equal(env, want) {
		t.Errorf("a codespace's secrets: %v %v, want %v", env, err, want)
	}
	g.Must("secret", "delete", "MY_TOKEN", "--user")
	if _, _, err := gh.Codespaces.GetUserSecret(ctx, "MY_TOKEN"); apitest.Status(err) != http.StatusNotFound {
		t.Errorf("after gh secret delete --user: %v", err)
	}
}
