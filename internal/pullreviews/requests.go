package pullreviews

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// RequestedReviewers are the users and the teams whose review is
// requested on a pull request, each in the order they were requested
// (secret teams only when the caller may see them).
func (s *Service) RequestedReviewers(ctx context.Context, a Access, number int64) ([]*model.Account, []*model.Team, error) {
	p, err := s.Pull(ctx, a, number)
	if err != nil {
		return nil, nil, err
	}
	q := s.st.R()
	users, err := q.RequestedReviewers(ctx, []int64{p.IssueID})
	if err != nil {
		return nil, nil, err
	}
	teams, err := q.RequestedTeams(ctx, []int64{p.IssueID}, a.UserID)
	if err != nil {
		return nil, nil, err
	}
	u, t := users[p.IssueID], teams[p.IssueID]
	if u == nil {
		u = []*model.Account{}
	}
	if t == nil {
		t = []*model.Team{}
	}
	return u, t, nil
}

// mayRequest: triage access or the pull request's author.
func (a Access) mayRequest(p *model.Pull) error {
	if a.Perm >= authz.Triage || (p.Issue.UserID != 0 && p.Issue.UserID == a.UserID) {
		return nil
	}
	return model.Forbidden("Must have triage access to Repository.")
}

// notCollaborators is GitHub's 422 for a user who may not be asked.
func notCollaborators(repo *model.Repo) error {
	return unprocessable("Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the " +
		repo.FullName() + " repository.")
}

// teamsNotCollaborators is GitHub's 422 for a team that may not be asked:
// unknown, hidden from the requester, without access to the repository,
// or named on a user's repository (which has no teams).
func teamsNotCollaborators(repo *model.Repo) error {
	return unprocessable("Reviews may only be requested from collaborators. One or more of the teams you specified is not a collaborator of the " +
		repo.FullName() + " repository.")
}

// reviewers resolves logins to users who may review (collaborators, as
// assignees must be).
func (s *Service) reviewers(ctx context.Context, a Access, p *model.Pull, logins []string) ([]*model.Account, error) {
	if len(logins) == 0 {
		return nil, nil
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

// reviewTeams resolves slugs to teams of the repository's organization
// the requester may see; a team asked (not one withdrawn) must also have
// access to the repository, itself or through a parent team.
func (s *Service) reviewTeams(ctx context.Context, a Access, slugs []string, add bool) ([]*model.Team, error) {
	if len(slugs) == 0 {
		return nil, nil
	}
	org := a.org()
	if org == 0 {
		return nil, teamsNotCollaborators(a.Repo)
	}
	found, err := s.st.R().ReviewTeamsBySlug(ctx, org, a.Repo.ID, a.UserID, slugs)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Team, 0, len(slugs))
	seen := map[int64]bool{}
	for _, slug := range slugs {
		rt := found[strings.ToLower(slug)]
		if rt == nil || !rt.Visible || (add && !rt.Access) {
			return nil, teamsNotCollaborators(a.Repo)
		}
		if !seen[rt.Team.ID] {
			seen[rt.Team.ID] = true
			out = append(out, rt.Team)
		}
	}
	return out, nil
}

// RequestReviewers asks users and teams for their review; each new request
// appends a review_requested issue event (the requester in assigner_id,
// the user in assignee_id or the team in subject_id: the issue_events row
// needs no new columns). Asking again changes nothing.
func (s *Service) RequestReviewers(ctx context.Context, a Access, number int64, logins, teams []string) (*model.Pull, error) {
	return s.changeRequests(ctx, a, number, requestChange{addUsers: logins, addTeams: teams})
}

// RemoveRequestedReviewers withdraws review requests of users and teams;
// each request withdrawn appends a review_request_removed issue event.
func (s *Service) RemoveRequestedReviewers(ctx context.Context, a Access, number int64, logins, teams []string) (*model.Pull, error) {
	return s.changeRequests(ctx, a, number, requestChange{removeUsers: logins, removeTeams: teams})
}

// SetRequestedReviewers makes the requested reviewers exactly these users
// and teams (GraphQL's requestReviews without union): requests not named
// are withdrawn, new ones made, in one transaction.
func (s *Service) SetRequestedReviewers(ctx context.Context, a Access, number int64, logins, teams []string) (*model.Pull, error) {
	users, teamList, err := s.RequestedReviewers(ctx, a, number)
	if err != nil {
		return nil, err
	}
	keepU, keepT := map[string]bool{}, map[string]bool{}
	for _, l := range logins {
		keepU[strings.ToLower(l)] = true
	}
	for _, t := range teams {
		keepT[strings.ToLower(t)] = true
	}
	ch := requestChange{addUsers: logins, addTeams: teams}
	for _, u := range users {
		if !keepU[strings.ToLower(u.Login)] {
			ch.removeUsers = append(ch.removeUsers, u.Login)
		}
	}
	for _, t := range teamList {
		if !keepT[strings.ToLower(t.Slug)] {
			ch.removeTeams = append(ch.removeTeams, t.Slug)
		}
	}
	return s.changeRequests(ctx, a, number, ch)
}

// requestChange is the review requests one change adds and withdraws.
type requestChange struct {
	addUsers, addTeams, removeUsers, removeTeams []string
}

func (s *Service) changeRequests(ctx context.Context, a Access, number int64, ch requestChange) (*model.Pull, error) {
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
	var sides []requestSide
	for _, add := range []bool{false, true} {
		logins, slugs := ch.removeUsers, ch.removeTeams
		if add {
			logins, slugs = ch.addUsers, ch.addTeams
		}
		if len(logins) == 0 && len(slugs) == 0 {
			continue
		}
		users, err := s.reviewers(ctx, a, p, logins)
		if err != nil {
			return nil, err
		}
		teamList, err := s.reviewTeams(ctx, a, slugs, add)
		if err != nil {
			return nil, err
		}
		sides = append(sides, requestSide{users, teamList, add})
	}
	err = s.st.Tx(ctx, func(tx store.Q) error { return s.applyRequests(ctx, tx, a, p, sides) })
	if err != nil {
		return nil, err
	}
	return s.st.R().PullByIssueID(ctx, p.IssueID)
}

// requestSide is the users and teams one change asks (add) or withdraws.
type requestSide struct {
	users []*model.Account
	teams []*model.Team
	add   bool
}

// applyRequests writes review request changes made by a.UserID, each
// change that happened with its review_requested or
// review_request_removed event; the first also touches the pull request.
func (s *Service) applyRequests(ctx context.Context, tx store.Q, a Access, p *model.Pull, sides []requestSide) error {
	touched := false
	record := func(e *model.IssueEvent, add bool, details map[string]any) error {
		if !touched {
			if err := tx.TouchIssue(ctx, p.Issue); err != nil {
				return err
			}
			touched = true
		}
		event := "review_requested"
		if !add {
			event = "review_request_removed"
		}
		e.RepoID, e.IssueID, e.ActorID, e.Event, e.AssignerID = a.Repo.ID, p.IssueID, a.UserID, event, a.UserID
		details["number"] = p.Number
		return tx.AddIssueEvent(ctx, e, a.org(), details)
	}
	for _, sd := range sides {
		for _, u := range sd.users {
			change := tx.RemoveReviewRequest
			if sd.add {
				change = tx.AddReviewRequest
			}
			changed, err := change(ctx, p.IssueID, u.ID)
			if err != nil {
				return err
			}
			if changed {
				if err := record(&model.IssueEvent{AssigneeID: u.ID}, sd.add, map[string]any{"requested_reviewer_id": u.ID}); err != nil {
					return err
				}
			}
		}
		for _, t := range sd.teams {
			change := tx.RemoveTeamReviewRequest
			if sd.add {
				change = tx.AddTeamReviewRequest
			}
			changed, err := change(ctx, p.IssueID, t.ID)
			if err != nil {
				return err
			}
			if changed {
				if err := record(&model.IssueEvent{SubjectID: t.ID}, sd.add, map[string]any{"requested_team_id": t.ID}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
