package ghcli_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/graphql"
	"github.com/hubd/hubd/internal/graphql/engine"
)

// jsonFields is the field list gh prints for `--json` given no value.
func jsonFields(t *testing.T, g *ghcli.GH, args ...string) []string {
	t.Helper()
	r := g.Run(append(args, "--json")...)
	_, list, ok := strings.Cut(r.Stderr, "Specify one or more comma-separated fields for `--json`:")
	if r.Err == nil || !ok {
		t.Fatalf("gh %s --json printed no field list:\n%s", strings.Join(args, " "), r)
	}
	var out []string
	for _, l := range strings.Split(list, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// checkGraphQL replays the GraphQL requests gh made as tok and checks each
// answer against the schema hubd serves (GitHub's, pruned): no error, and
// every value of the declared type.
func checkGraphQL(t *testing.T, e *apitest.Env, tok string, reqs []ghcli.Request) {
	t.Helper()
	schema := graphql.New(&deps.Deps{}, graphql.Services{}).Schema()
	n := 0
	for _, rq := range reqs {
		if rq.GraphQL == nil {
			continue
		}
		n++
		var vars map[string]any
		if len(rq.GraphQL.Variables) > 0 {
			dec := json.NewDecoder(bytes.NewReader(rq.GraphQL.Variables))
			dec.UseNumber()
			if err := dec.Decode(&vars); err != nil {
				t.Fatalf("variables %s: %v", rq.GraphQL.Variables, err)
			}
		}
		body, _ := json.Marshal(map[string]any{"query": rq.GraphQL.Query, "variables": vars})
		req, _ := http.NewRequest("POST", e.URL+"/api/graphql", bytes.NewReader(body))
		req.Header.Set("Authorization", "bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Data   any              `json:"data"`
			Errors []map[string]any `json:"errors"`
		}
		dec := json.NewDecoder(resp.Body)
		dec.UseNumber()
		err = dec.Decode(&out)
		resp.Body.Close()
		if err != nil || len(out.Errors) > 0 {
			t.Fatalf("%s: %v %v", rq.GraphQL.Query, err, out.Errors)
		}
		p, bad := schema.Prepare(&engine.Request{Query: rq.GraphQL.Query, Variables: vars})
		if bad != nil {
			t.Fatalf("%s does not validate: %v", rq.GraphQL.Query, bad.Errors[0].Message)
		}
		if err := schema.CheckResponse(p, out.Data); err != nil {
			t.Fatalf("the answer to %s does not match the schema: %v", rq.GraphQL.Query, err)
		}
	}
	if n == 0 {
		t.Fatal("gh sent no GraphQL request")
	}
}

// putFile commits a file to the default branch through the contents API.
func putFile(t *testing.T, e *apitest.Env, tok, repo, path, content string) {
	t.Helper()
	e.Must(201, "PUT", "/repos/"+repo+"/contents/"+path, tok, map[string]any{"message": "Add " + path,
		"content": base64.StdEncoding.EncodeToString([]byte(content))})
}

// TestGhRepoViewEveryField: `gh repo view --json` with every field gh
// offers, on a repository with every kind of data (generated from a
// template, topics, a license, code, funding links, a code of conduct,
// issue templates with contact links, a pull request template, a security
// policy, a release, a milestone, labels, a watcher, a star and a linked
// project). No field may fail, and each the fixture has must be there.
func TestGhRepoViewEveryField(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "tmpl", "auto_init": true, "is_template": true})
	e.Must(201, "POST", "/repos/mona/tmpl/generate", tok, map[string]any{"owner": "mona", "name": "full", "description": "Every field"})
	e.RunJobs()
	e.Must(200, "PATCH", "/repos/mona/full", tok, map[string]any{"homepage": "https://example.com"})
	e.Must(200, "PUT", "/repos/mona/full/topics", tok, map[string]any{"names": []string{"go", "hubd"}})
	full := "mona/full"
	mit := e.Must(200, "GET", "/licenses/mit", tok, nil).Map(t)["body"].(string)
	putFile(t, e, tok, full, "LICENSE", strings.NewReplacer("[year]", "2026", "[fullname]", "Mona").Replace(mit))
	putFile(t, e, tok, full, "main.go", "package main\n\nfunc main() {}\n")
	putFile(t, e, tok, full, "tool.py", "print('hi')\n")
	putFile(t, e, tok, full, ".github/FUNDING.yml", "github: [mona]\npatreon: mona\ncustom: [\"example.com/give\"]\n")
	putFile(t, e, tok, full, "CODE_OF_CONDUCT.md", "# Contributor Covenant Code of Conduct\n\nBe kind.\n")
	putFile(t, e, tok, full, ".github/ISSUE_TEMPLATE/config.yml",
		"blank_issues_enabled: false\ncontact_links:\n  - name: Forum\n    url: https://example.com/forum\n    about: Ask here\n")
	putFile(t, e, tok, full, ".github/ISSUE_TEMPLATE/bug.md",
		"---\nname: Bug report\nabout: Something broke\ntitle: \"[bug] \"\nlabels: bug\n---\n\nWhat happened?\n")
	putFile(t, e, tok, full, ".github/PULL_REQUEST_TEMPLATE.md", "## What does this change?\n")
	putFile(t, e, tok, full, "SECURITY.md", "Report to security@example.com\n")
	e.Must(201, "POST", "/repos/mona/full/releases", tok, map[string]any{"tag_name": "v1.0.0", "name": "First"})
	e.Must(201, "POST", "/repos/mona/full/milestones", tok, map[string]any{"title": "v1", "description": "The first"})
	e.Must(201, "POST", "/repos/mona/full/labels", tok, map[string]any{"name": "needs-triage", "color": "d73a4a"})
	e.Must(201, "POST", "/repos/mona/full/issues", tok, map[string]any{"title": "An issue"})
	e.Must(200, "PUT", "/repos/mona/full/subscription", tok, map[string]any{"subscribed": true})
	e.Must(204, "PUT", "/user/starred/mona/full", tok, nil)
	e.RunJobs() // the license and language detection of the pushes

	g := ghcli.Start(t, e)
	tok = projectToken(t, e, "mona") // gh project and projectsV2 need the project scope
	g.LoginAs("mona", tok)
	// A project linked to the repository.
	g.Must("project", "create", "--owner", "mona", "--title", "Roadmap")
	g.Must("project", "link", "1", "--owner", "mona", "--repo", full)
	fields := jsonFields(t, g, "repo", "view", full)
	if len(fields) < 60 {
		t.Fatalf("gh offers %d fields: %v", len(fields), fields)
	}
	before := len(g.Requests())
	out := g.Must("repo", "view", full, "--json", strings.Join(fields, ","))
	checkGraphQL(t, e, tok, g.Requests()[before:])
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("gh repo view --json: %v\n%s", err, out)
	}
	// What this repository has not, and why.
	absent := map[string]string{
		"mirrorUrl":  "hubd mirrors nothing",
		"archivedAt": "not archived",
		"parent":     "not a fork",
		"projects":   "classic projects are gone from GitHub",
	}
	for _, f := range fields {
		val, ok := v[f]
		if !ok {
			t.Errorf("%s: missing from gh's output", f)
			continue
		}
		empty := val == nil
		switch x := val.(type) {
		case []any:
			empty = len(x) == 0
		case string:
			empty = x == ""
		case map[string]any:
			// gh wraps connections: {"Nodes": []} is an empty one.
			empty = len(x) == 0
			if n, ok := x["Nodes"].([]any); ok && len(x) == 1 {
				empty = len(n) == 0
			}
		}
		if why, ok := absent[f]; ok {
			if !empty {
				t.Errorf("%s = %v, want none (%s)", f, val, why)
			}
			continue
		}
		if empty {
			t.Errorf("%s is empty: %v", f, val)
		}
	}
	check := func(what string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	check("licenseInfo.key", dig(v, "licenseInfo", "key"), "mit")
	check("primaryLanguage.name", dig(v, "primaryLanguage", "name"), "Go")
	check("templateRepository.name", dig(v, "templateRepository", "name"), "tmpl")
	check("codeOfConduct.key", dig(v, "codeOfConduct", "key"), "contributor_covenant")
	check("isBlankIssuesEnabled", v["isBlankIssuesEnabled"], false)
	check("isSecurityPolicyEnabled", v["isSecurityPolicyEnabled"], true)
	check("viewerSubscription", v["viewerSubscription"], "SUBSCRIBED")
	check("viewerHasStarred", v["viewerHasStarred"], true)
	check("latestRelease.tagName", dig(v, "latestRelease", "tagName"), "v1.0.0")
	if l, _ := v["languages"].([]any); len(l) != 2 || dig(l[0], "node", "name") != "Go" {
		t.Errorf("languages: %v", v["languages"])
	}
	if l, _ := v["repositoryTopics"].([]any); len(l) != 2 || dig(l[0], "name") != "go" {
		t.Errorf("repositoryTopics: %v", v["repositoryTopics"])
	}
	if l, _ := v["fundingLinks"].([]any); len(l) != 3 || dig(l[0], "platform") != "GITHUB" ||
		!strings.HasSuffix(dig(l[0], "url").(string), "/sponsors/mona") || dig(l[2], "url") != "https://example.com/give" {
		t.Errorf("fundingLinks: %v", v["fundingLinks"])
	}
	if l, _ := v["contactLinks"].([]any); len(l) != 1 || dig(l[0], "name") != "Forum" {
		t.Errorf("contactLinks: %v", v["contactLinks"])
	}
	if l, _ := v["issueTemplates"].([]any); len(l) != 1 || dig(l[0], "name") != "Bug report" || dig(l[0], "title") != "[bug] " ||
		dig(l[0], "body") != "What happened?\n" {
		t.Errorf("issueTemplates: %v", v["issueTemplates"])
	}
	if l, _ := v["pullRequestTemplates"].([]any); len(l) != 1 || dig(l[0], "filename") != "PULL_REQUEST_TEMPLATE.md" {
		t.Errorf("pullRequestTemplates: %v", v["pullRequestTemplates"])
	}
	if s, _ := v["securityPolicyUrl"].(string); !strings.HasSuffix(s, "/mona/full/blob/main/SECURITY.md") {
		t.Errorf("securityPolicyUrl: %v", v["securityPolicyUrl"])
	}
}
