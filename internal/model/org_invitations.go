package model

import "time"

// OrgInvitationTTL is how long an organization invitation may be accepted;
// after it the invitation has failed ("expired").
const OrgInvitationTTL = 7 * 24 * time.Hour

// Roles of an organization invitation, as GitHub names them.
const (
	InviteAdmin          = "admin"
	InviteDirectMember   = "direct_member"
	InviteBillingManager = "billing_manager"
	InviteReinstate      = "reinstate" // the role the invitee had before they were removed
)

// OrgInvitationExpired is the failed_reason of an invitation nobody accepted
// in time.
const OrgInvitationExpired = "Invitation expired"

// OrgInvitation invites a user (by account, or by an email address that
// may not belong to an account yet) to join an organization, optionally
// into teams. While it is pending the invitee's membership of the
// organization is pending; accepting it makes them a member.
type OrgInvitation struct {
	ID        int64
	OrgID     int64
	InviteeID int64  // 0: an email no account had when invited
	Email     string // "" when invited by account
	Role      string // admin, direct_member, reinstate
	// ReinstateRole is the role a reinstate invitation restores (admin or
	// member), the one they had when they were removed.
	ReinstateRole OrgRole
	InviterID     int64  // 0 when unknown or the account is gone
	Source        string // "member"
	CreatedAt     time.Time
	AcceptedAt    *time.Time
	CancelledAt   *time.Time
	Expired       bool // pending for longer than OrgInvitationTTL
	TeamCount     int

	Invitee, Inviter *Account // loaded with the invitation (nil when none)
}

// Pending reports whether the invitation may still be accepted.
func (i *OrgInvitation) Pending() bool {
	return i.AcceptedAt == nil && i.CancelledAt == nil && !i.Expired
}

// FailedAt is when an expired invitation failed (nil otherwise).
func (i *OrgInvitation) FailedAt() *time.Time {
	if !i.Expired {
		return nil
	}
	t := i.CreatedAt.Add(OrgInvitationTTL)
	return &t
}

// MemberRole is the organization role accepting the invitation gives.
func (i *OrgInvitation) MemberRole() OrgRole {
	switch i.Role {
	case InviteAdmin:
		return RoleAdmin
	case InviteReinstate:
		if i.ReinstateRole == RoleAdmin {
			return RoleAdmin
		}
	}
	return RoleMember
}

// ListedRole is the role GitHub lists a pending invitation with: a
// reinstate invitation shows the role it restores.
func (i *OrgInvitation) ListedRole() string {
	if i.Role == InviteReinstate {
		if i.ReinstateRole == RoleAdmin {
			return InviteAdmin
		}
		return InviteDirectMember
	}
	return i.Role
}
