package pullreviews

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// CommentInput is a review comment as a client asks for it (alone or in a
// review's comments array).
type CommentInput struct {
	Body        *string
	CommitID    *string
	Path        *string
	Position    *int64
	Line        *int64
	Side        *string
	StartLine   *int64
	StartSide   *string
	SubjectType *string
	InReplyTo   *int64
}

func i64(n int) *int64 {
	v := int64(n)
	return &v
}

func str(s string) *string { return &s }

// placeError is a comment that has no place in the diff. GitHub words it
// two ways: the review comment endpoint as a Validation Failed entry on the
// field ("pull_request_review_thread.line must be part of the diff"), the
// review endpoints as a reason ("Pull request review thread line must be
// part of the diff").
type placeError struct{ field, tail string }

func placeErr(field, tail string) error { return &placeError{field, tail} }

func (e *placeError) Error() string { return e.reason() }

// reason is the field in words, then what is wrong with it.
func (e *placeError) reason() string {
	words := strings.NewReplacer("pull_request_review_thread.", "pull request review thread ", "_", " ").Replace(e.field)
	return strings.ToUpper(words[:1]) + words[1:] + " " + e.tail
}

// asFieldError is the review comment endpoint's form of a placeError.
func asFieldError(err error) error {
	var pe *placeError
	if errors.As(err, &pe) {
		return model.Custom("PullRequestReviewComment", pe.field, pe.field+" "+pe.tail)
	}
	return err
}

// asReason is the review endpoints' form of a placeError.
func asReason(err error) error {
	var pe *placeError
	if errors.As(err, &pe) {
		return model.UnprocessableReasons(pe.reason())
	}
	return err
}

// place finds where a new comment sits in d: a placeError for a path or
// line that is not part of the diff.
func place(d *diff, in CommentInput) (*model.PullReviewComment, error) {
	if in.Path == nil || *in.Path == "" {
		return nil, placeErr("path", "is required")
	}
	c := &model.PullReviewComment{Path: *in.Path, CommitID: d.head, OriginalCommitID: d.head, SubjectType: "line"}
	fp := d.files[c.Path]
	if fp == nil {
		return nil, placeErr("path", "could not be resolved")
	}
	if in.SubjectType != nil && *in.SubjectType == "file" {
		c.SubjectType, c.DiffHunk = "file", fp.firstHunk()
		return c, nil
	}
	var e *diffLine
	side := "RIGHT"
	switch {
	case in.Line != nil:
		if in.Side != nil && *in.Side != "" {
			side = *in.Side
		}
		if e = fp.find(side, int(*in.Line)); e == nil {
			return nil, placeErr("pull_request_review_thread.line", "must be part of the diff")
		}
	case in.Position != nil:
		if e = fp.at(int(*in.Position)); e == nil {
			return nil, placeErr("position", "could not be resolved")
		}
		side, _ = sideOf(e)
	default:
		return nil, placeErr("pull_request_review_thread.line", "must be part of the diff")
	}
	line := lineOn(e, side)
	c.Position, c.OriginalPosition = i64(e.pos), i64(e.pos)
	c.Line, c.OriginalLine, c.Side = i64(line), i64(line), str(side)
	c.DiffHunk = fp.hunk(e)
	if in.StartLine != nil && in.Line != nil {
		ss := side
		if in.StartSide != nil && *in.StartSide != "" {
			ss = *in.StartSide
		}
		s := fp.find(ss, int(*in.StartLine))
		switch {
		case s == nil:
			return nil, placeErr("pull_request_review_thread.start_line", "must be part of the diff")
		case s.header != e.header:
			return nil, placeErr("pull_request_review_thread.start_line", "must be part of the same hunk as the line.")
		case s.pos >= e.pos:
			return nil, placeErr("pull_request_review_thread.start_line", "must precede the end line.")
		}
		c.StartLine, c.OriginalStartLine, c.StartSide = in.StartLine, in.StartLine, str(ss)
	}
	return c, nil
}

// visible hides the comments of other users' pending reviews.
func visible(a Access, c *model.PullReviewComment) error {
	if c.ReviewState == model.ReviewPending && c.UserID != a.UserID {
		return model.ErrNotFound
	}
	return nil
}

// mayModify: a comment's author edits and deletes it, and so does anyone
// with write access.
func (a Access) mayModify(userID int64) error {
	if a.Perm >= authz.Write || (userID != 0 && userID == a.UserID) {
		return nil
	}
	return model.Forbidden("Must have write access to Repository.")
}

func commentEvent(c *model.PullReviewComment, action string) map[string]any {
	return map[string]any{"action": action, "comment_id": c.ID, "review_id": c.ReviewID,
		"pull_request_id": c.PullID, "number": c.PullNumber, "path": c.Path}
}

// Comment is one review comment of the repository.
func (s *Service) Comment(ctx context.Context, a Access, id int64) (*model.PullReviewComment, error) {
	c, err := s.st.R().PullReviewCommentByID(ctx, a.Repo.ID, id)
	if err != nil {
		return nil, err
	}
	return c, visible(a, c)
}

// CommentQuery selects review comments for a list.
type CommentQuery struct {
	Number        int64 // 0: the whole repository
	Sort          string
	Desc          bool
	Since         *time.Time
	Limit, Offset int
}

// Comments is a page of review comments of the repository or of one pull
// request, with their count.
func (s *Service) Comments(ctx context.Context, a Access, f CommentQuery) ([]*model.PullReviewComment, int, error) {
	q := store.ReviewCommentQuery{RepoID: a.Repo.ID, ViewerID: a.UserID, Sort: f.Sort, Desc: f.Desc, Since: f.Since,
		Limit: f.Limit, Offset: f.Offset}
	if f.Number != 0 {
		p, err := s.Pull(ctx, a, f.Number)
		if err != nil {
			return nil, 0, err
		}
		q.PullID = p.IssueID
	}
	return s.st.R().ListPullReviewComments(ctx, q)
}

// CreateComment comments on a line (or a file) of a pull request's diff,
// or replies to a thread (in_reply_to): anyone who can read the
// repository. The comment gets a COMMENTED review of its own.
func (s *Service) CreateComment(ctx context.Context, a Access, number int64, in CommentInput) (*model.PullReviewComment, error) {
	if err := a.writable(); err != nil {
		return nil, err
	}
	if in.Body == nil || strings.TrimSpace(*in.Body) == "" {
		return nil, model.Invalid("PullRequestReviewComment", "body", "missing_field")
	}
	if err := checkBody(*in.Body); err != nil {
		return nil, err
	}
	p, err := s.Pull(ctx, a, number)
	if err != nil {
		return nil, err
	}
	if err := a.mayTalk(p); err != nil {
		return nil, err
	}
	var c *model.PullReviewComment
	if in.InReplyTo != nil {
		top, err := s.st.R().PullReviewCommentByID(ctx, a.Repo.ID, *in.InReplyTo)
		if err == nil && top.PullID == p.IssueID {
			err = visible(a, top)
		} else if err == nil {
			err = model.ErrNotFound
		}
		if err != nil {
			return nil, err
		}
		c = replyTo(top)
	} else {
		head, err := s.commitOf(ctx, a.Repo, p, in.CommitID)
		if err != nil {
			return nil, err
		}
		d, err := s.diffAt(ctx, a.Repo, p, head)
		if err != nil {
			return nil, err
		}
		if c, err = place(d, in); err != nil {
			return nil, asFieldError(err)
		}
		if head != p.HeadSHA {
			// Made on an older commit: where is it at the head?
			if err := s.toHead(ctx, a.Repo, p, []*model.PullReviewComment{c}); err != nil {
				return nil, err
			}
		}
	}
	c.RepoID, c.PullID, c.UserID, c.Body, c.PullNumber = a.Repo.ID, p.IssueID, a.UserID, *in.Body, p.Number
	err = s.st.Tx(ctx, func(tx store.Q) error {
		// GitHub refuses a single comment while the caller has a pending
		// review on the pull request (it would be a second review).
		if id, err := tx.PendingReviewID(ctx, p.IssueID, a.UserID); err != nil || id != 0 {
			if err == nil {
				err = unprocessable("User can only have one pending review per pull request")
			}
			return err
		}
		v := &model.PullReview{RepoID: a.Repo.ID, PullID: p.IssueID, UserID: a.UserID, State: model.ReviewCommented, CommitID: c.CommitID}
		if err := tx.CreatePullReview(ctx, v); err != nil {
			return err
		}
		c.ReviewID = v.ID
		if err := tx.CreatePullReviewComment(ctx, c); err != nil {
			return err
		}
		return s.submitted(ctx, tx, a, p, v, []*model.PullReviewComment{c})
	})
	if err != nil {
		return nil, err
	}
	return s.st.R().PullReviewCommentByID(ctx, a.Repo.ID, c.ID)
}

// replyTo is a new reply in top's thread: it joins the thread's first
// comment and sits where it sits.
func replyTo(top *model.PullReviewComment) *model.PullReviewComment {
	root := top.ID
	if top.InReplyToID != 0 {
		root = top.InReplyToID
	}
	return &model.PullReviewComment{InReplyToID: root, Path: top.Path, CommitID: top.CommitID, OriginalCommitID: top.OriginalCommitID,
		DiffHunk: top.DiffHunk, Position: top.Position, OriginalPosition: top.OriginalPosition, Line: top.Line,
		OriginalLine: top.OriginalLine, Side: top.Side, StartLine: top.StartLine, OriginalStartLine: top.OriginalStartLine,
		StartSide: top.StartSide, SubjectType: top.SubjectType}
}

// Reply answers a comment of pull request number (404 when the comment
// belongs to another one).
func (s *Service) Reply(ctx context.Context, a Access, number, commentID int64, body *string) (*model.PullReviewComment, error) {
	p, err := s.Pull(ctx, a, number)
	if err != nil {
		return nil, err
	}
	top, err := s.st.R().PullReviewCommentByID(ctx, a.Repo.ID, commentID)
	if err != nil {
		return nil, err
	}
	if top.PullID != p.IssueID {
		return nil, model.ErrNotFound
	}
	return s.CreateComment(ctx, a, number, CommentInput{Body: body, InReplyTo: &commentID})
}

// UpdateComment changes a comment's body: its author or write access.
func (s *Service) UpdateComment(ctx context.Context, a Access, id int64, body *string) (*model.PullReviewComment, error) {
	if err := a.writable(); err != nil {
		return nil, err
	}
	if body == nil || strings.TrimSpace(*body) == "" {
		return nil, model.Invalid("PullRequestReviewComment", "body", "missing_field")
	}
	if err := checkBody(*body); err != nil {
		return nil, err
	}
	err := s.st.Tx(ctx, func(tx store.Q) error {
		c, err := tx.PullReviewCommentByID(ctx, a.Repo.ID, id)
		if err == nil {
			err = visible(a, c)
		}
		if err != nil {
			return err
		}
		if err := a.mayModify(c.UserID); err != nil {
			return err
		}
		if c.Body == *body {
			return nil
		}
		from := c.Body
		c.Body = *body
		if err := tx.UpdatePullReviewCommentBody(ctx, c); err != nil {
			return err
		}
		ev := commentEvent(c, "edited")
		ev["changes"] = map[string]any{"body": map[string]any{"from": from}}
		return tx.AppendEvent(ctx, "pull_request_review_comment.edited", a.UserID, a.Repo.ID, a.org(), ev)
	})
	if err != nil {
		return nil, err
	}
	return s.st.R().PullReviewCommentByID(ctx, a.Repo.ID, id)
}

// DeleteComment removes a comment and its reactions: its author or write
// access.
func (s *Service) DeleteComment(ctx context.Context, a Access, id int64) error {
	if err := a.writable(); err != nil {
		return err
	}
	return s.st.Tx(ctx, func(tx store.Q) error {
		c, err := tx.PullReviewCommentByID(ctx, a.Repo.ID, id)
		if err == nil {
			err = visible(a, c)
		}
		if err != nil {
			return err
		}
		if err := a.mayModify(c.UserID); err != nil {
			return err
		}
		if err := tx.DeletePullReviewComment(ctx, c.ID); err != nil {
			return err
		}
		if c.ReviewState != model.ReviewPending {
			if err := tx.AddPullReviewComments(ctx, c.PullID, -1); err != nil {
				return err
			}
		}
		return tx.AppendEvent(ctx, "pull_request_review_comment.deleted", a.UserID, a.Repo.ID, a.org(), commentEvent(c, "deleted"))
	})
}
