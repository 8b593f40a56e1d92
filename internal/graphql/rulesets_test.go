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

// TestRulesetDetails: a rule's parameters (RuleParameters' members), a
// ruleset's conditions and its bypass actors (an app or team actor loaded
// in one batch) answer from the same rows as REST's rulesets, bypass
// actors only to those who may change the ruleset.
func TestRulesetDetails(t *testing.T) {
	w := newWorld(t)
	team := w.e.Must(201, "POST", "/orgs/octo/teams", w.olgaTok, map[string]any{"name": "Core Team"}).Map(t)
	w.e.Must(201, "POST", "/orgs/octo/rulesets", w.olgaTok, map[string]any{"name": "org rules", "target": "branch", "enforcement": "active",
		"conditions": map[string]any{"ref_name": map[string]any{"include": []string{"refs/heads/main"}, "exclude": []string{"refs/heads/dev*"}},
			"repository_name": map[string]any{"include": []string{"core"}, "exclude": []string{}, "protected": true}},
		"bypass_actors": []map[string]any{
			{"actor_id": team["id"], "actor_type": "Team", "bypass_mode": "pull_request"},
			{"actor_id": 5, "actor_type": "RepositoryRole", "bypass_mode": "always"},
			{"actor_id": nil, "actor_type": "OrganizationAdmin", "bypass_mode": "always"},
		},
		"rules": []map[string]any{
			{"type": "update", "parameters": map[string]any{"update_allows_fetch_and_merge": true}},
			{"type": "pull_request", "parameters": map[string]any{"required_approving_review_count": 2, "dismiss_stale_reviews_on_push": true,
				"require_code_owner_review": false, "require_last_push_approval": false, "required_review_thread_resolution": false,
				"allowed_merge_methods": []string{"merge", "squash", "rebase"}}},
			{"type": "required_status_checks", "parameters": map[string]any{"strict_required_status_checks_policy": true,
				"required_status_checks": []map[string]any{{"context": "ci/build"}}}},
			{"type": "commit_message_pattern", "parameters": map[string]any{"name": "ticket", "negate": false, "operator": "starts_with", "pattern": "JIRA-"}},
			{"type": "deletion"},
		}})
	q := `{ organization(login: "octo") { rulesets(first: 5) { nodes {
		conditions { refName { include exclude } repositoryName { include exclude protected } repositoryId { repositoryIds } }
		bypassActors(first: 10) { totalCount nodes { bypassMode organizationAdmin deployKey enterpriseOwner repositoryRoleDatabaseId repositoryRoleName
			repositoryRuleset { name } actor { __typename ... on Team { slug } ... on App { slug } } } }
		rules(first: 10) { nodes { type parameters { __typename
			... on UpdateParameters { updateAllowsFetchAndMerge }
			... on PullRequestParameters { requiredApprovingReviewCount dismissStaleReviewsOnPush requireLastPushApproval allowedMergeMethods }
			... on RequiredStatusChecksParameters { strictRequiredStatusChecksPolicy requiredStatusChecks { context integrationId } }
			... on CommitMessagePatternParameters { name negate operator pattern } } } } } } } }`
	r := post(t, w.e, w.olgaTok, q, nil)
	set := dig(mustData(t, r), "organization", "rulesets", "nodes").([]any)[0]
	if dig(set, "conditions", "refName", "include").([]any)[0] != "refs/heads/main" || dig(set, "conditions", "refName", "exclude").([]any)[0] != "refs/heads/dev*" ||
		dig(set, "conditions", "repositoryName", "protected") != true || dig(set, "conditions", "repositoryName", "include").([]any)[0] != "core" ||
		dig(set, "conditions", "repositoryId") != nil {
		t.Fatalf("conditions: %s", r.Raw)
	}
	actors := dig(set, "bypassActors", "nodes").([]any)
	if dig(set, "bypassActors", "totalCount") != jsonNum(3) || dig(actors[0], "actor", "__typename") != "Team" || dig(actors[0], "actor", "slug") != "core-team" ||
		dig(actors[0], "bypassMode") != "PULL_REQUEST" || dig(actors[1], "repositoryRoleName") != "admin" || dig(actors[1], "repositoryRoleDatabaseId") != jsonNum(5) ||
		dig(actors[1], "actor") != nil || dig(actors[2], "organizationAdmin") != true || dig(actors[2], "repositoryRuleset", "name") != "org rules" {
		t.Fatalf("bypass actors: %s", r.Raw)
	}
	rules := dig(set, "rules", "nodes").([]any)
	p := func(i int, path ...string) any { return dig(rules[i], append([]string{"parameters"}, path...)...) }
	if p(0, "__typename") != "UpdateParameters" || p(0, "updateAllowsFetchAndMerge") != true ||
		p(1, "__typename") != "PullRequestParameters" || p(1, "requiredApprovingReviewCount") != jsonNum(2) || p(1, "requireLastPushApproval") != false || p(1, "dismissStaleReviewsOnPush") != true ||
		p(1, "allowedMergeMethods").([]any)[1] != "SQUASH" ||
		p(2, "strictRequiredStatusChecksPolicy") != true || p(2, "requiredStatusChecks").([]any)[0].(map[string]any)["context"] != "ci/build" ||
		p(3, "__typename") != "CommitMessagePatternParameters" || p(3, "operator") != "starts_with" || p(3, "pattern") != "JIRA-" ||
		dig(rules[4], "parameters") != nil {
		t.Fatalf("parameters: %s", r.Raw)
	}
	// A repository's reader sees its rulesets without their bypass actors.
	w.e.Must(201, "POST", "/repos/mona/app/rulesets", w.monaTok, map[string]any{"name": "app rules", "target": "branch", "enforcement": "active",
		"bypass_actors": []map[string]any{{"actor_id": 4, "actor_type": "RepositoryRole", "bypass_mode": "always"}},
		"rules":         []map[string]any{{"type": "deletion"}}})
	rq := `{ repository(owner: "mona", name: "app") { rulesets(first: 5) { nodes { name bypassActors(first: 5) { totalCount nodes { repositoryRoleName } } } } } }`
	if n := dig(mustData(t, post(t, w.e, w.monaTok, rq, nil)), "repository", "rulesets", "nodes").([]any); dig(n[0], "bypassActors", "totalCount") != jsonNum(1) {
		t.Fatalf("owner's bypass actors: %v", n)
	}
	if n := dig(mustData(t, post(t, w.e, w.melTok, rq, nil)), "repository", "rulesets", "nodes").([]any); dig(n[0], "bypassActors", "totalCount") != jsonNum(0) {
		t.Fatalf("reader's bypass actors: %v", n)
	}
}
