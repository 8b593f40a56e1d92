package authz

import (
	"strings"
	"sync"
)

// The fine-grained permission each operation needs, for GitHub App
// installation tokens (and, later, fine-grained personal access tokens and
// user access tokens), after GitHub's "Permissions required for GitHub
// Apps" pages. A rule is written as
//
//	"issues"                        issues, read for GET and HEAD, write otherwise
//	"issues|pull_requests"          either of them (GitHub accepts both)
//	"contents:write"                at that level whatever the method
//	"administration:write+contents:read"  both
//	""                              no permission needed
//
// Rules are looked up by operationId, then by "category/subcategory", then
// by category; an operation none of them names is refused to such tokens.
var permissionRules = map[string]string{
	// Categories and subcategories.
	"enterprise-admin/organization-installations":                      "enterprise_organization_installations",
	"enterprise-apps/installable-organization-accessible-repositories": "enterprise_organization_installation_repositories:read",
	"enterprise-apps/organization-installation-repositories":           "enterprise_organization_installation_repositories",
	"enterprise-apps/change-installation-repository-access-selection":  "enterprise_organization_installation_repositories",
	"enterprise-apps/grant-repository-access-to-installation":          "enterprise_organization_installation_repositories",
	"enterprise-apps/remove-repository-access-to-installation":         "enterprise_organization_installation_repositories",
	"issues": "issues",
	// The enterprise's own operations an app installed on the enterprise
	// reaches (deps.RequireEnterpriseOwner): enterprise rulesets, roles,
	// licensing, custom agents and the innersource advisory sync take the
	// enterprise permission "Enterprise administration" (read for GET,
	// write otherwise).
	"repos/create-enterprise-ruleset":                                       "enterprise_administration",
	"repos/get-enterprise-ruleset":                                          "enterprise_administration",
	"repos/update-enterprise-ruleset":                                       "enterprise_administration",
	"repos/delete-enterprise-ruleset":                                       "enterprise_administration",
	"enterprise-admin/list-enterprise-roles":                                "enterprise_administration",
	"enterprise-admin/get-enterprise-role":                                  "enterprise_administration",
	"enterprise-admin/list-enterprise-role-users":                           "enterprise_administration",
	"enterprise-admin/list-enterprise-role-teams":                           "enterprise_administration",
	"enterprise-admin/assign-enterprise-role-to-user":                       "enterprise_administration",
	"enterprise-admin/remove-enterprise-user-role-assignment":               "enterprise_administration",
	"enterprise-admin/remove-all-enterprise-roles-from-user":                "enterprise_administration",
	"enterprise-admin/assign-team-to-enterprise-role":                       "enterprise_administration",
	"enterprise-admin/revoke-enterprise-role-team":                          "enterprise_administration",
	"enterprise-admin/revoke-all-enterprise-roles-team":                     "enterprise_administration",
	"billing/get-github-advanced-security-billing-ghe":                      "enterprise_administration",
	"billing/get-github-advanced-security-billing-org":                      "organization_administration:read",
	"enterprise-admin/get-consumed-licenses":                                "enterprise_administration",
	"enterprise-admin/get-license-sync-status":                              "enterprise_administration",
	"enterprise-admin/list-vss":                                             "enterprise_administration",
	"enterprise-admin/update-vss-manual-match":                              "enterprise_administration",
	"enterprise-admin/delete-vss-manual-match":                              "enterprise_administration",
	"copilot/get-copilot-custom-agents-for-enterprise":                      "enterprise_administration",
	"copilot/get-copilot-custom-agents-source-for-enterprise":               "enterprise_administration",
	"copilot/set-copilot-custom-agents-source-for-enterprise":               "enterprise_administration",
	"copilot/delete-copilot-custom-agents-source-for-enterprise":            "enterprise_administration",
	"enterprise-admin/sync-enterprise-innersource-vulnerabilities":          "enterprise_administration",
	"enterprise-admin/get-enterprise-innersource-vulnerability-sync-status": "enterprise_administration",
	// The audit log: an organization's needs its administration (read);
	// the enterprise's and its streams, Enterprise administration.
	"orgs/get-audit-log":                        "organization_administration:read",
	"enterprise-admin/get-audit-log":            "enterprise_administration:read",
	"enterprise-admin/get-audit-log-stream-key": "enterprise_administration",
	"enterprise-admin/get-audit-log-streams":    "enterprise_administration",
	"enterprise-admin/create-audit-log-stream":  "enterprise_administration",
	"enterprise-admin/get-one-audit-log-stream": "enterprise_administration",
	"enterprise-admin/update-audit-log-stream":  "enterprise_administration",
	"enterprise-admin/delete-audit-log-stream":  "enterprise_administration",
	"issues/assignees":                          "issues|pull_requests",
	"issues/comments":                           "issues|pull_requests",
	"issues/events":                             "issues|pull_requests",
	"issues/labels":                             "issues|pull_requests",
	"issues/milestones":                         "issues|pull_requests",
	"issues/timeline":                           "issues|pull_requests",
	"pulls":                                     "pull_requests",
	"checks":                                    "checks",
	"actions":                                   "actions",
	"commits/comments":                          "contents",
	"commits/commits":                           "contents:read",
	"commits/statuses":                          "statuses",
	"git":                                       "contents",
	"repos/contents":                            "contents",
	"repos/autolinks":                           "administration",
	// Repository security advisories; private vulnerability reporting is
	// a repository setting.
	"security-advisories/repository-advisories":          "repository_advisories",
	"security-advisories/list-org-repository-advisories": "repository_advisories:read",
	"repos/check-private-vulnerability-reporting":        "administration:read",
	"repos/enable-private-vulnerability-reporting":       "administration:write",
	"repos/disable-private-vulnerability-reporting":      "administration:write",
	// Artifact attestations and artifact metadata.
	"repos/create-attestation":                    "attestations:write",
	"repos/list-attestations":                     "attestations:read",
	"orgs/list-attestations":                      "attestations:read",
	"orgs/list-attestations-bulk":                 "attestations:read",
	"orgs/list-attestation-repositories":          "attestations:read",
	"orgs/delete-attestations-bulk":               "attestations:write",
	"orgs/delete-attestations-by-subject-digest":  "attestations:write",
	"orgs/delete-attestations-by-id":              "attestations:write",
	"users/list-attestations":                     "attestations:read",
	"users/list-attestations-bulk":                "attestations:read",
	"users/delete-attestations-bulk":              "attestations:write",
	"users/delete-attestations-by-subject-digest": "attestations:write",
	"users/delete-attestations-by-id":             "attestations:write",
	"hubd/get-attestation-bundle":                 "attestations:read",
	"orgs/create-artifact-storage-record":         "artifact_metadata:write",
	"orgs/list-artifact-storage-records":          "artifact_metadata:read",
	"orgs/create-artifact-deployment-record":      "artifact_metadata:write",
	"orgs/set-cluster-deployment-records":         "artifact_metadata:write",
	"orgs/list-artifact-deployment-records":       "artifact_metadata:read",
	"repos/webhooks":                              "repository_hooks",
	"releases":                                    "contents",
	"repos/create-dispatch-event":                 "contents:write",
	"branches/branches":                           "metadata:read",
	"branches/branch-protection":                  "administration",
	"collaborators/collaborators":                 "metadata:read",
	"collaborators/invitations":                   "administration",
	"interactions/repos":                          "administration",
	"interactions/orgs":                           "organization_administration",
	"migrations/orgs":                             "organization_administration",
	"metrics/community":                           "metadata:read",
	"metrics/statistics":                          "metadata:read",
	"metrics/traffic":                             "administration:read",
	"reactions":                                   "issues|pull_requests",
	"licenses":                                    "",
	"meta":                                        "",
	"markdown":                                    "",
	"gitignore":                                   "",
	"rate-limit":                                  "",
	"search":                                      "",
	"emojis":                                      "",
	"codes-of-conduct":                            "",
	"users/users":                                 "",
	"orgs/orgs":                                   "",
	"orgs/members":                                "members",
	"orgs/outside-collaborators":                  "members",
	"orgs/blocking":                               "organization_user_blocking",
	"orgs/custom-roles":                           "organization_custom_roles",
	"orgs/organization-roles":                     "organization_custom_org_roles",
	"teams":                                       "members",
	"apps":                                        "",
	"repos/rules":                                 "administration",
	"orgs/rules":                                  "organization_administration",
	"activity/starring":                           "metadata:read",
	"activity/watching":                           "metadata:read",
	"activity/notifications":                      "", // user access tokens only (the catalogue's badges)
	"gists":                                       "", // user-level: internal/gists checks the "gists" user permission
	"users/blocking":                              "blocking",
	"users/keys":                                  "git_ssh_keys",
	"deploy-keys":                                 "administration",
	// A user's public SSH keys are public.
	"users/list-public-keys-for-user": "",
	"interactions/user":               "interaction_limits",
	"orgs/webhooks":                   "organization_hooks",
	"orgs/api-insights":               "organization_api_insights",
	"deployments/environments":        "administration",
	"deployments/branch-policies":     "administration",
	"actions/variables":               "actions_variables",
	"agents/variables":                "actions_variables",
	"users/gpg-keys":                  "gpg_keys",
	"users/ssh-signing-keys":          "ssh_signing_keys",
	// Secrets (internal/secrets): a repository's need secrets, an
	// organization's organization_secrets.
	// An environment's secrets need environments (GitHub's docs).
	"actions/list-environment-secrets":             "environments",
	"actions/get-environment-public-key":           "environments",
	"actions/get-environment-secret":               "environments",
	"actions/create-or-update-environment-secret":  "environments",
	"actions/delete-environment-secret":            "environments",
	"actions/secrets":                              "secrets",
	"agents/secrets":                               "secrets",
	"actions/list-org-secrets":                     "organization_secrets",
	"actions/get-org-public-key":                   "organization_secrets",
	"actions/get-org-secret":                       "organization_secrets",
	"actions/create-or-update-org-secret":          "organization_secrets",
	"actions/delete-org-secret":                    "organization_secrets",
	"actions/list-selected-repos-for-org-secret":   "organization_secrets",
	"actions/set-selected-repos-for-org-secret":    "organization_secrets",
	"actions/add-selected-repo-to-org-secret":      "organization_secrets",
	"actions/remove-selected-repo-from-org-secret": "organization_secrets",
	"agents/list-org-secrets":                      "organization_secrets",
	"agents/get-org-public-key":                    "organization_secrets",
	"agents/get-org-secret":                        "organization_secrets",
	"agents/create-or-update-org-secret":           "organization_secrets",
	"agents/delete-org-secret":                     "organization_secrets",
	"agents/list-selected-repos-for-org-secret":    "organization_secrets",
	"agents/set-selected-repos-for-org-secret":     "organization_secrets",
	"agents/add-selected-repo-to-org-secret":       "organization_secrets",
	"agents/remove-selected-repo-from-org-secret":  "organization_secrets",

	// Codespaces secrets (internal/codespaces/secrets): a user's own need
	// codespaces_user_secrets, an organization's
	// organization_codespaces_secrets, a repository's codespaces_secrets;
	// the organization's access policy organization_codespaces_settings.
	"codespaces/list-secrets-for-authenticated-user":                 "codespaces_user_secrets",
	"codespaces/get-public-key-for-authenticated-user":               "codespaces_user_secrets",
	"codespaces/get-secret-for-authenticated-user":                   "codespaces_user_secrets",
	"codespaces/create-or-update-secret-for-authenticated-user":      "codespaces_user_secrets",
	"codespaces/delete-secret-for-authenticated-user":                "codespaces_user_secrets",
	"codespaces/list-repositories-for-secret-for-authenticated-user": "codespaces_user_secrets",
	"codespaces/set-repositories-for-secret-for-authenticated-user":  "codespaces_user_secrets",
	"codespaces/add-repository-for-secret-for-authenticated-user":    "codespaces_user_secrets",
	"codespaces/remove-repository-for-secret-for-authenticated-user": "codespaces_user_secrets",
	"codespaces/list-org-secrets":                                    "organization_codespaces_secrets",
	"codespaces/get-org-public-key":                                  "organization_codespaces_secrets",
	"codespaces/get-org-secret":                                      "organization_codespaces_secrets",
	"codespaces/create-or-update-org-secret":                         "organization_codespaces_secrets",
	"codespaces/delete-org-secret":                                   "organization_codespaces_secrets",
	"codespaces/list-selected-repos-for-org-secret":                  "organization_codespaces_secrets",
	"codespaces/set-selected-repos-for-org-secret":                   "organization_codespaces_secrets",
	"codespaces/add-selected-repo-to-org-secret":                     "organization_codespaces_secrets",
	"codespaces/remove-selected-repo-from-org-secret":                "organization_codespaces_secrets",
	"codespaces/list-repo-secrets":                                   "codespaces_secrets",
	"codespaces/get-repo-public-key":                                 "codespaces_secrets",
	"codespaces/get-repo-secret":                                     "codespaces_secrets",
	"codespaces/create-or-update-repo-secret":                        "codespaces_secrets",
	"codespaces/delete-repo-secret":                                  "codespaces_secrets",
	"codespaces/set-codespaces-access":                               "organization_codespaces_settings:write",
	"codespaces/set-codespaces-access-users":                         "organization_codespaces_settings:write",
	"codespaces/delete-codespaces-access-users":                      "organization_codespaces_settings:write",

	// Operations whose rule differs from their subcategory's.
	// Actions permissions and OIDC (internal/api/actions/permissions.go,
	// oidc.go): a repository's need administration (its OIDC subject
	// template, actions), an organization's organization_administration;
	// the enterprise's take no fine-grained token (classic tokens only).
	"actions/permissions": "administration",
	"oidc":                "organization_administration",
	"actions/get-github-actions-permissions-organization":                    "organization_administration",
	"actions/set-github-actions-permissions-organization":                    "organization_administration",
	"actions/get-artifact-and-log-retention-settings-organization":           "organization_administration",
	"actions/set-artifact-and-log-retention-settings-organization":           "organization_administration",
	"actions/get-fork-pr-contributor-approval-permissions-organization":      "organization_administration",
	"actions/set-fork-pr-contributor-approval-permissions-organization":      "organization_administration",
	"actions/get-private-repo-fork-pr-workflows-settings-organization":       "organization_administration",
	"actions/set-private-repo-fork-pr-workflows-settings-organization":       "organization_administration",
	"actions/list-selected-repositories-enabled-github-actions-organization": "organization_administration",
	"actions/set-selected-repositories-enabled-github-actions-organization":  "organization_administration",
	"actions/enable-selected-repository-github-actions-organization":         "organization_administration",
	"actions/disable-selected-repository-github-actions-organization":        "organization_administration",
	"actions/get-allowed-actions-organization":                               "organization_administration",
	"actions/set-allowed-actions-organization":                               "organization_administration",
	"actions/get-self-hosted-runners-permissions-organization":               "organization_administration",
	"actions/set-self-hosted-runners-permissions-organization":               "organization_administration",
	"actions/list-selected-repositories-self-hosted-runners-organization":    "organization_administration",
	"actions/set-selected-repositories-self-hosted-runners-organization":     "organization_administration",
	"actions/enable-selected-repository-self-hosted-runners-organization":    "organization_administration",
	"actions/disable-selected-repository-self-hosted-runners-organization":   "organization_administration",
	"actions/get-github-actions-default-workflow-permissions-organization":   "organization_administration",
	"actions/set-github-actions-default-workflow-permissions-organization":   "organization_administration",
	"hubd/actions-oidc-configuration":                                        "",
	"hubd/actions-oidc-jwks":                                                 "",
	"hubd/actions-oidc-enterprise-configuration":                             "",
	"hubd/actions-oidc-enterprise-jwks":                                      "",
	"hubd/actions-oidc-token":                                                "",
	"repos/get":                                                              "metadata:read",
	"repos/list-for-org":                                                     "metadata:read",
	"repos/list-for-user":                                                    "metadata:read",
	"repos/list-for-authenticated-user":                                      "metadata:read",
	"repos/list-public":                                                      "metadata:read",
	"repos/get-all-topics":                                                   "metadata:read",
	"repos/list-languages":                                                   "metadata:read",
	"repos/list-tags":                                                        "metadata:read",
	"repos/list-teams":                                                       "metadata:read",
	"repos/list-forks":                                                       "metadata:read",
	"repos/create-fork":                                                      "administration:write+contents:read",
	"repos/create-using-template":                                            "administration:write+contents:read",
	"repos/merge-upstream":                                                   "contents:write",
	"repos/create-in-org":                                                    "administration:write",
	"repos/update":                                                           "administration:write",
	"repos/delete":                                                           "administration:write",
	"repos/transfer":                                                         "administration:write",
	"repos/replace-all-topics":                                               "administration:write",
	"repos/get-readme":                                                       "contents:read",
	"repos/get-readme-in-directory":                                          "contents:read",
	"repos/download-tarball-archive":                                         "contents:read",
	"repos/download-zipball-archive":                                         "contents:read",
	"repos/rename-branch":                                                    "administration:write",
	"repos/add-collaborator":                                                 "administration:write",
	"repos/remove-collaborator":                                              "administration:write",
	"repos/merge":                                                            "contents:write",
	"licenses/get-for-repo":                                                  "contents:read|metadata:read",
	"pulls/merge":                                                            "contents:write",
	"pulls/merge-async":                                                      "contents:write",
	"pulls/check-if-merged":                                                  "pull_requests:read",
	"issues/list-for-repo":                                                   "issues:read",
	"reactions/list-for-commit-comment":                                      "contents:read",
	"reactions/create-for-commit-comment":                                    "contents:write",
	"reactions/delete-for-commit-comment":                                    "contents:write",
	"reactions/list-for-pull-request-review-comment":                         "pull_requests:read",
	"reactions/create-for-pull-request-review-comment":                       "pull_requests:write",
	"reactions/delete-for-pull-request-comment":                              "pull_requests:write",
	"orgs/update":                                     "organization_administration:write",
	"orgs/list-issue-types":                           "organization_administration:read", // issue types: org owners' settings
	"orgs/create-issue-type":                          "organization_administration:write",
	"orgs/update-issue-type":                          "organization_administration:write",
	"orgs/delete-issue-type":                          "organization_administration:write",
	"repos/list-issue-types":                          "metadata:read",
	"orgs/get-membership-for-authenticated-user":      "members:read",
	"orgs/list-memberships-for-authenticated-user":    "members:read",
	"orgs/update-membership-for-authenticated-user":   "members:write",
	"orgs/list-repo-fine-grained-permissions":         "organization_custom_roles:read",
	"orgs/list-organization-fine-grained-permissions": "organization_custom_org_roles:read",
	"orgs/assign-team-to-org-role":                    "members:write",
	"orgs/assign-user-to-org-role":                    "members:write",
	"orgs/revoke-all-org-roles-team":                  "members:write",
	"orgs/revoke-all-org-roles-user":                  "members:write",
	"orgs/revoke-org-role-team":                       "members:write",
	"orgs/revoke-org-role-user":                       "members:write",
	"orgs/list-org-role-teams":                        "members:read",
	"orgs/list-org-role-users":                        "members:read",
	"teams/add-or-update-repo-permissions-in-org":     "administration:write+members:write",
	"teams/add-or-update-repo-permissions-legacy":     "administration:write+members:write",
	"teams/remove-repo-in-org":                        "administration:write+members:write",
	"teams/remove-repo-legacy":                        "administration:write+members:write",
	"teams/check-permissions-for-repo-in-org":         "metadata:read+members:read",
	"teams/check-permissions-for-repo-legacy":         "metadata:read+members:read",
	"teams/list-repos-in-org":                         "metadata:read+members:read",
	"teams/list-repos-legacy":                         "metadata:read+members:read",
	"orgs/list-app-installations":                     "organization_administration:read",
	"repos/get-repo-rulesets":                         "metadata:read",
	"repos/get-repo-ruleset":                          "metadata:read",
	"repos/get-branch-rules":                          "metadata:read",
	"activity/get-feeds":                              "", // no permission (GitHub); private feeds only to classic tokens
	"users/list-gpg-keys-for-user":                    "", // public keys of any user
	"users/list-ssh-signing-keys-for-user":            "",
	"activity/list-repos-starred-by-user":             "",
	"activity/list-repos-watched-by-user":             "",
	"repos/create-for-authenticated-user":             "administration:write",
	"orgs/list-pat-grant-requests":                    "organization_personal_access_token_requests:read",
	"orgs/review-pat-grant-requests-in-bulk":          "organization_personal_access_token_requests:write",
	"orgs/review-pat-grant-request":                   "organization_personal_access_token_requests:write",
	"orgs/list-pat-grant-request-repositories":        "organization_personal_access_token_requests:read",
	"orgs/list-pat-grants":                            "organization_personal_access_tokens:read",
	"orgs/update-pat-accesses":                        "organization_personal_access_tokens:write",
	"orgs/update-pat-access":                          "organization_personal_access_tokens:write",
	"orgs/list-pat-grant-repositories":                "organization_personal_access_tokens:read",

	"repos/get-all-environments":            "actions:read",
	"repos/get-environment":                 "actions:read",
	"repos/list-deployment-branch-policies": "actions:read",
	"repos/get-deployment-branch-policy":    "actions:read",
	// Reviewers review pending deployments with read access (GitHub).
	"actions/review-pending-deployments-for-run":     "deployments:read",
	"actions/list-org-variables":                     "organization_actions_variables",
	"actions/create-org-variable":                    "organization_actions_variables",
	"actions/get-org-variable":                       "organization_actions_variables",
	"actions/update-org-variable":                    "organization_actions_variables",
	"actions/delete-org-variable":                    "organization_actions_variables",
	"actions/list-selected-repos-for-org-variable":   "organization_actions_variables",
	"actions/set-selected-repos-for-org-variable":    "organization_actions_variables",
	"actions/add-selected-repo-to-org-variable":      "organization_actions_variables",
	"actions/remove-selected-repo-from-org-variable": "organization_actions_variables",
	"actions/list-repo-organization-variables":       "actions_variables:read",
	"agents/list-org-variables":                      "organization_actions_variables",
	"agents/create-org-variable":                     "organization_actions_variables",
	"agents/get-org-variable":                        "organization_actions_variables",
	"agents/update-org-variable":                     "organization_actions_variables",
	"agents/delete-org-variable":                     "organization_actions_variables",
	"agents/list-selected-repos-for-org-variable":    "organization_actions_variables",
	"agents/set-selected-repos-for-org-variable":     "organization_actions_variables",
	"agents/add-selected-repo-to-org-variable":       "organization_actions_variables",
	"agents/remove-selected-repo-from-org-variable":  "organization_actions_variables",
	"agents/list-repo-organization-variables":        "actions_variables:read",
	"actions/list-environment-variables":             "environments",
	"actions/create-environment-variable":            "environments",
	"actions/get-environment-variable":               "environments",
	"actions/update-environment-variable":            "environments",
	"actions/delete-environment-variable":            "environments",

	// hubd's own routes (not in GitHub's description).
	"hubd/list-refs":                       "contents:read",
	"hubd/get-refs-legacy":                 "contents:read",
	"hubd/get-root-content":                "contents:read",
	"hubd/download-tarball-default-branch": "contents:read",
	"hubd/download-zipball-default-branch": "contents:read",
	"hubd/raw":                             "contents:read",
	"hubd/codeload":                        "contents:read",
	"hubd/release-download":                "contents:read",
	"hubd/avatar":                          "",
	"hubd/catalogue":                       "",
	"hubd/catalogue-json":                  "",
	// GraphQL: every token kind may post documents; graphqlRules below
	// checks each field and mutation.
	"graphql": "",
}

// graphqlRules is what a GraphQL field (parent type "." field; "Mutation."
// for a mutation; "Type.*" for every field of an object type without a
// rule of its own) needs of fine-grained permissions, written as the REST
// rules are (a level left out is read for a query field, write for a
// mutation) and kept consistent with the REST twin of each: a field no
// rule names needs no permission beyond seeing its repository, which
// RepoPermission already narrows. The type rules hold wherever an object
// is reached (node(id:), search, a mutation's payload), so an issue
// needs issues and a pull request pull_requests even through
// issueOrPullRequest.
var graphqlRules = map[string]string{
	"Repository.issues":                        "issues:read",          // issues/list-for-repo
	"Repository.issue":                         "issues:read",          // issues/get
	"Repository.issueOrPullRequest":            "issues|pull_requests", // issues/get answers either
	"Repository.pullRequests":                  "pull_requests:read",
	"Repository.pullRequest":                   "pull_requests:read",
	"Repository.labels":                        "issues|pull_requests", // issues/labels
	"Repository.label":                         "issues|pull_requests",
	"Repository.milestones":                    "issues|pull_requests", // issues/milestones
	"Repository.releases":                      "contents:read",        // releases
	"Repository.release":                       "contents:read",
	"Repository.latestRelease":                 "contents:read",
	"Repository.rulesets":                      "metadata:read", // repos/get-repo-rulesets
	"Repository.object":                        "contents:read", // git/get-blob, git/get-tree, git/get-commit
	"Repository.refs":                          "contents:read", // git/list-matching-refs
	"Repository.ref":                           "contents:read", // git/get-ref
	"Ref.target":                               "contents:read",
	"Blob.*":                                   "contents:read",
	"Tree.*":                                   "contents:read",
	"TreeEntry.*":                              "contents:read",
	"Tag.*":                                    "contents:read",      // git/get-tag
	"Issue.*":                                  "issues:read",        // issues/get
	"PullRequest.*":                            "pull_requests:read", // pulls/get
	"Release.*":                                "contents:read",      // repos/get-release
	"Discussion.*":                             "discussions:read",
	"DiscussionComment.*":                      "discussions:read",
	"DiscussionCategory.*":                     "discussions:read",
	"Repository.discussions":                   "discussions:read",
	"Repository.discussion":                    "discussions:read",
	"Repository.discussionCategories":          "discussions:read",
	"Repository.discussionCategory":            "discussions:read",
	"Mutation.createDiscussion":                "discussions",
	"Mutation.updateDiscussion":                "discussions",
	"Mutation.deleteDiscussion":                "discussions",
	"Mutation.closeDiscussion":                 "discussions",
	"Mutation.reopenDiscussion":                "discussions",
	"Mutation.addDiscussionComment":            "discussions",
	"Mutation.updateDiscussionComment":         "discussions",
	"Mutation.deleteDiscussionComment":         "discussions",
	"Mutation.markDiscussionCommentAsAnswer":   "discussions",
	"Mutation.unmarkDiscussionCommentAsAnswer": "discussions",
	"Mutation.addUpvote":                       "discussions",
	"Mutation.removeUpvote":                    "discussions",
	// Labels and locks take the permission of what they act on (GitHub's
	// discussions permission covers "discussions and related comments and
	// labels"): the resolver checks the one of its target once it knows it.
	"Mutation.addLabelsToLabelable(Discussion)":      "discussions",
	"Mutation.removeLabelsFromLabelable(Discussion)": "discussions",
	"Mutation.lockLockable(Discussion)":              "discussions",
	"Mutation.unlockLockable(Discussion)":            "discussions",
	"Mutation.addLabelsToLabelable(Issue)":           "issues|pull_requests",
	"Mutation.removeLabelsFromLabelable(Issue)":      "issues|pull_requests",
	"Mutation.lockLockable(Issue)":                   "issues|pull_requests",
	"Mutation.unlockLockable(Issue)":                 "issues|pull_requests",
	"Commit.checkSuites":                             "checks:read", // checks/list-suites-for-ref
	"CheckSuite.checkRuns":                           "checks:read", // checks/list-for-suite

	"Mutation.createIssue":                   "issues",
	"Mutation.updateIssue":                   "issues",
	"Mutation.closeIssue":                    "issues",
	"Mutation.reopenIssue":                   "issues",
	"Mutation.deleteIssue":                   "issues",
	"Mutation.transferIssue":                 "issues",
	"Mutation.addComment":                    "issues|pull_requests",             // issues/comments
	"Mutation.updateIssueComment":            "issues|pull_requests",             // issues/update-comment
	"Mutation.lockLockable":                  "issues|pull_requests|discussions", // issues/lock
	"Mutation.unlockLockable":                "issues|pull_requests|discussions", // issues/unlock
	"Mutation.addSubIssue":                   "issues",                           // issues/add-sub-issue
	"Mutation.removeSubIssue":                "issues",
	"Mutation.reprioritizeSubIssue":          "issues",
	"Mutation.addBlockedBy":                  "issues", // issues/add-blocked-by-dependency
	"Mutation.pinIssue":                      "issues",
	"Mutation.unpinIssue":                    "issues",
	"Mutation.updateIssueIssueType":          "issues",
	"Mutation.removeBlockedBy":               "issues",
	"Mutation.addLabelsToLabelable":          "issues|pull_requests|discussions", // issues/labels
	"Mutation.removeLabelsFromLabelable":     "issues|pull_requests|discussions",
	"Mutation.addAssigneesToAssignable":      "issues|pull_requests", // issues/assignees
	"Mutation.removeAssigneesFromAssignable": "issues|pull_requests",
	"Mutation.createPullRequest":             "pull_requests",
	"Mutation.updatePullRequest":             "pull_requests",
	"Mutation.closePullRequest":              "pull_requests",
	"Mutation.reopenPullRequest":             "pull_requests",
	"Mutation.markPullRequestReadyForReview": "pull_requests",
	"Mutation.convertPullRequestToDraft":     "pull_requests",
	"Mutation.addPullRequestReview":          "pull_requests",
	"Mutation.requestReviews":                "pull_requests",
	"Mutation.mergePullRequest":              "contents:write", // pulls/merge
	"Mutation.enablePullRequestAutoMerge":    "contents:write", // merges later, as pulls/merge
	"Mutation.disablePullRequestAutoMerge":   "contents:write",
	"Mutation.createRepository":              "administration:write",
	"Mutation.archiveRepository":             "administration:write", // repos/update
	"Mutation.unarchiveRepository":           "administration:write",
	"Mutation.addStar":                       "starring:write",
	"Mutation.createRef":                     "contents:write", // git/create-ref
	"Mutation.createLinkedBranch":            "contents:write", // creates a branch, as git/create-ref
	"Mutation.deleteLinkedBranch":            "issues",         // removes the link only
	"Mutation.removeStar":                    "starring:write",
}

var (
	graphqlOnce   sync.Once
	graphqlParsed map[string]map[string][]PermissionSet // type, field
)

// GraphQLPermissions is what a GraphQL field of typ needs of fine-grained
// permissions (none: nothing beyond seeing the repository).
func GraphQLPermissions(typ, field string) []PermissionSet {
	graphqlOnce.Do(func() {
		graphqlParsed = map[string]map[string][]PermissionSet{}
		for k, v := range graphqlRules {
			t, f, _ := strings.Cut(k, ".")
			level := "read"
			if t == "Mutation" {
				level = "write"
			}
			if graphqlParsed[t] == nil {
				graphqlParsed[t] = map[string][]PermissionSet{}
			}
			graphqlParsed[t][f] = parseRule(v).sets(level)
		}
	})
	fields := graphqlParsed[typ]
	if sets, ok := fields[field]; ok {
		return sets
	}
	return fields["*"]
}

var (
	parsedOnce  sync.Once
	parsedRules map[string]rule
)

// rule is a parsed rule: alternatives, each a list of permissions; an empty
// level takes the method's (read for GET and HEAD, write otherwise).
type rule [][]Need

func parseRule(s string) rule {
	if s == "" {
		return rule{}
	}
	var out rule
	for _, alt := range strings.Split(s, "|") {
		var set []Need
		for _, p := range strings.Split(alt, "+") {
			name, level, _ := strings.Cut(strings.TrimSpace(p), ":")
			set = append(set, Need{Name: name, Level: level})
		}
		out = append(out, set)
	}
	return out
}

// RequiredPermissions is what an operation needs of fine-grained
// permissions: the sets that allow it (none: it needs no permission), and
// whether any rule names it at all.
func RequiredPermissions(operationID, category, subcategory, method string) ([]PermissionSet, bool) {
	parsedOnce.Do(func() {
		parsedRules = make(map[string]rule, len(permissionRules))
		for k, v := range permissionRules {
			parsedRules[k] = parseRule(v)
		}
	})
	r, ok := parsedRules[operationID]
	if !ok {
		r, ok = parsedRules[category+"/"+subcategory]
	}
	if !ok {
		r, ok = parsedRules[category]
	}
	if !ok {
		return nil, false
	}
	methodLevel := "write"
	if method == "GET" || method == "HEAD" {
		methodLevel = "read"
	}
	return r.sets(methodLevel), true
}

// sets are the rule's alternatives with level where a permission names
// none.
func (r rule) sets(level string) []PermissionSet {
	sets := make([]PermissionSet, len(r))
	for i, alt := range r {
		set := make(PermissionSet, len(alt))
		for j, n := range alt {
			if n.Level == "" {
				n.Level = level
			}
			set[j] = n
		}
		sets[i] = set
	}
	return sets
}
