package graphql_test

import (
	"testing"
)

// TestRulesets: Repository.rulesets and Organization.rulesets answer from
// the rulesets service of REST (gh ruleset list's query).
func TestRulesets(t *testing.T) {
	w := newWorld(t)
	w.e.Must(201, "POST", "/repos/mona/app/rulesets", w.monaTok, map[string]any{"name": "protect main", "target": "branch", "enforcement": "active",
		"conditions": map[string]any{"ref_name": map[string]any{"include": []string{"~DEFAULT_BRANCH"}, "exclude": []string{}}},
		"rules":      []map[string]any{{"type": "deletion"}, {"type": "non_fast_forward"}}})
	org := w.e.Must(201, "POST", "/orgs/octo/rulesets", w.olgaTok, map[string]any{"name": "org wide", "target": "branch", "enforcement": "evaluate",
		"conditions": map[string]any{"ref_name": map[string]any{"include": []string{"~ALL"}, "exclude": []string{}},
			"repository_name": map[string]any{"include": []string{"~ALL"}, "exclude": []string{}}},
		"rules": []map[string]any{{"type": "creation"}}}).Map(t)
	list := `query($owner: String!, $name: String!, $parents: Boolean) { repository(owner: $owner, name: $name) {
		rulesets(first: 10, includeParents: $parents) { totalCount pageInfo { hasNextPage }
			nodes { id databaseId name target enforcement createdAt
				source { __typename ... on Repository { owner: nameWithOwner } ... on Organization { owner: login } }
				rules(first: 10) { totalCount nodes { type repositoryRuleset { name } } } } } } }`
	r := post(t, w.e, w.monaTok, list, map[string]any{"owner": "mona", "name": "app"})
	nodes := dig(mustData(t, r), "repository", "rulesets", "nodes").([]any)
	if len(nodes) != 1 || dig(nodes[0], "name") != "protect main" || dig(nodes[0], "target") != "BRANCH" || dig(nodes[0], "enforcement") != "ACTIVE" ||
		dig(nodes[0], "source", "__typename") != "Repository" || dig(nodes[0], "source", "owner") != "mona/app" ||
		dig(nodes[0], "rules", "totalCount") != jsonNum(2) || dig(nodes[0], "rules", "nodes").([]any)[1].(map[string]any)["type"] != "NON_FAST_FORWARD" {
		t.Fatalf("mona/app rulesets: %s", r.Raw)
	}
	// octo/core sees the organization's ruleset unless parents are left out.
	r = post(t, w.e, w.olgaTok, list, map[string]any{"owner": "octo", "name": "core"})
	nodes = dig(mustData(t, r), "repository", "rulesets", "nodes").([]any)
	if len(nodes) != 1 || dig(nodes[0], "databaseId") != jsonNum(int(org["id"].(float64))) || dig(nodes[0], "enforcement") != "EVALUATE" ||
		dig(nodes[0], "source", "__typename") != "Organization" || dig(nodes[0], "source", "owner") != "octo" {
		t.Fatalf("octo/core rulesets: %s", r.Raw)
	}
	r = post(t, w.e, w.olgaTok, list, map[string]any{"owner": "octo", "name": "core", "parents": false})
	if n := dig(mustData(t, r), "repository", "rulesets", "totalCount"); n != jsonNum(0) {
		t.Fatalf("without parents: %s", r.Raw)
	}
	orgList := `{ organization(login: "octo") { rulesets(first: 5) { totalCount nodes { name source { ... on Organization { login } } } } } }`
	r = post(t, w.e, w.olgaTok, orgList, nil)
	if dig(mustData(t, r), "organization", "rulesets", "totalCount") != jsonNum(1) {
		t.Fatalf("organization rulesets: %s", r.Raw)
	}
	// A member who may not manage rules is refused, as on REST.
	if r := post(t, w.e, w.melTok, orgList, nil); errType(r) != "FORBIDDEN" {
		t.Fatalf("mel's organization rulesets: %s", r.Raw)
	}
}
