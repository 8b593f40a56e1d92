package pulls

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/protection"
)

// MergeBlocker is why the caller may not merge p as it is now, in
// GitHub's words ("" when nothing refuses it): the checks Merge makes
// before it merges (the caller's access, draft, and the merge gate of
// branch protection and rulesets on p's head), without merging. The web's
// merge box shows it.
func (s *Service) MergeBlocker(ctx context.Context, repo *model.Repo, c Caller, p *model.Pull) (string, error) {
	if c.Perm < authz.Write {
		return "Must have " + authz.Write.String() + " access to Repository.", nil
	}
	if p.Merged() || p.Issue.State != "open" {
		return "Pull Request is not mergeable", nil
	}
	if p.Draft {
		return "This pull request is still a draft.", nil
	}
	if p.Mergeable != nil && !*p.Mergeable {
		return "This branch has conflicts that must be resolved.", nil
	}
	states, err := s.commitStates(ctx, repo.ID, p.HeadSHA)
	if err != nil {
		return "", err
	}
	_, err = s.Protection.MergeGateAs(ctx, repo, p, protection.For(ctx, c.UserID, c.Perm), states)
	var he *model.HTTPError
	if errors.As(err, &he) {
		return he.Message, nil
	}
	return "", err
}
