package rulesets

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Delegated bypass of push rules: a push that push rulesets refuse, when
// every one of them has a bypass list, is recorded as a push rule bypass
// request of the pusher for the pushed commit; a member of the bypass
// lists approves or denies it; an approved request lets the same push
// (the same commit, by the same pusher) through the rulesets it names
// until it expires, and is then completed.

// BypassRequestTTL is how long a request may be reviewed and, approved,
// used (GitHub's 7 days).
const BypassRequestTTL = 7 * 24 * time.Hour

// PushResult is the rules' answer on a push: the violations (none: it may
// go on) and the bypass request recorded or found for it, if any.
type PushResult struct {
	Violations []Violation
	Request    *model.PushBypassRequest
}

// pushedCommit is the commit a push's bypass request names: its first new
// ref value.
func pushedCommit(changes []RefChange) (string, string) {
	for _, ch := range changes {
		if ch.New != gitrepo.ZeroOID {
			return ch.New, ch.Ref
		}
	}
	return "", ""
}

// CheckPush is CheckChanges for a git push, with delegated bypass: an
// approved request of the pusher for the pushed commit passes the push
// rulesets it names (and is completed when the push passes), and a push
// the push rulesets refuse records a pending request (or finds the one
// already recorded) when they all have a bypass list.
func (s *Service) CheckPush(ctx context.Context, repo *model.Repo, actor Actor, changes []RefChange, env []string) (*PushResult, error) {
	sha, ref := pushedCommit(changes)
	var mine []*model.PushBypassRequest
	skip := map[int64]bool{}
	var approved *model.PushBypassRequest
	if actor.UserID != 0 && sha != "" {
		var err error
		mine, err = s.Store.R().PushBypassRequestsFor(ctx, repo.ID, actor.UserID, sha)
		if err != nil {
			return nil, err
		}
		now := s.Store.Now()
		for _, x := range mine {
			if x.State(now) == model.BypassRequestApproved {
				approved = x
				for _, d := range x.Data {
					skip[d.RulesetID] = true
				}
				break
			}
		}
	}
	v, err := s.check(ctx, repo, actor, changes, env, skip)
	if err != nil {
		return nil, err
	}
	out := &PushResult{Violations: v.Violations}
	if len(v.Violations) == 0 {
		if approved != nil {
			err := s.Store.Tx(ctx, func(tx store.Q) error {
				if err := tx.SetPushBypassRequestStatus(ctx, approved.ID, model.BypassRequestCompleted); err != nil {
					return err
				}
				return tx.AppendEvent(ctx, "exemption_request_push_ruleset.completed", actor.UserID, repo.ID, orgOf(repo),
					map[string]any{"action": "completed", "number": approved.Number})
			})
			if err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	if !v.Delegable || actor.UserID == 0 || sha == "" {
		return out, nil
	}
	now := s.Store.Now()
	for _, x := range mine {
		if x.State(now) == model.BypassRequestPending {
			out.Request = x
			return out, nil
		}
	}
	x := &model.PushBypassRequest{RepoID: repo.ID, OrgID: orgOf(repo), RequesterID: actor.UserID, Resource: sha, Ref: ref,
		Status: model.BypassRequestPending, ExpiresAt: now.Add(BypassRequestTTL)}
	for _, h := range v.Hits {
		x.Data = append(x.Data, model.BypassRuleData{RulesetID: h.RulesetID, RulesetName: h.RulesetName, RuleType: h.RuleType, Total: h.Total})
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreatePushBypassRequest(ctx, x); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "exemption_request_push_ruleset.created", actor.UserID, repo.ID, orgOf(repo),
			map[string]any{"action": "created", "number": x.Number, "resource": sha, "ref": ref})
	})
	if err != nil {
		return nil, err
	}
	out.Request = x
	return out, nil
}

// mayReview reports whether the actor is on the bypass list (always or
// exempt) of every ruleset a request names.
func (s *Service) mayReview(ctx context.Context, repo *model.Repo, actor Actor, x *model.PushBypassRequest) (bool, error) {
	if actor.UserID == 0 || len(x.Data) == 0 {
		return false, nil
	}
	b := s.bypasser(repo, actor)
	for _, d := range x.Data {
		r, err := s.Store.R().RulesetByID(ctx, d.RulesetID)
		if errors.Is(err, model.ErrNotFound) {
			continue // a deleted ruleset asks nothing any more
		}
		if err != nil {
			return false, err
		}
		mode, err := b.mode(ctx, r)
		if err != nil {
			return false, err
		}
		if mode != model.BypassAlways && mode != model.BypassExempt {
			return false, nil
		}
	}
	return true, nil
}

// seesAllRequests reports whether the actor sees every bypass request of a
// repository: its administrators and the organization's ruleset managers
// (others see their own requests, and those they may review).
func (s *Service) seesAllRequests(ctx context.Context, repo *model.Repo, perm authz.Permission, user *model.Account) (bool, error) {
	if perm >= authz.Admin {
		return true, nil
	}
	if org := repo.Owner; org != nil && org.IsOrg() && user != nil {
		return s.mayManage(ctx, org, user) == nil, nil
	}
	return false, nil
}

// RepoBypassRequests is one page of a repository's push rule bypass
// requests f selects and their count: all of them for those who see all,
// else the caller's own.
func (s *Service) RepoBypassRequests(ctx context.Context, repo *model.Repo, perm authz.Permission, user *model.Account,
	f model.BypassRequestFilter, limit, offset int) ([]*model.PushBypassRequest, int, error) {
	all, err := s.seesAllRequests(ctx, repo, perm, user)
	if err != nil {
		return nil, 0, err
	}
	f.RepoID, f.OrgID = repo.ID, 0
	if !all {
		if user == nil {
			return []*model.PushBypassRequest{}, 0, nil
		}
		if f.Requester != "" && !strings.EqualFold(f.Requester, user.Login) {
			return []*model.PushBypassRequest{}, 0, nil
		}
		f.Requester = user.Login
	}
	return s.Store.R().PushBypassRequests(ctx, f, limit, offset)
}

// RepoBypassRequest is one request of a repository, for those who see all
// of them, its requester and its reviewers (404 for anyone else).
func (s *Service) RepoBypassRequest(ctx context.Context, repo *model.Repo, perm authz.Permission, user *model.Account, number int64) (*model.PushBypassRequest, error) {
	x, err := s.Store.R().PushBypassRequestByNumber(ctx, repo.ID, number)
	if err != nil {
		return nil, err
	}
	all, err := s.seesAllRequests(ctx, repo, perm, user)
	if err != nil || all {
		return x, err
	}
	if user != nil && user.ID == x.RequesterID {
		return x, nil
	}
	if user != nil {
		ok, err := s.mayReview(ctx, repo, Actor{UserID: user.ID, Perm: perm, HasPerm: true}, x)
		if err != nil || ok {
			return x, err
		}
	}
	return nil, model.ErrNotFound
}

// OrgBypassRequests is one page of an organization's push rule bypass
// requests f selects, for its owners and ruleset managers.
func (s *Service) OrgBypassRequests(ctx context.Context, org, user *model.Account, f model.BypassRequestFilter, limit, offset int) ([]*model.PushBypassRequest, int, error) {
	if err := s.mayManage(ctx, org, user); err != nil {
		return nil, 0, err
	}
	f.OrgID, f.RepoID = org.ID, 0
	return s.Store.R().PushBypassRequests(ctx, f, limit, offset)
}

// ReviewBypassRequest approves or denies a pending request (status
// approved or denied): only a member of the bypass lists of every ruleset
// it names, never its requester.
func (s *Service) ReviewBypassRequest(ctx context.Context, repo *model.Repo, reviewer Actor, number int64, status string) (*model.PushBypassRequest, error) {
	if status != model.BypassRequestApproved && status != model.BypassRequestDenied {
		return nil, model.Invalid("BypassRequest", "status", "invalid")
	}
	x, err := s.Store.R().PushBypassRequestByNumber(ctx, repo.ID, number)
	if err != nil {
		return nil, err
	}
	ok, err := s.mayReview(ctx, repo, reviewer, x)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, model.Forbidden("Must be on the bypass list of the rulesets to review this bypass request.")
	}
	if reviewer.UserID == x.RequesterID {
		return nil, model.Custom("BypassRequest", "status", "You cannot review your own bypass request.")
	}
	if st := x.State(s.Store.Now()); st != model.BypassRequestPending {
		return nil, model.Custom("BypassRequest", "status", "This bypass request is "+st+" and can no longer be reviewed.")
	}
	resp := &model.BypassResponse{ReviewerID: reviewer.UserID, Status: status}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.AddPushBypassResponse(ctx, x.ID, resp); err != nil {
			return err
		}
		if err := tx.SetPushBypassRequestStatus(ctx, x.ID, status); err != nil {
			return err
		}
		action := "response_submitted"
		return tx.AppendEvent(ctx, "exemption_request_push_ruleset."+action, reviewer.UserID, repo.ID, orgOf(repo),
			map[string]any{"action": action, "number": x.Number, "status": status, "response_id": resp.ID})
	})
	if err != nil {
		return nil, err
	}
	return s.Store.R().PushBypassRequestByNumber(ctx, repo.ID, number)
}
