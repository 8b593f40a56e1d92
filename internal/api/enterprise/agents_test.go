package enterprise_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/store"
)

func TestCustomAgents(t *testing.T) {
	ctx := context.Background()
	e := apitest.New(t)
	tok := e.Token(e.Admin, "admin:enterprise")
	olga, olgaTok := e.NewUser("olga", false)
	org, bare := store.NewOrg("octo"), store.NewOrg("bare")
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, olga.ID); err != nil {
			return err
		}
		return tx.CreateOrg(ctx, bare, olga.ID)
	})
	if err != nil {
		t.Fatal(err)
	}
	gh := e.GitHub(olgaTok)
	if _, _, err := gh.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr(".github-private"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"agents/reviewer.md", "agents/notes.txt", "docs/agents/other.md", "agents/tester.md"} {
		if _, _, err := gh.Repositories.CreateFile(ctx, "octo", ".github-private", p, &github.RepositoryContentFileOptions{
			Message: github.Ptr("add " + p), Content: []byte("# agent\n")}); err != nil {
			t.Fatal(err)
		}
	}
	b := "/enterprises/hubd/copilot/custom-agents"

	var list struct {
		Agents []map[string]string `json:"custom_agents"`
	}
	r := e.Must(200, "GET", b, tok, nil)
	if strings.TrimSpace(string(r.Body)) != `{"custom_agents":null}` {
		t.Fatalf("no source = %s", r.Body)
	}
	var src map[string]any
	e.Must(200, "GET", b+"/source", tok, nil).JSON(t, &src)
	if src["organization"] != nil || src["repository"] != nil {
		t.Fatalf("no source = %v", src)
	}
	// Validation: create_ruleset (default true) is refused; an organization
	// without .github-private, or none, too.
	e.Must(422, "PUT", b+"/source", tok, map[string]any{"organization_id": org.ID})
	e.Must(422, "PUT", b+"/source", tok, map[string]any{"organization_id": bare.ID, "create_ruleset": false})
	e.Must(422, "PUT", b+"/source", tok, map[string]any{"organization_id": 999999, "create_ruleset": false})
	e.Must(422, "PUT", b+"/source", tok, map[string]any{"create_ruleset": false})
	e.Must(200, "GET", b+"/source", tok, nil).JSON(t, &src)
	if src["organization"] != nil {
		t.Fatalf("source after refused writes = %v", src)
	}

	e.Must(200, "PUT", b+"/source", tok, map[string]any{"organization_id": org.ID, "create_ruleset": false}).JSON(t, &src)
	if src["repository"].(map[string]any)["full_name"] != "octo/.github-private" {
		t.Fatalf("set = %v", src)
	}
	e.Must(200, "GET", b+"/source", tok, nil).JSON(t, &src)
	if src["organization"].(map[string]any)["id"] != float64(org.ID) {
		t.Fatalf("source = %v", src)
	}
	e.Must(200, "GET", b, tok, nil).JSON(t, &list)
	if len(list.Agents) != 2 || list.Agents[0]["name"] != "reviewer" || list.Agents[1]["file_path"] != "agents/tester.md" ||
		list.Agents[0]["url"] != e.URL+"/octo/.github-private/blob/main/agents/reviewer.md" {
		t.Fatalf("agents = %v", list.Agents)
	}

	e.Must(401, "GET", b, "", nil)
	e.Must(403, "GET", b, olgaTok, nil)
	e.Must(403, "GET", b, e.Token(e.Admin, "read:enterprise"), nil)
	e.Must(404, "GET", "/enterprises/other/copilot/custom-agents", tok, nil)

	e.Must(204, "DELETE", b+"/source", tok, nil)
	r = e.Must(200, "GET", b, tok, nil)
	if strings.TrimSpace(string(r.Body)) != `{"custom_agents":null}` {
		t.Fatalf("after delete = %s", r.Body)
	}
}
