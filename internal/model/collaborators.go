package model

import "time"

// InvitationTTL is how long a repository invitation may be accepted.
const InvitationTTL = 7 * 24 * time.Hour

// RepoInvitation is an open invitation of a user to collaborate on a
// repository with a permission (read, triage, write, maintain, admin).
type RepoInvitation struct {
	ID         int64
	RepoID     int64
	InviteeID  int64
	InviterID  int64  // 0 when the inviter's account is gone
	Permission string // the level; a custom role's base level when RoleID is set
	RoleID     int64  // a custom repository role of the owning organization, 0 for none
	CreatedAt  time.Time
	Expired    bool // CreatedAt is more than InvitationTTL ago

	Invitee, Inviter *Account // loaded with the invitation (nil when gone)
}

// CollaboratorAffiliation selects the users of GET .../collaborators.
type CollaboratorAffiliation string

const (
	AffiliationAll     CollaboratorAffiliation = "all"     // everyone with access beyond the public's
	AffiliationDirect  CollaboratorAffiliation = "direct"  // direct grants
	AffiliationOutside CollaboratorAffiliation = "outside" // direct grants of non-members of the owning org
)
