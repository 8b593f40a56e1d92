package model

import "time"

// Where an organization role comes from (GitHub's source field).
const (
	RoleSourcePredefined   = "Predefined"
	RoleSourceOrganization = "Organization"
)

// OrganizationRole is a role an organization's owners give to members and
// teams: organization permissions, and through BaseRole a repository level
// on every repository of the organization. Predefined roles exist in every
// organization (OrgID 0); custom ones belong to one.
type OrganizationRole struct {
	ID          int64
	OrgID       int64 // 0 for a predefined role
	Name        string
	Description *string
	BaseRole    string   // read, triage, write, maintain, admin; "" for none
	Permissions []string // organization and repository fine-grained permission names
	Source      string   // RoleSourcePredefined or RoleSourceOrganization
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// CustomRepoRole is an organization's custom repository role: a base level
// (read, triage, write, maintain) and further repository permissions,
// granted to collaborators and teams on single repositories.
type CustomRepoRole struct {
	ID          int64
	OrgID       int64
	Name        string
	Description *string
	BaseRole    string // read, triage, write, maintain
	Permissions []string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// RoleAssignment is how a user or team holds an organization role: Direct
// when it was assigned to them, Teams when they get it through teams (for a
// user, the assigned teams they are in or below; for a team, the assigned
// ancestors it is below).
type RoleAssignment struct {
	Direct bool
	Teams  []*Team
}

// Kind is GitHub's assignment field: direct, indirect or mixed.
func (a RoleAssignment) Kind() string {
	switch {
	case a.Direct && len(a.Teams) > 0:
		return "mixed"
	case a.Direct:
		return "direct"
	}
	return "indirect"
}
