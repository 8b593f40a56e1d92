package pulls

import (
	"context"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// SetDraft marks an open pull request ready for review (draft false) or
// converts it back to a draft (draft true), as GraphQL's
// markPullRequestReadyForReview and convertPullRequestToDraft do (REST has
// no such operation): its author or someone with write access. The
// timeline records ready_for_review or convert_to_draft, the webhook event
// is pull_request ready_for_review or converted_to_draft, and the
// mergeable state is recomputed (a draft cannot be merged). Asking for
// the state it has changes nothing.
func (s *Service) SetDraft(ctx context.Context, repo *model.Repo, c Caller, number int64, draft bool) (*model.Pull, error) {
	p, err := s.Store.R().PullByNumber(ctx, repo.ID, number)
	if err != nil {
		return nil, err
	}
	if p.Issue.UserID != c.UserID && c.Perm < authz.Write {
		return nil, model.Forbidden("Must have " + authz.Write.String() + " access to Repository.")
	}
	if p.Merged() || p.Issue.State != "open" {
		if draft {
			return nil, custom("Pull request is closed and cannot be converted to draft.")
		}
		return nil, custom("Pull request is closed and cannot be marked ready for review.")
	}
	if p.Draft == draft {
		return p, nil
	}
	event, action := "ready_for_review", "ready_for_review"
	if draft {
		event, action = "convert_to_draft", "converted_to_draft"
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetPullFlags(ctx, p.IssueID, draft, p.MaintainerCanModify); err != nil {
			return err
		}
		if err := tx.TouchIssue(ctx, p.Issue); err != nil {
			return err
		}
		e := &model.IssueEvent{Event: event, RepoID: repo.ID, IssueID: p.IssueID, ActorID: c.UserID}
		if err := tx.AddIssueEvent(ctx, e, orgID(repo), map[string]any{"number": p.Number}); err != nil {
			return err
		}
		p.Draft = draft
		if err := tx.AppendEvent(ctx, "pull_request."+action, c.UserID, repo.ID, orgID(repo), s.payload(p, action)); err != nil {
			return err
		}
		if !draft {
			if err := s.enqueueOpened(ctx, tx, p.IssueID); err != nil {
				return err
			}
		}
		return jobs.Enqueue(ctx, tx, syncJob(p.IssueID))
	})
	if err != nil {
		return nil, err
	}
	s.Jobs.Notify()
	return s.Store.R().PullByIssueID(ctx, p.IssueID)
}
