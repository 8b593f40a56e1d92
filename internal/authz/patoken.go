package authz

import (
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// ErrPATMessage is GitHub's answer to a fine-grained personal access token
// on an operation it may not call, or without the permission it needs.
const ErrPATMessage = "Resource not accessible by personal access token"

// Repository selections of fine-grained personal access tokens (and of
// their organization grants).
const (
	SelectionNone   = "none"   // public repositories, read-only
	SelectionAll    = "all"    // every repository of the resource owner
	SelectionSubset = "subset" // the selected ones
)

// PermissionClass is the kind of resource a permission acts on, as GitHub
// groups a fine-grained token's permissions: "repository", "organization"
// or "other" (the user's own account: email addresses, followers, keys,
// starring, ...).
func PermissionClass(name string) string {
	switch {
	case repositoryPermissions[name]:
		return "repository"
	case name == "members" || strings.HasPrefix(name, "organization_") || name == "custom_properties_for_organizations":
		return "organization"
	case strings.HasPrefix(name, "enterprise_"):
		return "enterprise"
	}
	return "other"
}

// patUnavailable are operations with GitHub's user token badge that
// fine-grained personal access tokens still may not call: the ones only
// GitHub Apps may (an organization's token requests and grants, the
// installations a user token reaches, the enterprise's app installations).
var patUnavailable = map[string]bool{
	// Notifications: "These endpoints only support authentication using a
	// personal access token (classic)" (GitHub's REST docs).
	"activity/list-notifications-for-authenticated-user":        true,
	"activity/mark-notifications-as-read":                       true,
	"activity/get-thread":                                       true,
	"activity/mark-thread-as-read":                              true,
	"activity/mark-thread-as-done":                              true,
	"activity/get-thread-subscription-for-authenticated-user":   true,
	"activity/set-thread-subscription":                          true,
	"activity/delete-thread-subscription":                       true,
	"activity/list-repo-notifications-for-authenticated-user":   true,
	"activity/mark-repo-notifications-as-read":                  true,
	"orgs/list-pat-grant-requests":                              true,
	"orgs/review-pat-grant-requests-in-bulk":                    true,
	"orgs/review-pat-grant-request":                             true,
	"orgs/list-pat-grant-request-repositories":                  true,
	"orgs/list-pat-grants":                                      true,
	"orgs/update-pat-accesses":                                  true,
	"orgs/update-pat-access":                                    true,
	"orgs/list-pat-grant-repositories":                          true,
	"apps/list-installations-for-authenticated-user":            true,
	"apps/list-installation-repos-for-authenticated-user":       true,
	"apps/add-repo-to-installation-for-authenticated-user":      true,
	"apps/remove-repo-from-installation-for-authenticated-user": true,
	// "This API can only be called by a GitHub App installed on the
	// enterprise" (api/apps/enterprise.go).
	"enterprise-apps/installable-organizations":                        true,
	"enterprise-apps/installable-organization-accessible-repositories": true,
	"enterprise-apps/organization-installations":                       true,
	"enterprise-apps/create-installation":                              true,
	"enterprise-apps/delete-installation":                              true,
	"enterprise-apps/organization-installation-repositories":           true,
	"enterprise-apps/change-installation-repository-access-selection":  true,
	"enterprise-apps/grant-repository-access-to-installation":          true,
	"enterprise-apps/remove-repository-access-to-installation":         true,
}

// enterpriseAdministration reports whether the operation takes the
// enterprise's "Enterprise administration" permission: only apps installed
// on the enterprise hold it (fine-grained personal access tokens belong to
// a user or an organization, never to the enterprise).
func enterpriseAdministration(operationID string) bool {
	return strings.HasPrefix(permissionRules[operationID], "enterprise_administration")
}

// FineGrainedOperation reports whether a fine-grained personal access
// token may call an operation with these token badges: GitHub lets them
// call what user access tokens may (the UAT badge), but for the
// operations only GitHub Apps may call.
func FineGrainedOperation(operationID string, badges []string) bool {
	if patUnavailable[operationID] || enterpriseAdministration(operationID) {
		return false
	}
	for _, b := range badges {
		if b == "UAT" {
			return true
		}
	}
	return false
}

// OrganizationOnly reports whether every set names organization
// permissions only (the operation acts on an organization, not on its
// repositories nor on the user).
func OrganizationOnly(sets []PermissionSet) bool {
	if len(sets) == 0 {
		return false
	}
	for _, s := range sets {
		for _, n := range s {
			if PermissionClass(n.Name) != "organization" {
				return false
			}
		}
	}
	return true
}

// fineGrainedRepoPermission is RepoPermission for fine-grained personal
// access tokens: on a repository of the token's resource owner that it
// selects (all of them, or the subset), while the owner lets it in, the
// lower of the user's role and what its permissions amount to; elsewhere
// what anyone may do (read a public repository).
func fineGrainedRepoPermission(c *Caller, r *model.Repo, p Permission) Permission {
	return narrowed(c, r, p, min(p, InstallationLevel(c.Permissions)))
}
