package pullreviews

import (
	"context"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/reactions"
	"github.com/hubd/hubd/internal/store"
)

// target is review comment id of a's repository as the reactions service
// sees it (comments of others' pending reviews are not found).
func (s *Service) target(ctx context.Context, a Access, id int64) reactions.Target {
	return reactions.Target{RepoID: a.Repo.ID, OrgID: a.org(), Find: func(q store.Q) (reactions.Subject, error) {
		c, err := q.PullReviewCommentByID(ctx, a.Repo.ID, id)
		if err == nil {
			err = visible(a, c)
		}
		if err != nil {
			return reactions.Subject{}, err
		}
		return reactions.Subject{Kind: store.ReactPullReviewComment, ID: id}, nil
	}}
}

// Reactions is a page of a comment's reactions (of one content when
// content is set), oldest first, with their count.
func (s *Service) Reactions(ctx context.Context, a Access, id int64, content string, limit, offset int) ([]*model.Reaction, int, error) {
	return reactions.List(ctx, s.st, s.target(ctx, a, id), content, limit, offset)
}

// React adds the caller's reaction to a comment: anyone who can read the
// repository. created is false when the caller had already reacted so.
func (s *Service) React(ctx context.Context, a Access, id int64, content *string) (*model.Reaction, bool, error) {
	if err := a.writable(); err != nil {
		return nil, false, err
	}
	return reactions.Add(ctx, s.st, s.target(ctx, a, id), a.UserID, content)
}

// Unreact deletes a reaction of a comment: users delete their own.
func (s *Service) Unreact(ctx context.Context, a Access, id, reactionID int64) error {
	if err := a.writable(); err != nil {
		return err
	}
	return reactions.Remove(ctx, s.st, s.target(ctx, a, id), a.UserID, reactionID)
}
