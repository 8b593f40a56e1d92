package authz

import (
	"sort"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// AppJWT is a GitHub App authenticating as itself with a JSON web token
// signed by one of its private keys. It acts for no user and may call only
// the /app... operations (see server/apps.go).
const AppJWT TokenKind = "app"

// PermissionLevels are the fine-grained permissions GitHub Apps and
// fine-grained tokens may hold and the levels each accepts (GitHub's
// app-permissions schema).
var PermissionLevels = map[string][]string{
	"actions": {"read", "write"}, "administration": {"read", "write"}, "artifact_metadata": {"read", "write"},
	"attestations": {"read", "write"}, "checks": {"read", "write"}, "code_quality": {"read", "write"},
	"codespaces": {"read", "write"}, "contents": {"read", "write"}, "dependabot_secrets": {"read", "write"},
	"deployments": {"read", "write"}, "discussions": {"read", "write"}, "environments": {"read", "write"},
	"issues": {"read", "write"}, "merge_queues": {"read", "write"}, "metadata": {"read", "write"},
	"packages": {"read", "write"}, "pages": {"read", "write"}, "pull_requests": {"read", "write"},
	"repository_custom_properties": {"read", "write"}, "repository_hooks": {"read", "write"},
	"repository_projects": {"read", "write", "admin"}, "secret_scanning_alerts": {"read", "write"},
	"secrets": {"read", "write"}, "security_events": {"read", "write"}, "single_file": {"read", "write"},
	"statuses": {"read", "write"}, "vulnerability_alerts": {"read", "write"}, "workflows": {"write"},
	"custom_properties_for_organizations": {"read", "write"}, "members": {"read", "write"},
	"organization_administration": {"read", "write"}, "organization_custom_roles": {"read", "write"},
	"organization_custom_org_roles": {"read", "write"}, "organization_custom_properties": {"read", "write", "admin"},
	"organization_copilot_seat_management": {"read", "write"}, "organization_copilot_agent_settings": {"read", "write"},
	"organization_announcement_banners": {"read", "write"}, "organization_events": {"read"},
	"organization_hooks": {"read", "write"}, "organization_personal_access_tokens": {"read", "write"},
	"organization_personal_access_token_requests": {"read", "write"}, "organization_plan": {"read"},
	"organization_projects": {"read", "write", "admin"}, "organization_packages": {"read", "write"},
	"organization_secrets": {"read", "write"}, "organization_self_hosted_runners": {"read", "write"},
	"organization_user_blocking": {"read", "write"}, "email_addresses": {"read", "write"},
	"followers": {"read", "write"}, "git_ssh_keys": {"read", "write"}, "gpg_keys": {"read", "write"},
	"interaction_limits": {"read", "write"}, "profile": {"write"}, "starring": {"read", "write"}, "gists": {"write"},
	"watching": {"read", "write"}, "blocking": {"read", "write"},
	"enterprise_administration": {"read", "write"}, "enterprise_custom_properties_for_organizations": {"read", "write", "admin"},
	"enterprise_organization_installations": {"read", "write"}, "enterprise_organization_installation_repositories": {"read", "write"},
	// Variables and Organization variables (GitHub's fine-grained permissions; not in the app-permissions schema).
	"actions_variables": {"read", "write"}, "organization_actions_variables": {"read", "write"},
	// SSH signing keys (a fine-grained user permission; not in the app-permissions schema).
	"ssh_signing_keys": {"read", "write"},
	// Repository security advisories (a fine-grained repository permission).
	"repository_advisories": {"read", "write"},
	// API Insights (an organization permission; not in the app-permissions schema).
	"organization_api_insights": {"read"},
	// Codespaces secrets and settings (fine-grained permissions; not in the app-permissions schema).
	"codespaces_secrets": {"read", "write"}, "codespaces_user_secrets": {"read", "write"},
	"organization_codespaces_secrets": {"read", "write"}, "organization_codespaces_settings": {"read", "write"},
}

// repositoryPermissions are the permissions that act on repositories (the
// others act on organizations or on the user); holding any of them grants
// metadata: read, as on GitHub.
var repositoryPermissions = map[string]bool{
	"actions": true, "administration": true, "artifact_metadata": true, "attestations": true, "checks": true,
	"code_quality": true, "codespaces": true, "contents": true, "dependabot_secrets": true, "deployments": true,
	"discussions": true, "environments": true, "issues": true, "merge_queues": true, "metadata": true,
	"packages": true, "pages": true, "pull_requests": true, "repository_custom_properties": true,
	"repository_hooks": true, "repository_projects": true, "secret_scanning_alerts": true, "secrets": true,
	"security_events": true, "single_file": true, "statuses": true, "vulnerability_alerts": true, "workflows": true,
	"actions_variables": true, "repository_advisories": true, "codespaces_secrets": true,
}

// levelRank orders permission levels; an unknown level ranks below read.
func levelRank(level string) int {
	switch level {
	case "read":
		return 1
	case "write":
		return 2
	case "admin":
		return 3
	}
	return 0
}

// ValidPermission reports whether name is a known permission and level one
// of the levels it accepts.
func ValidPermission(name, level string) bool {
	for _, l := range PermissionLevels[name] {
		if l == level {
			return true
		}
	}
	return false
}

// WithMetadata adds metadata: read to permissions that include a
// repository permission (GitHub grants it to every such app).
func WithMetadata(p map[string]string) map[string]string {
	out := make(map[string]string, len(p)+1)
	repo := false
	for k, v := range p {
		out[k] = v
		repo = repo || repositoryPermissions[k]
	}
	if repo && out["metadata"] == "" {
		out["metadata"] = "read"
	}
	return out
}

// Covers reports whether permissions have at least level of name.
func Covers(perms map[string]string, name, level string) bool {
	return levelRank(perms[name]) >= levelRank(level) && levelRank(level) > 0
}

// WithinPermissions reports whether every permission of want is held by
// have at its level or above; it names the first one that is not.
func WithinPermissions(want, have map[string]string) (string, bool) {
	names := make([]string, 0, len(want))
	for k := range want {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !Covers(have, k, want[k]) {
			return k, false
		}
	}
	return "", true
}

// IntersectPermissions keeps each permission of a at the lower of its
// levels in a and b (dropping those b does not have).
func IntersectPermissions(a, b map[string]string) map[string]string {
	out := make(map[string]string, len(a))
	for k, v := range a {
		w := b[k]
		if levelRank(w) == 0 {
			continue
		}
		if levelRank(w) < levelRank(v) {
			v = w
		}
		out[k] = v
	}
	return out
}

// InstallationLevel is the repository role an installation's permissions
// amount to on a repository it reaches: admin with administration: write,
// write with any other repository permission at write, read otherwise.
// What each operation needs is checked against the permissions themselves
// (RequiredPermissions); this level only keeps the repository lookups and
// the rules inside operations (who may set labels, see drafts, ...) in
// step with them.
func InstallationLevel(perms map[string]string) Permission {
	if Covers(perms, "administration", "write") {
		return Admin
	}
	for k, v := range perms {
		if repositoryPermissions[k] && k != "metadata" && levelRank(v) >= levelRank("write") {
			return Write
		}
	}
	return Read
}

// installationRepoPermission is RepoPermission for installation tokens: on
// a repository the installation reaches (one of its account's, selected
// when the installation or the token selects: Grants), the level of its
// permissions; elsewhere what anyone may do (read a public repository).
func installationRepoPermission(c *Caller, r *model.Repo, p Permission) Permission {
	return narrowed(c, r, p, InstallationLevel(c.Permissions))
}

// narrowed is the permission of a token narrowed to some repositories and
// permissions (installation, fine-grained and user access tokens): on a
// repository inside its grant (Grants) the level given; elsewhere what
// the user's own permission p allows up to reading a public repository.
func narrowed(c *Caller, r *model.Repo, p, level Permission) Permission {
	if !Grants(c, r) {
		if r.Private() {
			return None
		}
		return min(p, Read)
	}
	return level
}

// PermissionSet is one way to be allowed an operation: every permission
// it names at its level or above.
type PermissionSet []Need

// Need is one permission at a level.
type Need struct{ Name, Level string }

// String is the set as X-Accepted-GitHub-Permissions writes it
// ("contents=read,pull_requests=write").
func (s PermissionSet) String() string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = n.Name + "=" + n.Level
	}
	return strings.Join(parts, ",")
}

// Allows reports whether perms satisfy every permission of the set.
func (s PermissionSet) Allows(perms map[string]string) bool {
	for _, n := range s {
		if !Covers(perms, n.Name, n.Level) {
			return false
		}
	}
	return true
}

// AcceptedHeader is the X-Accepted-GitHub-Permissions value of the sets
// that allow an operation: each set, separated by "; ".
func AcceptedHeader(sets []PermissionSet) string {
	parts := make([]string, len(sets))
	for i, s := range sets {
		parts[i] = s.String()
	}
	return strings.Join(parts, "; ")
}

// AllowedBy reports whether perms satisfy one of the sets; no sets means
// the operation needs no permission.
func AllowedBy(sets []PermissionSet, perms map[string]string) bool {
	if len(sets) == 0 {
		return true
	}
	for _, s := range sets {
		if s.Allows(perms) {
			return true
		}
	}
	return false
}
