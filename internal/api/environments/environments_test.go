package environments_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// fixture: mona/app (public) with mike a collaborator with write access.
func fixture(t *testing.T) (e *apitest.Env, gh *github.Client, monaTok string, mike *model.Account, mikeTok string) {
	t.Helper()
	e = apitest.New(t)
	_, monaTok = e.NewUser("mona", false)
	gh = e.GitHub(monaTok)
	repo, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	mike, mikeTok = e.NewUser("mike", false)
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, repo.GetID(), mike.ID, authz.Write) }); err != nil {
		t.Fatal(err)
	}
	return e, gh, monaTok, mike, mikeTok
}

func TestEnvironments(t *testing.T) {
	e, gh, monaTok, mike, mikeTok := fixture(t)
	env, _, err := gh.Repositories.CreateUpdateEnvironment(ctx, "mona", "app", "production", &github.CreateUpdateEnvironment{
		WaitTimer: github.Ptr(30), PreventSelfReview: github.Ptr(true),
		Reviewers:              []*github.EnvReviewers{{Type: github.Ptr("User"), ID: github.Ptr(mike.ID)}},
		DeploymentBranchPolicy: &github.BranchPolicy{ProtectedBranches: github.Ptr(false), CustomBranchPolicies: github.Ptr(true)}})
	if err != nil {
		t.Fatal(err)
	}
	if env.GetName() != "production" || len(env.ProtectionRules) != 3 || env.GetDeploymentBranchPolicy().GetCustomBranchPolicies() != true ||
		env.GetURL() != e.API+"/repos/mona/app/environments/production" {
		t.Fatalf("created: %+v", env)
	}
	rules := map[string]*github.ProtectionRule{}
	for _, r := range env.ProtectionRules {
		rules[r.GetType()] = r
	}
	if rules["wait_timer"].GetWaitTimer() != 30 || !rules["required_reviewers"].GetPreventSelfReview() ||
		rules["required_reviewers"].Reviewers[0].GetType() != "User" || rules["branch_policy"] == nil {
		t.Fatalf("rules: %+v", env.ProtectionRules)
	}
	// Names are case-insensitive; PUT on an existing one replaces its rules.
	env2, _, err := gh.Repositories.CreateUpdateEnvironment(ctx, "mona", "app", "PRODUCTION", &github.CreateUpdateEnvironment{})
	if err != nil {
		t.Fatal(err)
	}
	if env2.GetID() != env.GetID() || env2.GetName() != "production" || len(env2.ProtectionRules) != 0 || env2.DeploymentBranchPolicy != nil {
		t.Fatalf("replaced: %+v", env2)
	}
	if _, _, err := gh.Repositories.CreateUpdateEnvironment(ctx, "mona", "app", "staging", nil); err != nil {
		t.Fatal(err)
	}
	// Readers list and get; pages in name order with a Link header.
	mikeGH := e.GitHub(mikeTok)
	list, resp, err := mikeGH.Repositories.ListEnvironments(ctx, "mona", "app", &github.EnvironmentListOptions{ListOptions: github.ListOptions{PerPage: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if list.GetTotalCount() != 2 || len(list.Environments) != 1 || list.Environments[0].GetName() != "production" || resp.NextPage != 2 {
		t.Fatalf("list: %+v next %d", list, resp.NextPage)
	}
	if got, _, err := e.GitHub("").Repositories.GetEnvironment(ctx, "mona", "app", "staging"); err != nil || got.GetName() != "staging" {
		t.Fatalf("anonymous get: %v %v", got, err)
	}
	// Writers may not change them; missing ones are 404.
	if _, _, err := mikeGH.Repositories.CreateUpdateEnvironment(ctx, "mona", "app", "dev", nil); apitest.Status(err) != 403 {
		t.Fatalf("writer creates: %v", err)
	}
	if _, _, err := gh.Repositories.GetEnvironment(ctx, "mona", "app", "nope"); apitest.Status(err) != 404 {
		t.Fatalf("missing: %v", err)
	}
	// Bad input: 422 as GitHub.
	for _, body := range []map[string]any{
		{"wait_timer": 43201},
		{"deployment_branch_policy": map[string]any{"protected_branches": true, "custom_branch_policies": true}},
		{"reviewers": []map[string]any{{"type": "User", "id": 999999}}},
		{"reviewers": []map[string]any{{"type": "User", "id": mike.ID}, {"type": "User", "id": mike.ID}}},
	} {
		e.Must(422, "PUT", "/repos/mona/app/environments/bad", monaTok, body)
	}
	e.Must(400, "PUT", "/repos/mona/app/environments/bad", monaTok, "{")
	e.Must(200, "PUT", "/repos/mona/app/environments/nulled", monaTok, "null")
	if _, _, err := gh.Repositories.GetEnvironment(ctx, "mona", "app", "bad"); apitest.Status(err) != 404 {
		t.Fatalf("bad input wrote: %v", err)
	}
	if _, err := gh.Repositories.DeleteEnvironment(ctx, "mona", "app", "staging"); err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Repositories.DeleteEnvironment(ctx, "mona", "app", "staging"); apitest.Status(err) != 404 {
		t.Fatalf("deleted twice: %v", err)
	}
	evs, err := e.Store.R().EventsAfter(ctx, 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range evs {
		if strings.HasPrefix(ev.Type, "environment.") {
			n++
		}
	}
	if n != 5 { // created production, updated it, created staging and nulled, deleted staging
		t.Fatalf("environment events: %d", n)
	}
}

func TestBranchPolicies(t *testing.T) {
	e, gh, monaTok, _, mikeTok := fixture(t)
	if _, _, err := gh.Repositories.CreateUpdateEnvironment(ctx, "mona", "app", "prod", nil); err != nil {
		t.Fatal(err)
	}
	// Without custom branch policies there is nothing to add to.
	if _, _, err := gh.Repositories.CreateDeploymentBranchPolicy(ctx, "mona", "app", "prod", github.CreateDeploymentBranchPolicyRequest{Name: "main"}); apitest.Status(err) != 404 {
		t.Fatalf("not custom: %v", err)
	}
	if _, _, err := gh.Repositories.CreateUpdateEnvironment(ctx, "mona", "app", "prod", &github.CreateUpdateEnvironment{
		DeploymentBranchPolicy: &github.BranchPolicy{ProtectedBranches: github.Ptr(false), CustomBranchPolicies: github.Ptr(true)}}); err != nil {
		t.Fatal(err)
	}
	p, _, err := gh.Repositories.CreateDeploymentBranchPolicy(ctx, "mona", "app", "prod", github.CreateDeploymentBranchPolicyRequest{Name: "release/*"})
	if err != nil {
		t.Fatal(err)
	}
	if p.GetName() != "release/*" || p.GetType() != "branch" || p.GetID() == 0 {
		t.Fatalf("created: %+v", p)
	}
	tag, _, err := gh.Repositories.CreateDeploymentBranchPolicy(ctx, "mona", "app", "prod", github.CreateDeploymentBranchPolicyRequest{Name: "v*", Type: github.Ptr("tag")})
	if err != nil || tag.GetType() != "tag" {
		t.Fatalf("tag: %+v %v", tag, err)
	}
	// The same pattern again: 303 to the existing one (which the client
	// follows).
	r := e.Do("POST", "/repos/mona/app/environments/prod/deployment-branch-policies", monaTok, map[string]any{"name": "release/*"})
	if r.Request.Response == nil || r.Request.Response.StatusCode != http.StatusSeeOther ||
		r.Request.URL.String() != e.API+"/repos/mona/app/environments/prod/deployment-branch-policies/"+strconv.FormatInt(p.GetID(), 10) ||
		r.StatusCode != 200 || int64(r.Map(t)["id"].(float64)) != p.GetID() {
		t.Fatalf("duplicate: %d %s", r.StatusCode, r.Request.URL)
	}
	e.Must(422, "POST", "/repos/mona/app/environments/prod/deployment-branch-policies", monaTok, map[string]any{"name": "x", "type": "commit"})
	e.Must(422, "POST", "/repos/mona/app/environments/prod/deployment-branch-policies", monaTok, map[string]any{"type": "branch"})
	// Readers list and get; writers may not change.
	mikeGH := e.GitHub(mikeTok)
	list, _, err := mikeGH.Repositories.ListDeploymentBranchPolicies(ctx, "mona", "app", "prod", nil)
	if err != nil || list.GetTotalCount() != 2 || len(list.BranchPolicies) != 2 {
		t.Fatalf("list: %+v %v", list, err)
	}
	if got, _, err := mikeGH.Repositories.GetDeploymentBranchPolicy(ctx, "mona", "app", "prod", p.GetID()); err != nil || got.GetName() != "release/*" {
		t.Fatalf("get: %+v %v", got, err)
	}
	if _, err := mikeGH.Repositories.DeleteDeploymentBranchPolicy(ctx, "mona", "app", "prod", p.GetID()); apitest.Status(err) != 403 {
		t.Fatalf("writer deletes: %v", err)
	}
	up, _, err := gh.Repositories.UpdateDeploymentBranchPolicy(ctx, "mona", "app", "prod", p.GetID(), github.UpdateDeploymentBranchPolicyRequest{Name: "main"})
	if err != nil || up.GetName() != "main" || up.GetID() != p.GetID() {
		t.Fatalf("update: %+v %v", up, err)
	}
	if _, err := gh.Repositories.DeleteDeploymentBranchPolicy(ctx, "mona", "app", "prod", p.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.GetDeploymentBranchPolicy(ctx, "mona", "app", "prod", p.GetID()); apitest.Status(err) != 404 {
		t.Fatalf("deleted: %v", err)
	}
	// Leaving custom policies removes the patterns.
	if _, _, err := gh.Repositories.CreateUpdateEnvironment(ctx, "mona", "app", "prod", &github.CreateUpdateEnvironment{
		DeploymentBranchPolicy: &github.BranchPolicy{ProtectedBranches: github.Ptr(true), CustomBranchPolicies: github.Ptr(false)}}); err != nil {
		t.Fatal(err)
	}
	if list, _, err := gh.Repositories.ListDeploymentBranchPolicies(ctx, "mona", "app", "prod", nil); err != nil || list.GetTotalCount() != 0 {
		t.Fatalf("after protected: %+v %v", list, err)
	}
}

// Teams of the repository's organization may be reviewers; others not.
func TestTeamReviewers(t *testing.T) {
	e := apitest.New(t)
	olga, olgaTok := e.NewUser("olga", false)
	org := store.NewOrg("octo")
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateOrg(ctx, org, olga.ID) }); err != nil {
		t.Fatal(err)
	}
	gh := e.GitHub(olgaTok)
	if _, _, err := gh.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("core"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	team, _, err := gh.Teams.CreateTeam(ctx, "octo", github.CreateTeamRequest{Name: "ops"})
	if err != nil {
		t.Fatal(err)
	}
	env, _, err := gh.Repositories.CreateUpdateEnvironment(ctx, "octo", "core", "prod", &github.CreateUpdateEnvironment{
		Reviewers: []*github.EnvReviewers{{Type: github.Ptr("Team"), ID: github.Ptr(team.GetID())}, {Type: github.Ptr("User"), ID: github.Ptr(olga.ID)}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(env.ProtectionRules) != 1 || len(env.ProtectionRules[0].Reviewers) != 2 || env.ProtectionRules[0].Reviewers[0].GetType() != "Team" {
		t.Fatalf("reviewers: %+v", env.ProtectionRules)
	}
	if got, _, err := gh.Repositories.GetEnvironment(ctx, "octo", "core", "prod"); err != nil || len(got.ProtectionRules[0].Reviewers) != 2 {
		t.Fatalf("get: %+v %v", got, err)
	}
	e.Must(422, "PUT", "/repos/octo/core/environments/prod", olgaTok, map[string]any{"reviewers": []map[string]any{{"type": "Team", "id": team.GetID() + 1000}}})
	seven := []map[string]any{}
	for i := 0; i < 7; i++ {
		seven = append(seven, map[string]any{"type": "User", "id": olga.ID + int64(i)*1000})
	}
	e.Must(422, "PUT", "/repos/octo/core/environments/prod", olgaTok, map[string]any{"reviewers": seven})
}
