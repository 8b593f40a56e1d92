package authz

import "github.com/hubd/hubd/internal/model"

// RepoFacts is what the store knows about a user's relation to a repository's
// owner and the repository itself.
type RepoFacts struct {
	OrgRole    model.OrgRole // "" when not an active member of the owning org
	Collab     Permission    // direct collaborator permission, None when not one
	OrgDefault Permission    // the owning organization's base permission
	// Team is the highest grant of any team the user belongs to in the
	// owning organization, grants of parent teams included (they flow down
	// to child teams); None when there is none.
	Team Permission
}

// RepoPermission computes the caller's effective permission on a repository:
// first what the user could do, then what the token lets them do of it.
func RepoPermission(c *Caller, r *model.Repo, f RepoFacts) Permission {
	p := userRepoPermission(c, r, f)
	if !c.Authenticated() {
		return p
	}
	switch c.Kind {
	case ClassicPAT, OAuthApp:
		if r.Private() && !c.Scopes.Has("repo") {
			// Without repo scope a token sees no private repository.
			return None
		}
		if !r.Private() && p > Read && !c.Scopes.Has("public_repo") {
			return Read
		}
	case FineGrained, UserToServer, Installation:
		if c.RepoIDs != nil && !c.RepoIDs[r.ID] {
			if r.Private() {
				return None
			}
			return min(p, Read)
		}
	}
	return p
}

func userRepoPermission(c *Caller, r *model.Repo, f RepoFacts) Permission {
	base := None
	if !r.Private() {
		base = Read
	}
	if c == nil || c.User == nil {
		return base
	}
	if r.OwnerID == c.User.ID {
		return Admin
	}
	p := max(base, f.Collab)
	switch f.OrgRole {
	case model.RoleAdmin:
		return Admin
	case model.RoleMember:
		p = max(p, f.OrgDefault, f.Team)
		if r.Visibility == model.Internal {
			p = max(p, Read)
		}
	}
	return p
}

// CanSee reports whether the caller may know the repository exists.
func CanSee(p Permission) bool { return p >= Read }
