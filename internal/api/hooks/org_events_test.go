package hooks_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/hooks/hookstest"
)

// TestTeamPayloads: an organization hook gets team (created, edited,
// added_to_repository, removed_from_repository, deleted), team_add and
// membership (added, removed) events through go-github's team calls, each
// valid against GitHub's webhook schemas; the deleted team comes from the
// copy its event keeps.
func TestTeamPayloads(t *testing.T) {
	f := newFixture(t)
	f.e.Must(http.StatusCreated, "POST", "/admin/organizations", f.e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	f.e.NewUser("hubot", false)
	f.e.Must(http.StatusOK, "PUT", "/orgs/acme/memberships/hubot", f.token, map[string]any{"role": "member"})
	if _, _, err := f.gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("tools")}); err != nil {
		t.Fatal(err)
	}
	const secret = "teams"
	if _, _, err := f.gh.Organizations.CreateHook(ctx, "acme", &github.Hook{Name: github.Ptr("web"),
		Config: &github.HookConfig{URL: github.Ptr(f.recv.URL), ContentType: github.Ptr("json"), Secret: github.Ptr(secret)},
		Events: []string{"team", "team_add", "membership"}}); err != nil {
		t.Fatal(err)
	}
	f.recv.WaitFor(t, "ping", "")
	team, _, err := f.gh.Teams.CreateTeam(ctx, "acme", github.CreateTeamRequest{Name: "Platform", Description: github.Ptr("the platform team")})
	if err != nil {
		t.Fatal(err)
	}
	d := f.recv.WaitFor(t, "team", "created")
	f.check(d, secret)
	if m := d.Map(t); m["team"].(map[string]any)["slug"] != "platform" || m["organization"].(map[string]any)["login"] != "acme" {
		t.Errorf("team created: %.500s", d.Payload)
	}
	if _, _, err := f.gh.Teams.UpdateTeamBySlug(ctx, "acme", "platform", github.UpdateTeamRequest{Name: github.Ptr("Platform"), Description: github.Ptr("edited")}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "team", "edited"), secret)
	if _, _, err := f.gh.Teams.AddTeamMembershipBySlug(ctx, "acme", "platform", "hubot", nil); err != nil {
		t.Fatal(err)
	}
	// (mona, who made the team, became its first member.)
	d = f.recv.Wait(t, "hubot's membership", func(d *hookstest.Delivery) bool {
		return d.Event() == "membership" && strings.Contains(string(d.Payload), `"login":"hubot"`)
	})
	f.check(d, secret)
	if m := d.Map(t); m["member"].(map[string]any)["login"] != "hubot" || m["scope"] != "team" || m["team"].(map[string]any)["id"] != float64(team.GetID()) {
		t.Errorf("membership added: %.500s", d.Payload)
	}
	if _, err := f.gh.Teams.RemoveTeamMembershipBySlug(ctx, "acme", "platform", "hubot"); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "membership", "removed"), secret)
	if _, err := f.gh.Teams.AddTeamRepoBySlug(ctx, "acme", "platform", "acme", "tools", &github.TeamAddTeamRepoOptions{Permission: "push"}); err != nil {
		t.Fatal(err)
	}
	d = f.recv.WaitFor(t, "team", "added_to_repository")
	f.check(d, secret)
	if m := d.Map(t); m["repository"].(map[string]any)["full_name"] != "acme/tools" {
		t.Errorf("team added_to_repository: %.500s", d.Payload)
	}
	f.check(f.recv.WaitFor(t, "team_add", ""), secret)
	if _, err := f.gh.Teams.RemoveTeamRepoBySlug(ctx, "acme", "platform", "acme", "tools"); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "team", "removed_from_repository"), secret)
	if _, err := f.gh.Teams.DeleteTeamBySlug(ctx, "acme", "platform"); err != nil {
		t.Fatal(err)
	}
	d = f.recv.WaitFor(t, "team", "deleted")
	f.check(d, secret)
	if m := d.Map(t); m["team"].(map[string]any)["name"] != "Platform" || m["team"].(map[string]any)["description"] != "edited" {
		t.Errorf("team deleted: %.500s", d.Payload)
	}
}

// TestOrganizationPayloads: an organization hook gets organization
// member_invited, member_added (the invitation accepted) and
// member_removed, valid against GitHub's webhook schemas.
func TestOrganizationPayloads(t *testing.T) {
	f := newFixture(t)
	f.e.Must(http.StatusCreated, "POST", "/admin/organizations", f.e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	_, hubotTok := f.e.NewUser("hubot", false)
	const secret = "org"
	if _, _, err := f.gh.Organizations.CreateHook(ctx, "acme", &github.Hook{Name: github.Ptr("web"),
		Config: &github.HookConfig{URL: github.Ptr(f.recv.URL), ContentType: github.Ptr("json"), Secret: github.Ptr(secret)},
		Events: []string{"organization"}}); err != nil {
		t.Fatal(err)
	}
	f.recv.WaitFor(t, "ping", "")
	f.e.Must(http.StatusOK, "PUT", "/orgs/acme/memberships/hubot", f.token, map[string]any{"role": "member"})
	d := f.recv.WaitFor(t, "organization", "member_invited")
	f.check(d, secret)
	if m := d.Map(t); m["invitation"].(map[string]any)["login"] != "hubot" {
		t.Errorf("member_invited: %.500s", d.Payload)
	}
	if _, _, err := f.e.GitHub(hubotTok).Organizations.EditOrgMembership(ctx, "", "acme", &github.Membership{State: github.Ptr("active")}); err != nil {
		t.Fatal(err)
	}
	d = f.recv.WaitFor(t, "organization", "member_added")
	f.check(d, secret)
	if ms := d.Map(t)["membership"].(map[string]any); ms["state"] != "active" || ms["role"] != "member" || ms["user"].(map[string]any)["login"] != "hubot" {
		t.Errorf("member_added: %.500s", d.Payload)
	}
	if _, err := f.gh.Organizations.RemoveMember(ctx, "acme", "hubot"); err != nil {
		t.Fatal(err)
	}
	d = f.recv.WaitFor(t, "organization", "member_removed")
	f.check(d, secret)
	if ms := d.Map(t)["membership"].(map[string]any); ms["user"].(map[string]any)["login"] != "hubot" {
		t.Errorf("member_removed: %.500s", d.Payload)
	}
}

// TestRulesetPayloads: a repository hook gets repository_ruleset created,
// edited and deleted (from the copy its event keeps), valid against
// GitHub's webhook schemas.
func TestRulesetPayloads(t *testing.T) {
	f := newFixture(t)
	const secret = "rules"
	f.hook(secret, "json", "repository_ruleset")
	f.recv.WaitFor(t, "ping", "")
	rs, _, err := f.gh.Repositories.CreateRuleset(ctx, "mona", "app", github.RepositoryRuleset{Name: "protect main", Enforcement: "active",
		Target:     github.Ptr(github.RulesetTargetBranch),
		Conditions: &github.RepositoryRulesetConditions{RefName: &github.RepositoryRulesetRefConditionParameters{Include: []string{"~DEFAULT_BRANCH"}, Exclude: []string{}}},
		Rules:      &github.RepositoryRulesetRules{Deletion: &github.EmptyRuleParameters{}, NonFastForward: &github.EmptyRuleParameters{}}})
	if err != nil {
		t.Fatal(err)
	}
	d := f.recv.WaitFor(t, "repository_ruleset", "created")
	f.check(d, secret)
	if r := d.Map(t)["repository_ruleset"].(map[string]any); r["name"] != "protect main" || r["id"] != float64(rs.GetID()) {
		t.Errorf("created: %.500s", d.Payload)
	}
	rs.Name = "protect the default branch"
	if _, _, err := f.gh.Repositories.UpdateRuleset(ctx, "mona", "app", rs.GetID(), *rs); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "repository_ruleset", "edited"), secret)
	if _, err := f.gh.Repositories.DeleteRuleset(ctx, "mona", "app", rs.GetID()); err != nil {
		t.Fatal(err)
	}
	d = f.recv.WaitFor(t, "repository_ruleset", "deleted")
	f.check(d, secret)
	if r := d.Map(t)["repository_ruleset"].(map[string]any); r["name"] != "protect the default branch" || len(r["rules"].([]any)) != 2 {
		t.Errorf("deleted: %.800s", d.Payload)
	}
}
