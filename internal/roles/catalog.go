package roles

import (
	"time"

	"github.com/hubd/hubd/internal/model"
)

// Permission is a fine-grained permission a custom role may include.
type Permission struct {
	Name        string
	Description string
}

// Organization permissions that hubd enforces: they govern the role
// endpoints themselves.
const (
	ReadOrgRoles   = "read_organization_custom_org_role"
	WriteOrgRoles  = "write_organization_custom_org_role"
	ReadRepoRoles  = "read_organization_custom_repo_role"
	WriteRepoRoles = "write_organization_custom_repo_role"
)

// OrgPermissions are the organization permissions of custom organization
// roles (GET /orgs/{org}/organization-fine-grained-permissions). Only the
// four above change what hubd lets a role's holders do.
var OrgPermissions = []Permission{
	{ReadOrgRoles, "View organization roles"},
	{WriteOrgRoles, "Manage custom organization roles"},
	{ReadRepoRoles, "View custom repository roles"},
	{WriteRepoRoles, "Manage custom repository roles"},
	{"read_audit_logs", "View the organization audit log"},
	{"manage_organization_webhooks", "Manage organization webhooks"},
	{"manage_organization_oauth_application_policy", "Manage the organization's OAuth application policy"},
	{"manage_organization_ref_rules", "Manage organization rulesets"},
	{"read_organization_actions_usage_metrics", "View organization Actions usage metrics"},
	{"read_organization_api_insights", "View organization API insights"},
	{"write_organization_actions_settings", "Manage organization Actions policies"},
	{"write_organization_runners_and_runner_groups", "Manage organization runners and runner groups"},
	{"write_organization_actions_secrets", "Manage organization Actions secrets"},
	{"write_organization_actions_variables", "Manage organization Actions variables"},
	{"write_organization_network_configurations", "Manage organization hosted compute network configurations"},
}

// RepoPermissions are the repository permissions a custom repository role
// (or an organization role with a base role) may add to its base role
// (GET /orgs/{org}/repository-fine-grained-permissions). hubd records them;
// its checks follow the base role only.
var RepoPermissions = []Permission{
	{"add_assignee", "Assign or remove a user"},
	{"remove_assignee", "Remove an assigned user"},
	{"add_label", "Add or remove a label"},
	{"remove_label", "Remove a label"},
	{"close_issue", "Close an issue"},
	{"reopen_issue", "Reopen a closed issue"},
	{"delete_issue", "Delete an issue"},
	{"mark_as_duplicate", "Mark an issue or pull request as a duplicate"},
	{"set_milestone", "Set the milestone on an issue or pull request"},
	{"set_issue_type", "Set the type of an issue"},
	{"close_pull_request", "Close a pull request"},
	{"reopen_pull_request", "Reopen a closed pull request"},
	{"request_pr_review", "Request a pull request review"},
	{"manage_topics", "Manage topics"},
	{"edit_repo_metadata", "Edit repository metadata"},
	{"manage_settings_wiki", "Manage wiki settings"},
	{"manage_settings_projects", "Manage project settings"},
	{"manage_settings_merge_types", "Manage pull request merge types"},
	{"manage_settings_pages", "Manage GitHub Pages settings"},
	{"manage_webhooks", "Manage webhooks"},
	{"manage_deploy_keys", "Manage deploy keys"},
	{"edit_repo_protections", "Manage branch protections"},
	{"set_interaction_limits", "Set interaction limits"},
	{"set_social_preview", "Set the social preview"},
	{"push_protected_branch", "Push to protected branches"},
	{"bypass_branch_protection", "Bypass branch protections"},
	{"delete_alerts_code_scanning", "Delete code scanning results"},
	{"write_code_scanning", "Upload and dismiss code scanning results"},
	{"view_secret_scanning_alerts", "View secret scanning results"},
	{"resolve_secret_scanning_alerts", "Dismiss or reopen secret scanning results"},
	{"view_dependabot_alerts", "View Dependabot alerts"},
	{"resolve_dependabot_alerts", "Dismiss or reopen Dependabot alerts"},
}

var (
	orgPermSet  = permSet(OrgPermissions)
	repoPermSet = permSet(RepoPermissions)
)

func permSet(list []Permission) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, p := range list {
		m[p.Name] = true
	}
	return m
}

// predefinedAt is when GitHub introduced the predefined roles; their
// created_at and updated_at.
var predefinedAt = time.Date(2024, 7, 10, 0, 0, 0, 0, time.UTC)

func predefinedRole(id int64, name, desc, base string, perms ...string) *model.OrganizationRole {
	if perms == nil {
		perms = []string{}
	}
	return &model.OrganizationRole{ID: id, Name: name, Description: &desc, BaseRole: base, Permissions: perms,
		Source: model.RoleSourcePredefined, CreatedAt: predefinedAt, UpdatedAt: predefinedAt}
}

// Predefined are the organization roles every organization has. The ids
// of the all_repo_* roles are GitHub's (8132-8136); the others are hubd's
// own.
var Predefined = []*model.OrganizationRole{
	predefinedRole(8132, "all_repo_read", "Grants read access to all repositories in the organization.", "read"),
	predefinedRole(8133, "all_repo_triage", "Grants triage access to all repositories in the organization.", "triage"),
	predefinedRole(8134, "all_repo_write", "Grants write access to all repositories in the organization.", "write"),
	predefinedRole(8135, "all_repo_maintain", "Grants maintenance access to all repositories in the organization.", "maintain"),
	predefinedRole(8136, "all_repo_admin", "Grants admin access to all repositories in the organization.", "admin"),
	predefinedRole(8137, "security_manager", "Manages security policies, security alerts and security configurations for the organization and all its repositories.", "read",
		"delete_alerts_code_scanning", "write_code_scanning", "view_secret_scanning_alerts", "resolve_secret_scanning_alerts",
		"view_dependabot_alerts", "resolve_dependabot_alerts"),
	predefinedRole(8138, "ci_cd_admin", "Manages Actions policies, runners, runner groups, network configurations, secrets, variables and usage metrics for the organization.", "",
		"read_organization_actions_usage_metrics", "write_organization_actions_settings", "write_organization_runners_and_runner_groups",
		"write_organization_actions_secrets", "write_organization_actions_variables", "write_organization_network_configurations"),
}

// IsPredefined reports whether id is a predefined role's.
func IsPredefined(id int64) bool { return predefinedByID(id) != nil }

func predefinedByID(id int64) *model.OrganizationRole {
	for _, r := range Predefined {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// builtinRepoRoles are the names no custom repository role may take: the
// repository levels and their old names.
var builtinRepoRoles = map[string]bool{"read": true, "pull": true, "triage": true, "write": true, "push": true,
	"maintain": true, "admin": true, "none": true}
