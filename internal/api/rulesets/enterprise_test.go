package rulesets_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Enterprise rulesets: managed by the enterprise's owners, applied to the
// repositories of the organizations they select, enforced on pushes and
// listed among a branch's rules.
func TestEnterpriseRulesets(t *testing.T) {
	e := apitest.New(t)
	olga, olgaTok := e.NewUser("olga", false)
	mike, mikeTok := e.NewUser("mike", false)
	entTok := e.Token(e.Admin, "admin:enterprise")
	ent := e.GitHub(entTok)
	for _, login := range []string{"octo", "other"} {
		org := store.NewOrg(login)
		err := e.Store.Tx(ctx, func(tx store.Q) error {
			if err := tx.CreateOrg(ctx, org, olga.ID); err != nil {
				return err
			}
			return tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: mike.ID, Role: model.RoleMember, State: store.StateActive})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	gh := e.GitHub(olgaTok)
	for _, full := range []string{"octo/core", "octo/docs", "other/core"} {
		owner, name, _ := strings.Cut(full, "/")
		if _, _, err := gh.Repositories.Create(ctx, owner, &github.Repository{Name: github.Ptr(name), AutoInit: github.Ptr(true)}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := gh.Repositories.AddCollaborator(ctx, owner, name, "mike", &github.RepositoryAddCollaboratorOptions{Permission: "push"}); err != nil {
			t.Fatal(err)
		}
	}

	rs, _, err := ent.Enterprise.CreateRepositoryRuleset(ctx, "hubd", github.RepositoryRuleset{Name: "no force pushes", Enforcement: "active",
		BypassActors: []*github.BypassActor{{ActorType: github.Ptr(github.BypassActorType("EnterpriseOwner")), BypassMode: github.Ptr(github.BypassModeAlways)}},
		Conditions: &github.RepositoryRulesetConditions{
			RefName:          &github.RepositoryRulesetRefConditionParameters{Include: []string{"~DEFAULT_BRANCH"}, Exclude: []string{}},
			OrganizationName: &github.RepositoryRulesetOrganizationNamesConditionParameters{Include: []string{"oct*"}, Exclude: []string{}},
			RepositoryName:   &github.RepositoryRulesetRepositoryNamesConditionParameters{Include: []string{"~ALL"}, Exclude: []string{"docs"}}},
		Rules: &github.RepositoryRulesetRules{NonFastForward: &github.EmptyRuleParameters{}, Deletion: &github.EmptyRuleParameters{}}})
	if err != nil {
		t.Fatal(err)
	}
	id := rs.GetID()
	sid := strconv.FormatInt(id, 10)
	if rs.Source != "hubd" || *rs.SourceType != "Enterprise" || rs.GetLinks().GetSelf().GetHRef() != e.API+"/enterprises/hubd/rulesets/"+sid ||
		rs.Conditions.OrganizationName.Include[0] != "oct*" || len(rs.BypassActors) != 1 {
		t.Fatalf("created: %+v", rs)
	}
	got, _, err := ent.Enterprise.GetRepositoryRuleset(ctx, "hubd", id)
	if err != nil || got.Name != "no force pushes" {
		t.Fatalf("get: %+v %v", got, err)
	}
	// Schema-checked raw reads too.
	e.Must(200, "GET", "/enterprises/hubd/rulesets/"+sid, entTok, nil)

	// Only the enterprise's owners; other enterprises do not exist.
	if _, _, err := e.GitHub(olgaTok).Enterprise.GetRepositoryRuleset(ctx, "hubd", id); !is(err, 403) {
		t.Fatalf("organization owner reads: %v", err)
	}
	if _, _, err := ent.Enterprise.GetRepositoryRuleset(ctx, "elsewhere", id); !is(err, 404) {
		t.Fatalf("other enterprise: %v", err)
	}
	e.Must(401, "GET", "/enterprises/hubd/rulesets/"+sid, "", nil)
	e.Must(403, "GET", "/enterprises/hubd/rulesets/"+sid, e.Token(e.Admin, "read:org"), nil)
	// Organization and repository rulesets are not the enterprise's.
	orgRS, _, err := gh.Organizations.CreateRepositoryRuleset(ctx, "octo", github.RepositoryRuleset{Name: "org", Enforcement: "disabled"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ent.Enterprise.GetRepositoryRuleset(ctx, "hubd", orgRS.GetID()); !is(err, 404) {
		t.Fatalf("organization ruleset through the enterprise: %v", err)
	}
	// Validation: organization conditions belong to the enterprise; both
	// kinds at once, and properties, are refused; names are unique.
	if _, _, err := gh.Organizations.CreateRepositoryRuleset(ctx, "octo", github.RepositoryRuleset{Name: "x", Enforcement: "active",
		Conditions: &github.RepositoryRulesetConditions{OrganizationName: &github.RepositoryRulesetOrganizationNamesConditionParameters{Include: []string{"a"}, Exclude: []string{}}}}); !is(err, 422) {
		t.Fatalf("organization condition at an organization: %v", err)
	}
	for name, body := range map[string]map[string]any{
		"both": {"name": "x", "enforcement": "active", "conditions": map[string]any{
			"organization_name": map[string]any{"include": []string{"a"}, "exclude": []string{}},
			"organization_id":   map[string]any{"organization_ids": []int{1}}}},
		"property": {"name": "x", "enforcement": "active", "conditions": map[string]any{
			"organization_name":   map[string]any{"include": []string{"a"}, "exclude": []string{}},
			"repository_property": map[string]any{"include": []any{map[string]any{"name": "team", "property_values": []string{"a"}}}, "exclude": []any{}}}},
		"duplicate": {"name": "No Force Pushes", "enforcement": "active"},
		"team":      {"name": "x", "enforcement": "active", "bypass_actors": []any{map[string]any{"actor_type": "Team", "actor_id": 1}}},
	} {
		if r := e.Do("POST", "/enterprises/hubd/rulesets", entTok, body); r.StatusCode != 422 {
			t.Fatalf("%s: %d %s", name, r.StatusCode, r.Body)
		}
	}

	// It applies to octo/core (selected organization and repository), not
	// to octo/docs (excluded) nor other/core (organization not selected).
	rules, _, err := gh.Repositories.ListRulesForBranch(ctx, "octo", "core", "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rules.NonFastForward) != 1 || rules.NonFastForward[0].RulesetSourceType != "Enterprise" || rules.NonFastForward[0].RulesetSource != "hubd" ||
		rules.NonFastForward[0].RulesetID != id {
		t.Fatalf("octo/core rules: %+v", rules.NonFastForward)
	}
	for _, full := range []string{"octo/docs", "other/core"} {
		owner, name, _ := strings.Cut(full, "/")
		rules, _, err := gh.Repositories.ListRulesForBranch(ctx, owner, name, "main", nil)
		if err != nil || len(rules.NonFastForward) != 0 || len(rules.Deletion) != 0 {
			t.Fatalf("%s rules: %+v %v", full, rules, err)
		}
	}
	// The repository's ruleset list includes it, and a get by id.
	list, _, err := gh.Repositories.GetAllRulesets(ctx, "octo", "core", &github.RepositoryListRulesetsOptions{IncludesParents: github.Ptr(true)})
	if err != nil || len(list) == 0 || list[0].GetID() != id {
		t.Fatalf("repository list: %+v %v", list, err)
	}
	e.Must(200, "GET", "/repos/octo/core/rulesets/"+sid, olgaTok, nil)
	// GraphQL's Repository.rulesets leaves it out (no Enterprise source
	// object) and still answers.
	gq := e.Must(200, "POST", "/graphql", olgaTok, map[string]any{"query": `{repository(owner:"octo",name:"core"){rulesets(first:10){nodes{name}}}}`})
	if strings.Contains(string(gq.Body), `"errors"`) || strings.Contains(string(gq.Body), "no force pushes") {
		t.Fatalf("graphql rulesets: %s", gq.Body)
	}
	e.Must(404, "GET", "/repos/other/core/rulesets/"+sid, olgaTok, nil)

	// Enforced on pushes: mike may not force-push or delete octo/core's
	// default branch, and may on other/core.
	dir := t.TempDir()
	for _, full := range []string{"octo/core", "other/core"} {
		owner, name, _ := strings.Cut(full, "/")
		w := dir + "/" + owner
		mustGit(t, dir, "clone", "-q", remote(e, "mike", mikeTok, owner, name), w)
		mustGit(t, w, "commit", "-q", "--amend", "-m", "rewritten")
		out, err := git(t, w, "push", "--force", "origin", "HEAD:main")
		if owner == "octo" && (err == nil || !strings.Contains(out, "Cannot force-push to this branch")) {
			t.Fatalf("force push to octo/core: %v\n%s", err, out)
		}
		if owner == "other" && err != nil {
			t.Fatalf("force push to other/core: %v\n%s", err, out)
		}
	}
	// The enterprise owner bypasses; select by organization id instead.
	octo, _, err := gh.Organizations.Get(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	rs, _, err = ent.Enterprise.UpdateRepositoryRuleset(ctx, "hubd", id, github.RepositoryRuleset{Name: "no force pushes", Enforcement: "active",
		Conditions: &github.RepositoryRulesetConditions{
			RefName:        &github.RepositoryRulesetRefConditionParameters{Include: []string{"~ALL"}, Exclude: []string{}},
			OrganizationID: &github.RepositoryRulesetOrganizationIDsConditionParameters{OrganizationIDs: []int64{octo.GetID()}},
			RepositoryName: &github.RepositoryRulesetRepositoryNamesConditionParameters{Include: []string{"~ALL"}, Exclude: []string{}}}})
	if err != nil || rs.Conditions.OrganizationID == nil || rs.Conditions.OrganizationName != nil {
		t.Fatalf("update: %+v %v", rs, err)
	}
	rules, _, err = gh.Repositories.ListRulesForBranch(ctx, "other", "core", "main", nil)
	if err != nil || len(rules.NonFastForward) != 1 {
		t.Fatalf("other/core rules after update: %+v %v", rules, err)
	}
	w := dir + "/other"
	mustGit(t, w, "commit", "-q", "--amend", "-m", "again")
	if out, err := git(t, w, "push", "--force", "origin", "HEAD:main"); err == nil || !strings.Contains(out, "Cannot force-push") {
		t.Fatalf("force push to other/core after update: %v\n%s", err, out)
	}

	if _, err := ent.Enterprise.DeleteRepositoryRuleset(ctx, "hubd", id); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ent.Enterprise.GetRepositoryRuleset(ctx, "hubd", id); !is(err, 404) {
		t.Fatalf("after delete: %v", err)
	}
	if out, err := git(t, w, "push", "--force", "origin", "HEAD:main"); err != nil {
		t.Fatalf("force push after delete: %v\n%s", err, out)
	}
}
