// Package orgmembers is the service of an organization's members and
// invitations. A pending membership is an open invitation (store
// org_invitations): PUT .../memberships/{username}, POST .../invitations
// and adding an outsider to a team all invite through Invite, and
// accepting an invitation makes the invitee a member of the organization
// and of the invitation's teams. It holds who may manage members, the
// last-owner rule, the invitation rate limit and GitHub's refusals, for
// every transport; each write is one transaction with its domain events.
package orgmembers

import (
	"context"
	"errors"
	"strconv"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service applies the rules.
type Service struct {
	st *store.Store
}

// New makes the service.
func New(st *store.Store) *Service { return &Service{st: st} }

// GitHub's refusals (their wording; see the report for the ones hubd
// chose itself).
var (
	errLastOwner      = model.Forbidden("Cannot remove the last owner")
	errDemoteLast     = model.Forbidden("You can't demote the last admin to a member.")
	errDemoteSelf     = model.Forbidden("You cannot demote yourself. Admins must be demoted by another admin.")
	errBlocked        = model.Unprocessable("You cannot invite a user who is blocked by the organization.")
	errOrgAsMember    = model.Unprocessable("Members must be users, not organizations.")
	errRole           = model.Unprocessable("User must have a valid role.")
	errCancelAccepted = model.Unprocessable("You cannot cancel an accepted invitation.")
	errNoReinstate    = model.Unprocessable("No previous privileges to reinstate")
	errInviteeID      = model.Unprocessable("Invalid invitee_id")
)

// Forbidden messages of the owner-only operations.
const (
	msgNotOwner      = "Must have admin rights to Repository."
	msgSetMembership = "You must be an admin to add or update an organization membership."
	msgRemove        = "You must be an admin to remove an organization membership."
	msgList          = "You must be an admin to view organization pending invitations."
	msgFailed        = "You must be an admin to view organization failed invitations."
	msgCreate        = "You must be an admin to create an invitation to an organization."
	msgCancel        = "You must be an admin to cancel an invitation to an organization."
	msgTeams         = "You must be an admin to list the teams off an organization invitation."
)

// invitationError is GitHub's 422 of POST /orgs/{org}/invitations: one
// errors[] entry of resource OrganizationInvitation, code unprocessable.
func invitationError(field, msg string) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: "OrganizationInvitation", Field: field,
		Code: "unprocessable", Message: msg}}}
}

func errCannotFind(login string) error {
	return &model.HTTPError{Status: 404, Message: "Cannot find " + login}
}

// role is userID's active role in the organization ("" when none).
func role(ctx context.Context, q store.Q, orgID, userID int64) (model.OrgRole, error) {
	m, err := q.Membership(ctx, orgID, userID)
	if errors.Is(err, model.ErrNotFound) {
		return "", nil
	}
	if err != nil || m.State != store.StateActive {
		return "", err
	}
	return m.Role, nil
}

// requireOwner refuses (403 with msg) anyone but an active owner.
func requireOwner(ctx context.Context, q store.Q, orgID int64, actor *model.Account, msg string) error {
	if actor == nil {
		return model.Forbidden(msg)
	}
	r, err := role(ctx, q, orgID, actor.ID)
	if err != nil {
		return err
	}
	if r != model.RoleAdmin {
		return model.Forbidden(msg)
	}
	return nil
}

// lastOwner refuses to take away an active owner's role when no other
// active owner is left. On PostgreSQL the count locks the owners' rows, so
// two owners removing each other cannot both succeed.
func lastOwner(ctx context.Context, q store.Q, orgID int64, m *model.Membership, refusal error) error {
	if m.Role != model.RoleAdmin || m.State != store.StateActive {
		return nil
	}
	n, err := q.CountActiveAdmins(ctx, orgID)
	if err != nil {
		return err
	}
	if n <= 1 {
		return refusal
	}
	return nil
}

// SetMembership is PUT /orgs/{org}/memberships/{username}: a member's role
// changes, a pending invitation's role changes, anyone else is invited
// (pending until they accept). role is "admin" or "member" ("" is member).
func (s *Service) SetMembership(ctx context.Context, org, actor, user *model.Account, roleName string) (*model.Membership, error) {
	if err := requireOwner(ctx, s.st.R(), org.ID, actor, msgSetMembership); err != nil {
		return nil, err
	}
	if user.IsOrg() {
		return nil, errOrgAsMember
	}
	want := model.RoleMember
	switch roleName {
	case "", "member":
	case "admin":
		want = model.RoleAdmin
	default:
		return nil, errRole
	}
	if want == model.RoleMember && user.ID == actor.ID {
		return nil, errDemoteSelf // the actor is an owner
	}
	var out *model.Membership
	err := s.st.Tx(ctx, func(tx store.Q) error {
		if err := tx.LockOrgInvitations(ctx, org.ID); err != nil {
			return err
		}
		old, err := tx.Membership(ctx, org.ID, user.ID)
		switch {
		case errors.Is(err, model.ErrNotFound):
			if err := RefuseBlocked(ctx, tx, org, user); err != nil {
				return err
			}
			if limit, over, err := overLimit(ctx, tx, org); err != nil {
				return err
			} else if over {
				return model.Forbidden("You have exceeded the organization invitation rate limit of " + strconv.Itoa(limit) + " per 24 hours.")
			}
			if _, _, err := Invite(ctx, tx, Invitation{Org: org, Inviter: actor, User: user, Role: inviteRole(want)}); err != nil {
				return err
			}
		case err != nil:
			return err
		case old.State == store.StatePending:
			inv, err := tx.PendingOrgInvitation(ctx, org.ID, user.ID)
			if err != nil {
				return err
			}
			if inv.MemberRole() != want {
				if err := tx.SetOrgInvitationRole(ctx, inv.ID, inviteRole(want), ""); err != nil {
					return err
				}
				if err := tx.AppendEvent(ctx, "organization.member_invitation_edited", actor.ID, 0, org.ID,
					map[string]any{"invitation_id": inv.ID, "user_id": user.ID, "role": inviteRole(want)}); err != nil {
					return err
				}
			}
		case old.Role != want:
			if err := lastOwner(ctx, tx, org.ID, old, errDemoteLast); err != nil {
				return err
			}
			if err := tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: user.ID, Role: want, State: store.StateActive}); err != nil {
				return err
			}
			if err := tx.AppendEvent(ctx, "organization.member_role_changed", actor.ID, 0, org.ID,
				map[string]any{"user_id": user.ID, "role": want, "previous": old.Role}); err != nil {
				return err
			}
		}
		out, err = tx.Membership(ctx, org.ID, user.ID)
		return err
	})
	return out, err
}

// inviteRole is the invitation role of an organization role.
func inviteRole(r model.OrgRole) string {
	if r == model.RoleAdmin {
		return model.InviteAdmin
	}
	return model.InviteDirectMember
}

// RefuseBlocked is GitHub's 422 for inviting a user the organization
// blocks (nil when it does not).
func RefuseBlocked(ctx context.Context, q store.Q, org, user *model.Account) error {
	blocked, err := q.IsBlocked(ctx, org.ID, user.ID)
	if err != nil {
		return err
	}
	if blocked {
		return errBlocked
	}
	return nil
}

// Remove is DELETE /orgs/{org}/memberships/{username}: it cancels the
// user's pending invitation or removes the member (not the last owner).
func (s *Service) Remove(ctx context.Context, org, actor, user *model.Account) error {
	return s.remove(ctx, org, actor, user, msgRemove, true)
}

// RemoveMember is DELETE /orgs/{org}/members/{username}: it removes an
// active member (not the last owner); an invitee is not found.
func (s *Service) RemoveMember(ctx context.Context, org, actor, user *model.Account) error {
	return s.remove(ctx, org, actor, user, msgNotOwner, false)
}

func (s *Service) remove(ctx context.Context, org, actor, user *model.Account, forbidden string, invitations bool) error {
	if err := requireOwner(ctx, s.st.R(), org.ID, actor, forbidden); err != nil {
		return err
	}
	return s.st.Tx(ctx, func(tx store.Q) error {
		m, err := tx.Membership(ctx, org.ID, user.ID)
		if errors.Is(err, model.ErrNotFound) || err == nil && m.State == store.StatePending && !invitations {
			return errCannotFind(user.Login)
		}
		if err != nil {
			return err
		}
		if m.State == store.StatePending {
			inv, err := tx.PendingOrgInvitation(ctx, org.ID, user.ID)
			if err != nil {
				return err
			}
			return cancel(ctx, tx, org, actor, inv)
		}
		if err := lastOwner(ctx, tx, org.ID, m, errLastOwner); err != nil {
			return err
		}
		if err := tx.RemoveMembership(ctx, org.ID, user.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "organization.member_removed", actor.ID, 0, org.ID,
			map[string]any{"user_id": user.ID, "role": m.Role})
	})
}

// cancel withdraws a pending invitation; the pending memberships of the
// organization and of its teams go with it.
func cancel(ctx context.Context, tx store.Q, org, actor *model.Account, inv *model.OrgInvitation) error {
	if err := tx.CancelOrgInvitation(ctx, inv.ID); err != nil {
		return err
	}
	return tx.AppendEvent(ctx, "organization.member_invitation_cancelled", actor.ID, 0, org.ID,
		map[string]any{"invitation_id": inv.ID, "user_id": inv.InviteeID, "email": inv.Email})
}

// Accept is PATCH /user/memberships/orgs/{org} with state active: the
// user's pending invitation makes them a member with its role and a member
// of its teams. An active membership is returned unchanged.
func (s *Service) Accept(ctx context.Context, org, user *model.Account) (*model.Membership, error) {
	var out *model.Membership
	err := s.st.Tx(ctx, func(tx store.Q) error {
		m, err := tx.Membership(ctx, org.ID, user.ID)
		if err != nil {
			return err
		}
		if m.State == store.StateActive {
			out = m
			return nil
		}
		inv, err := tx.PendingOrgInvitation(ctx, org.ID, user.ID)
		if err != nil {
			return err
		}
		teams, err := tx.AcceptOrgInvitation(ctx, inv, user.ID)
		if err != nil {
			return err
		}
		if err := tx.AppendEvent(ctx, "organization.member_added", user.ID, 0, org.ID,
			map[string]any{"user_id": user.ID, "role": inv.MemberRole(), "invitation_id": inv.ID}); err != nil {
			return err
		}
		for _, t := range teams {
			if err := tx.AppendEvent(ctx, "membership", user.ID, 0, org.ID, map[string]any{"action": "added",
				"team_id": t.TeamID, "user_id": user.ID, "role": t.Role, "state": store.StateActive}); err != nil {
				return err
			}
		}
		out, err = tx.Membership(ctx, org.ID, user.ID)
		return err
	})
	return out, err
}

// MaySetMembership is the 403 of SetMembership for a caller who is not an
// owner, for transports to answer before they read the request body (as
// GitHub checks the caller before it validates).
func (s *Service) MaySetMembership(ctx context.Context, org, actor *model.Account) error {
	return requireOwner(ctx, s.st.R(), org.ID, actor, msgSetMembership)
}

// MayInvite is the 403 of Create, as MaySetMembership.
func (s *Service) MayInvite(ctx context.Context, org, actor *model.Account) error {
	return requireOwner(ctx, s.st.R(), org.ID, actor, msgCreate)
}
