package issues

import (
	"context"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// Changes to issue comments and to whether issues are locked.

// modifiable loads comment id of x's repository for an edit or a
// deletion: its author, or anyone with write access, may.
func modifiable(ctx context.Context, tx store.Q, x *Access, id int64) (*model.IssueComment, error) {
	c, err := tx.CommentByID(ctx, x.Repo.ID, id)
	if err != nil {
		return nil, err
	}
	if x.Perm >= authz.Write || (c.UserID != 0 && c.UserID == x.Caller.UserID()) {
		return c, nil
	}
	return nil, deps.NeedPermission(authz.Write)
}

// UpdateComment sets comment id's body (text as given, checked once the
// caller may edit it), with its mentions, cross references and event.
func (a *Service) UpdateComment(ctx context.Context, x *Access, id int64, text *string) error {
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		c, err := modifiable(ctx, tx, x, id)
		if err != nil {
			return err
		}
		body, err := commentText(text)
		if err != nil {
			return err
		}
		if body == c.Body {
			return nil
		}
		from := c.Body
		c.Body = body
		if err := tx.UpdateCommentBody(ctx, c); err != nil {
			return err
		}
		if err := tx.AddIssueMentions(ctx, c.IssueID, mentions(body)); err != nil {
			return err
		}
		is, err := tx.IssueByID(ctx, c.IssueID)
		if err != nil {
			return err
		}
		if err := crossReference(ctx, tx, x, is, x.Caller.UserID(), body); err != nil {
			return err
		}
		p := commentPayload(c, "edited")
		p["changes"] = map[string]any{"body": map[string]any{"from": from}}
		return tx.AppendEvent(ctx, "issue_comment.edited", x.Caller.UserID(), x.Repo.ID, x.Org(), p)
	})
}

// DeleteComment deletes comment id (its author or write access).
func (a *Service) DeleteComment(ctx context.Context, x *Access, id int64) error {
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		c, err := modifiable(ctx, tx, x, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteComment(ctx, c); err != nil {
			return err
		}
		if err := tx.DeleteCommentedEvent(ctx, c.IssueID, c.ID); err != nil {
			return err
		}
		// The issue_comment webhook's "deleted" carries the comment as it was.
		p := commentPayload(c, "deleted")
		p["webhook"] = map[string]any{"comment": a.d.URLs.NewIssueWriter(wire.BodyFormat{Raw: true}).ToComment(x.Repo, c)}
		return tx.AppendEvent(ctx, "issue_comment.deleted", x.Caller.UserID(), x.Repo.ID, x.Org(), p)
	})
}

// PinComment pins comment id (unpinning the issue's pinned one) or unpins
// it, with the events.
func (a *Service) PinComment(ctx context.Context, x *Access, id int64, pin bool) error {
	actor := x.Caller.UserID()
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		c, err := tx.CommentByID(ctx, x.Repo.ID, id)
		if err != nil {
			return err
		}
		is, err := tx.IssueByID(ctx, c.IssueID)
		if err != nil {
			return err
		}
		ev := model.IssueEvent{ActorID: actor, Event: "pinned", SubjectID: c.ID}
		if pin {
			if c.PinnedAt != nil {
				return nil
			}
			prev, err := tx.PinComment(ctx, c, actor)
			if err != nil {
				return err
			}
			if prev != 0 {
				if err := event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: "unpinned", SubjectID: prev},
					map[string]any{"comment_id": prev}); err != nil {
					return err
				}
			}
		} else {
			if c.PinnedAt == nil {
				return nil
			}
			if err := tx.UnpinComment(ctx, c); err != nil {
				return err
			}
			ev.Event = "unpinned"
		}
		return event(ctx, tx, x, is, ev, map[string]any{"comment_id": c.ID})
	})
}

// Lock locks issue number's conversation with reason (nil for none); a
// locked issue stays as it is.
func (a *Service) Lock(ctx context.Context, x *Access, number int64, reason *string) error {
	actor := x.Caller.UserID()
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		before, err := issueByNumber(ctx, tx, x, number)
		if err != nil {
			return err
		}
		if before.Locked {
			return nil
		}
		after := *before
		after.Locked, after.LockReason = true, reason
		if err := tx.UpdateIssue(ctx, before, &after); err != nil {
			return err
		}
		return event(ctx, tx, x, &after, model.IssueEvent{ActorID: actor, Event: "locked", LockReason: reason},
			map[string]any{"lock_reason": reason})
	})
}

// Unlock unlocks issue number's conversation.
func (a *Service) Unlock(ctx context.Context, x *Access, number int64) error {
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		before, err := issueByNumber(ctx, tx, x, number)
		if err != nil {
			return err
		}
		if !before.Locked {
			return nil
		}
		after := *before
		after.Locked, after.LockReason = false, nil
		if err := tx.UpdateIssue(ctx, before, &after); err != nil {
			return err
		}
		return event(ctx, tx, x, &after, model.IssueEvent{ActorID: x.Caller.UserID(), Event: "unlocked"}, nil)
	})
}
