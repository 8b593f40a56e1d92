// Package reactions is the reaction service shared by every subject that
// takes reactions (issues, issue comments, commit comments): which contents
// exist, that a repeated reaction is answered with the existing one, that
// users delete only their own, and the events each change appends. Callers
// have checked that the actor may see and take part in the repository; the
// subject is loaded inside the write's transaction, so a subject deleted
// meanwhile answers not found.
package reactions

import (
	"context"
	"slices"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Subject is what a reaction belongs to: a store.React* kind and its id.
type Subject struct {
	Kind string
	ID   int64
}

// Target is a subject in its repository; Find loads it with the given
// queries (model.ErrNotFound when it is gone).
type Target struct {
	RepoID, OrgID int64
	Find          func(q store.Q) (Subject, error)
}

// invalid is GitHub's 422 for a content that is not a reaction type.
func invalid(c string) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: "Reaction", Field: "content", Code: "invalid", Value: c}}}
}

// List is a page of the subject's reactions (of one content when content is
// set), oldest first, with their count.
func List(ctx context.Context, st *store.Store, t Target, content string, limit, offset int) ([]*model.Reaction, int, error) {
	q := st.R()
	s, err := t.Find(q)
	if err != nil {
		return nil, 0, err
	}
	if content != "" && !slices.Contains(model.ReactionContents, content) {
		return nil, 0, invalid(content)
	}
	return q.ListReactions(ctx, s.Kind, s.ID, content, limit, offset)
}

// Add records actor's reaction; created is false when actor had already
// reacted so (GitHub answers 200 with that reaction).
func Add(ctx context.Context, st *store.Store, t Target, actorID int64, content *string) (re *model.Reaction, created bool, err error) {
	if content == nil {
		return nil, false, model.Invalid("Reaction", "content", "missing_field")
	}
	if !slices.Contains(model.ReactionContents, *content) {
		return nil, false, invalid(*content)
	}
	err = st.Tx(ctx, func(tx store.Q) error {
		s, err := t.Find(tx)
		if err != nil {
			return err
		}
		if re, created, err = tx.AddReaction(ctx, t.RepoID, s.Kind, s.ID, actorID, *content); err != nil || !created {
			return err
		}
		return tx.AppendEvent(ctx, "reaction.created", actorID, t.RepoID, t.OrgID, map[string]any{
			"reaction_id": re.ID, "subject_type": s.Kind, "subject_id": s.ID, "content": re.Content})
	})
	return re, created, err
}

// Remove deletes one of actor's own reactions.
func Remove(ctx context.Context, st *store.Store, t Target, actorID, reactionID int64) error {
	return st.Tx(ctx, func(tx store.Q) error {
		s, err := t.Find(tx)
		if err != nil {
			return err
		}
		re, err := tx.ReactionByID(ctx, s.Kind, s.ID, reactionID)
		if err != nil {
			return err
		}
		if re.User == nil || re.User.ID != actorID {
			return model.Forbidden("You can only delete your own reactions.")
		}
		if err := tx.DeleteReaction(ctx, s.Kind, s.ID, reactionID); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "reaction.deleted", actorID, t.RepoID, t.OrgID, map[string]any{
			"reaction_id": reactionID, "subject_type": s.Kind, "subject_id": s.ID, "content": re.Content})
	})
}
