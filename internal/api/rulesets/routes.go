// Package rulesets is the REST adapter of repository rules (docs:
// repos/rules, orgs/rules) over the rulesets service: repository and
// organization rulesets, their history, and the rules that apply to a
// branch. It also gives the git transport its push check (PushCheck).
package rulesets

import (
	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/rulesets"
)

// API serves the rulesets routes.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, svc: svc.New(d.Store, d.Git)} }

// Service is the rulesets service.
func (a *API) Service() *svc.Service { return a.svc }

// What hubd does with rulesets, on every route.
const (
	enforced = "Branch and tag rulesets are enforced on git pushes (refused with GH013 and the reasons; git reports " +
		"\"pre-receive hook declined\" where GitHub says \"push declined due to repository rule violations\"), on ref writes " +
		"of the git refs API (422) and the contents API (409), and on pull request merges (pull_request approvals and code owner approvals, required " +
		"status checks by name, strict, update); evaluate rulesets are not evaluated (no rule suites). Bypass actors: " +
		"RepositoryRole (2 maintain, 4 write, 5 admin, or above), Team, User, Integration and OrganizationAdmin; " +
		"DeployKey is stored and never matches. required_signatures is stored and not enforced. Push rulesets (every ref; " +
		"file_path_restriction as fnmatch patterns matching a file or a folder above it, file_extension_restriction, " +
		"max_file_path_length, max_file_size) check every file the pushed commits add or change (merges against their " +
		"first parent), on pushes and API commits, with delegated bypass requests on pushes. Refused with 422: the " +
		"repository target, ref_name conditions on push rulesets, repository_id and repository_property conditions, rules other than creation, update, " +
		"deletion, required_linear_history, required_signatures, pull_request, required_status_checks, non_fast_forward, " +
		"the five pattern rules and the four push rules, require_last_push_approval, required_review_thread_resolution, " +
		"required_reviewers, allowed_merge_methods other than all three, and checks with an integration_id. " +
		"required_linear_history does not refuse merge commits made by pull request merges."
	noteBranchRules = "The rules of active rulesets whose conditions select the branch. " + enforced
)

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	repo := []string{"repo"}
	org := []string{"admin:org"}
	const r = "/repos/{owner}/{repo}/rulesets"
	const o = "/orgs/{org}/rulesets"
	const e = "/enterprises/{enterprise}/rulesets"
	ent := []string{"admin:enterprise"}
	return []rest.Route{
		{Method: "GET", Pattern: r, OperationID: "repos/get-repo-rulesets", Handler: a.list, Scopes: repo, Note: enforced},
		{Method: "POST", Pattern: r, OperationID: "repos/create-repo-ruleset", Handler: a.create, Scopes: repo, Note: enforced},
		{Method: "GET", Pattern: r + "/{ruleset_id}", OperationID: "repos/get-repo-ruleset", Handler: a.get, Scopes: repo, Note: enforced},
		{Method: "PUT", Pattern: r + "/{ruleset_id}", OperationID: "repos/update-repo-ruleset", Handler: a.update, Scopes: repo, Note: enforced},
		{Method: "DELETE", Pattern: r + "/{ruleset_id}", OperationID: "repos/delete-repo-ruleset", Handler: a.delete, Scopes: repo, Note: enforced},
		{Method: "GET", Pattern: r + "/{ruleset_id}/history", OperationID: "repos/get-repo-ruleset-history", Handler: a.history, Scopes: repo},
		{Method: "GET", Pattern: r + "/{ruleset_id}/history/{version_id}", OperationID: "repos/get-repo-ruleset-version", Handler: a.version, Scopes: repo},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/rules/branches/{branch...}", OperationID: "repos/get-branch-rules", Handler: a.branchRules,
			Scopes: repo, Note: noteBranchRules},

		{Method: "GET", Pattern: o, OperationID: "repos/get-org-rulesets", Handler: a.orgList, Scopes: org, Note: enforced},
		{Method: "POST", Pattern: o, OperationID: "repos/create-org-ruleset", Handler: a.orgCreate, Scopes: org, Note: enforced},
		{Method: "GET", Pattern: o + "/{ruleset_id}", OperationID: "repos/get-org-ruleset", Handler: a.orgGet, Scopes: org, Note: enforced},
		{Method: "PUT", Pattern: o + "/{ruleset_id}", OperationID: "repos/update-org-ruleset", Handler: a.orgUpdate, Scopes: org, Note: enforced},
		{Method: "DELETE", Pattern: o + "/{ruleset_id}", OperationID: "repos/delete-org-ruleset", Handler: a.orgDelete, Scopes: org, Note: enforced},
		{Method: "GET", Pattern: o + "/{ruleset_id}/history", OperationID: "orgs/get-org-ruleset-history", Handler: a.orgHistory, Scopes: org},
		{Method: "GET", Pattern: o + "/{ruleset_id}/history/{version_id}", OperationID: "orgs/get-org-ruleset-version", Handler: a.orgVersion, Scopes: org},

		{Method: "GET", Pattern: "/orgs/{org}/bypass-requests/push-rules", OperationID: "orgs/list-push-bypass-requests", Handler: a.orgBypassRequests,
			Scopes: org, Note: noteBypass},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/bypass-requests/push-rules", OperationID: "repos/list-repo-push-bypass-requests",
			Handler: a.repoBypassRequests, Scopes: repo, Note: noteBypass},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/bypass-requests/push-rules/{bypass_request_number}",
			OperationID: "repos/get-repo-push-bypass-request", Handler: a.repoBypassRequest, Scopes: repo, Note: noteBypass},

		{Method: "POST", Pattern: e, OperationID: "repos/create-enterprise-ruleset", Handler: a.enterpriseCreate, Scopes: ent, Note: noteEnterprise},
		{Method: "GET", Pattern: e + "/{ruleset_id}", OperationID: "repos/get-enterprise-ruleset", Handler: a.enterpriseGet, Scopes: ent, Note: noteEnterprise},
		{Method: "PUT", Pattern: e + "/{ruleset_id}", OperationID: "repos/update-enterprise-ruleset", Handler: a.enterpriseUpdate, Scopes: ent, Note: noteEnterprise},
		{Method: "DELETE", Pattern: e + "/{ruleset_id}", OperationID: "repos/delete-enterprise-ruleset", Handler: a.enterpriseDelete, Scopes: ent, Note: noteEnterprise},
	}
}
