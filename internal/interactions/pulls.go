package interactions

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// CapInput is a PATCH of a creation cap: MaxOpen nil keeps the current
// maximum.
type CapInput struct {
	Enabled bool
	MaxOpen *int
}

func (s *Service) applyCap(c *model.PullCreationCap, in CapInput) error {
	if in.MaxOpen != nil {
		if *in.MaxOpen < 1 || *in.MaxOpen > 1000 {
			return &model.ValidationError{Errors: []model.FieldError{{Resource: "PullRequestCreationCap",
				Field: "max_open_pull_requests", Code: "invalid", Value: *in.MaxOpen}}}
		}
		c.MaxOpen = *in.MaxOpen
	}
	c.Enabled = in.Enabled
	return nil
}

func capEvent(c *model.PullCreationCap) map[string]any {
	return map[string]any{"enabled": c.Enabled, "max_open_pull_requests": c.MaxOpen}
}

// RepoCap is repo's own creation cap (the defaults when none was set); the
// caller needs admin.
func (s *Service) RepoCap(ctx context.Context, repo *model.Repo, perm authz.Permission) (*model.PullCreationCap, error) {
	if err := need(perm, authz.Admin); err != nil {
		return nil, err
	}
	return s.Store.R().PullCreationCap(ctx, repo.ID, 0, DefaultMaxOpen)
}

// UpdateRepoCap configures repo's creation cap, which overrides its
// organization's.
func (s *Service) UpdateRepoCap(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, in CapInput) (*model.PullCreationCap, error) {
	if err := need(perm, authz.Admin); err != nil {
		return nil, err
	}
	var out *model.PullCreationCap
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		c, err := tx.PullCreationCap(ctx, repo.ID, 0, DefaultMaxOpen)
		if err != nil {
			return err
		}
		if err := s.applyCap(c, in); err != nil {
			return err
		}
		if err := tx.SetPullCreationCap(ctx, c); err != nil {
			return err
		}
		out = c
		return tx.AppendEvent(ctx, "pull_creation_cap", actorID, repo.ID, orgID(repo), capEvent(c))
	})
	return out, err
}

// OrgCap is an organization's creation cap; the actor must own it.
func (s *Service) OrgCap(ctx context.Context, org *model.Account, actorID int64) (*model.PullCreationCap, error) {
	if err := s.accountAdmin(ctx, org, actorID); err != nil {
		return nil, err
	}
	return s.Store.R().PullCreationCap(ctx, 0, org.ID, DefaultMaxOpen)
}

// UpdateOrgCap configures the cap over all public repositories of org.
func (s *Service) UpdateOrgCap(ctx context.Context, org *model.Account, actorID int64, in CapInput) (*model.PullCreationCap, error) {
	if err := s.accountAdmin(ctx, org, actorID); err != nil {
		return nil, err
	}
	var out *model.PullCreationCap
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		c, err := tx.PullCreationCap(ctx, 0, org.ID, DefaultMaxOpen)
		if err != nil {
			return err
		}
		if err := s.applyCap(c, in); err != nil {
			return err
		}
		if err := tx.SetPullCreationCap(ctx, c); err != nil {
			return err
		}
		out = c
		return tx.AppendEvent(ctx, "pull_creation_cap", actorID, 0, org.ID, capEvent(c))
	})
	return out, err
}

// BypassList is repo's bypass list; the caller needs maintain.
func (s *Service) BypassList(ctx context.Context, repo *model.Repo, perm authz.Permission) ([]*model.Account, error) {
	if err := need(perm, authz.Maintain); err != nil {
		return nil, err
	}
	return s.Store.R().PullCapBypassList(ctx, repo.ID)
}

// users resolves a request's logins to user ids: 422 for an empty or too
// long list and for a login that names no user.
func (s *Service) users(ctx context.Context, q store.Q, logins []string) ([]int64, error) {
	if len(logins) == 0 {
		return nil, model.Invalid("PullRequestBypassList", "users", "missing_field")
	}
	if len(logins) > MaxBypassPerRequest {
		return nil, model.Custom("PullRequestBypassList", "users", "You can add or remove at most 100 users per request.")
	}
	ids := make([]int64, 0, len(logins))
	seen := map[int64]bool{}
	for _, login := range logins {
		a, err := q.AccountByLogin(ctx, strings.TrimSpace(login))
		if errors.Is(err, model.ErrNotFound) || err == nil && a.IsOrg() {
			return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "PullRequestBypassList", Field: "users", Code: "invalid", Value: login}}}
		}
		if err != nil {
			return nil, err
		}
		if !seen[a.ID] {
			seen[a.ID] = true
			ids = append(ids, a.ID)
		}
	}
	return ids, nil
}

// AddBypass puts users on repo's bypass list.
func (s *Service) AddBypass(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, logins []string) error {
	if err := need(perm, authz.Maintain); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		ids, err := s.users(ctx, tx, logins)
		if err != nil {
			return err
		}
		n, err := tx.AddPullCapBypass(ctx, repo.ID, ids)
		if err != nil {
			return err
		}
		total, err := tx.CountPullCapBypass(ctx, repo.ID)
		if err != nil {
			return err
		}
		if total > MaxBypassList {
			return model.Custom("PullRequestBypassList", "users", "The bypass list can hold at most 100 users.")
		}
		if n == 0 {
			return nil
		}
		return tx.AppendEvent(ctx, "pull_bypass_list", actorID, repo.ID, orgID(repo), map[string]any{"action": "added", "user_ids": ids})
	})
}

// RemoveBypass takes users off repo's bypass list.
func (s *Service) RemoveBypass(ctx context.Context, repo *model.Repo, perm authz.Permission, actorID int64, logins []string) error {
	if err := need(perm, authz.Maintain); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		ids, err := s.users(ctx, tx, logins)
		if err != nil {
			return err
		}
		n, err := tx.RemovePullCapBypass(ctx, repo.ID, ids)
		if err != nil || n == 0 {
			return err
		}
		return tx.AppendEvent(ctx, "pull_bypass_list", actorID, repo.ID, orgID(repo), map[string]any{"action": "removed", "user_ids": ids})
	})
}
