package stars

import (
	"context"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// watchScope is the classic scope of a repository subscription:
// notifications (GitHub answers 404 without it, even to a token with repo).
func watchScope(c *authz.Caller) error {
	if !c.HasScope("notifications") {
		return model.ErrNotFound
	}
	return nil
}

// subscriber checks the caller may read (level "read") or change
// ("write") their subscription to repoID and loads the repository.
func subscriber(ctx context.Context, q store.Q, c *authz.Caller, repoID int64, level string) (*model.Repo, error) {
	if err := userToken(c, permWatching, level); err != nil {
		return nil, err
	}
	repo, err := visible(ctx, q, c, repoID)
	if err != nil {
		return nil, err
	}
	if err := watchScope(c); err != nil {
		return nil, err
	}
	return repo, nil
}

// Subscription is the caller's subscription to repoID: model.ErrNotFound
// when they neither watch nor ignore it.
func (s *Service) Subscription(ctx context.Context, c *authz.Caller, repoID int64) (*model.Subscription, *model.Repo, error) {
	q := s.Store.R()
	repo, err := subscriber(ctx, q, c, repoID, "read")
	if err != nil {
		return nil, nil, err
	}
	sub, err := q.SubscriptionOf(ctx, c.User.ID, repoID)
	return sub, repo, err
}

// SetSubscription sets the caller's subscription to repoID: ignored
// ignores the repository's notifications (and stops watching it), else
// subscribed watches it; neither leaves no subscription (the default:
// notified of what they take part in), which it answers as a subscription
// that neither watches nor ignores, created now.
func (s *Service) SetSubscription(ctx context.Context, c *authz.Caller, repoID int64, subscribed, ignored bool) (*model.Subscription, *model.Repo, error) {
	var sub *model.Subscription
	var repo *model.Repo
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		if repo, err = subscriber(ctx, tx, c, repoID, "write"); err != nil {
			return err
		}
		action := "deleted"
		changed := false
		switch {
		case ignored || subscribed:
			if sub, changed, err = tx.SetSubscription(ctx, c.User.ID, repo.ID, ignored); err != nil {
				return err
			}
			action = "subscribed"
			if ignored {
				action = "ignored"
			}
		default:
			if changed, err = tx.DeleteSubscription(ctx, c.User.ID, repo.ID); err != nil {
				return err
			}
			sub = &model.Subscription{UserID: c.User.ID, RepoID: repo.ID, CreatedAt: tx.Now()}
		}
		if !changed {
			return nil
		}
		return tx.AppendEvent(ctx, EventSubscription, c.User.ID, repo.ID, orgOf(repo), map[string]any{
			"action": action, "repository_id": repo.ID,
		})
	})
	if err != nil {
		return nil, nil, err
	}
	return sub, repo, nil
}

// DeleteSubscription stops the caller watching or ignoring repoID (nothing
// changes when they did neither).
func (s *Service) DeleteSubscription(ctx context.Context, c *authz.Caller, repoID int64) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		repo, err := subscriber(ctx, tx, c, repoID, "write")
		if err != nil {
			return err
		}
		removed, err := tx.DeleteSubscription(ctx, c.User.ID, repo.ID)
		if err != nil || !removed {
			return err
		}
		return tx.AppendEvent(ctx, EventSubscription, c.User.ID, repo.ID, orgOf(repo), map[string]any{
			"action": "deleted", "repository_id": repo.ID,
		})
	})
}

// Watchers is one page of the users watching repo (which the caller sees),
// oldest subscription first, and their total.
func (s *Service) Watchers(ctx context.Context, repo *model.Repo, limit, offset int) ([]*model.Account, int, error) {
	return s.Store.R().Watchers(ctx, repo.ID, limit, offset)
}

// Watched is one page of the repositories user watches that the viewer may
// see, and their total.
func (s *Service) Watched(ctx context.Context, user *model.Account, q ListQuery) ([]*store.RepoView, int, error) {
	return s.Store.R().WatchedRepos(ctx, user.ID, q.Viewer, q.Limit, q.Offset)
}

// MyWatched is Watched for the caller's own subscriptions (GET
// /user/subscriptions): it needs a user's token.
func (s *Service) MyWatched(ctx context.Context, c *authz.Caller, q ListQuery) ([]*store.RepoView, int, error) {
	if err := userToken(c, permWatching, "read"); err != nil {
		return nil, 0, err
	}
	return s.Watched(ctx, c.User, q)
}
