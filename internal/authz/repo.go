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
	// OrgRoles is the highest base role of the organization roles the user
	// holds in the owning organization (all_repo_write, a custom role with
	// a base role, ...), assigned to them or to a team they are in or
	// below: that level on every repository of the organization. None when
	// there is none.
	OrgRoles Permission
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
	case Installation:
		return installationRepoPermission(c, r, p)
	case FineGrained:
		return fineGrainedRepoPermission(c, r, p)
	case UserToServer:
		return userAppRepoPermission(c, r, p)
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
		p = max(p, f.OrgDefault, f.Team, f.OrgRoles)
		if r.Visibility == model.Internal {
			p = max(p, Read)
		}
	}
	return p
}

// CanSee reports whether the caller may know the repository exists.
func CanSee(p Permission) bool { return p >= Read }

// NamedGrant is a custom repository role a user holds on a repository
// (directly or through a team): its name and its base level, the level
// checks give it.
type NamedGrant struct {
	Name string
	Perm Permission
}

// RoleName is GitHub's role_name of a user whose effective permission is
// p: the highest role after every source of grants. A custom role counts
// when its base level is p (it gives p and more); otherwise it is the
// level's name (read, triage, write, maintain, admin; "none" for none).
func RoleName(p Permission, custom []NamedGrant) string {
	for _, g := range custom {
		if g.Perm == p && p > None {
			return g.Name
		}
	}
	return p.String()
}
