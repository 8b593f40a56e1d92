package issues

import (
	"context"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Writes only GraphQL's issue mutations run (their REST twins have their
// own service calls); sub-issues and dependencies are relations.go's.

// AccessTo is the caller's access to repo for a write that needs need: a
// signed-in user whose token may write, issues enabled, not archived.
func (a *Service) AccessTo(c *authz.Caller, repo *model.Repo, perm, need authz.Permission) (*Access, error) {
	x, err := a.accessFor(c, repo, perm)
	if err != nil {
		return nil, err
	}
	if perm < need {
		return nil, deps.NeedPermission(need)
	}
	return x, nil
}

// MaxPinnedIssues is how many issues a repository pins at most.
const MaxPinnedIssues = 3

// Pin pins issue is to its repository, or unpins it (write access), with
// its pinned/unpinned event; pinning a fourth is refused.
func (a *Service) Pin(ctx context.Context, c *authz.Caller, repo *model.Repo, perm authz.Permission, is *model.Issue, pin bool) error {
	x, err := a.AccessTo(c, repo, perm, authz.Write)
	if err != nil {
		return err
	}
	if is.IsPull {
		return model.Unprocessable("Pull requests cannot be pinned.")
	}
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		pinned, err := tx.PinnedIssues(ctx, repo.ID)
		if err != nil {
			return err
		}
		was := false
		for _, p := range pinned {
			was = was || p.IssueID == is.ID
		}
		ev := "pinned"
		switch {
		case pin == was:
			return nil
		case pin && len(pinned) >= MaxPinnedIssues:
			return model.Unprocessable("Repository already has 3 pinned issues.")
		case pin:
			err = tx.PinIssue(ctx, is, c.UserID())
		default:
			ev = "unpinned"
			_, err = tx.UnpinIssue(ctx, is.ID)
		}
		if err != nil {
			return err
		}
		return event(ctx, tx, x, is, model.IssueEvent{ActorID: c.UserID(), Event: ev}, nil)
	})
}
