package protection

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/rulesets"
)

// ruleGate is what the active rulesets on a pull request's base branch
// say about merging it: whether they block it or want its head brought up
// to date (for everyone: the mergeable_state), and the refusal of this
// caller (nil when the caller may merge, or bypasses them).
type ruleGate struct {
	blocked, behind bool
	refusal         error
}

// rulesetGate applies the rulesets' pull_request approvals, required
// status checks (strict: the head must contain the base) and update rules
// with classic protection's words. The caller is the request's, which the
// transports keep in the context; actorPerm is their permission.
func (s *Service) rulesetGate(ctx context.Context, repo *model.Repo, pull *model.Pull, actorPerm authz.Permission, states map[string]string) (ruleGate, error) {
	actor := rulesets.CallerActor(rest.From((&http.Request{}).WithContext(ctx)).Caller)
	actor.Perm, actor.HasPerm = actorPerm, true
	everyone, mine, err := rulesets.New(s.Store, s.Git).MergeRules(ctx, repo, pull.BaseRef, actor)
	if err != nil || everyone.Empty() {
		return ruleGate{}, err
	}
	all, behind, err := s.ruleRefusals(ctx, repo, pull, everyone, states)
	if err != nil {
		return ruleGate{}, err
	}
	g := ruleGate{blocked: len(all) > 0, behind: behind}
	own := all
	if behind {
		own = append(slices.Clone(all), notAllowed("Head branch is out of date. Review and try the merge again."))
	}
	if !sameRules(everyone, mine) {
		if own, behind, err = s.ruleRefusals(ctx, repo, pull, mine, states); err != nil {
			return ruleGate{}, err
		}
		if behind {
			own = append(own, notAllowed("Head branch is out of date. Review and try the merge again."))
		}
	}
	if len(own) > 0 {
		g.refusal = own[0]
	}
	return g, nil
}

// ruleRefusals are the refusals of merge rules (not counting an
// out-of-date head, reported as behind).
func (s *Service) ruleRefusals(ctx context.Context, repo *model.Repo, pull *model.Pull, m rulesets.MergeRules, states map[string]string) ([]error, bool, error) {
	var out []error
	if m.Update {
		out = append(out, notAllowed("Cannot update this protected ref."))
	}
	if m.Approvals > 0 {
		if err := s.reviewRefusal(ctx, repo, pull, m.Approvals); err != nil {
			var he *model.HTTPError
			if !errors.As(err, &he) {
				return nil, false, err
			}
			out = append(out, err)
		}
	}
	if m.CodeOwners {
		if err := s.codeOwnerRefusal(ctx, repo, pull); err != nil {
			var he *model.HTTPError
			if !errors.As(err, &he) {
				return nil, false, err
			}
			out = append(out, err)
		}
	}
	if len(m.Contexts) > 0 {
		if err := checksRefusal(m.Contexts, states); err != nil {
			out = append(out, err)
		}
	}
	behind := false
	if m.Strict {
		var err error
		if behind, err = s.behind(ctx, repo, pull); err != nil {
			return nil, false, err
		}
	}
	return out, behind, nil
}

func sameRules(a, b rulesets.MergeRules) bool {
	return a.Approvals == b.Approvals && a.Strict == b.Strict && a.Update == b.Update && a.CodeOwners == b.CodeOwners &&
		slices.Equal(a.Contexts, b.Contexts)
}

// rulesetsDismissStale reports whether a pull_request rule of an active
// ruleset on branch dismisses stale approvals.
func (s *Service) rulesetsDismissStale(ctx context.Context, repo *model.Repo, branch string) (bool, error) {
	everyone, _, err := rulesets.New(s.Store, s.Git).MergeRules(ctx, repo, branch, rulesets.Actor{})
	return everyone.DismissStale, err
}

// RequiredChecks are the status contexts and check names a merge into
// branch waits for: its protection's required status checks (or the
// contexts a direct SetRequiredContexts wrote when it has none) and the
// required_status_checks rules of the active rulesets on it (GraphQL's
// isRequired).
func (s *Service) RequiredChecks(ctx context.Context, repo *model.Repo, branch string) ([]string, error) {
	q := s.Store.R()
	p, err := q.BranchProtection(ctx, repo.ID, branch)
	if err != nil {
		return nil, err
	}
	var out []string
	switch {
	case p == nil:
		if out, err = q.RequiredContexts(ctx, repo.ID, branch); err != nil {
			return nil, err
		}
	case p.StatusChecks:
		out = append(out, p.RequiredContexts...)
	}
	everyone, _, err := rulesets.New(s.Store, s.Git).MergeRules(ctx, repo, branch, rulesets.Actor{})
	if err != nil {
		return nil, err
	}
	for _, c := range everyone.Contexts {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}
