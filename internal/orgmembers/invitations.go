package orgmembers

import (
	"context"
	"errors"
	"net/mail"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Invitation limits, as GitHub documents them: 50 invitations in 24 hours,
// 500 once the organization is more than a month old (hubd has no paid
// plans); an invitee may be reinstated within three months of leaving.
const (
	rateWindow      = 24 * time.Hour
	smallLimit      = 50
	bigLimit        = 500
	bigLimitAge     = 30 * 24 * time.Hour
	reinstateWindow = 90 * 24 * time.Hour
)

// RateLimit is how many invitations org may send in 24 hours at now.
func RateLimit(org *model.Account, now time.Time) int {
	if !org.CreatedAt.IsZero() && now.Sub(org.CreatedAt) > bigLimitAge {
		return bigLimit
	}
	return smallLimit
}

// overLimit reports whether org has sent its invitations for the last 24
// hours (call it after LockOrgInvitations).
func overLimit(ctx context.Context, q store.Q, org *model.Account) (int, bool, error) {
	limit := RateLimit(org, q.Now())
	n, err := q.CountOrgInvitationsSince(ctx, org.ID, q.Now().Add(-rateWindow))
	return limit, n >= limit, err
}

// TeamRole is a team an invitee joins on accepting, with their role in it.
type TeamRole struct {
	TeamID int64
	Role   string // member (default) or maintainer
}

// Invitation is what Invite is asked: a user, or an email address when
// User is nil, invited to Org by Inviter with a role, into teams.
type Invitation struct {
	Org, Inviter *model.Account
	User         *model.Account
	Email        string
	// Role is admin, direct_member or reinstate; "" keeps the role of a
	// pending invitation (direct_member for a new one).
	Role string
	// ReinstateRole is the role a reinstate invitation restores.
	ReinstateRole model.OrgRole
	Teams         []TeamRole
}

// errAlreadyMember is the refusal of an invitation to a member.
var errAlreadyMember = errors.New("already a member")

// errInviterBlocked refuses inviting a user who has blocked the inviting
// owner, for every way of inviting (memberships, invitations, teams):
// GitHub answers 422 Validation Failed. The message is the one GitHub
// support quoted for a blocked organization invitation; GitHub does not
// tell who blocked whom.
var errInviterBlocked = invitationError("invitee", "User is blocked")

// Invite records an invitation inside tx: a pending one of the same
// invitee is reused (its role changes, the teams are added, it keeps its
// id and date), otherwise a new one is created. It reports whether it
// created one. A user who is already an active member is refused with
// errAlreadyMember, one who blocked the inviter with errInviterBlocked;
// callers check the organization's blocks and the rate limit first, as
// their answers differ.
func Invite(ctx context.Context, tx store.Q, in Invitation) (*model.OrgInvitation, bool, error) {
	org := in.Org
	if err := tx.LockOrgInvitations(ctx, org.ID); err != nil { // one open invitation per invitee
		return nil, false, err
	}
	var inv *model.OrgInvitation
	var err error
	if in.User != nil {
		r, rerr := role(ctx, tx, org.ID, in.User.ID)
		if rerr != nil {
			return nil, false, rerr
		}
		if r != "" {
			return nil, false, errAlreadyMember
		}
		if in.Inviter != nil {
			if blocked, err := tx.IsBlocked(ctx, in.User.ID, in.Inviter.ID); err != nil {
				return nil, false, err
			} else if blocked {
				return nil, false, errInviterBlocked
			}
		}
		inv, err = tx.PendingOrgInvitation(ctx, org.ID, in.User.ID)
	} else {
		inv, err = tx.PendingOrgInvitationByEmail(ctx, org.ID, in.Email)
	}
	created := false
	actorID := int64(0)
	if in.Inviter != nil {
		actorID = in.Inviter.ID
	}
	switch {
	case errors.Is(err, model.ErrNotFound):
		r := in.Role
		if r == "" {
			r = model.InviteDirectMember
		}
		inv = &model.OrgInvitation{OrgID: org.ID, Email: in.Email, Role: r, ReinstateRole: in.ReinstateRole, InviterID: actorID}
		if in.User != nil {
			inv.InviteeID = in.User.ID
		}
		if err := tx.CreateOrgInvitation(ctx, inv); err != nil {
			return nil, false, err
		}
		created = true
	case err != nil:
		return nil, false, err
	case in.Role != "" && (inv.Role != in.Role || inv.ReinstateRole != in.ReinstateRole):
		if err := tx.SetOrgInvitationRole(ctx, inv.ID, in.Role, in.ReinstateRole); err != nil {
			return nil, false, err
		}
	}
	var teamIDs []int64
	for _, t := range in.Teams {
		r := t.Role
		if r == "" {
			r = model.TeamMember
		}
		if err := tx.SetOrgInvitationTeam(ctx, inv.ID, t.TeamID, r); err != nil {
			return nil, false, err
		}
		teamIDs = append(teamIDs, t.TeamID)
	}
	payload := map[string]any{"invitation_id": inv.ID, "role": in.Role, "team_ids": teamIDs}
	if in.Role == "" {
		payload["role"] = inv.Role
	}
	if in.User != nil {
		payload["user_id"] = in.User.ID
	} else {
		payload["email"] = in.Email
	}
	typ := "organization.member_invited"
	if !created {
		typ = "organization.member_invitation_edited"
	}
	if err := tx.AppendEvent(ctx, typ, actorID, 0, org.ID, payload); err != nil {
		return nil, false, err
	}
	inv, err = tx.OrgInvitation(ctx, org.ID, inv.ID)
	return inv, created, err
}

// CreateInput is the body of POST /orgs/{org}/invitations.
type CreateInput struct {
	InviteeID *int64
	Email     *string
	Role      string // "" is direct_member
	TeamIDs   []int64
}

// validEmail is an address alone, with an @.
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && strings.Contains(s, "@")
}

// Create is POST /orgs/{org}/invitations (owners only). Team ids that are
// not the organization's teams are ignored, as GitHub does.
func (s *Service) Create(ctx context.Context, org, actor *model.Account, in CreateInput) (*model.OrgInvitation, bool, error) {
	q := s.st.R()
	if err := requireOwner(ctx, q, org.ID, actor, msgCreate); err != nil {
		return nil, false, err
	}
	roleName := in.Role
	switch roleName {
	case "":
		roleName = model.InviteDirectMember
	case model.InviteAdmin, model.InviteDirectMember, model.InviteReinstate:
	case model.InviteBillingManager:
		return nil, false, invitationError("role", "Billing managers are not supported: invite as admin or direct_member.")
	default:
		return nil, false, invitationError("role", "Variable $role of type OrganizationInvitationRole was provided invalid value")
	}
	var user *model.Account
	email := ""
	switch {
	case in.InviteeID != nil:
		u, err := q.AccountByID(ctx, *in.InviteeID)
		if errors.Is(err, model.ErrNotFound) || err == nil && u.IsOrg() {
			return nil, false, errInviteeID
		}
		if err != nil {
			return nil, false, err
		}
		user = u
	case in.Email != nil && *in.Email != "":
		email = strings.TrimSpace(*in.Email)
		if !validEmail(email) {
			return nil, false, invitationError("email", "Email is invalid")
		}
		u, err := q.UserByEmail(ctx, email)
		switch {
		case err == nil:
			user = u // GitHub ties the invitation to the account the address belongs to
		case !errors.Is(err, model.ErrNotFound):
			return nil, false, err
		}
	default:
		return nil, false, invitationError("data", "Either invitee_id or email must be provided.")
	}
	var reinstate model.OrgRole
	if roleName == model.InviteReinstate {
		if user == nil {
			return nil, false, errNoReinstate
		}
		r, at, err := q.FormerMember(ctx, org.ID, user.ID)
		if errors.Is(err, model.ErrNotFound) || err == nil && q.Now().Sub(at) > reinstateWindow {
			return nil, false, errNoReinstate
		}
		if err != nil {
			return nil, false, err
		}
		reinstate = r
	}
	var teams []TeamRole
	for _, id := range in.TeamIDs {
		t, err := q.TeamByID(ctx, id)
		if errors.Is(err, model.ErrNotFound) || err == nil && t.OrgID != org.ID {
			continue
		}
		if err != nil {
			return nil, false, err
		}
		teams = append(teams, TeamRole{TeamID: t.ID, Role: model.TeamMember})
	}
	var out *model.OrgInvitation
	created := false
	err := s.st.Tx(ctx, func(tx store.Q) error {
		if err := tx.LockOrgInvitations(ctx, org.ID); err != nil {
			return err
		}
		if _, over, err := overLimit(ctx, tx, org); err != nil {
			return err
		} else if over {
			return invitationError("data", "Over invitation rate limit")
		}
		if user != nil {
			if err := RefuseBlocked(ctx, tx, org, user); errors.Is(err, errBlocked) {
				return invitationError("data", errBlocked.(*model.HTTPError).Message)
			} else if err != nil {
				return err
			}
		}
		var err error
		out, created, err = Invite(ctx, tx, Invitation{Org: org, Inviter: actor, User: user, Email: email, Role: roleName,
			ReinstateRole: reinstate, Teams: teams})
		if errors.Is(err, errAlreadyMember) {
			if email != "" {
				return invitationError("data", "A user with this email address is already a part of this organization")
			}
			return invitationError("data", "Invitee is already a part of this organization")
		}
		return err
	})
	return out, created, err
}

// ListQuery selects the pending invitations listed.
type ListQuery struct {
	Role   string // all, admin, direct_member, billing_manager, hiring_manager ("" is all)
	Source string // all, member, scim ("" is all)
}

// List is one page of the organization's pending invitations (owners
// only).
func (s *Service) List(ctx context.Context, org, actor *model.Account, f ListQuery, limit, offset int) ([]*model.OrgInvitation, int, error) {
	q := s.st.R()
	if err := requireOwner(ctx, q, org.ID, actor, msgList); err != nil {
		return nil, 0, err
	}
	role := f.Role
	if role == "all" {
		role = ""
	}
	if f.Source == "scim" {
		return []*model.OrgInvitation{}, 0, nil // hubd has no SCIM: every invitation comes from a member
	}
	return q.OrgInvitations(ctx, store.OrgInvitationQuery{OrgID: org.ID, Role: role, Limit: limit, Offset: offset})
}

// Failed is one page of the organization's failed invitations (owners
// only): those that expired unaccepted.
func (s *Service) Failed(ctx context.Context, org, actor *model.Account, limit, offset int) ([]*model.OrgInvitation, int, error) {
	q := s.st.R()
	if err := requireOwner(ctx, q, org.ID, actor, msgFailed); err != nil {
		return nil, 0, err
	}
	return q.OrgInvitations(ctx, store.OrgInvitationQuery{OrgID: org.ID, Failed: true, Limit: limit, Offset: offset})
}

// Teams is one page of the teams of a pending invitation (owners only).
func (s *Service) Teams(ctx context.Context, org, actor *model.Account, id int64, limit, offset int) ([]*model.Team, int, error) {
	q := s.st.R()
	if err := requireOwner(ctx, q, org.ID, actor, msgTeams); err != nil {
		return nil, 0, err
	}
	inv, err := q.OrgInvitation(ctx, org.ID, id)
	if err != nil {
		return nil, 0, err
	}
	if !inv.Pending() {
		return nil, 0, model.ErrNotFound
	}
	return q.OrgInvitationTeams(ctx, inv.ID, limit, offset)
}

// Cancel is DELETE /orgs/{org}/invitations/{invitation_id} (owners only):
// a pending or expired invitation is withdrawn, a cancelled one stays so
// (204 again), an accepted one cannot be.
func (s *Service) Cancel(ctx context.Context, org, actor *model.Account, id int64) error {
	if err := requireOwner(ctx, s.st.R(), org.ID, actor, msgCancel); err != nil {
		return err
	}
	return s.st.Tx(ctx, func(tx store.Q) error {
		inv, err := tx.OrgInvitation(ctx, org.ID, id)
		if err != nil {
			return err
		}
		switch {
		case inv.AcceptedAt != nil:
			return errCancelAccepted
		case inv.CancelledAt != nil:
			return nil
		}
		return cancel(ctx, tx, org, actor, inv)
	})
}
