package rulesets

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// bypasser works out which rulesets an actor may bypass on a repository,
// loading what it needs (permission, ownership, team memberships) once.
type bypasser struct {
	q     store.Q
	repo  *model.Repo
	a     Actor
	owner *bool
	teams map[int64]bool
}

func (s *Service) bypasser(repo *model.Repo, a Actor) *bypasser {
	return &bypasser{q: s.Store.R(), repo: repo, a: a, teams: map[int64]bool{}}
}

var modeRank = map[string]int{model.BypassPullRequest: 1, model.BypassAlways: 2, model.BypassExempt: 3}

// mode is the strongest bypass the actor has on r ("" for none).
func (b *bypasser) mode(ctx context.Context, r *model.Ruleset) (string, error) {
	best := ""
	for _, x := range r.Bypass {
		if modeRank[x.Mode] <= modeRank[best] {
			continue
		}
		ok, err := b.is(ctx, r, x)
		if err != nil {
			return "", err
		}
		if ok {
			best = x.Mode
		}
	}
	return best, nil
}

// is reports whether the actor is the bypass actor x.
func (b *bypasser) is(ctx context.Context, r *model.Ruleset, x model.BypassActor) (bool, error) {
	switch x.ActorType {
	case model.BypassUser:
		return b.a.UserID != 0 && b.a.UserID == x.ActorID, nil
	case model.BypassIntegration:
		return b.a.AppID != 0 && b.a.AppID == x.ActorID, nil
	case model.BypassRepositoryRole:
		need, ok := repoRoleIDs[x.ActorID]
		if !ok || b.repo == nil {
			return false, nil
		}
		perm, err := b.perm(ctx)
		return perm >= need, err
	case model.BypassOrganizationAdmin:
		return b.orgOwner(ctx, r)
	case model.BypassEnterpriseOwner:
		return b.enterpriseOwner(ctx)
	case model.BypassDeployKey:
		return b.a.DeployKey, nil
	case model.BypassTeam:
		if b.a.UserID == 0 {
			return false, nil
		}
		if in, ok := b.teams[x.ActorID]; ok {
			return in, nil
		}
		m, err := b.q.TeamMember(ctx, x.ActorID, b.a.UserID)
		if err != nil && !errors.Is(err, model.ErrNotFound) {
			return false, err
		}
		in := err == nil && m.State == store.StateActive
		b.teams[x.ActorID] = in
		return in, nil
	}
	return false, nil
}

// enterpriseOwner reports whether the actor is one of the enterprise's
// owners (hubd's site administrators).
func (b *bypasser) enterpriseOwner(ctx context.Context) (bool, error) {
	if b.a.UserID == 0 {
		return false, nil
	}
	u, err := b.q.AccountByID(ctx, b.a.UserID)
	if errors.Is(err, model.ErrNotFound) {
		return false, nil
	}
	return err == nil && u.SiteAdmin, err
}

// perm is the actor's permission on the repository: the transport's, or
// the user's own.
func (b *bypasser) perm(ctx context.Context) (authz.Permission, error) {
	if b.a.HasPerm {
		return b.a.Perm, nil
	}
	b.a.HasPerm, b.a.Perm = true, authz.None
	if b.a.UserID == 0 {
		return authz.None, nil
	}
	u, err := b.q.AccountByID(ctx, b.a.UserID)
	if errors.Is(err, model.ErrNotFound) {
		return authz.None, nil
	}
	if err != nil {
		return authz.None, err
	}
	v, err := b.q.RepoByID(ctx, b.repo.ID, b.a.UserID)
	if err != nil {
		return authz.None, err
	}
	b.a.Perm = authz.RepoPermission(&authz.Caller{User: u}, v.Repo, v.Facts)
	return b.a.Perm, nil
}

// orgOwner reports whether the actor owns the organization of the ruleset
// (or of the repository).
func (b *bypasser) orgOwner(ctx context.Context, r *model.Ruleset) (bool, error) {
	if b.owner != nil {
		return *b.owner, nil
	}
	org := r.OrgID
	if org == 0 && b.repo != nil {
		org = orgOf(b.repo)
	}
	owner := false
	if org != 0 && b.a.UserID != 0 {
		m, err := b.q.Membership(ctx, org, b.a.UserID)
		if err != nil && !errors.Is(err, model.ErrNotFound) {
			return false, err
		}
		owner = err == nil && m.State == store.StateActive && m.Role == model.RoleAdmin
	}
	b.owner = &owner
	return owner, nil
}

// CanBypass is current_user_can_bypass of each ruleset for the viewer on
// a repository, by ruleset id: always, pull_requests_only, exempt or
// never.
func (s *Service) CanBypass(ctx context.Context, repo *model.Repo, viewer Actor, list []*model.Ruleset) (map[int64]string, error) {
	b := s.bypasser(repo, viewer)
	out := make(map[int64]string, len(list))
	for _, r := range list {
		m, err := b.mode(ctx, r)
		if err != nil {
			return nil, err
		}
		switch m {
		case "":
			out[r.ID] = "never"
		case model.BypassPullRequest:
			out[r.ID] = "pull_requests_only"
		default:
			out[r.ID] = m
		}
	}
	return out, nil
}
