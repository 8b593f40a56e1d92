package pullreviews

import (
	"context"
	"slices"

	"github.com/hubd/hubd/internal/codeowners"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// RequestCodeOwners asks the code owners of the files a pull request
// changes (by its base branch's CODEOWNERS) for their review, as GitHub
// does when a pull request opens, becomes ready for review or its head
// moves: users and teams, never the author nor someone who reviewed it
// already. The requests read as the author's, with the same events and
// webhooks as a request by hand. A draft or closed pull request is left
// alone.
func (s *Service) RequestCodeOwners(ctx context.Context, repo *model.Repo, p *model.Pull) error {
	if p.Draft || p.Merged() || p.Issue == nil || p.Issue.State != "open" {
		return nil
	}
	own, err := codeowners.New(s.st, s.git).OfPull(ctx, repo, p)
	if err != nil || own == nil {
		return err
	}
	userIDs, teamIDs := own.Users(), own.Teams()
	if len(userIDs)+len(teamIDs) == 0 {
		return nil
	}
	q := s.st.R()
	verdicts, err := q.ReviewVerdicts(ctx, p.IssueID)
	if err != nil {
		return err
	}
	userIDs = slices.DeleteFunc(userIDs, func(id int64) bool {
		return id == p.Issue.UserID || slices.ContainsFunc(verdicts, func(v model.ReviewVerdict) bool { return v.UserID == id })
	})
	users, err := q.AccountsByID(ctx, userIDs)
	if err != nil {
		return err
	}
	teams, err := q.TeamsByID(ctx, teamIDs)
	if err != nil {
		return err
	}
	side := requestSide{add: true}
	for _, id := range userIDs {
		if u := users[id]; u != nil {
			side.users = append(side.users, u)
		}
	}
	for _, id := range teamIDs {
		if t := teams[id]; t != nil {
			side.teams = append(side.teams, t)
		}
	}
	if len(side.users)+len(side.teams) == 0 {
		return nil
	}
	a := Access{Repo: repo, UserID: p.Issue.UserID}
	return s.st.Tx(ctx, func(tx store.Q) error { return s.applyRequests(ctx, tx, a, p, []requestSide{side}) })
}
