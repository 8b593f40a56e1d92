package commitcomments

import (
	"context"
	"slices"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// checkContent refuses what is not one of GitHub's reaction types.
func checkContent(c string) error {
	if !slices.Contains(model.ReactionContents, c) {
		return &model.ValidationError{Errors: []model.FieldError{{Resource: "Reaction", Field: "content", Code: "invalid", Value: c}}}
	}
	return nil
}

// Reactions is a page of a comment's reactions (of one content when
// content is set), oldest first, with their count.
func (s *Service) Reactions(ctx context.Context, a Access, id int64, content string, limit, offset int) ([]*model.Reaction, int, error) {
	q := s.st.R()
	if _, err := q.CommitCommentByID(ctx, a.Repo.ID, id); err != nil {
		return nil, 0, err
	}
	if content != "" {
		if err := checkContent(content); err != nil {
			return nil, 0, err
		}
	}
	return q.ListReactions(ctx, store.ReactCommitComment, id, content, limit, offset)
}

// React adds the caller's reaction to a comment: anyone who can read the
// repository. created is false when the caller had already reacted so.
func (s *Service) React(ctx context.Context, a Access, id int64, content *string) (re *model.Reaction, created bool, err error) {
	if err := a.writable(); err != nil {
		return nil, false, err
	}
	if content == nil {
		return nil, false, model.Invalid("Reaction", "content", "missing_field")
	}
	if err := checkContent(*content); err != nil {
		return nil, false, err
	}
	err = s.st.Tx(ctx, func(tx store.Q) error {
		if _, err := tx.CommitCommentByID(ctx, a.Repo.ID, id); err != nil {
			return err
		}
		if re, created, err = tx.AddReaction(ctx, a.Repo.ID, store.ReactCommitComment, id, a.UserID, *content); err != nil || !created {
			return err
		}
		return tx.AppendEvent(ctx, "reaction.created", a.UserID, a.Repo.ID, a.org(), map[string]any{
			"reaction_id": re.ID, "subject_type": store.ReactCommitComment, "subject_id": id, "content": re.Content})
	})
	return re, created, err
}

// Unreact deletes a reaction of a comment: users delete their own.
func (s *Service) Unreact(ctx context.Context, a Access, id, reactionID int64) error {
	if err := a.writable(); err != nil {
		return err
	}
	return s.st.Tx(ctx, func(tx store.Q) error {
		if _, err := tx.CommitCommentByID(ctx, a.Repo.ID, id); err != nil {
			return err
		}
		re, err := tx.ReactionByID(ctx, store.ReactCommitComment, id, reactionID)
		if err != nil {
			return err
		}
		if re.User == nil || re.User.ID != a.UserID {
			return model.Forbidden("You can only delete your own reactions.")
		}
		if err := tx.DeleteReaction(ctx, store.ReactCommitComment, id, reactionID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "reaction.deleted", a.UserID, a.Repo.ID, a.org(), map[string]any{
			"reaction_id": reactionID, "subject_type": store.ReactCommitComment, "subject_id": id, "content": re.Content})
	})
}
