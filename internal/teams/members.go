package teams

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Invitations is a page of the pending invitations to t's organization
// that include t, oldest first: invitations by POST .../invitations with
// the team's id, and outsiders added to the team (they are invited with
// it). Owners and the team's maintainers may list them.
func (s *Service) Invitations(ctx context.Context, t *model.Team, a Actor, limit, offset int) ([]*model.OrgInvitation, int, error) {
	q := s.Store.R()
	if err := s.mayManage(ctx, q, t, a); errors.Is(err, errManage) {
		return nil, 0, model.Forbidden("You must be an organization owner or team maintainer to list team invitations.")
	} else if err != nil {
		return nil, 0, err
	}
	return q.OrgInvitations(ctx, store.OrgInvitationQuery{OrgID: t.OrgID, TeamID: t.ID, Limit: limit, Offset: offset})
}

// teamMemberError is GitHub's 422 of the legacy member routes: a message
// and one errors[] entry naming the reason.
func teamMemberError(code, msg string) error {
	return &model.ValidationError{Message: msg, Errors: []model.FieldError{{Resource: "TeamMember", Field: "user", Code: code}}}
}

// IsMember is nil when u is an active member of t (GET
// /teams/{team_id}/members/{username}); model.ErrNotFound otherwise, a
// pending member included.
func (s *Service) IsMember(ctx context.Context, t *model.Team, u *model.Account) error {
	m, err := s.Store.R().TeamMember(ctx, t.ID, u.ID)
	if err != nil {
		return err
	}
	if m.State != store.StateActive {
		return model.ErrNotFound
	}
	return nil
}

// AddMember is the legacy PUT /teams/{team_id}/members/{username}: an
// active member of the organization joins t as a member. Unlike the
// membership route it invites nobody: anyone else is refused, as is a
// member already in the team.
func (s *Service) AddMember(ctx context.Context, t *model.Team, a Actor, u *model.Account) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := s.mayManage(ctx, tx, t, a); err != nil {
			return err
		}
		if u.IsOrg() {
			return teamMemberError("org", "Cannot add an organization as a member.")
		}
		om, err := tx.Membership(ctx, t.OrgID, u.ID)
		if errors.Is(err, model.ErrNotFound) || err == nil && om.State != store.StateActive {
			return teamMemberError("unaffiliated", "User isn't a member of this organization. Please invite them first.")
		}
		if err != nil {
			return err
		}
		if _, err := tx.TeamMember(ctx, t.ID, u.ID); err == nil {
			return teamMemberError("dupe", "User is already a member.")
		} else if !errors.Is(err, model.ErrNotFound) {
			return err
		}
		return s.addMember(ctx, tx, t, a, u, model.TeamMember)
	})
}

// RemoveMember is the legacy DELETE /teams/{team_id}/members/{username}:
// owners and maintainers take u out of t; nothing happens when u is not in
// it (a pending invitation keeps the team).
func (s *Service) RemoveMember(ctx context.Context, t *model.Team, a Actor, u *model.Account) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := s.mayManage(ctx, tx, t, a); err != nil {
			return err
		}
		err := tx.RemoveTeamMember(ctx, t.ID, u.ID)
		if errors.Is(err, model.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "membership", a.id(), 0, t.OrgID, map[string]any{"action": "removed", "team_id": t.ID, "user_id": u.ID})
	})
}

// ignoreNotFound is nil for model.ErrNotFound.
func ignoreNotFound(err error) error {
	if errors.Is(err, model.ErrNotFound) {
		return nil
	}
	return err
}
