package authz

import "github.com/hubd/hubd/internal/model"

// userAppRepoPermission is RepoPermission for user access tokens (ghu_): a
// GitHub App acting for a user reaches a repository only where one of its
// installations reaches it, and there does at most what both the user
// (p) and the app's permissions allow; elsewhere it reads what is public.
func userAppRepoPermission(c *Caller, r *model.Repo, p Permission) Permission {
	return narrowed(c, r, p, min(p, InstallationLevel(c.Permissions)))
}

// ClientCredentials is an OAuth app or GitHub App authenticating with its
// client id and secret (Basic), as the /applications/{client_id}/...
// operations want; it acts for no user (server/apps.go limits it to them).
const ClientCredentials TokenKind = "client"
