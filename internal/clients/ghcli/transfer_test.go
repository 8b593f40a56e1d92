package ghcli_test

import (
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// TestGhTransfers: gh issue transfer moves an issue (GraphQL
// transferIssue), and gh keeps finding a repository transferred to an
// organization under its old name (GraphQL and REST follow the redirect,
// git clones at the old URL).
func TestGhTransfers(t *testing.T) {
	e := apitest.New(t)
	w := newWorld(t, e)
	e.Must(201, "POST", "/user/repos", w.tok, map[string]any{"name": "other"})
	g := ghcli.Start(t, e)
	g.LoginAs("mona", w.tok)

	out := g.Must("issue", "transfer", "2", "mona/other", "-R", "mona/hello")
	if !strings.HasSuffix(strings.TrimSpace(out), "/mona/other/issues/1") {
		t.Fatalf("gh issue transfer printed %q", out)
	}
	if is := e.Must(200, "GET", "/repos/mona/other/issues/1", w.tok, nil).Map(t); is["title"] != "Second issue" {
		t.Fatalf("transferred issue: %v", is)
	}
	if out := g.Must("issue", "view", "1", "-R", "mona/other"); !strings.Contains(out, "Second issue") {
		t.Fatalf("gh issue view of the moved issue: %q", out)
	}

	e.Must(202, "POST", "/repos/mona/hello/transfer", w.tok, map[string]any{"new_owner": "acme"})
	// gh names the repository as asked; what it shows comes from acme/hello.
	if out := g.Must("repo", "view", "mona/hello"); !strings.Contains(out, "A repository for gh") || !strings.Contains(out, "# hello") {
		t.Fatalf("gh repo view at the old name: %q", out)
	}
	if out := g.Must("api", "repos/mona/hello"); !strings.Contains(out, `"full_name":"acme/hello"`) {
		t.Fatalf("gh api at the old name: %q", out)
	}
	if out := g.Must("issue", "list", "-R", "mona/hello"); !strings.Contains(out, "First bug") {
		t.Fatalf("gh issue list at the old name: %q", out)
	}
	dir := t.TempDir()
	g.MustIn(dir, "", "repo", "clone", "mona/hello")
	if out := g.RunGit(dir+"/hello", "log", "--oneline"); out.Err != nil || out.Stdout == "" {
		t.Fatalf("clone at the old name: %s", out)
	}
}
