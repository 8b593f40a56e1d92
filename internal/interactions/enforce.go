package interactions

import (
	"context"
	"fmt"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// Kinds of interaction MayInteract is asked about.
const (
	KindIssue     = "issue"
	KindComment   = "comment"
	KindPull      = "pull"       // opening a pull request: limits and the creation cap
	KindDraftPull = "draft_pull" // opening a draft: limits only (drafts do not count toward the cap)
	KindReaction  = "reaction"
)

var actions = map[string]string{
	KindIssue:     "create an issue",
	KindComment:   "comment",
	KindPull:      "open a pull request",
	KindDraftPull: "open a pull request",
	KindReaction:  "react",
}

var audiences = map[string]string{
	model.LimitCollaboratorsOnly: "users that are collaborators",
	model.LimitContributorsOnly:  "users that have contributed to this repository in the past",
	model.LimitExistingUsers:     "users that have had an account for more than 24 hours",
}

// limited is GitHub's 403 for an interaction an owner has limited.
func limited(kind, limit string) error {
	action, ok := actions[kind]
	if !ok {
		action = "interact"
	}
	return model.Forbidden(fmt.Sprintf("An owner of this repository has limited the ability to %s to %s.", action, audiences[limit]))
}

// MayInteract reports whether a user may make an interaction of kind
// (issue, comment, pull, draft_pull, reaction) in repo now: nil when they
// may, GitHub's 403 when an interaction limit in force (the repository's,
// or its owning user's or organization's) or the pull request creation cap
// forbids it. Limits and caps govern public repositories only; the owner,
// collaborators and members of the owning organization are never limited,
// and users with write access are not capped.
//
// "Contributed" is answered cheaply: the user authored a pull request of
// the repository that was merged into its default branch (commits pushed
// directly are not looked at).
func (s *Service) MayInteract(ctx context.Context, repo *model.Repo, userID int64, kind string) error {
	if repo.Private() || userID == 0 {
		return nil
	}
	q := s.Store.R()
	now := s.Store.Now()
	limit, err := orNil(q.EffectiveInteractionLimit(ctx, repo.ID, repo.OwnerID, now))
	if err != nil {
		return err
	}
	if limit == nil && kind != KindPull {
		return nil
	}
	v, err := q.RepoByID(ctx, repo.ID, userID)
	if err != nil {
		return err
	}
	member := userID == repo.OwnerID || v.Facts.Collab > authz.None || v.Facts.OrgRole != ""
	if limit != nil && !member {
		if err := s.checkLimit(ctx, repo, userID, kind, limit.Limit); err != nil {
			return err
		}
	}
	if kind != KindPull {
		return nil
	}
	// The cap spares users with write access, whatever their relation.
	perm := authz.RepoPermission(&authz.Caller{User: &model.Account{ID: userID}}, repo, v.Facts)
	if perm >= authz.Write {
		return nil
	}
	return s.checkCap(ctx, repo, userID)
}

func (s *Service) checkLimit(ctx context.Context, repo *model.Repo, userID int64, kind, limit string) error {
	q := s.Store.R()
	if limit == model.LimitCollaboratorsOnly {
		return limited(kind, limit)
	}
	contributed, err := q.HasMergedPullInto(ctx, repo.ID, userID, repo.DefaultBranch)
	if err != nil || contributed {
		return err
	}
	if limit == model.LimitContributorsOnly {
		return limited(kind, limit)
	}
	u, err := q.AccountByID(ctx, userID)
	if err != nil {
		return err
	}
	if s.Store.Now().Sub(u.CreatedAt) < NewAccountAge {
		return limited(kind, limit)
	}
	return nil
}

// checkCap applies the repository's creation cap, or its organization's
// (counted over the organization's public repositories) when the
// repository has none configured. Users on the bypass list pass.
func (s *Service) checkCap(ctx context.Context, repo *model.Repo, userID int64) error {
	q := s.Store.R()
	c, err := q.PullCreationCap(ctx, repo.ID, 0, DefaultMaxOpen)
	if err != nil {
		return err
	}
	whole := false
	if !c.Set && repo.Owner != nil && repo.Owner.IsOrg() {
		if c, err = q.PullCreationCap(ctx, 0, repo.OwnerID, DefaultMaxOpen); err != nil {
			return err
		}
		whole = true
	}
	if !c.Enabled {
		return nil
	}
	if ok, err := q.OnPullCapBypass(ctx, repo.ID, userID); err != nil || ok {
		return err
	}
	var open int
	if whole {
		open, err = q.CountOpenPullsInOwner(ctx, repo.OwnerID, userID)
	} else {
		open, err = q.CountOpenPullsBy(ctx, repo.ID, userID)
	}
	if err != nil {
		return err
	}
	if open >= c.MaxOpen {
		where := "this repository"
		if whole {
			where = "this organization's repositories"
		}
		return model.Forbidden(fmt.Sprintf("You have reached the limit of %d open pull requests in %s. Close or merge one of them before opening another.", c.MaxOpen, where))
	}
	return nil
}
