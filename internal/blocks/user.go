package blocks

import (
	"context"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// ListForUser is a page of the users c blocks and how many there are.
func (s *Service) ListForUser(ctx context.Context, c *authz.Caller, limit, offset int) ([]*model.Block, int, error) {
	if err := userActor(c, false); err != nil {
		return nil, 0, err
	}
	return s.Store.R().Blocks(ctx, c.User.ID, limit, offset)
}

// CheckUser answers nil when c blocks login, model.ErrNotFound otherwise.
func (s *Service) CheckUser(ctx context.Context, c *authz.Caller, login string) error {
	if err := userActor(c, false); err != nil {
		return err
	}
	q := s.Store.R()
	u, err := target(ctx, q, login)
	if err != nil {
		return err
	}
	ok, err := q.IsBlocked(ctx, c.User.ID, u.ID)
	if err != nil {
		return err
	}
	if !ok {
		return model.ErrNotFound
	}
	return nil
}

// BlockUser makes c block login: login loses direct collaborator access to
// c's repositories. Blocking someone already blocked changes nothing.
func (s *Service) BlockUser(ctx context.Context, c *authz.Caller, login string) error {
	if err := userActor(c, true); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		u, err := target(ctx, tx, login)
		if err != nil {
			return err
		}
		if u.ID == c.User.ID {
			return errCannotBlock("UserBlock", login, "You can't block yourself.")
		}
		added, err := tx.AddBlock(ctx, c.User.ID, u.ID)
		if err != nil || !added {
			return err
		}
		// Both ways: the blocked user leaves c's repositories and c leaves
		// theirs, as on GitHub.
		if err := removeCollaborator(ctx, tx, c.User.ID, c.User.ID, 0, u); err != nil {
			return err
		}
		if err := removeCollaborator(ctx, tx, u.ID, c.User.ID, 0, c.User); err != nil {
			return err
		}
		unassigned, err := tx.RemoveAssigneeFromOwnerRepos(ctx, c.User.ID, u.ID)
		if err != nil {
			return err
		}
		cancelled, err := tx.CancelInvitationsInOwnerRepos(ctx, c.User.ID, u.ID)
		if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "user_block.blocked", c.User.ID, 0, 0,
			map[string]any{"action": "blocked", "blocked_user_id": u.ID, "blocked_user": u.Login, "unassigned": unassigned,
				"invitations_cancelled": cancelled})
	})
}

// UnblockUser lifts c's block of login; nothing happens when there was none.
func (s *Service) UnblockUser(ctx context.Context, c *authz.Caller, login string) error {
	if err := userActor(c, true); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		u, err := target(ctx, tx, login)
		if err != nil {
			return err
		}
		removed, err := tx.RemoveBlock(ctx, c.User.ID, u.ID)
		if err != nil || !removed {
			return err
		}
		return tx.AppendEvent(ctx, "user_block.unblocked", c.User.ID, 0, 0,
			map[string]any{"action": "unblocked", "blocked_user_id": u.ID, "blocked_user": u.Login})
	})
}

// removeCollaborator takes u off ownerID's repositories and records GitHub's
// member.removed event for each.
func removeCollaborator(ctx context.Context, tx store.Q, ownerID, actorID, orgID int64, u *model.Account) error {
	repos, err := tx.RemoveCollaboratorFromOwnerRepos(ctx, ownerID, u.ID)
	if err != nil {
		return err
	}
	for _, id := range repos {
		if err := tx.AppendEvent(ctx, "member.removed", actorID, id, orgID,
			map[string]any{"action": "removed", "member_id": u.ID, "member": u.Login, "reason": "blocked"}); err != nil {
			return err
		}
	}
	return nil
}
