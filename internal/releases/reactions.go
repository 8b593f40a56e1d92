package releases

import (
	"context"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/reactions"
	"github.com/hubd/hubd/internal/store"
)

// reactionTarget is release id of a's repository as the reactions service sees it
// (a draft only for those who may push).
func (s *Service) reactionTarget(ctx context.Context, a Access, id int64) reactions.Target {
	return reactions.Target{RepoID: a.Repo.ID, OrgID: a.orgID(), Find: func(q store.Q) (reactions.Subject, error) {
		r, err := q.ReleaseByID(ctx, a.Repo.ID, id)
		if err != nil {
			return reactions.Subject{}, err
		}
		if err := a.visible(r); err != nil {
			return reactions.Subject{}, err
		}
		return reactions.Subject{Kind: store.ReactRelease, ID: id}, nil
	}}
}

// Reactions is a page of a release's reactions (of one content when
// content is set), oldest first, with their count.
func (s *Service) Reactions(ctx context.Context, a Access, id int64, content string, limit, offset int) ([]*model.Reaction, int, error) {
	return reactions.List(ctx, s.Store, s.reactionTarget(ctx, a, id), content, limit, offset)
}

// React adds the caller's reaction to a release: anyone who can read the
// repository. created is false when the caller had already reacted so.
func (s *Service) React(ctx context.Context, a Access, id int64, content *string) (*model.Reaction, bool, error) {
	if err := a.Repo.WriteRefusal(); err != nil {
		return nil, false, err
	}
	return reactions.Add(ctx, s.Store, s.reactionTarget(ctx, a, id), a.UserID, content)
}

// Unreact deletes a reaction of a release: users delete their own.
func (s *Service) Unreact(ctx context.Context, a Access, id, reactionID int64) error {
	if err := a.Repo.WriteRefusal(); err != nil {
		return err
	}
	return reactions.Remove(ctx, s.Store, s.reactionTarget(ctx, a, id), a.UserID, reactionID)
}
