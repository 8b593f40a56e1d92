package wire

import (
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// OrganizationInvitation is components/schemas/organization-invitation.
type OrganizationInvitation struct {
	ID                 int64      `json:"id"`
	Login              *string    `json:"login"`
	Email              *string    `json:"email"`
	Role               string     `json:"role"`
	CreatedAt          string     `json:"created_at"`
	FailedAt           *string    `json:"failed_at"`
	FailedReason       *string    `json:"failed_reason"`
	Inviter            SimpleUser `json:"inviter"`
	TeamCount          int        `json:"team_count"`
	NodeID             string     `json:"node_id"`
	InvitationTeamsURL string     `json:"invitation_teams_url"`
	InvitationSource   string     `json:"invitation_source"`
}

// ghost stands in for an account that is gone (or an inviter nobody
// recorded), as GitHub shows deleted users.
func (u URLs) ghost() SimpleUser {
	return u.ToSimpleUser(&model.Account{ID: 10137, Login: "ghost", Type: model.TypeUser})
}

// ToOrgInvitation converts an invitation. listed shows the role as the
// pending list does (a reinstate invitation as the role it restores).
// login is the invitee's for an invitation by account; an invitation by
// email has none, even when the address belongs to an account.
func (u URLs) ToOrgInvitation(inv *model.OrgInvitation, listed bool) OrganizationInvitation {
	out := OrganizationInvitation{
		ID: inv.ID, Role: inv.Role, CreatedAt: Time(inv.CreatedAt), TeamCount: inv.TeamCount,
		NodeID: NodeID("OI", inv.ID), InvitationSource: inv.Source, Inviter: u.ghost(),
		InvitationTeamsURL: u.API + "/organizations/" + strconv.FormatInt(inv.OrgID, 10) + "/invitations/" +
			strconv.FormatInt(inv.ID, 10) + "/teams",
	}
	if listed {
		out.Role = inv.ListedRole()
	}
	if inv.Email != "" {
		e := inv.Email
		out.Email = &e
	} else if inv.Invitee != nil {
		l := inv.Invitee.Login
		out.Login = &l
	}
	if inv.Inviter != nil {
		out.Inviter = u.ToSimpleUser(inv.Inviter)
	}
	if at := inv.FailedAt(); at != nil {
		out.FailedAt = TimePtr(at)
		reason := model.OrgInvitationExpired
		out.FailedReason = &reason
	}
	return out
}

// ToOrgInvitations converts a list.
func (u URLs) ToOrgInvitations(list []*model.OrgInvitation, listed bool) []OrganizationInvitation {
	out := make([]OrganizationInvitation, len(list))
	for i, inv := range list {
		out[i] = u.ToOrgInvitation(inv, listed)
	}
	return out
}
