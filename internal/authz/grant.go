package authz

import "github.com/hubd/hubd/internal/model"

// A token's grant is the set of repositories it may write to; outside it
// a token reads what is public and writes nothing, whatever the user
// behind it could do (GitHub's rule for every token kind):
//
//   - classic (ghp_) and OAuth (gho_) tokens: public repositories with
//     public_repo (or repo), private ones with repo;
//   - installation tokens (ghs_, a job's GITHUB_TOKEN among them): the
//     repositories of the account the app is installed on, narrowed to
//     the installation's and the token's selection;
//   - fine-grained personal access tokens (github_pat_): the selected
//     repositories of their resource owner, while the owner lets them in;
//   - user access tokens (ghu_): the repositories the app's installations
//     reach (and the user may reach).
//
// Authorize is the one place that applies it: REST's repository lookup
// (api.Deps.Repo, told by the route table whether the operation writes)
// and GraphQL's mutations ask it.

// Grants reports whether r lies inside c's grant: whether c may write to
// it at all (what it may write still depends on the user's role and the
// token's permissions).
func Grants(c *Caller, r *model.Repo) bool {
	if !c.Authenticated() {
		return false
	}
	switch c.Kind {
	case ClassicPAT, OAuthApp:
		if r.Private() {
			return c.Scopes.Has("repo")
		}
		return c.Scopes.Has("public_repo")
	case Installation:
		return narrowedReach(c, r, c.InstallationTargetID != 0 && r.OwnerID == c.InstallationTargetID)
	case FineGrained:
		return narrowedReach(c, r, c.OwnerAccess && r.OwnerID == c.ResourceOwnerID)
	case UserToServer:
		set, installed := c.AppReach[r.OwnerID]
		return narrowedReach(c, r, installed && (set == nil || set[r.ID]))
	}
	// App JWTs and client credentials act on no repository; a kind added
	// later writes nowhere until it is named here.
	return false
}

// narrowedReach is the reach of a token narrowed to some repositories
// (installation, fine-grained and user access tokens): reaches, within
// c.RepoIDs when set, and with metadata read (no repository permission,
// no repository).
func narrowedReach(c *Caller, r *model.Repo, reaches bool) bool {
	return reaches && (c.RepoIDs == nil || c.RepoIDs[r.ID]) && Covers(c.Permissions, "metadata", "read")
}

// Outside is GitHub's refusal of a write outside c's grant: integrations
// (installation and user access tokens) and fine-grained tokens are told
// the resource is not accessible to them; a classic or OAuth token that
// lacks the scope is answered 404, as GitHub does.
func Outside(c *Caller) error {
	switch c.Kind {
	case Installation, UserToServer, AppJWT, ClientCredentials:
		return model.Forbidden(ErrIntegrationMessage)
	case FineGrained:
		return model.Forbidden(ErrPATMessage)
	}
	return model.ErrNotFound
}

// ErrIntegrationMessage is GitHub's answer to a GitHub App's token (an
// installation's, a job's, or one acting for a user) on something it may
// not do.
const ErrIntegrationMessage = "Resource not accessible by integration"

// Authorize answers whether c may perform an operation on repository r
// (f: what the store knows of the user's relation to it) that needs role
// need and, when write, changes what the repository holds. It returns c's
// permission on r and, when refused, GitHub's error:
//
//   - model.ErrNotFound when c may not see r;
//   - a write outside c's grant: Outside(c), before the role is looked at
//     for tokens narrowed to repositories (GitHub refuses the integration
//     first); after it for classic and OAuth tokens, whose role already
//     counts no write without the scope;
//   - NeedPermission when c's permission is below need.
func Authorize(c *Caller, r *model.Repo, f RepoFacts, write bool, need Permission) (Permission, error) {
	perm := RepoPermission(c, r, f)
	if !CanSee(perm) {
		return perm, model.ErrNotFound
	}
	outside := write && !Grants(c, r)
	narrowedToken := c.Kind != ClassicPAT && c.Kind != OAuthApp
	if outside && narrowedToken {
		return perm, Outside(c)
	}
	if perm < need {
		return perm, NeedPermission(need)
	}
	if outside {
		return perm, Outside(c)
	}
	return perm, nil
}

// NeedPermission is GitHub's 403 for a caller who sees a repository but may
// not do what they asked.
func NeedPermission(need Permission) error {
	if need >= Admin {
		return model.Forbidden("Must have admin rights to Repository.")
	}
	return model.Forbidden("Must have " + need.String() + " access to Repository.")
}

// WritesRepository reports whether an operation changes the repository it
// names, for Authorize: one that is not a GET or HEAD, unless the
// fine-grained permissions it needs (RequiredPermissions; GraphQL's
// GraphQLPermissions) can be had by reading repositories alone, as
// watching, starring and the other acts on the caller's own account that
// name a repository can.
func WritesRepository(sets []PermissionSet, known bool, method string) bool {
	if method == "GET" || method == "HEAD" {
		return false
	}
	if !known || len(sets) == 0 {
		return true
	}
	for _, s := range sets {
		if !s.writesRepository() {
			return false
		}
	}
	return true
}

// writesRepository reports whether the set names a repository permission
// above read.
func (s PermissionSet) writesRepository() bool {
	for _, n := range s {
		if repositoryPermissions[n.Name] && levelRank(n.Level) > levelRank("read") {
			return true
		}
	}
	return false
}
