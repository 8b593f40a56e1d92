package discussions

import (
	"context"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Comment is comment id of the discussion's repository.
func (s *Service) Comment(ctx context.Context, x *Access, id int64) (*model.DiscussionComment, error) {
	if err := x.Readable(); err != nil {
		return nil, err
	}
	m, err := s.Store.R().DiscussionCommentsByID(ctx, []int64{id})
	if err != nil {
		return nil, err
	}
	c := m[id]
	if c == nil || c.RepoID != x.Repo.ID {
		return nil, model.ErrNotFound
	}
	return c, nil
}

// AddComment comments on a discussion, or replies to one of its top-level
// comments (a reply to a reply answers in the same thread, as on GitHub).
// A locked discussion takes comments from collaborators with write access.
func (s *Service) AddComment(ctx context.Context, x *Access, d *model.Discussion, body string, replyTo int64) (*model.DiscussionComment, error) {
	if err := x.writable(); err != nil {
		return nil, err
	}
	if d.Locked && x.Perm < authz.Write {
		return nil, model.Forbidden("This discussion is locked and can't be commented on.")
	}
	if body == "" {
		return nil, model.Invalid("DiscussionComment", "body", "missing_field")
	}
	if err := validBody("body", body); err != nil {
		return nil, err
	}
	c := &model.DiscussionComment{DiscussionID: d.ID, RepoID: d.RepoID, Body: body, User: x.Caller.User}
	if replyTo != 0 {
		parent, err := s.Comment(ctx, x, replyTo)
		if err != nil || parent.DiscussionID != d.ID {
			return nil, model.Unprocessable("Could not resolve to a DiscussionComment to reply to in this discussion.")
		}
		if parent.ReplyToID != 0 {
			replyTo = parent.ReplyToID
		}
		c.ReplyToID = replyTo
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateDiscussionComment(ctx, c); err != nil {
			return err
		}
		if c.ReplyToID == 0 {
			d.Comments++
		}
		return s.event(ctx, tx, x, "created", d, c, nil)
	})
	return c, err
}

// UpdateComment edits a comment's body: its author or collaborators with
// write access.
func (s *Service) UpdateComment(ctx context.Context, x *Access, d *model.Discussion, c *model.DiscussionComment, body string) error {
	if err := x.writable(); err != nil {
		return err
	}
	if err := x.need(authz.Write, x.author(c.User), "updateDiscussionComment"); err != nil {
		return err
	}
	if body == "" {
		return model.Invalid("DiscussionComment", "body", "missing_field")
	}
	if err := validBody("body", body); err != nil {
		return err
	}
	if body == c.Body {
		return nil
	}
	changes := map[string]any{"body": map[string]any{"from": c.Body}}
	now := s.Store.Now()
	c.Body, c.LastEditedAt, c.EditorID = body, &now, x.userID()
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.UpdateDiscussionComment(ctx, c); err != nil {
			return err
		}
		return s.event(ctx, tx, x, "edited", d, c, changes)
	})
}

// DeleteComment deletes a comment with its replies: its author or
// triagers.
func (s *Service) DeleteComment(ctx context.Context, x *Access, d *model.Discussion, c *model.DiscussionComment) error {
	if err := x.writable(); err != nil {
		return err
	}
	if err := x.need(authz.Triage, x.author(c.User), "deleteDiscussionComment"); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := s.event(ctx, tx, x, "deleted", d, c, nil); err != nil {
			return err
		}
		if d.AnswerID == c.ID {
			d.AnswerID, d.AnswerChosenAt, d.AnswerChosenBy = 0, nil, 0
		}
		return tx.DeleteDiscussionComment(ctx, c)
	})
}

// MarkAnswer marks (or, with mark false, unmarks) a top-level comment of a
// Q&A discussion as its answer: the discussion's author or triagers.
func (s *Service) MarkAnswer(ctx context.Context, x *Access, d *model.Discussion, c *model.DiscussionComment, mark bool) error {
	if err := x.writable(); err != nil {
		return err
	}
	what := "markDiscussionCommentAsAnswer"
	if !mark {
		what = "unmarkDiscussionCommentAsAnswer"
	}
	if err := x.need(authz.Triage, x.author(d.User), what); err != nil {
		return err
	}
	cat, err := s.Category(ctx, x.Repo, d.CategoryID)
	if err != nil {
		return err
	}
	if !cat.Answerable() {
		return model.Unprocessable("Discussion is not in an answerable category.")
	}
	if c.ReplyToID != 0 && mark {
		return model.Unprocessable("Only top-level comments can be marked as the answer.")
	}
	action := "answered"
	if mark {
		if d.AnswerID == c.ID {
			return nil
		}
		now := s.Store.Now()
		d.AnswerID, d.AnswerChosenAt, d.AnswerChosenBy = c.ID, &now, x.userID()
	} else {
		if d.AnswerID != c.ID {
			return model.Unprocessable("Comment is not the answer of its discussion.")
		}
		d.AnswerID, d.AnswerChosenAt, d.AnswerChosenBy, action = 0, nil, 0, "unanswered"
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.UpdateDiscussion(ctx, d); err != nil {
			return err
		}
		if !mark {
			return s.event(ctx, tx, x, action, d, nil, map[string]any{"old_answer_id": c.ID})
		}
		return s.event(ctx, tx, x, action, d, c, nil)
	})
}

// Transfer moves a discussion to another repository of the same owner
// (maintainers of the repository it leaves, and write access to the one
// it joins); it takes the next number there and the category of the
// same slug, else the first one. Labels stay behind, as on GitHub.
func (s *Service) Transfer(ctx context.Context, x *Access, d *model.Discussion, to *Access) error {
	if err := x.writable(); err != nil {
		return err
	}
	if err := to.writable(); err != nil {
		return err
	}
	if err := x.need(authz.Maintain, false, "transferDiscussion"); err != nil {
		return err
	}
	if err := to.need(authz.Write, false, "transferDiscussion"); err != nil {
		return err
	}
	if to.Repo.ID == x.Repo.ID {
		return model.Unprocessable("The discussion is already in that repository.")
	}
	if to.Repo.OwnerID != x.Repo.OwnerID {
		return model.Unprocessable("Discussions move only between repositories of the same owner.")
	}
	from, err := s.Category(ctx, x.Repo, d.CategoryID)
	if err != nil {
		return err
	}
	cats, err := s.Categories(ctx, []*model.Repo{to.Repo})
	if err != nil {
		return err
	}
	list := cats[to.Repo.ID]
	if len(list) == 0 {
		return model.Unprocessable("The target repository has no discussion categories.")
	}
	target := list[0]
	for _, c := range list {
		if c.Slug == from.Slug {
			target = c
		}
	}
	old := *d
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if d.AnswerID != 0 && !target.Answerable() {
			d.AnswerID, d.AnswerChosenAt, d.AnswerChosenBy = 0, nil, 0
			if err := tx.UpdateDiscussion(ctx, d); err != nil {
				return err
			}
		}
		if err := tx.MoveDiscussion(ctx, d, to.Repo.ID, target.ID); err != nil {
			return err
		}
		// The event belongs to the repository it left (its hooks get the
		// transferred webhook) and carries the discussion it became.
		return s.event(ctx, tx, x, "transferred", &old, nil, map[string]any{"new_repository_id": to.Repo.ID, "new_discussion": snapshot(d)})
	})
}

// ConvertIssue turns an issue of the repository into a discussion of a
// category (maintainers, as on GitHub): the discussion takes the issue's
// title, body, author, labels and comments, and the issue is closed with
// a link to it and locked.
func (s *Service) ConvertIssue(ctx context.Context, x *Access, is *model.Issue, categoryID int64) (*model.Discussion, error) {
	if err := x.writable(); err != nil {
		return nil, err
	}
	if err := x.need(authz.Maintain, false, "convertIssueToDiscussion"); err != nil {
		return nil, err
	}
	if is.RepoID != x.Repo.ID || is.IsPull {
		return nil, model.ErrNotFound
	}
	cat, err := s.Category(ctx, x.Repo, categoryID)
	if err != nil {
		return nil, model.Unprocessable("Could not resolve to a DiscussionCategory with the given id.")
	}
	d := &model.Discussion{RepoID: x.Repo.ID, CategoryID: cat.ID, Title: is.Title, User: is.User}
	if is.Body != nil {
		d.Body = *is.Body
	}
	if d.User == nil && is.UserID != 0 {
		d.User = &model.Account{ID: is.UserID}
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateDiscussion(ctx, d); err != nil {
			return err
		}
		labels, err := tx.IssueLabels(ctx, is.ID)
		if err != nil {
			return err
		}
		ids := make([]int64, len(labels))
		for i, l := range labels {
			ids[i] = l.ID
		}
		if err := tx.SetDiscussionLabels(ctx, d.ID, ids, true); err != nil {
			return err
		}
		if err := tx.CopyIssueCommentsToDiscussion(ctx, is.ID, d); err != nil {
			return err
		}
		before := *is
		now := tx.Now()
		reason, lock := "not_planned", "resolved"
		after := *is
		after.State, after.StateReason, after.ClosedAt, after.ClosedByID, after.Locked, after.LockReason = "closed", &reason, &now, x.userID(), true, &lock
		if err := tx.UpdateIssue(ctx, &before, &after); err != nil {
			return err
		}
		return s.event(ctx, tx, x, "created", d, nil, map[string]any{"converted_from_issue": is.Number})
	})
	return d, err
}
