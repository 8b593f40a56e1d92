// Package outside is the service of an organization's outside
// collaborators: users with a direct grant on one of its repositories who
// are not members. It lists them, turns a member into one and removes one
// from every repository of the organization.
package outside

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service applies the rules; each write is one transaction with its
// domain events.
type Service struct {
	st *store.Store
}

// New makes the service.
func New(st *store.Store) *Service { return &Service{st: st} }

// Errors GitHub answers (the 422 text is GitHub's; the 403 texts are ours,
// GitHub documents the cases but not the words).
var (
	errNotOwner  = model.Forbidden("Must have admin rights to Repository.")
	errNotMember = model.Forbidden("Must be an organization member to view outside collaborators.")
	errLastOwner = model.Forbidden("Cannot convert the last owner to an outside collaborator.")
	errIsMember  = model.Unprocessable("You cannot specify an organization member to remove as an outside collaborator.")
)

// errConvertNone refuses to convert a user who is not an active member.
func errConvertNone(login, org string) error {
	return model.Forbidden(login + " is not a member of the " + org + " organization.")
}

// Filter is the list's filter parameter.
type Filter string

// Filters of the list.
const (
	FilterAll         Filter = "all"
	Filter2FADisabled Filter = "2fa_disabled"
	Filter2FAInsecure Filter = "2fa_insecure"
)

// ParseFilter reads filter ("" is all).
func ParseFilter(s string) (Filter, error) {
	switch Filter(s) {
	case "", FilterAll:
		return FilterAll, nil
	case Filter2FADisabled, Filter2FAInsecure:
		return Filter(s), nil
	}
	return "", &model.ValidationError{Errors: []model.FieldError{{Resource: "OutsideCollaborator", Field: "filter", Code: "invalid", Value: s}}}
}

// role is userID's active role in org ("" when not an active member).
func role(ctx context.Context, q store.Q, orgID, userID int64) (model.OrgRole, *model.Membership, error) {
	m, err := q.Membership(ctx, orgID, userID)
	if errors.Is(err, model.ErrNotFound) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	if m.State != store.StateActive {
		return "", m, nil
	}
	return m.Role, m, nil
}

// user finds a user by login (organizations are not users: 404).
func user(ctx context.Context, q store.Q, login string) (*model.Account, error) {
	u, err := q.AccountByLogin(ctx, login)
	if err != nil {
		return nil, err
	}
	if u.IsOrg() {
		return nil, model.ErrNotFound
	}
	return u, nil
}

// List is one page of org's outside collaborators as actorID sees them:
// active members only. hubd has no two-factor authentication, so every
// user has it disabled (2fa_disabled lists everyone) and nobody uses an
// insecure method (2fa_insecure lists nobody).
func (s *Service) List(ctx context.Context, org *model.Account, actorID int64, f Filter, limit, offset int) ([]*model.Account, int, error) {
	q := s.st.R()
	r, _, err := role(ctx, q, org.ID, actorID)
	if err != nil {
		return nil, 0, err
	}
	if r == "" {
		return nil, 0, errNotMember
	}
	if f == Filter2FAInsecure {
		return []*model.Account{}, 0, nil
	}
	return q.OutsideCollaborators(ctx, org.ID, limit, offset)
}

// requireOwner refuses anyone but an active owner of org.
func requireOwner(ctx context.Context, q store.Q, orgID, actorID int64) error {
	r, _, err := role(ctx, q, orgID, actorID)
	if err != nil {
		return err
	}
	if r != model.RoleAdmin {
		return errNotOwner
	}
	return nil
}

// Convert turns an active member of org into an outside collaborator, as
// GitHub does: the membership and their team memberships go, and what their
// teams gave them on the organization's repositories becomes a direct grant
// (a grant they already had is raised, never lowered). What they had through
// the organization itself (its base permission, the owner role) is not kept.
func (s *Service) Convert(ctx context.Context, org *model.Account, actorID int64, login string) error {
	if err := requireOwner(ctx, s.st.R(), org.ID, actorID); err != nil {
		return err
	}
	u, err := user(ctx, s.st.R(), login)
	if err != nil {
		return err
	}
	return s.st.Tx(ctx, func(tx store.Q) error {
		r, m, err := role(ctx, tx, org.ID, u.ID)
		if err != nil {
			return err
		}
		if r == "" {
			return errConvertNone(u.Login, org.Login)
		}
		if r == model.RoleAdmin {
			// Counted in the transaction (locked on PostgreSQL) so two
			// owners converting each other cannot both succeed.
			n, err := tx.CountActiveAdmins(ctx, org.ID)
			if err != nil {
				return err
			}
			if n <= 1 {
				return errLastOwner
			}
		}
		// Read while they are still a member: team access counts only for
		// active members.
		grants, err := tx.TeamGrantsOfMember(ctx, org.ID, u.ID)
		if err != nil {
			return err
		}
		for _, g := range grants {
			current, err := tx.Collaborator(ctx, g.RepoID, u.ID)
			if err != nil {
				return err
			}
			if current >= g.Perm {
				continue
			}
			if err := tx.SetCollaborator(ctx, g.RepoID, u.ID, g.Perm); err != nil {
				return err
			}
			action := "added"
			if current > authz.None {
				action = "edited"
			}
			if err := tx.AppendEvent(ctx, "member", actorID, g.RepoID, org.ID, map[string]any{
				"action": action, "member": u.ID, "permission": g.Perm.String(), "previous": current.String()}); err != nil {
				return err
			}
		}
		if err := tx.RemoveOrgTeamMemberships(ctx, org.ID, u.ID); err != nil {
			return err
		}
		if err := tx.RemoveMembership(ctx, org.ID, u.ID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "organization.member_converted", actorID, 0, org.ID,
			map[string]any{"user_id": u.ID, "role": m.Role, "to": "outside_collaborator"})
	})
}

// Remove takes login off every repository of org: their direct grants and
// their open invitations. An active member is refused (422), as on GitHub.
func (s *Service) Remove(ctx context.Context, org *model.Account, actorID int64, login string) error {
	if err := requireOwner(ctx, s.st.R(), org.ID, actorID); err != nil {
		return err
	}
	u, err := user(ctx, s.st.R(), login)
	if err != nil {
		return err
	}
	return s.st.Tx(ctx, func(tx store.Q) error {
		r, _, err := role(ctx, tx, org.ID, u.ID)
		if err != nil {
			return err
		}
		if r != "" {
			return errIsMember
		}
		repos, invs, err := tx.RemoveFromOrgRepos(ctx, org.ID, u.ID)
		if err != nil {
			return err
		}
		for _, id := range repos {
			if err := tx.AppendEvent(ctx, "member", actorID, id, org.ID, map[string]any{
				"action": "removed", "member": u.ID}); err != nil {
				return err
			}
		}
		for _, inv := range invs {
			if err := tx.AppendEvent(ctx, "repository_invitation", actorID, inv.RepoID, org.ID, map[string]any{
				"action": "deleted", "invitation": inv.ID, "invitee": u.ID}); err != nil {
				return err
			}
		}
		return nil
	})
}
