package ghcli_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// TestGhOrgRulesets: gh ruleset list --org (GraphQL, with includeParents)
// and gh ruleset view --org (REST) on an organization's ruleset; gh
// ruleset list on a repository of the organization shows it as inherited.
func TestGhOrgRulesets(t *testing.T) {
	e := apitest.New(t)
	w := newWorld(t, e)
	e.Must(201, "POST", "/orgs/acme/repos", w.tok, map[string]any{"name": "tools", "auto_init": true})
	rs := e.Must(201, "POST", "/orgs/acme/rulesets", w.tok, map[string]any{"name": "org wide", "target": "branch", "enforcement": "active",
		"conditions": map[string]any{"ref_name": map[string]any{"include": []string{"~DEFAULT_BRANCH"}, "exclude": []string{}},
			"repository_name": map[string]any{"include": []string{"~ALL"}, "exclude": []string{}}},
		"rules": []map[string]any{{"type": "deletion"}, {"type": "non_fast_forward"}}}).Map(t)
	id := strconv.Itoa(int(rs["id"].(float64)))
	g := ghcli.Start(t, e)
	g.LoginAs("mona", w.tok)

	before := len(g.Requests())
	out := g.Must("ruleset", "list", "--org", "acme")
	checkGraphQL(t, e, w.tok, g.Requests()[before:])
	if !strings.Contains(out, id) || !strings.Contains(out, "org wide") || !strings.Contains(out, "acme") {
		t.Fatalf("gh ruleset list --org:\n%s", out)
	}
	out = g.Must("ruleset", "view", id, "--org", "acme")
	for _, want := range []string{"org wide", "deletion", "non_fast_forward", "Enforcement: Active"} {
		if !strings.Contains(out, want) {
			t.Fatalf("gh ruleset view lacks %q:\n%s", want, out)
		}
	}
	before = len(g.Requests())
	out = g.Must("ruleset", "list", "-R", "acme/tools")
	checkGraphQL(t, e, w.tok, g.Requests()[before:])
	if !strings.Contains(out, "org wide") {
		t.Fatalf("gh ruleset list -R acme/tools:\n%s", out)
	}
}

// TestGhReleaseViewEveryField: `gh release view --json` with every field
// gh offers, on a release with an asset; none may be missing, and each
// the release has must be there.
func TestGhReleaseViewEveryField(t *testing.T) {
	e := apitest.New(t)
	w := newWorld(t, e)
	rel := e.Must(201, "POST", "/repos/mona/hello/releases", w.tok, map[string]any{"tag_name": "v1.0.0", "name": "First",
		"body": "Notes"}).Map(t)
	// The upload URL GitHub Enterprise names: <host>/api/uploads/.
	req, _ := http.NewRequest("POST", e.URL+"/api/uploads/repos/mona/hello/releases/"+strconv.Itoa(int(rel["id"].(float64)))+
		"/assets?name=tool.txt&label=Tool", strings.NewReader("the tool\n"))
	req.Header.Set("Authorization", "token "+w.tok)
	req.Header.Set("Content-Type", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("upload: %d", resp.StatusCode)
	}
	g := ghcli.Start(t, e)
	g.LoginAs("mona", w.tok)
	fields := jsonFields(t, g, "release", "view", "v1.0.0", "-R", "mona/hello")
	out := g.Must("release", "view", "v1.0.0", "-R", "mona/hello", "--json", strings.Join(fields, ","))
	var v map[string]any
	decode(t, out, &v)
	for _, f := range fields {
		val, ok := v[f]
		if !ok {
			t.Errorf("%s: missing from gh's output", f)
			continue
		}
		switch f {
		case "isDraft", "isPrerelease", "isImmutable":
			if val != false {
				t.Errorf("%s = %v", f, val)
			}
			continue
		}
		if val == nil || val == "" {
			t.Errorf("%s is empty", f)
		}
	}
	assets, _ := v["assets"].([]any)
	if len(assets) != 1 || dig(assets[0], "name") != "tool.txt" || dig(assets[0], "label") != "Tool" || dig(assets[0], "state") != "uploaded" {
		t.Errorf("assets: %v", v["assets"])
	}
	if v["tagName"] != "v1.0.0" || v["name"] != "First" || v["body"] != "Notes" || dig(v, "author", "login") != "mona" {
		t.Errorf("release: %v", v)
	}
}
