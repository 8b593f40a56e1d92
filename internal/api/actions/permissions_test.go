package actions_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/store"
)

// policyEnv makes the organization octo (owned by mona) with octo/app, a
// member who is no owner, and a site administrator's token with
// admin:enterprise.
type policyEnv struct {
	e                          *apitest.Env
	mona, member, admin, ghOrg string
	repoID                     int64
	orgID                      int64
	gh                         *github.Client
}

func newPolicyEnv(t *testing.T) *policyEnv {
	e := apitest.New(t, apitest.Options{})
	_, mona := e.NewUser("mona", false)
	m, _ := e.NewUser("hubot", false)
	boss, _ := e.NewUser("boss", true)
	p := &policyEnv{e: e, mona: mona, member: e.Token(m, apitest.AllScopes), admin: e.Token(boss, "site_admin,admin:enterprise"), gh: e.GitHub(mona)}
	org := e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "octo", "admin": "mona"}).Map(t)
	p.orgID = int64(org["id"].(float64))
	e.Must(200, "PUT", "/orgs/octo/memberships/hubot", mona, map[string]any{"role": "member"})
	e.Must(200, "PATCH", "/user/memberships/orgs/octo", p.member, map[string]any{"state": "active"})
	repo, _, err := p.gh.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("app"), Private: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	p.repoID = repo.GetID()
	return p
}

// TestActionsPermissionsOperations exercises every permissions and OIDC
// operation at the three levels (responses checked against the schemas).
func TestActionsPermissionsOperations(t *testing.T) {
	p := newPolicyEnv(t)
	e, mona, admin := p.e, p.mona, p.admin
	ent := "/enterprises/hubd/actions"
	repo, org := "/repos/octo/app/actions", "/orgs/octo/actions"

	// Repository, through go-github.
	perms, _, err := p.gh.Repositories.GetActionsPermissions(ctx, "octo", "app")
	if err != nil || !perms.GetEnabled() || perms.GetAllowedActions() != "all" {
		t.Fatalf("repository permissions: %+v %v", perms, err)
	}
	if _, _, err := p.gh.Repositories.UpdateActionsPermissions(ctx, "octo", "app", github.ActionsPermissionsRepository{Enabled: github.Ptr(true), AllowedActions: github.Ptr("selected")}); err != nil {
		t.Fatal(err)
	}
	wf, _, err := p.gh.Repositories.GetDefaultWorkflowPermissions(ctx, "octo", "app")
	if err != nil || wf.GetDefaultWorkflowPermissions() != "read" || wf.GetCanApprovePullRequestReviews() {
		t.Fatalf("workflow permissions: %+v %v", wf, err)
	}
	if _, err := p.gh.Actions.SetRepoOIDCSubjectClaimCustomTemplate(ctx, "octo", "app", github.OIDCSubjectClaimCustomTemplate{UseDefault: github.Ptr(false), IncludeClaimKeys: []string{"repo", "workflow"}}); err != nil {
		t.Fatal(err)
	}
	tpl, _, err := p.gh.Actions.GetRepoOIDCSubjectClaimCustomTemplate(ctx, "octo", "app")
	if err != nil || tpl.GetUseDefault() || strings.Join(tpl.IncludeClaimKeys, ",") != "repo,workflow" {
		t.Fatalf("repository template: %+v %v", tpl, err)
	}
	// Organization, through go-github.
	if _, _, err := p.gh.Actions.UpdateActionsAllowed(ctx, "octo", github.ActionsAllowed{GithubOwnedAllowed: github.Ptr(true)}); err == nil {
		t.Fatal("selected actions of an organization whose allowed_actions is all: want 409")
	}

	type call struct {
		method, path, tok string
		body              any
		want              int
		check             string // in the response
	}
	calls := []call{
		{"GET", repo + "/permissions", mona, nil, 200, `"allowed_actions":"selected"`},
		{"PUT", repo + "/permissions/selected-actions", mona, map[string]any{"github_owned_allowed": false, "patterns_allowed": []string{"octo/*", "docker/login-action@v3"}}, 204, ""},
		{"GET", repo + "/permissions/selected-actions", mona, nil, 200, `"patterns_allowed":["octo/*","docker/login-action@v3"]`},
		{"PUT", repo + "/permissions/workflow", mona, map[string]any{"default_workflow_permissions": "write", "can_approve_pull_request_reviews": true}, 204, ""},
		{"GET", repo + "/permissions/workflow", mona, nil, 200, `"default_workflow_permissions":"write"`},
		{"PUT", repo + "/permissions/access", mona, map[string]any{"access_level": "organization"}, 204, ""},
		{"GET", repo + "/permissions/access", mona, nil, 200, `"access_level":"organization"`},
		{"PUT", repo + "/permissions/artifact-and-log-retention", mona, map[string]any{"days": 30}, 204, ""},
		{"GET", repo + "/permissions/artifact-and-log-retention", mona, nil, 200, `"days":30`},
		{"PUT", repo + "/permissions/artifact-and-log-retention", mona, map[string]any{"days": 500}, 422, "between 1 and 400"},
		{"PUT", repo + "/permissions/fork-pr-contributor-approval", mona, map[string]any{"approval_policy": "all_external_contributors"}, 204, ""},
		{"GET", repo + "/permissions/fork-pr-contributor-approval", mona, nil, 200, "all_external_contributors"},
		{"PUT", repo + "/permissions/fork-pr-contributor-approval", mona, map[string]any{"approval_policy": "nobody"}, 422, ""},
		{"PUT", repo + "/permissions/fork-pr-workflows-private-repos", mona, map[string]any{"run_workflows_from_fork_pull_requests": true, "send_secrets_and_variables": true}, 204, ""},
		{"GET", repo + "/permissions/fork-pr-workflows-private-repos", mona, nil, 200, `"send_secrets_and_variables":true`},
		{"PUT", repo + "/oidc/customization/sub", mona, map[string]any{"use_default": false, "include_claim_keys": []string{"nope"}}, 422, "Invalid claim key"},
		// Organization.
		{"GET", org + "/permissions", mona, nil, 200, `"enabled_repositories":"all"`},
		{"PUT", org + "/permissions", mona, map[string]any{"enabled_repositories": "selected", "allowed_actions": "local_only"}, 204, ""},
		{"GET", org + "/permissions", mona, nil, 200, `"selected_repositories_url"`},
		{"PUT", org + "/permissions/repositories", mona, map[string]any{"selected_repository_ids": []int64{p.repoID}}, 204, ""},
		{"GET", org + "/permissions/repositories", mona, nil, 200, `"total_count":1`},
		{"DELETE", org + "/permissions/repositories/" + fmt.Sprint(p.repoID), mona, nil, 204, ""},
		{"GET", org + "/permissions/repositories", mona, nil, 200, `"total_count":0`},
		{"PUT", org + "/permissions/repositories/" + fmt.Sprint(p.repoID), mona, nil, 204, ""},
		{"PUT", org + "/permissions/repositories", mona, map[string]any{"selected_repository_ids": []int64{999999}}, 422, ""},
		{"PUT", org + "/permissions/repositories/999999", mona, nil, 404, ""},
		{"PUT", org + "/permissions/selected-actions", mona, map[string]any{"github_owned_allowed": true}, 409, ""},
		{"GET", org + "/permissions/selected-actions", mona, nil, 200, `"github_owned_allowed":true`},
		{"GET", org + "/permissions/workflow", mona, nil, 200, `"default_workflow_permissions":"read"`},
		{"PUT", org + "/permissions/workflow", mona, map[string]any{"default_workflow_permissions": "write"}, 204, ""},
		{"PUT", org + "/permissions/artifact-and-log-retention", mona, map[string]any{"days": 60}, 204, ""},
		{"GET", org + "/permissions/artifact-and-log-retention", mona, nil, 200, `"maximum_allowed_days":400`},
		{"PUT", org + "/permissions/fork-pr-contributor-approval", mona, map[string]any{"approval_policy": "first_time_contributors"}, 204, ""},
		{"GET", org + "/permissions/fork-pr-contributor-approval", mona, nil, 200, `first_time_contributors`},
		{"PUT", org + "/permissions/fork-pr-workflows-private-repos", mona, map[string]any{"run_workflows_from_fork_pull_requests": false}, 204, ""},
		{"GET", org + "/permissions/fork-pr-workflows-private-repos", mona, nil, 200, `"run_workflows_from_fork_pull_requests":false`},
		{"PUT", org + "/permissions/self-hosted-runners/repositories", mona, map[string]any{"selected_repository_ids": []int64{p.repoID}}, 409, ""},
		{"PUT", org + "/permissions/self-hosted-runners", mona, map[string]any{"enabled_repositories": "selected"}, 204, ""},
		{"GET", org + "/permissions/self-hosted-runners", mona, nil, 200, `"enabled_repositories":"selected"`},
		{"PUT", org + "/permissions/self-hosted-runners/repositories", mona, map[string]any{"selected_repository_ids": []int64{p.repoID}}, 204, ""},
		{"GET", org + "/permissions/self-hosted-runners/repositories", mona, nil, 200, `"full_name":"octo/app"`},
		{"DELETE", org + "/permissions/self-hosted-runners/repositories/" + fmt.Sprint(p.repoID), mona, nil, 204, ""},
		{"PUT", org + "/permissions/self-hosted-runners/repositories/" + fmt.Sprint(p.repoID), mona, nil, 204, ""},
		{"PUT", org + "/oidc/customization/sub", mona, map[string]any{"include_claim_keys": []string{"repository_owner", "context"}}, 201, ""},
		{"GET", org + "/oidc/customization/sub", mona, nil, 200, `"include_claim_keys":["repository_owner","context"]`},
		{"POST", org + "/oidc/customization/properties/repo", mona, map[string]any{"custom_property_name": "team"}, 201, `"inclusion_source":"organization"`},
		{"POST", org + "/oidc/customization/properties/repo", mona, map[string]any{"custom_property_name": "team"}, 422, ""},
		{"GET", org + "/oidc/customization/properties/repo", mona, nil, 200, `"custom_property_name":"team"`},
		{"DELETE", org + "/oidc/customization/properties/repo/team", mona, nil, 204, ""},
		{"DELETE", org + "/oidc/customization/properties/repo/team", mona, nil, 404, ""},
		// The repository asks more than its organization allows.
		{"PUT", repo + "/permissions", mona, map[string]any{"enabled": true, "allowed_actions": "all"}, 409, ""},
		// Enterprise.
		{"GET", ent + "/permissions", admin, nil, 200, `"enabled_organizations":"all"`},
		{"PUT", ent + "/permissions", admin, map[string]any{"enabled_organizations": "selected", "allowed_actions": "all"}, 204, ""},
		{"PUT", ent + "/permissions/organizations", admin, map[string]any{"selected_organization_ids": []int64{p.orgID}}, 204, ""},
		{"GET", ent + "/permissions/organizations", admin, nil, 200, `"login":"octo"`},
		{"DELETE", ent + "/permissions/organizations/" + fmt.Sprint(p.orgID), admin, nil, 204, ""},
		{"PUT", ent + "/permissions/organizations/" + fmt.Sprint(p.orgID), admin, nil, 204, ""},
		{"GET", ent + "/permissions/selected-actions", admin, nil, 200, `"github_owned_allowed":true`},
		{"PUT", ent + "/permissions/selected-actions", admin, map[string]any{"verified_allowed": true}, 409, ""},
		{"PUT", ent + "/permissions/workflow", admin, map[string]any{"default_workflow_permissions": "read", "can_approve_pull_request_reviews": false}, 204, ""},
		{"GET", ent + "/permissions/workflow", admin, nil, 200, `"default_workflow_permissions":"read"`},
		{"PUT", org + "/permissions/workflow", mona, map[string]any{"default_workflow_permissions": "write"}, 409, ""},
		{"PUT", ent + "/permissions/artifact-and-log-retention", admin, map[string]any{"days": 200}, 204, ""},
		{"GET", ent + "/permissions/artifact-and-log-retention", admin, nil, 200, `"days":200`},
		{"PUT", ent + "/permissions/fork-pr-contributor-approval", admin, map[string]any{"approval_policy": "first_time_contributors_new_to_github"}, 204, ""},
		{"GET", ent + "/permissions/fork-pr-contributor-approval", admin, nil, 200, "first_time_contributors_new_to_github"},
		{"PUT", ent + "/permissions/fork-pr-workflows-private-repos", admin, map[string]any{"run_workflows_from_fork_pull_requests": true}, 204, ""},
		{"GET", ent + "/permissions/fork-pr-workflows-private-repos", admin, nil, 200, `"run_workflows_from_fork_pull_requests":true`},
		{"PUT", ent + "/permissions/self-hosted-runners", admin, map[string]any{"disable_self_hosted_runners_for_all_orgs": true}, 204, ""},
		{"GET", ent + "/permissions/self-hosted-runners", admin, nil, 200, `"disable_self_hosted_runners_for_all_orgs":true`},
		{"PUT", org + "/permissions/self-hosted-runners", mona, map[string]any{"enabled_repositories": "all"}, 409, ""},
		{"POST", ent + "/oidc/customization/properties/repo", admin, map[string]any{"custom_property_name": "cost_center"}, 201, `"inclusion_source":"enterprise"`},
		{"GET", ent + "/oidc/customization/properties/repo", admin, nil, 200, `"cost_center"`},
		{"GET", org + "/oidc/customization/properties/repo", mona, nil, 200, `"inclusion_source":"enterprise"`},
		{"DELETE", ent + "/oidc/customization/properties/repo/cost_center", admin, nil, 204, ""},
		{"PUT", ent + "/oidc/customization/issuer", admin, map[string]any{"include_enterprise_slug": true}, 204, ""},
		{"PUT", org + "/permissions", mona, map[string]any{"enabled_repositories": "selected", "allowed_actions": "selected"}, 204, ""},
		{"PUT", org + "/permissions/selected-actions", mona, map[string]any{"github_owned_allowed": true, "patterns_allowed": []string{"octo/*"}}, 204, ""},
		{"PUT", ent + "/permissions", admin, map[string]any{"enabled_organizations": "selected", "allowed_actions": "selected"}, 204, ""},
		{"PUT", ent + "/permissions/selected-actions", admin, map[string]any{"verified_allowed": true}, 204, ""},
		{"GET", ent + "/permissions/selected-actions", admin, nil, 200, `"verified_allowed":true`},
		// Authorization.
		{"GET", repo + "/permissions", "", nil, 401, ""},
		{"GET", org + "/permissions", "", nil, 401, ""},
		{"GET", org + "/permissions", p.member, nil, 403, "org owner"},
		{"GET", ent + "/permissions", mona, nil, 403, "site administrator"},
		{"GET", "/enterprises/nope/actions/permissions", admin, nil, 404, ""},
		{"PUT", repo + "/permissions", p.member, map[string]any{"enabled": false}, 403, "admin rights"},
	}
	for _, c := range calls {
		r := e.Must(c.want, c.method, c.path, c.tok, c.body)
		if c.check != "" && !strings.Contains(string(r.Body), c.check) {
			t.Errorf("%s %s: %s lacks %s", c.method, c.path, r.Body, c.check)
		}
	}

	// Through go-github: the organization's list (paginated) and template,
	// the enterprise's permissions.
	enabled, resp, err := p.gh.Actions.ListEnabledReposInOrg(ctx, "octo", &github.ListOptions{PerPage: 1})
	if err != nil || enabled.TotalCount != 1 || len(enabled.Repositories) != 1 || enabled.Repositories[0].GetFullName() != "octo/app" || resp.NextPage != 0 {
		t.Fatalf("enabled repositories: %+v %v", enabled, err)
	}
	orgTpl, _, err := p.gh.Actions.GetOrgOIDCSubjectClaimCustomTemplate(ctx, "octo")
	if err != nil || strings.Join(orgTpl.IncludeClaimKeys, ",") != "repository_owner,context" {
		t.Fatalf("organization template: %+v %v", orgTpl, err)
	}
	entPerms, _, err := e.GitHub(admin).Actions.GetActionsPermissionsInEnterprise(ctx, "hubd")
	if err != nil || entPerms.GetEnabledOrganizations() != "selected" {
		t.Fatalf("enterprise permissions: %+v %v", entPerms, err)
	}
	// The custom issuer policy moves the issuer under the enterprise's slug.
	var conf map[string]any
	e.Must(200, "GET", e.URL+"/_services/token/hubd/.well-known/openid-configuration", "", nil).JSON(t, &conf)
	if conf["issuer"] != e.URL+"/_services/token/hubd" {
		t.Fatalf("enterprise issuer: %v", conf)
	}
	e.Must(404, "GET", e.URL+"/_services/token/other/.well-known/jwks", "", nil)
}

// TestActionsPermissionsInstallation: an app installed on the
// organization manages its policies with organization_administration,
// and is refused without it or on another organization's.
func TestActionsPermissionsInstallation(t *testing.T) {
	p := newPolicyEnv(t)
	e := p.e
	token := func(name string, perms map[string]string) string {
		var app struct {
			Slug string `json:"slug"`
		}
		e.Must(201, "POST", "/admin/apps", e.AdminToken, map[string]any{"owner": "octo", "name": name, "default_permissions": perms}).JSON(t, &app)
		var in struct {
			ID int64 `json:"id"`
		}
		e.Must(201, "POST", "/admin/apps/"+app.Slug+"/installations", e.AdminToken, map[string]any{"account": "octo"}).JSON(t, &in)
		inst, err := e.Store.R().InstallationByID(ctx, in.ID)
		if err != nil {
			t.Fatal(err)
		}
		var tok string
		if err := e.Store.Tx(ctx, func(tx store.Q) error {
			var err error
			tok, _, err = tx.CreateInstallationToken(ctx, inst, inst.Permissions, nil, e.Store.Now().Add(time.Hour))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return tok
	}
	admin := token("Policy Desk", map[string]string{"organization_administration": "write"})
	members := token("Member Desk", map[string]string{"members": "read"})
	e.Must(200, "GET", "/orgs/octo/actions/permissions/workflow", admin, nil)
	e.Must(204, "PUT", "/orgs/octo/actions/permissions/workflow", admin, map[string]any{"default_workflow_permissions": "write"})
	if r := e.Must(403, "GET", "/orgs/octo/actions/permissions/workflow", members, nil); !strings.Contains(string(r.Body), "Resource not accessible by integration") {
		t.Fatalf("without organization_administration: %s", r.Body)
	}
	e.Must(403, "GET", "/enterprises/hubd/actions/permissions", admin, nil)
}
