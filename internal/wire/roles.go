package wire

import (
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// OrganizationRole is components/schemas/organization-role.
type OrganizationRole struct {
	ID          int64       `json:"id"`
	Name        string      `json:"name"`
	Description *string     `json:"description"`
	BaseRole    *string     `json:"base_role"`
	Source      *string     `json:"source"`
	Permissions []string    `json:"permissions"`
	Org         *SimpleUser `json:"organization"`
	CreatedAt   string      `json:"created_at"`
	UpdatedAt   string      `json:"updated_at"`
}

// OrganizationRoles is the body of GET /orgs/{org}/organization-roles.
type OrganizationRoles struct {
	TotalCount int                `json:"total_count"`
	Roles      []OrganizationRole `json:"roles"`
}

// ToOrganizationRole converts a role of org; predefined roles belong to no
// organization (null).
func (u URLs) ToOrganizationRole(r *model.OrganizationRole, org *model.Account) OrganizationRole {
	out := OrganizationRole{ID: r.ID, Name: r.Name, Description: r.Description, Permissions: r.Permissions,
		CreatedAt: Time(r.CreatedAt), UpdatedAt: Time(r.UpdatedAt)}
	if out.Permissions == nil {
		out.Permissions = []string{}
	}
	if r.BaseRole != "" {
		b := r.BaseRole
		out.BaseRole = &b
	}
	if r.Source != "" {
		s := r.Source
		out.Source = &s
	}
	if r.OrgID != 0 && org != nil {
		o := u.ToSimpleUser(org)
		out.Org = &o
	}
	return out
}

// CustomRepoRole is components/schemas/organization-custom-repository-role.
type CustomRepoRole struct {
	ID          int64      `json:"id"`
	Name        string     `json:"name"`
	Description *string    `json:"description"`
	BaseRole    string     `json:"base_role"`
	Permissions []string   `json:"permissions"`
	Org         SimpleUser `json:"organization"`
	CreatedAt   string     `json:"created_at"`
	UpdatedAt   string     `json:"updated_at"`
}

// CustomRepoRoles is the body of the custom repository role lists.
type CustomRepoRoles struct {
	TotalCount int              `json:"total_count"`
	Roles      []CustomRepoRole `json:"custom_roles"`
}

// ToCustomRepoRole converts a custom repository role of org.
func (u URLs) ToCustomRepoRole(r *model.CustomRepoRole, org *model.Account) CustomRepoRole {
	out := CustomRepoRole{ID: r.ID, Name: r.Name, Description: r.Description, BaseRole: r.BaseRole,
		Permissions: r.Permissions, Org: u.ToSimpleUser(org), CreatedAt: Time(r.CreatedAt), UpdatedAt: Time(r.UpdatedAt)}
	if out.Permissions == nil {
		out.Permissions = []string{}
	}
	return out
}

// FineGrainedPermission is repository-fine-grained-permission and
// organization-fine-grained-permission.
type FineGrainedPermission struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// UserRoleAssignment is components/schemas/user-role-assignment.
type UserRoleAssignment struct {
	SimpleUser
	Assignment    string `json:"assignment"`
	InheritedFrom []Team `json:"inherited_from"`
}

// ToUserRoleAssignment is a user holding a role and how.
func (u URLs) ToUserRoleAssignment(a *model.Account, how model.RoleAssignment) UserRoleAssignment {
	out := UserRoleAssignment{SimpleUser: u.ToSimpleUser(a), Assignment: how.Kind(), InheritedFrom: []Team{}}
	for _, t := range how.Teams {
		out.InheritedFrom = append(out.InheritedFrom, u.ToTeam(t))
	}
	return out
}

// TeamRoleAssignment is components/schemas/team-role-assignment.
type TeamRoleAssignment struct {
	Assignment string `json:"assignment"`
	TeamWithParent
	Permissions map[string]bool `json:"permissions"`
}

// ToTeamRoleAssignment is a team holding a role (whose base level is
// base) and how.
func (u URLs) ToTeamRoleAssignment(t *model.Team, how model.RoleAssignment, base authz.Permission) TeamRoleAssignment {
	return TeamRoleAssignment{Assignment: how.Kind(), TeamWithParent: u.ToTeamWithParent(t), Permissions: TeamRepoPermissions(base)}
}

// MinimalRepositoryWithRole is a minimal-repository with the role_name of
// a grant (a team's repositories).
type MinimalRepositoryWithRole struct {
	MinimalRepository
	RoleName string `json:"role_name"`
}

// RepositoryWithRole is a team-repository: the repository with the team's
// permissions and role_name.
type RepositoryWithRole struct {
	Repository
	RoleName string `json:"role_name"`
}
