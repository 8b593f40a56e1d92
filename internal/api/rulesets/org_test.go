package rulesets_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

func TestOrgRulesets(t *testing.T) {
	e := apitest.New(t)
	olga, olgaTok := e.NewUser("olga", false)
	mike, mikeTok := e.NewUser("mike", false)
	_, ottoTok := e.NewUser("otto", false)
	org := store.NewOrg("octo")
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, olga.ID); err != nil {
			return err
		}
		return tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: mike.ID, Role: model.RoleMember, State: store.StateActive})
	})
	if err != nil {
		t.Fatal(err)
	}
	gh, mikeGH := e.GitHub(olgaTok), e.GitHub(mikeTok)
	for _, name := range []string{"core", "docs"} {
		if _, _, err := gh.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr(name), AutoInit: github.Ptr(true)}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := gh.Repositories.AddCollaborator(ctx, "octo", name, "mike", &github.RepositoryAddCollaboratorOptions{Permission: "push"}); err != nil {
			t.Fatal(err)
		}
	}

	rs, _, err := gh.Organizations.CreateRepositoryRuleset(ctx, "octo", github.RepositoryRuleset{Name: "core main", Enforcement: "active",
		BypassActors: []*github.BypassActor{{ActorType: github.Ptr(github.BypassActorTypeOrganizationAdmin), BypassMode: github.Ptr(github.BypassModeAlways)}},
		Conditions: &github.RepositoryRulesetConditions{
			RefName:        &github.RepositoryRulesetRefConditionParameters{Include: []string{"~DEFAULT_BRANCH"}, Exclude: []string{}},
			RepositoryName: &github.RepositoryRulesetRepositoryNamesConditionParameters{Include: []string{"core*"}, Exclude: []string{"core-old"}}},
		Rules: &github.RepositoryRulesetRules{Deletion: &github.EmptyRuleParameters{}, PullRequest: &github.PullRequestRuleParameters{}}})
	if err != nil {
		t.Fatal(err)
	}
	id := rs.GetID()
	if rs.Source != "octo" || *rs.SourceType != github.RulesetSourceTypeOrganization ||
		rs.GetLinks().GetSelf().GetHRef() != e.API+"/orgs/octo/rulesets/"+strconv.FormatInt(id, 10) ||
		len(rs.BypassActors) != 1 || rs.BypassActors[0].ActorID != nil || rs.Conditions.RepositoryName.Include[0] != "core*" {
		t.Fatalf("created: %+v", rs)
	}
	// Owners manage; members are refused, outsiders find nothing.
	if _, _, err := mikeGH.Organizations.ListAllRepositoryRulesets(ctx, "octo", nil); !is(err, 403) {
		t.Fatalf("member lists: %v", err)
	}
	if _, _, err := e.GitHub(ottoTok).Organizations.GetRepositoryRuleset(ctx, "octo", id); !is(err, 404) {
		t.Fatalf("outsider gets: %v", err)
	}
	list, _, err := gh.Organizations.ListAllRepositoryRulesets(ctx, "octo", nil)
	if err != nil || len(list) != 1 || list[0].GetID() != id {
		t.Fatalf("owner lists: %v %v", list, err)
	}
	got, _, err := gh.Organizations.GetRepositoryRuleset(ctx, "octo", id)
	if err != nil || got.Name != "core main" || len(got.BypassActors) != 1 || got.Rules.PullRequest == nil {
		t.Fatalf("owner gets: %+v %v", got, err)
	}

	// The repositories it selects show it with includes_parents.
	var seen []map[string]any
	e.Must(200, "GET", "/repos/octo/core/rulesets", mikeTok, nil).JSON(t, &seen)
	if len(seen) != 1 || seen[0]["source_type"] != "Organization" || seen[0]["source"] != "octo" || seen[0]["current_user_can_bypass"] != "never" {
		t.Fatalf("core's rulesets: %v", seen)
	}
	if _, present := seen[0]["bypass_actors"]; present {
		t.Fatalf("a member sees an organization ruleset's bypass list at the repository: %v", seen[0])
	}
	e.Must(200, "GET", "/repos/octo/core/rulesets?includes_parents=false", mikeTok, nil).JSON(t, &seen)
	if len(seen) != 0 {
		t.Fatalf("core without parents: %v", seen)
	}
	e.Must(200, "GET", "/repos/octo/docs/rulesets", mikeTok, nil).JSON(t, &seen)
	if len(seen) != 0 {
		t.Fatalf("docs: %v", seen)
	}
	e.Must(200, "GET", "/repos/octo/core/rulesets/"+strconv.FormatInt(id, 10), mikeTok, nil)
	e.Must(404, "GET", "/repos/octo/core/rulesets/"+strconv.FormatInt(id, 10)+"?includes_parents=false", mikeTok, nil)
	e.Must(404, "GET", "/repos/octo/docs/rulesets/"+strconv.FormatInt(id, 10), mikeTok, nil)
	// A repository's admin cannot change it there.
	e.Must(404, "DELETE", "/repos/octo/core/rulesets/"+strconv.FormatInt(id, 10), olgaTok, nil)

	rules, _, err := mikeGH.Repositories.ListRulesForBranch(ctx, "octo", "core", "main", nil)
	if err != nil || len(rules.PullRequest) != 1 || rules.PullRequest[0].RulesetSourceType != github.RulesetSourceTypeOrganization ||
		rules.PullRequest[0].RulesetSource != "octo" || rules.PullRequest[0].RulesetID != id {
		t.Fatalf("core main rules: %+v %v", rules, err)
	}

	// Enforced on core for members; the organization's owners bypass.
	write := func(c *github.Client, repo, path string) error {
		_, _, err := c.Repositories.CreateFile(ctx, "octo", repo, path, &github.RepositoryContentFileOptions{
			Message: github.Ptr(path), Content: []byte(path), Branch: github.Ptr("main")})
		return err
	}
	if err := write(mikeGH, "core", "a.txt"); !is(err, http.StatusConflict) {
		t.Fatalf("member writes to core main: %v", err)
	}
	if err := write(mikeGH, "docs", "a.txt"); err != nil {
		t.Fatalf("member writes to docs main: %v", err)
	}
	if err := write(gh, "core", "b.txt"); err != nil {
		t.Fatalf("owner writes to core main: %v", err)
	}
	// A team bypass actor passes.
	team, _, err := gh.Teams.CreateTeam(ctx, "octo", github.CreateTeamRequest{Name: "releasers", Privacy: github.Ptr("closed")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Teams.AddTeamMembershipBySlug(ctx, "octo", team.GetSlug(), "mike", &github.TeamAddTeamMembershipOptions{Role: "member"}); err != nil {
		t.Fatal(err)
	}
	upd, _, err := gh.Organizations.UpdateRepositoryRuleset(ctx, "octo", id, github.RepositoryRuleset{Name: "core main",
		Enforcement: "active", BypassActors: []*github.BypassActor{{ActorID: github.Ptr(team.GetID()),
			ActorType: github.Ptr(github.BypassActorTypeTeam), BypassMode: github.Ptr(github.BypassModeAlways)}}})
	if err != nil || len(upd.BypassActors) != 1 || upd.BypassActors[0].GetActorID() != team.GetID() {
		t.Fatalf("update: %+v %v", upd, err)
	}
	if err := write(mikeGH, "core", "c.txt"); err != nil {
		t.Fatalf("team bypass actor writes to core main: %v", err)
	}
	// A team of another organization is refused.
	resp := e.Do("PUT", "/orgs/octo/rulesets/"+strconv.FormatInt(id, 10), olgaTok, map[string]any{
		"bypass_actors": []any{map[string]any{"actor_id": 999999, "actor_type": "Team", "bypass_mode": "always"}}})
	if resp.StatusCode != 422 || !strings.Contains(string(resp.Body), "does not exist in the organization") {
		t.Fatalf("unknown team: %d %s", resp.StatusCode, resp.Body)
	}

	var versions []map[string]any
	e.Must(200, "GET", "/orgs/octo/rulesets/"+strconv.FormatInt(id, 10)+"/history", olgaTok, nil).JSON(t, &versions)
	if len(versions) != 2 {
		t.Fatalf("history: %v", versions)
	}
	e.Must(200, "GET", "/orgs/octo/rulesets/"+strconv.FormatInt(id, 10)+"/history/"+
		strconv.FormatInt(int64(versions[1]["version_id"].(float64)), 10), olgaTok, nil)

	if _, err := gh.Organizations.DeleteRepositoryRuleset(ctx, "octo", id); err != nil {
		t.Fatal(err)
	}
	if err := write(mikeGH, "core", "d.txt"); err != nil {
		t.Fatalf("after the ruleset went: %v", err)
	}
}

func is(err error, code int) bool {
	c, _ := status(err)
	return c == code
}
