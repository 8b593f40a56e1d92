package pullreviews

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// RequestedReviewers are the users whose review is requested on a pull
// request, in the order they were requested.
func (s *Service) RequestedReviewers(ctx context.Context, a Access, number int64) ([]*model.Account, error) {
	p, err := s.Pull(ctx, a, number)
	if err != nil {
		return nil, err
	}
	m, err := s.st.R().RequestedReviewers(ctx, []int64{p.IssueID})
	if err != nil {
		return nil, err
	}
	if m[p.IssueID] == nil {
		return []*model.Account{}, nil
	}
	return m[p.IssueID], nil
}

// mayRequest: triage access or the pull request's author.
func (a Access) mayRequest(p *model.Pull) error {
	if a.Perm >= authz.Triage || (p.Issue.UserID != 0 && p.Issue.UserID == a.UserID) {
		return nil
	}
	return model.Forbidden("Must have triage access to Repository.")
}

// notCollaborators is GitHub's 422 for a reviewer (or a team: hubd has no
// teams yet) that may not be asked.
func notCollaborators(repo *model.Repo) error {
	return unprocessable("Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the " +
		repo.FullName() + " repository.")
}

// reviewers resolves logins to users who may review (collaborators, as
// assignees must be).
func (s *Service) reviewers(ctx context.Context, a Access, p *model.Pull, logins, teams []string) ([]*model.Account, error) {
	if len(teams) > 0 {
		return nil, notCollaborators(a.Repo)
	}
	found, err := s.st.R().AssignableByLogin(ctx, a.Repo.ID, logins)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Account, 0, len(logins))
	seen := map[int64]bool{}
	for _, l := range logins {
		u := found[strings.ToLower(l)]
		if u == nil {
			return nil, notCollaborators(a.Repo)
		}
		if u.ID == p.Issue.UserID {
			return nil, unprocessable("Review cannot be requested from pull request author.")
		}
		if !seen[u.ID] {
			seen[u.ID] = true
			out = append(out, u)
		}
	}
	return out, nil
}

// RequestReviewers asks users for their review; each new request appends a
// review_requested issue event (the reviewer in assignee_id, the requester
// in assigner_id: the issue_events row needs no new columns).
func (s *Service) RequestReviewers(ctx context.Context, a Access, number int64, logins, teams []string) (*model.Pull, error) {
	return s.changeRequests(ctx, a, number, logins, teams, true)
}

// RemoveRequestedReviewers withdraws review requests.
func (s *Service) RemoveRequestedReviewers(ctx context.Context, a Access, number int64, logins, teams []string) (*model.Pull, error) {
	return s.changeRequests(ctx, a, number, logins, teams, false)
}

func (s *Service) changeRequests(ctx context.Context, a Access, number int64, logins, teams []string, add bool) (*model.Pull, error) {
	if err := a.writable(); err != nil {
		return nil, err
	}
	p, err := s.Pull(ctx, a, number)
	if err != nil {
		return nil, err
	}
	if err := a.mayRequest(p); err != nil {
		return nil, err
	}
	users, err := s.reviewers(ctx, a, p, logins, teams)
	if err != nil {
		return nil, err
	}
	err = s.st.Tx(ctx, func(tx store.Q) error {
		touched := false
		for _, u := range users {
			var changed bool
			var err error
			event := "review_requested"
			if add {
				changed, err = tx.AddReviewRequest(ctx, p.IssueID, u.ID)
			} else {
				event = "review_request_removed"
				changed, err = tx.RemoveReviewRequest(ctx, p.IssueID, u.ID)
			}
			if err != nil {
				return err
			}
			if !changed {
				continue
			}
			if !touched {
				if err := tx.TouchIssue(ctx, p.Issue); err != nil {
					return err
				}
				touched = true
			}
			e := &model.IssueEvent{RepoID: a.Repo.ID, IssueID: p.IssueID, ActorID: a.UserID, Event: event,
				AssigneeID: u.ID, AssignerID: a.UserID}
			if err := tx.AddIssueEvent(ctx, e, a.org(), map[string]any{"requested_reviewer_id": u.ID, "number": p.Number}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.st.R().PullByIssueID(ctx, p.IssueID)
}
