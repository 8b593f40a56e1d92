// Package stars is the service of starring and watching: users star
// repositories (bookmarks, counted in stargazers_count) and subscribe to
// them (watching, counted in subscribers_count, or ignoring their
// notifications). It holds GitHub's rules on who may star or watch what
// with which token, and appends the domain events of stars. REST
// (internal/api/activity) and GraphQL call it; the SQL lives in
// store/stars.go.
package stars

import (
	"context"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service is the starring and watching service.
type Service struct {
	Store *store.Store
}

// New makes the service.
func New(st *store.Store) *Service { return &Service{Store: st} }

// ErrRequiresAuth is GitHub's 401 for an anonymous caller.
var ErrRequiresAuth = &model.HTTPError{Status: 401, Message: "Requires authentication"}

// Domain event types. A new star appends EventWatch (GitHub's WatchEvent
// of the activity feeds and the "watch" webhook, action "started") and
// EventStarCreated (the "star" webhook, action "created"); removing one
// appends EventStarDeleted ("star", action "deleted"). Subscriptions have
// no GitHub event; their changes append EventSubscription for
// notifications and audit.
const (
	EventWatch        = "watch"
	EventStarCreated  = "star.created"
	EventStarDeleted  = "star.deleted"
	EventSubscription = "repository_subscription"
)

// The fine-grained (user) permissions of the operations.
const (
	permStarring = "starring"
	permWatching = "watching"
)

// userToken lets through a caller acting as a user with a token kind these
// operations accept. An installation token acts for no user; a
// fine-grained token or a GitHub App's user access token needs the user
// permission perm ("starring", "watching") at level ("read" or "write").
// Classic scopes are checked by each operation: what they lack answers 404
// on GitHub.
func userToken(c *authz.Caller, perm, level string) error {
	if !c.Authenticated() {
		return ErrRequiresAuth
	}
	granted := func() bool { got := c.Permissions[perm]; return got == "write" || got == level }
	switch c.Kind {
	case authz.Installation:
		return model.Forbidden("Resource not accessible by integration")
	case authz.UserToServer:
		if !granted() {
			return model.Forbidden("Resource not accessible by integration")
		}
	case authz.FineGrained:
		if !granted() {
			return model.Forbidden("Resource not accessible by personal access token")
		}
	}
	if c.User == nil {
		return model.Forbidden("Resource not accessible by integration")
	}
	return nil
}

// visible loads repository id as c sees it: model.ErrNotFound when it does
// not exist or c may not see it.
func visible(ctx context.Context, q store.Q, c *authz.Caller, id int64) (*model.Repo, error) {
	v, err := q.RepoByID(ctx, id, c.UserID())
	if err != nil {
		return nil, err
	}
	if !authz.CanSee(authz.RepoPermission(c, v.Repo, v.Facts)) {
		return nil, model.ErrNotFound
	}
	return v.Repo, nil
}

// starScope is the classic scope a star on r needs: public_repo, and repo
// for a private one (GitHub answers 404 without it).
func starScope(c *authz.Caller, r *model.Repo) error {
	scope := "public_repo"
	if r.Private() {
		scope = "repo"
	}
	if !c.HasScope(scope) {
		return model.ErrNotFound
	}
	return nil
}

func orgOf(r *model.Repo) int64 {
	if r.Owner != nil && r.Owner.IsOrg() {
		return r.OwnerID
	}
	return 0
}

// Star stars repository repoID for the caller (nothing changes when they
// starred it already). A repository they may not see is not found.
func (s *Service) Star(ctx context.Context, c *authz.Caller, repoID int64) error {
	if err := userToken(c, permStarring, "write"); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		repo, err := visible(ctx, tx, c, repoID)
		if err != nil {
			return err
		}
		if err := starScope(c, repo); err != nil {
			return err
		}
		star, created, err := tx.StarRepo(ctx, c.User.ID, repo.ID)
		if err != nil || !created {
			return err
		}
		at := star.CreatedAt.UTC().Format(time.RFC3339)
		if err := tx.AppendEvent(ctx, EventWatch, c.User.ID, repo.ID, orgOf(repo), map[string]any{
			"action": "started", "repository_id": repo.ID, "full_name": repo.FullName(),
		}); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, EventStarCreated, c.User.ID, repo.ID, orgOf(repo), map[string]any{
			"action": "created", "starred_at": at, "repository_id": repo.ID, "full_name": repo.FullName(),
		})
	})
}

// Unstar removes the caller's star on repoID (nothing changes when there
// is none).
func (s *Service) Unstar(ctx context.Context, c *authz.Caller, repoID int64) error {
	if err := userToken(c, permStarring, "write"); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		repo, err := visible(ctx, tx, c, repoID)
		if err != nil {
			return err
		}
		if err := starScope(c, repo); err != nil {
			return err
		}
		removed, err := tx.UnstarRepo(ctx, c.User.ID, repo.ID)
		if err != nil || !removed {
			return err
		}
		return tx.AppendEvent(ctx, EventStarDeleted, c.User.ID, repo.ID, orgOf(repo), map[string]any{
			"action": "deleted", "starred_at": nil, "repository_id": repo.ID, "full_name": repo.FullName(),
		})
	})
}

// IsStarred reports whether the caller starred repoID (a repository they
// may not see is not found).
func (s *Service) IsStarred(ctx context.Context, c *authz.Caller, repoID int64) (bool, error) {
	if err := userToken(c, permStarring, "read"); err != nil {
		return false, err
	}
	q := s.Store.R()
	if _, err := visible(ctx, q, c, repoID); err != nil {
		return false, err
	}
	return q.HasStarred(ctx, c.User.ID, repoID)
}

// StarredBy reports which of repoIDs viewerID starred, in one query: for
// GraphQL's viewerHasStarred over repositories the caller already sees
// (it checks no visibility). viewerID 0 starred nothing.
func (s *Service) StarredBy(ctx context.Context, viewerID int64, repoIDs []int64) (map[int64]bool, error) {
	return s.Store.R().StarredBy(ctx, viewerID, repoIDs)
}

// Stargazers is one page of the users who starred repo (which the caller
// sees), oldest first, and their total.
func (s *Service) Stargazers(ctx context.Context, repo *model.Repo, limit, offset int) ([]store.Stargazer, int, error) {
	return s.Store.R().Stargazers(ctx, repo.ID, limit, offset)
}

// ListQuery selects a page of a user's starred or watched repositories.
type ListQuery struct {
	Viewer store.Viewer // the caller: only what they may see is listed
	// Sort ("created", the default, or "updated") and Desc order starred
	// lists; watched lists are in the order of subscription.
	Sort          string
	Desc          bool
	Limit, Offset int
}

// Starred is one page of the repositories user starred that the viewer may
// see, and their total.
func (s *Service) Starred(ctx context.Context, user *model.Account, q ListQuery) ([]store.StarredRepo, int, error) {
	sort := q.Sort
	if sort != "updated" {
		sort = "created"
	}
	return s.Store.R().StarredRepos(ctx, store.StarQuery{UserID: user.ID, Viewer: q.Viewer, Sort: sort, Desc: q.Desc, Limit: q.Limit, Offset: q.Offset})
}

// MyStarred is Starred for the caller's own stars (GET /user/starred): it
// needs a user's token.
func (s *Service) MyStarred(ctx context.Context, c *authz.Caller, q ListQuery) ([]store.StarredRepo, int, error) {
	if err := userToken(c, permStarring, "read"); err != nil {
		return nil, 0, err
	}
	return s.Starred(ctx, c.User, q)
}
