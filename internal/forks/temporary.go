package forks

import (
	"context"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// InsertTemporary makes, in the caller's transaction, the temporary
// private fork of a security advisory: a private repository of parent's
// owner named name, in parent's network, its git copied by the same job
// as any fork's. Those who work on it (writers) get write access; the
// caller, when not the owner, administers it. The caller checked who may
// ask; call Notify after the commit.
func (s *Service) InsertTemporary(ctx context.Context, tx store.Q, c *authz.Caller, parent *model.Repo, name string, writers []int64) (*model.Repo, error) {
	fork := newFork(parent, parent.Owner)
	fork.Visibility = model.Private
	fork.Name = name
	member := c.User.ID != parent.OwnerID
	if err := tx.LockNetwork(ctx, parent.ID); err != nil {
		return nil, err
	}
	if err := s.insert(ctx, tx, c, parent, fork, member, false); err != nil {
		return nil, err
	}
	for _, id := range writers {
		if id == parent.OwnerID || member && id == c.User.ID {
			continue
		}
		if err := tx.SetCollaborator(ctx, fork.ID, id, authz.Write); err != nil {
			return nil, err
		}
	}
	return fork, nil
}

// Notify wakes the workers for jobs queued by InsertTemporary.
func (s *Service) Notify() {
	if s.Jobs != nil {
		s.Jobs.Notify()
	}
}
