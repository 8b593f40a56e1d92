package graphql

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/wire"
)

// Rulesets' details: a rule's parameters (the RuleParameters union), a
// ruleset's conditions and its bypass actors, from the ruleset rows the
// rulesets service loaded (no further reads but one batch of the actors'
// apps and teams).

// ruleParams is a rule's parameters as the member of RuleParameters its
// type names.
type ruleParams struct {
	typ  string
	rule *model.RulesetRule
}

// paramTypes are the RuleParameters member of each rule type with
// parameters hubd keeps.
var paramTypes = map[string]string{
	model.RuleUpdate:                   "UpdateParameters",
	model.RulePullRequest:              "PullRequestParameters",
	model.RuleRequiredStatusChecks:     "RequiredStatusChecksParameters",
	model.RuleCommitMessagePattern:     "CommitMessagePatternParameters",
	model.RuleCommitAuthorEmailPattern: "CommitAuthorEmailPatternParameters",
	model.RuleCommitterEmailPattern:    "CommitterEmailPatternParameters",
	model.RuleBranchNamePattern:        "BranchNamePatternParameters",
	model.RuleTagNamePattern:           "TagNamePatternParameters",
}

// conditionsObj is a ruleset's RepositoryRuleConditions.
type conditionsObj struct{ c *model.RulesetConditions }

// repoNameCondition is a RepositoryNameConditionTarget.
type repoNameCondition struct {
	p         *model.NamePatterns
	protected bool
}

// bypassObj is one RepositoryRulesetBypassActor.
type bypassObj struct {
	set   *rulesetObj
	index int
	b     model.BypassActor
}

// repoRoleNames are the names of the base repository roles GitHub's
// bypass lists use by id.
var repoRoleNames = map[int64]string{2: "maintain", 4: "write", 5: "admin"}

func (a *API) registerRulesetDetails() {
	a.field("RepositoryRule", "parameters", func(_ context.Context, p any, _ map[string]any) (any, error) {
		r := p.(*ruleObj).rule
		typ, ok := paramTypes[r.Type]
		if !ok {
			return nil, nil
		}
		return &ruleParams{typ: typ, rule: r}, nil
	})
	param := func(typ, name string, f func(r *model.RulesetRule) any) {
		a.field(typ, name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*ruleParams).rule), nil })
	}
	param("UpdateParameters", "updateAllowsFetchAndMerge", func(r *model.RulesetRule) any { return r.UpdateAllowsFetchAndMerge })
	pr := func(name string, f func(p *model.PullRequestRule) any) {
		param("PullRequestParameters", name, func(r *model.RulesetRule) any {
			if r.PullRequest == nil {
				return f(&model.PullRequestRule{})
			}
			return f(r.PullRequest)
		})
	}
	pr("requiredApprovingReviewCount", func(p *model.PullRequestRule) any { return p.RequiredApprovals })
	pr("dismissStaleReviewsOnPush", func(p *model.PullRequestRule) any { return p.DismissStaleReviewsOnPush })
	pr("requireCodeOwnerReview", func(p *model.PullRequestRule) any { return p.RequireCodeOwnerReview })
	pr("requireLastPushApproval", func(p *model.PullRequestRule) any { return p.RequireLastPushApproval })
	pr("requiredReviewThreadResolution", func(p *model.PullRequestRule) any { return p.RequiredReviewThreadResolution })
	pr("allowedMergeMethods", func(p *model.PullRequestRule) any {
		if p.AllowedMergeMethods == nil {
			return nil
		}
		out := make([]any, len(p.AllowedMergeMethods))
		for i, m := range p.AllowedMergeMethods {
			out[i] = strings.ToUpper(m)
		}
		return out
	})
	sc := func(name string, f func(s *model.StatusChecksRule) any) {
		param("RequiredStatusChecksParameters", name, func(r *model.RulesetRule) any {
			if r.StatusChecks == nil {
				return f(&model.StatusChecksRule{})
			}
			return f(r.StatusChecks)
		})
	}
	sc("strictRequiredStatusChecksPolicy", func(s *model.StatusChecksRule) any { return s.Strict })
	sc("doNotEnforceOnCreate", func(s *model.StatusChecksRule) any { return s.DoNotEnforceOnCreate })
	sc("requiredStatusChecks", func(s *model.StatusChecksRule) any {
		out := make([]any, len(s.Checks))
		for i := range s.Checks {
			out[i] = &s.Checks[i]
		}
		return out
	})
	a.field("StatusCheckConfiguration", "context", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*model.RequiredCheck).Context, nil
	})
	a.field("StatusCheckConfiguration", "integrationId", func(_ context.Context, p any, _ map[string]any) (any, error) {
		if id := p.(*model.RequiredCheck).IntegrationID; id != 0 {
			return id, nil
		}
		return nil, nil
	})
	for _, typ := range []string{"CommitMessagePatternParameters", "CommitAuthorEmailPatternParameters", "CommitterEmailPatternParameters",
		"BranchNamePatternParameters", "TagNamePatternParameters"} {
		pat := func(name string, f func(p *model.PatternRule) any) {
			param(typ, name, func(r *model.RulesetRule) any {
				if r.Pattern == nil {
					return f(&model.PatternRule{})
				}
				return f(r.Pattern)
			})
		}
		pat("name", func(p *model.PatternRule) any {
			if p.Name == "" {
				return nil
			}
			return p.Name
		})
		pat("negate", func(p *model.PatternRule) any { return p.Negate })
		pat("operator", func(p *model.PatternRule) any { return p.Operator })
		pat("pattern", func(p *model.PatternRule) any { return p.Pattern })
	}

	// Conditions.
	a.field("RepositoryRuleset", "conditions", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return &conditionsObj{c: p.(*rulesetObj).r.Conditions}, nil
	})
	a.field("RepositoryRuleConditions", "refName", func(_ context.Context, p any, _ map[string]any) (any, error) {
		if c := p.(*conditionsObj).c; c != nil && c.RefName != nil {
			return c.RefName, nil
		}
		return nil, nil
	})
	a.field("RepositoryRuleConditions", "repositoryName", func(_ context.Context, p any, _ map[string]any) (any, error) {
		if c := p.(*conditionsObj).c; c != nil && c.RepositoryName != nil {
			return &repoNameCondition{p: c.RepositoryName, protected: c.RepositoryProtected}, nil
		}
		return nil, nil
	})
	// hubd's rulesets target repositories by name only (REST takes no
	// repository_id condition), so this is always null.
	a.field("RepositoryRuleConditions", "repositoryId", func(context.Context, any, map[string]any) (any, error) { return nil, nil })
	a.field("RepositoryIdConditionTarget", "repositoryIds", func(context.Context, any, map[string]any) (any, error) { return []any{}, nil })
	strs := func(l []string) any {
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out
	}
	a.field("RefNameConditionTarget", "include", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return strs(p.(*model.NamePatterns).Include), nil
	})
	a.field("RefNameConditionTarget", "exclude", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return strs(p.(*model.NamePatterns).Exclude), nil
	})
	a.field("RepositoryNameConditionTarget", "include", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return strs(p.(*repoNameCondition).p.Include), nil
	})
	a.field("RepositoryNameConditionTarget", "exclude", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return strs(p.(*repoNameCondition).p.Exclude), nil
	})
	a.field("RepositoryNameConditionTarget", "protected", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*repoNameCondition).protected, nil
	})

	// Bypass actors: shown to those who may change the ruleset, as REST
	// (others get an empty list).
	a.connectionTypes("RepositoryRulesetBypassActorConnection", "RepositoryRulesetBypassActorEdge")
	a.schema.Resolve("RepositoryRuleset", "bypassActors", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := p.(*rulesetObj)
		list := []*bypassObj{}
		if o.showBypass {
			for i, x := range o.r.Bypass {
				list = append(list, &bypassObj{set: o, index: i, b: x})
			}
		}
		return slicePage(list, b, "bypassActors")
	}))
	ba := func(name string, f func(o *bypassObj) any) {
		a.field("RepositoryRulesetBypassActor", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*bypassObj)), nil })
	}
	ba("id", func(o *bypassObj) any { return wire.GitNodeID("RBA", o.set.r.ID, itoa(int64(o.index))) })
	ba("bypassMode", func(o *bypassObj) any {
		switch o.b.Mode {
		case model.BypassAlways, model.BypassPullRequest:
			return strings.ToUpper(o.b.Mode)
		}
		return nil // exempt: not in this schema's enum
	})
	ba("deployKey", func(o *bypassObj) any { return o.b.ActorType == model.BypassDeployKey })
	ba("enterpriseOwner", func(*bypassObj) any { return false })
	ba("organizationAdmin", func(o *bypassObj) any { return o.b.ActorType == model.BypassOrganizationAdmin })
	ba("repositoryRoleDatabaseId", func(o *bypassObj) any {
		if o.b.ActorType == model.BypassRepositoryRole {
			return o.b.ActorID
		}
		return nil
	})
	ba("repositoryRoleName", func(o *bypassObj) any {
		if name, ok := repoRoleNames[o.b.ActorID]; ok && o.b.ActorType == model.BypassRepositoryRole {
			return name
		}
		return nil
	})
	ba("repositoryRuleset", func(o *bypassObj) any { return o.set })
	// The actor: an app or a team, loaded for the whole batch at once.
	a.schema.Resolve("RepositoryRulesetBypassActor", "actor", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		var appIDs, teamIDs []int64
		for _, p := range b.Parents {
			switch x := p.(*bypassObj).b; x.ActorType {
			case model.BypassIntegration:
				appIDs = append(appIDs, x.ActorID)
			case model.BypassTeam:
				teamIDs = append(teamIDs, x.ActorID)
			}
		}
		q := a.d.Store.R()
		apps, err := q.AppsByID(ctx, appIDs)
		if err != nil {
			return nil, err
		}
		teams, err := q.TeamsByID(ctx, teamIDs)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			x := p.(*bypassObj).b
			switch {
			case x.ActorType == model.BypassIntegration && apps[x.ActorID] != nil:
				out[i] = apps[x.ActorID]
			case x.ActorType == model.BypassTeam && teams[x.ActorID] != nil:
				out[i] = teams[x.ActorID]
			}
		}
		return out, nil
	})
	app := func(name string, f func(x *model.App) any) {
		a.field("App", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*model.App)), nil })
	}
	app("id", func(x *model.App) any { return wire.NodeID("A", x.ID) })
	app("databaseId", func(x *model.App) any { return x.ID })
	app("name", func(x *model.App) any { return x.Name })
	app("slug", func(x *model.App) any { return x.Slug })
	app("description", func(x *model.App) any { return x.Description })
	app("url", func(x *model.App) any { return a.d.URLs.AppHTMLURL(x) })
}
