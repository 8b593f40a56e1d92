package secrets_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
	"github.com/hubd/hubd/internal/secrets"
)

// TestGhSecret: the GitHub CLI's own flow, `gh secret set` (which fetches
// the public key and seals the value), `gh secret list` and `gh secret
// delete`, for a repository and an organization; a job then sees the
// values gh sealed.
func TestGhSecret(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	e.Must(http.StatusCreated, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	repo, _, err := e.GitHub(tok).Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("tools"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	g := ghcli.Start(t, e)
	g.LoginAs("mona", tok)
	g.RunIn(g.Home, "from-gh-stdin", "secret", "set", "API_KEY", "-R", "acme/tools")
	if out := g.Must("secret", "set", "SECOND", "--body", "second value", "-R", "acme/tools"); !strings.Contains(out, "SECOND") {
		t.Logf("gh secret set printed %q", out)
	}
	list := g.Must("secret", "list", "-R", "acme/tools")
	if !strings.Contains(list, "API_KEY") || !strings.Contains(list, "SECOND") {
		t.Fatalf("gh secret list:\n%s", list)
	}
	g.Must("secret", "set", "ORG_WIDE", "--org", "acme", "--visibility", "selected", "--repos", "tools", "--body", "org value")
	s, _, err := e.GitHub(tok).Actions.GetOrgSecret(ctx, "acme", "ORG_WIDE")
	if err != nil || s.Visibility != "selected" {
		t.Fatalf("org secret set by gh: %+v %v", s, err)
	}
	sel, _, err := e.GitHub(tok).Actions.ListSelectedReposForOrgSecret(ctx, "acme", "ORG_WIDE", nil)
	if err != nil || sel.GetTotalCount() != 1 || sel.Repositories[0].GetID() != repo.GetID() {
		t.Fatalf("selected repositories: %+v %v", sel, err)
	}
	if out := g.Must("secret", "list", "--org", "acme"); !strings.Contains(out, "ORG_WIDE") {
		t.Fatalf("gh secret list --org:\n%s", out)
	}
	// The values gh sealed are the ones jobs get.
	v, err := e.Store.R().RepoByID(ctx, repo.GetID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	values, err := (&secrets.Service{Store: e.Store}).Values(ctx, "actions", v.Repo)
	if err != nil || values["API_KEY"] != "from-gh-stdin" || values["SECOND"] != "second value" || values["ORG_WIDE"] != "org value" {
		t.Errorf("values: %v", err)
	}
	g.Must("secret", "delete", "SECOND", "-R", "acme/tools")
	if _, _, err := e.GitHub(tok).Actions.GetRepoSecret(ctx, "acme", "tools", "SECOND"); status(err) != http.StatusNotFound {
		t.Errorf("after gh secret delete: %v", err)
	}
}
