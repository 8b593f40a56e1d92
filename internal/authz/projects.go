package authz

// ProjectSubject is what the permission on a Projects (v2) project
// depends on.
type ProjectSubject struct {
	OwnerID   int64
	OrgOwned  bool
	Public    bool
	BaseRole  string // organization projects: none, read, write, admin
	OrgMember bool   // the caller's user is an active member of the owning organization
	OrgOwner  bool   // ... and one of its owners
}

// Project is the caller's permission on a project, before its token's
// limits (ProjectToken): a user project's owner administers it; in an
// organization, owners administer its projects and members have the
// project's base role; anyone may read a public project.
func (c *Caller) Project(s ProjectSubject) Permission {
	p := None
	if s.Public {
		p = Read
	}
	uid := c.UserID()
	switch {
	case c.Kind == Installation:
		if s.OrgOwned && c.InstallationTargetID == s.OwnerID {
			switch c.Permissions["organization_projects"] {
			case "admin":
				return Admin
			case "write":
				return Write
			case "read":
				return Read
			}
		}
		return p
	case uid == 0:
		return p
	case c.SiteAdmin():
		return Admin
	case !s.OrgOwned:
		if uid == s.OwnerID {
			return Admin
		}
		return p
	case s.OrgOwner:
		return Admin
	case s.OrgMember:
		if b, ok := ParsePermission(s.BaseRole); ok && b > p {
			return b
		}
	}
	return p
}

// ProjectToken limits a permission on a project by the caller's token:
// classic and OAuth tokens read projects with read:project and write them
// with project; fine-grained tokens and user access tokens need the
// organization_projects permission on organization projects (projects of
// users are out of their reach but for public ones).
func (c *Caller) ProjectToken(s ProjectSubject, p Permission) Permission {
	switch c.Kind {
	case ClassicPAT, OAuthApp:
		if !c.HasScope("read:project") {
			return None
		}
		if !c.HasScope("project") && p > Read {
			return Read
		}
	case FineGrained, UserToServer:
		if !s.OrgOwned {
			if s.OwnerID != c.UserID() && p > Read {
				return Read
			}
			return p
		}
		var lim Permission
		switch c.Permissions["organization_projects"] {
		case "admin":
			lim = Admin
		case "write":
			lim = Write
		case "read":
			lim = Read
		}
		if s.Public && lim < Read {
			lim = Read
		}
		return min(p, lim)
	}
	return p
}
