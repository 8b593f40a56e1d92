package model

import "time"

// Team privacy levels: closed teams are visible to every member of the
// organization, secret ones only to their members and the org's owners.
const (
	TeamSecret = "secret"
	TeamClosed = "closed"
)

// Team roles and membership states.
const (
	TeamMember     = "member"
	TeamMaintainer = "maintainer"
)

// Team is a group of an organization's members that can be granted access
// to the organization's repositories; grants flow down to child teams.
type Team struct {
	ID                  int64
	OrgID               int64
	Name, Slug          string
	Description         *string
	Privacy             string // secret, closed
	NotificationSetting string // notifications_enabled, notifications_disabled
	ParentID            int64  // 0: a top-level team
	Permission          string // the legacy default permission GitHub reports ("pull")
	CreatedAt           time.Time
	UpdatedAt           time.Time

	// Loaded with the team.
	Org          *Account
	Parent       *Team // nil without a parent (no grandparent loaded)
	MembersCount int
	ReposCount   int
}

// TeamMembership is a user's membership of a team. State is pending while
// the user's membership of the organization is pending.
type TeamMembership struct {
	TeamID, UserID int64
	Role           string // member, maintainer
	State          string // active, pending
	CreatedAt      time.Time
}
