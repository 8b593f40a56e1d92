// Package protection is the REST adapter of branch protection (docs:
// branches/branch-protection) over the protection service: it resolves the
// repository with the caller's permission (admin for everything), decodes,
// calls the service and converts.
package protection

import (
	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/codeowners"
	svc "github.com/hubd/hubd/internal/protection"
	"github.com/hubd/hubd/internal/rest"
)

// API serves the branch protection routes.
type API struct {
	d      *api.Deps
	svc    *svc.Service
	owners *codeowners.Service
}

// New makes the package.
func New(d *api.Deps) *API {
	s := svc.New(d.Store, d.Git)
	s.Jobs = d.Jobs
	return &API{d: d, svc: s, owners: codeowners.New(d.Store, d.Git)}
}

// Service is the protection service (the pulls service calls its
// MergeGate and HeadMoved).
func (a *API) Service() *svc.Service { return a.svc }

// enforced says what hubd does with a protection, on every route.
const enforced = "Protection is per exact branch name (no wildcard patterns). Enforced on pull request merges: required status " +
	"checks and check runs by name (strict: the head must contain the base), required approving reviews (latest review per user " +
	"with write access; a change request by one blocks), require_code_owner_reviews (an approval, other than the author's, by an " +
	"owner of each owned changed file in the base branch's CODEOWNERS: the user, or a member of the owning team), " +
	"bypass_pull_request_allowances (who may merge without the review requirement), dismissal of stale approvals when the head " +
	"moves, and enforce_admins (otherwise admins bypass). dismissal_restrictions limit who may dismiss reviews. restrictions " +
	"(users, teams, apps; organization repositories only) limit who may move the branch: git pushes (GH006, \"protected branch " +
	"hook declined\"), git refs API (422) and contents API (409) writes, and merges (405). Other git pushes to a protected branch " +
	"(forced, deletions) are not blocked, and allow_force_pushes/allow_deletions are only stored. Refused with 422 naming the " +
	"field: checks with an app_id other than -1, require_last_push_approval, required_linear_history, " +
	"required_conversation_resolution, block_creations, lock_branch and allow_fork_syncing set to true."

// ownersNote is what hubd checks of a CODEOWNERS file's owners.
const ownersNote = "Unknown owner: users and email addresses (matched on an account's email) need write access to the repository; " +
	"teams need a write grant of their own on it (a parent team's grant is not followed)."

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	scopes := []string{"repo"}
	p := "/repos/{owner}/{repo}/branches/{branch}/protection"
	return []rest.Route{
		{Method: "GET", Pattern: p, OperationID: "repos/get-branch-protection", Handler: a.get, Scopes: scopes, Note: enforced},
		{Method: "PUT", Pattern: p, OperationID: "repos/update-branch-protection", Handler: a.update, Scopes: scopes, Note: enforced},
		{Method: "DELETE", Pattern: p, OperationID: "repos/delete-branch-protection", Handler: a.remove, Scopes: scopes, Note: enforced},

		{Method: "GET", Pattern: p + "/required_status_checks", OperationID: "repos/get-status-checks-protection", Handler: a.getChecks, Scopes: scopes, Note: enforced},
		{Method: "PATCH", Pattern: p + "/required_status_checks", OperationID: "repos/update-status-check-protection", Handler: a.updateChecks, Scopes: scopes, Note: enforced},
		{Method: "DELETE", Pattern: p + "/required_status_checks", OperationID: "repos/remove-status-check-protection", Handler: a.removeChecks, Scopes: scopes, Note: enforced},

		{Method: "GET", Pattern: p + "/required_status_checks/contexts", OperationID: "repos/get-all-status-check-contexts", Handler: a.contexts(""), Scopes: scopes, Note: enforced},
		{Method: "POST", Pattern: p + "/required_status_checks/contexts", OperationID: "repos/add-status-check-contexts", Handler: a.contexts("add"), Scopes: scopes, Note: enforced},
		{Method: "PUT", Pattern: p + "/required_status_checks/contexts", OperationID: "repos/set-status-check-contexts", Handler: a.contexts("set"), Scopes: scopes, Note: enforced},
		{Method: "DELETE", Pattern: p + "/required_status_checks/contexts", OperationID: "repos/remove-status-check-contexts", Handler: a.contexts("remove"), Scopes: scopes, Note: enforced},

		{Method: "GET", Pattern: p + "/enforce_admins", OperationID: "repos/get-admin-branch-protection", Handler: a.getAdmins, Scopes: scopes, Note: enforced},
		{Method: "POST", Pattern: p + "/enforce_admins", OperationID: "repos/set-admin-branch-protection", Handler: a.setAdmins(true), Scopes: scopes, Note: enforced},
		{Method: "DELETE", Pattern: p + "/enforce_admins", OperationID: "repos/delete-admin-branch-protection", Handler: a.setAdmins(false), Scopes: scopes, Note: enforced},

		{Method: "GET", Pattern: p + "/required_pull_request_reviews", OperationID: "repos/get-pull-request-review-protection", Handler: a.getReviews, Scopes: scopes, Note: enforced},
		{Method: "PATCH", Pattern: p + "/required_pull_request_reviews", OperationID: "repos/update-pull-request-review-protection", Handler: a.updateReviews, Scopes: scopes, Note: enforced},
		{Method: "DELETE", Pattern: p + "/required_pull_request_reviews", OperationID: "repos/delete-pull-request-review-protection", Handler: a.removeReviews, Scopes: scopes, Note: enforced},

		{Method: "GET", Pattern: p + "/restrictions", OperationID: "repos/get-access-restrictions", Handler: a.getRestrictions, Scopes: scopes, Note: enforced},
		{Method: "DELETE", Pattern: p + "/restrictions", OperationID: "repos/delete-access-restrictions", Handler: a.removeRestrictions, Scopes: scopes, Note: enforced},
		{Method: "GET", Pattern: p + "/restrictions/users", OperationID: "repos/get-users-with-access-to-protected-branch", Handler: a.restrictionList("users", ""), Scopes: scopes, Note: enforced},
		{Method: "POST", Pattern: p + "/restrictions/users", OperationID: "repos/add-user-access-restrictions", Handler: a.restrictionList("users", "add"), Scopes: scopes, Note: enforced},
		{Method: "PUT", Pattern: p + "/restrictions/users", OperationID: "repos/set-user-access-restrictions", Handler: a.restrictionList("users", "set"), Scopes: scopes, Note: enforced},
		{Method: "DELETE", Pattern: p + "/restrictions/users", OperationID: "repos/remove-user-access-restrictions", Handler: a.restrictionList("users", "remove"), Scopes: scopes, Note: enforced},
		{Method: "GET", Pattern: p + "/restrictions/teams", OperationID: "repos/get-teams-with-access-to-protected-branch", Handler: a.restrictionList("teams", ""), Scopes: scopes, Note: enforced},
		{Method: "POST", Pattern: p + "/restrictions/teams", OperationID: "repos/add-team-access-restrictions", Handler: a.restrictionList("teams", "add"), Scopes: scopes, Note: enforced},
		{Method: "PUT", Pattern: p + "/restrictions/teams", OperationID: "repos/set-team-access-restrictions", Handler: a.restrictionList("teams", "set"), Scopes: scopes, Note: enforced},
		{Method: "DELETE", Pattern: p + "/restrictions/teams", OperationID: "repos/remove-team-access-restrictions", Handler: a.restrictionList("teams", "remove"), Scopes: scopes, Note: enforced},
		{Method: "GET", Pattern: p + "/restrictions/apps", OperationID: "repos/get-apps-with-access-to-protected-branch", Handler: a.restrictionList("apps", ""), Scopes: scopes, Note: enforced},
		{Method: "POST", Pattern: p + "/restrictions/apps", OperationID: "repos/add-app-access-restrictions", Handler: a.restrictionList("apps", "add"), Scopes: scopes, Note: enforced},
		{Method: "PUT", Pattern: p + "/restrictions/apps", OperationID: "repos/set-app-access-restrictions", Handler: a.restrictionList("apps", "set"), Scopes: scopes, Note: enforced},
		{Method: "DELETE", Pattern: p + "/restrictions/apps", OperationID: "repos/remove-app-access-restrictions", Handler: a.restrictionList("apps", "remove"), Scopes: scopes, Note: enforced},

		{Method: "GET", Pattern: "/repos/{owner}/{repo}/codeowners/errors", OperationID: "repos/codeowners-errors", Handler: a.codeownersErrors, Scopes: scopes, Note: ownersNote},
	}
}
