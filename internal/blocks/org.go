package blocks

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// orgOwner loads the organization named login and checks that c is one of
// its active owners with a token allowed to manage its blocks. As GitHub
// documents, a classic token without admin:org gets a 404, and so does
// anyone who is not an owner (the block list is not theirs to see).
func orgOwner(ctx context.Context, q store.Q, c *authz.Caller, login string, write bool) (*model.Account, error) {
	if c == nil || c.User == nil {
		return nil, model.Forbidden("Resource not accessible by integration")
	}
	org, err := q.OrgByLogin(ctx, login)
	if err != nil {
		return nil, err
	}
	if err := tokenAllows(c, "admin:org", orgPermission, level(write), true); err != nil {
		if errors.Is(err, errNoScope) {
			return nil, model.ErrNotFound
		}
		return nil, err
	}
	m, err := q.Membership(ctx, org.ID, c.User.ID)
	if errors.Is(err, model.ErrNotFound) || err == nil && (m.State != store.StateActive || m.Role != model.RoleAdmin) {
		return nil, model.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return org, nil
}

// ListForOrg is a page of the users the organization blocks.
func (s *Service) ListForOrg(ctx context.Context, c *authz.Caller, orgLogin string, limit, offset int) ([]*model.Block, int, error) {
	q := s.Store.R()
	org, err := orgOwner(ctx, q, c, orgLogin, false)
	if err != nil {
		return nil, 0, err
	}
	return q.Blocks(ctx, org.ID, limit, offset)
}

// CheckOrg answers nil when the organization blocks login,
// model.ErrNotFound otherwise.
func (s *Service) CheckOrg(ctx context.Context, c *authz.Caller, orgLogin, login string) error {
	q := s.Store.R()
	org, err := orgOwner(ctx, q, c, orgLogin, false)
	if err != nil {
		return err
	}
	u, err := target(ctx, q, login)
	if err != nil {
		return err
	}
	ok, err := q.IsBlocked(ctx, org.ID, u.ID)
	if err != nil {
		return err
	}
	if !ok {
		return model.ErrNotFound
	}
	return nil
}

// BlockForOrg makes the organization block login. Members cannot be
// blocked; a pending invitation is cancelled and the user loses direct
// (outside collaborator) access to the organization's repositories.
func (s *Service) BlockForOrg(ctx context.Context, c *authz.Caller, orgLogin, login string) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		org, err := orgOwner(ctx, tx, c, orgLogin, true)
		if err != nil {
			return err
		}
		u, err := target(ctx, tx, login)
		if err != nil {
			return err
		}
		invited := false
		m, err := tx.Membership(ctx, org.ID, u.ID)
		switch {
		case errors.Is(err, model.ErrNotFound):
		case err != nil:
			return err
		case m.State == store.StateActive:
			return errCannotBlock("OrganizationBlock", login, "You can't block a member of the organization.")
		default:
			invited = true
		}
		added, err := tx.AddBlock(ctx, org.ID, u.ID)
		if err != nil || !added {
			return err
		}
		if invited {
			if err := tx.RemoveMembership(ctx, org.ID, u.ID); err != nil {
				return err
			}
		}
		if err := removeCollaborator(ctx, tx, org.ID, c.User.ID, org.ID, u); err != nil {
			return err
		}
		unassigned, err := tx.RemoveAssigneeFromOwnerRepos(ctx, org.ID, u.ID)
		if err != nil {
			return err
		}
		cancelled, err := tx.CancelInvitationsInOwnerRepos(ctx, org.ID, u.ID)
		if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "org_block.blocked", c.User.ID, 0, org.ID,
			map[string]any{"action": "blocked", "blocked_user_id": u.ID, "blocked_user": u.Login,
				"organization": org.Login, "invitation_cancelled": invited, "unassigned": unassigned,
				"repository_invitations_cancelled": cancelled})
	})
}

// UnblockForOrg lifts the organization's block of login.
func (s *Service) UnblockForOrg(ctx context.Context, c *authz.Caller, orgLogin, login string) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		org, err := orgOwner(ctx, tx, c, orgLogin, true)
		if err != nil {
			return err
		}
		u, err := target(ctx, tx, login)
		if err != nil {
			return err
		}
		removed, err := tx.RemoveBlock(ctx, org.ID, u.ID)
		if err != nil || !removed {
			return err
		}
		return tx.AppendEvent(ctx, "org_block.unblocked", c.User.ID, 0, org.ID,
			map[string]any{"action": "unblocked", "blocked_user_id": u.ID, "blocked_user": u.Login, "organization": org.Login})
	})
}
