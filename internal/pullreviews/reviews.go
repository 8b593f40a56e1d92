package pullreviews

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/protection"
	"github.com/hubd/hubd/internal/pulls"
	"github.com/hubd/hubd/internal/store"
)

// ReviewInput is a new review: no event leaves it PENDING.
type ReviewInput struct {
	CommitID *string
	Body     *string
	Event    *string // APPROVE, REQUEST_CHANGES, COMMENT
	Comments []CommentInput
}

// stateOf is the state an event gives a review.
func stateOf(event *string) (string, error) {
	if event == nil || *event == "" {
		return model.ReviewPending, nil
	}
	switch *event {
	case "APPROVE":
		return model.ReviewApproved, nil
	case "REQUEST_CHANGES":
		return model.ReviewChangesRequested, nil
	case "COMMENT":
		return model.ReviewCommented, nil
	}
	return "", reviewError("Unexpected event: " + *event)
}

// checkSubmit applies GitHub's rules to a review about to get state: no
// approving or requesting changes on one's own pull request, and a body
// when requesting changes or commenting (a comment review may instead
// hold comments).
func checkSubmit(a Access, p *model.Pull, state, body string, comments int) error {
	own := p.Issue.UserID != 0 && p.Issue.UserID == a.UserID
	switch {
	case own && state == model.ReviewApproved:
		return reviewError("Can not approve your own pull request")
	case own && state == model.ReviewChangesRequested:
		return reviewError("Can not request changes on your own pull request")
	case state == model.ReviewChangesRequested && strings.TrimSpace(body) == "":
		return reviewError("Body is required when using REQUEST_CHANGES")
	case state == model.ReviewCommented && strings.TrimSpace(body) == "" && comments == 0:
		return reviewError("Body is required when using COMMENT")
	}
	return checkBody(body)
}

func reviewEvent(p *model.Pull, v *model.PullReview, action string) map[string]any {
	ev := pullEvent(p, action)
	ev["review_id"], ev["state"] = v.ID, v.State
	return ev
}

// Review is one review of a pull request (another user's pending review
// is not found).
func (s *Service) Review(ctx context.Context, a Access, number, id int64) (*model.Pull, *model.PullReview, error) {
	p, err := s.Pull(ctx, a, number)
	if err != nil {
		return nil, nil, err
	}
	v, err := s.st.R().PullReviewByID(ctx, p.IssueID, id)
	if err != nil {
		return nil, nil, err
	}
	if v.State == model.ReviewPending && v.UserID != a.UserID {
		return nil, nil, model.ErrNotFound
	}
	return p, v, nil
}

// Reviews is a page of a pull request's reviews, oldest first, with their
// count.
func (s *Service) Reviews(ctx context.Context, a Access, number int64, limit, offset int) ([]*model.PullReview, int, error) {
	p, err := s.Pull(ctx, a, number)
	if err != nil {
		return nil, 0, err
	}
	return s.st.R().ListPullReviews(ctx, p.IssueID, a.UserID, limit, offset)
}

// ReviewComments is a page of one review's comments.
func (s *Service) ReviewComments(ctx context.Context, a Access, number, id int64, limit, offset int) ([]*model.PullReviewComment, int, error) {
	p, v, err := s.Review(ctx, a, number, id)
	if err != nil {
		return nil, 0, err
	}
	return s.st.R().ListPullReviewComments(ctx, store.ReviewCommentQuery{RepoID: a.Repo.ID, PullID: p.IssueID, ReviewID: v.ID,
		ViewerID: a.UserID, Limit: limit, Offset: offset})
}

// CreateReview reviews a pull request: anyone who can read the
// repository. Without an event the review stays PENDING (one per user and
// pull request) until it is submitted.
func (s *Service) CreateReview(ctx context.Context, a Access, number int64, in ReviewInput) (*model.PullReview, error) {
	if err := a.writable(); err != nil {
		return nil, err
	}
	state, err := stateOf(in.Event)
	if err != nil {
		return nil, err
	}
	p, err := s.Pull(ctx, a, number)
	if err != nil {
		return nil, err
	}
	if err := a.mayTalk(p); err != nil {
		return nil, err
	}
	body := ""
	if in.Body != nil {
		body = *in.Body
	}
	if state != model.ReviewPending {
		if err := checkSubmit(a, p, state, body, len(in.Comments)); err != nil {
			return nil, err
		}
	} else if err := checkBody(body); err != nil {
		return nil, err
	}
	head, err := s.commitOf(ctx, a.Repo, p, in.CommitID)
	if err != nil {
		return nil, err
	}
	comments := make([]*model.PullReviewComment, 0, len(in.Comments))
	if len(in.Comments) > 0 {
		d, err := s.diffAt(ctx, a.Repo, p, head)
		if err != nil {
			return nil, err
		}
		for _, ci := range in.Comments {
			if ci.Body == nil || strings.TrimSpace(*ci.Body) == "" {
				return nil, reviewError("Pull request review thread body can't be blank")
			}
			if err := checkBody(*ci.Body); err != nil {
				return nil, err
			}
			c, err := place(d, ci)
			if err != nil {
				return nil, asReason(err)
			}
			c.Body = *ci.Body
			comments = append(comments, c)
		}
		if head != p.HeadSHA {
			// Made on an older commit: where are they at the head?
			if err := s.toHead(ctx, a.Repo, p, comments); err != nil {
				return nil, err
			}
		}
	}
	v := &model.PullReview{RepoID: a.Repo.ID, PullID: p.IssueID, UserID: a.UserID, Body: body, State: state, CommitID: head}
	err = s.st.Tx(ctx, func(tx store.Q) error {
		if state == model.ReviewPending {
			id, err := tx.PendingReviewID(ctx, p.IssueID, a.UserID)
			if err != nil {
				return err
			}
			if id != 0 {
				return reviewError("User can only have one pending review per pull request")
			}
		}
		if err := tx.CreatePullReview(ctx, v); err != nil {
			if errors.Is(err, store.ErrDuplicate) { // a concurrent pending review won
				return reviewError("User can only have one pending review per pull request")
			}
			return err
		}
		for _, c := range comments {
			c.RepoID, c.PullID, c.ReviewID, c.UserID, c.PullNumber = a.Repo.ID, p.IssueID, v.ID, a.UserID, p.Number
			if err := tx.CreatePullReviewComment(ctx, c); err != nil {
				return err
			}
		}
		if state == model.ReviewPending {
			return nil
		}
		return s.submitted(ctx, tx, a, p, v, comments)
	})
	if err != nil {
		return nil, err
	}
	return s.st.R().PullReviewByID(ctx, p.IssueID, v.ID)
}

// submitted is what submitting a review does besides its state: the
// reviewer's request is answered, and so are those of the requested teams
// the reviewer belongs to (unless they wrote the pull request); the
// comments count and become public.
func (s *Service) submitted(ctx context.Context, tx store.Q, a Access, p *model.Pull, v *model.PullReview, comments []*model.PullReviewComment) error {
	if _, err := tx.RemoveReviewRequest(ctx, p.IssueID, v.UserID); err != nil {
		return err
	}
	if v.UserID != p.Issue.UserID {
		if _, err := tx.AnswerTeamReviewRequests(ctx, p.IssueID, v.UserID); err != nil {
			return err
		}
	}
	if err := tx.TouchIssue(ctx, p.Issue); err != nil {
		return err
	}
	// The timeline shows the review through a "reviewed" row of the issue
	// event log (timeline only, like "commented"), read in id order.
	e := &model.IssueEvent{RepoID: a.Repo.ID, IssueID: p.IssueID, ActorID: v.UserID, Event: "reviewed", SubjectID: v.ID}
	if err := tx.AddIssueEvent(ctx, e, a.org(), map[string]any{"review_id": v.ID, "state": v.State}); err != nil {
		return err
	}
	if len(comments) > 0 {
		if err := tx.AddPullReviewComments(ctx, p.IssueID, len(comments)); err != nil {
			return err
		}
	}
	if err := tx.AppendEvent(ctx, "pull_request_review.submitted", a.UserID, a.Repo.ID, a.org(), reviewEvent(p, v, "submitted")); err != nil {
		return err
	}
	// An approval or a change request can change what a merge needs.
	if err := pulls.CommitStateChanged(ctx, tx, a.Repo.ID, p.HeadSHA); err != nil {
		return err
	}
	for _, c := range comments {
		if err := tx.AppendEvent(ctx, "pull_request_review_comment.created", a.UserID, a.Repo.ID, a.org(), commentEvent(c, "created")); err != nil {
			return err
		}
	}
	return nil
}

// SubmitReview submits the caller's pending review with an event.
func (s *Service) SubmitReview(ctx context.Context, a Access, number, id int64, event, body *string) (*model.PullReview, error) {
	if err := a.writable(); err != nil {
		return nil, err
	}
	if event == nil || *event == "" {
		return nil, reviewError("Event is required to submit a review")
	}
	state, err := stateOf(event)
	if err != nil {
		return nil, err
	}
	p, v, err := s.Review(ctx, a, number, id)
	if err != nil {
		return nil, err
	}
	if err := a.mayTalk(p); err != nil {
		return nil, err
	}
	err = s.st.Tx(ctx, func(tx store.Q) error {
		v, err = tx.PullReviewByID(ctx, p.IssueID, id)
		if err != nil {
			return err
		}
		if v.UserID != a.UserID {
			return model.ErrNotFound
		}
		if v.State != model.ReviewPending {
			return reviewError("Can not submit a non-pending review")
		}
		if body != nil {
			v.Body = *body
		}
		list, _, err := tx.ListPullReviewComments(ctx, store.ReviewCommentQuery{RepoID: a.Repo.ID, PullID: p.IssueID, ReviewID: v.ID,
			ViewerID: a.UserID, Limit: 10000})
		if err != nil {
			return err
		}
		if err := checkSubmit(a, p, state, v.Body, len(list)); err != nil {
			return err
		}
		now := tx.Now()
		v.State, v.SubmittedAt = state, &now
		if err := tx.UpdatePullReview(ctx, v); err != nil {
			return err
		}
		return s.submitted(ctx, tx, a, p, v, list)
	})
	if err != nil {
		return nil, err
	}
	return s.st.R().PullReviewByID(ctx, p.IssueID, id)
}

// UpdateReview changes a review's body: its author.
func (s *Service) UpdateReview(ctx context.Context, a Access, number, id int64, body *string) (*model.PullReview, error) {
	if err := a.writable(); err != nil {
		return nil, err
	}
	if body == nil {
		return nil, reviewError("Body is required")
	}
	if err := checkBody(*body); err != nil {
		return nil, err
	}
	p, v, err := s.Review(ctx, a, number, id)
	if err != nil {
		return nil, err
	}
	if v.UserID != a.UserID {
		return nil, model.Forbidden("Only the review's author can update it.")
	}
	if v.Body == *body {
		return v, nil
	}
	err = s.st.Tx(ctx, func(tx store.Q) error {
		from := v.Body
		v.Body = *body
		if err := tx.UpdatePullReview(ctx, v); err != nil {
			return err
		}
		ev := reviewEvent(p, v, "edited")
		ev["changes"] = map[string]any{"body": map[string]any{"from": from}}
		return tx.AppendEvent(ctx, "pull_request_review.edited", a.UserID, a.Repo.ID, a.org(), ev)
	})
	if err != nil {
		return nil, err
	}
	return s.st.R().PullReviewByID(ctx, p.IssueID, id)
}

// DeletePendingReview deletes the caller's pending review with its
// comments and answers it as it was.
func (s *Service) DeletePendingReview(ctx context.Context, a Access, number, id int64) (*model.PullReview, error) {
	if err := a.writable(); err != nil {
		return nil, err
	}
	_, v, err := s.Review(ctx, a, number, id)
	if err != nil {
		return nil, err
	}
	if v.UserID != a.UserID {
		return nil, model.Forbidden("Only the review's author can delete it.")
	}
	if v.State != model.ReviewPending {
		return nil, reviewError("Can not delete a non-pending pull request review")
	}
	err = s.st.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeletePullReview(ctx, v.ID); err != nil {
			return err
		}
		// No domain event: a pending review was never public.
		return nil
	})
	return v, err
}

// DismissReview dismisses an approval or a change request: write access.
func (s *Service) DismissReview(ctx context.Context, a Access, number, id int64, message string) (*model.PullReview, error) {
	if err := a.writable(); err != nil {
		return nil, err
	}
	if a.Perm < authz.Write {
		return nil, model.Forbidden("Must have write access to Repository.")
	}
	if strings.TrimSpace(message) == "" {
		return nil, reviewError("Message is required to dismiss a review")
	}
	p, v, err := s.Review(ctx, a, number, id)
	if err != nil {
		return nil, err
	}
	if v.State != model.ReviewApproved && v.State != model.ReviewChangesRequested {
		return nil, reviewError("Can not dismiss a " + strings.ToLower(strings.ReplaceAll(v.State, "_", " ")) + " pull request review")
	}
	// The base branch's dismissal restrictions name who may dismiss.
	if err := protection.New(s.st, s.git).MayDismiss(ctx, a.Repo, p.BaseRef, protection.Who{UserID: a.UserID, Perm: a.Perm}); err != nil {
		return nil, err
	}
	err = s.st.Tx(ctx, func(tx store.Q) error {
		prior := v.State
		v.State, v.DismissalMessage = model.ReviewDismissed, message
		if err := tx.UpdatePullReview(ctx, v); err != nil {
			return err
		}
		// The issue event row keeps the review in subject_id, and (to need
		// no new columns) the state it had in rename_from and the message
		// in rename_to: dismissed_review is built from them.
		e := &model.IssueEvent{RepoID: a.Repo.ID, IssueID: p.IssueID, ActorID: a.UserID, Event: "review_dismissed", SubjectID: v.ID,
			RenameFrom: strings.ToLower(prior), RenameTo: message}
		if err := tx.AddIssueEvent(ctx, e, a.org(), map[string]any{"review_id": v.ID, "state": prior, "dismissal_message": message}); err != nil {
			return err
		}
		ev := reviewEvent(p, v, "dismissed")
		ev["dismissal_message"] = message
		if err := tx.AppendEvent(ctx, "pull_request_review.dismissed", a.UserID, a.Repo.ID, a.org(), ev); err != nil {
			return err
		}
		return pulls.CommitStateChanged(ctx, tx, a.Repo.ID, p.HeadSHA)
	})
	if err != nil {
		return nil, err
	}
	return s.st.R().PullReviewByID(ctx, p.IssueID, id)
}

// reviewError is a review operation's 422: GitHub's "Unprocessable Entity"
// with the reason in errors[] (the operations' Validation Error Simple).
func reviewError(reason string) error { return model.UnprocessableReasons(reason) }
