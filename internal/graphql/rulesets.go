package graphql

import (
	"context"
	"slices"
	"strings"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rulesets"
	"github.com/hubd/hubd/internal/wire"
)

// Rulesets: the rulesets service of /repos/{owner}/{repo}/rulesets and
// /orgs/{org}/rulesets (gh ruleset list). A ruleset's source is the
// repository or the organization that defines it.

type rulesetObj struct {
	r    *model.Ruleset
	repo *repoObj       // the source, when a repository's own
	org  *model.Account // the source, when an organization's
	// showBypass: the caller may change the ruleset and so sees its
	// bypass actors (as REST's bypass_actors).
	showBypass bool
}

type ruleObj struct {
	set   *rulesetObj
	index int
	rule  *model.RulesetRule
}

func (a *API) registerRulesets(svc *rulesets.Service) {
	a.registerRulesetDetails()
	a.connectionTypes("RepositoryRulesetConnection", "RepositoryRulesetEdge")
	a.connectionTypes("RepositoryRuleConnection", "RepositoryRuleEdge")

	a.schema.Resolve("Repository", "rulesets", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := p.(*repoObj)
		parents, _ := b.Args["includeParents"].(bool)
		if v, set := b.Args["includeParents"]; !set || v == nil {
			parents = true // GitHub's default
		}
		list, err := svc.ForRepo(ctx, o.v.Repo, parents, rulesets.ActorOf(from(ctx).caller, o.perm))
		if err != nil {
			return nil, gqlError(err)
		}
		// The enterprise's rulesets are left out: hubd's schema has no
		// Enterprise object for their source (RuleSource is Organization
		// or Repository here); REST lists them.
		list = slices.DeleteFunc(list, func(r *model.Ruleset) bool { return r.SourceType == model.RulesetSourceEnterprise })
		objs := make([]*rulesetObj, len(list))
		for i, r := range list {
			objs[i] = &rulesetObj{r: r, showBypass: rulesets.ShowsBypass(o.v.Repo, o.perm, r)}
			if r.SourceType == model.RulesetSourceOrganization {
				objs[i].org = o.v.Repo.Owner
			} else {
				objs[i].repo = o
			}
		}
		return slicePage(objs, b, "rulesets")
	}))
	// An organization's parent is its enterprise, whose rulesets hubd does
	// not hold: includeParents (gh ruleset list --org sends it) adds none.
	a.schema.Resolve("Organization", "rulesets", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		org := p.(*model.Account)
		c := from(ctx).caller
		conn, list, err := counted(ctx, b, "rulesets", func(limit, offset int) ([]*model.Ruleset, int, error) {
			return svc.OrgList(ctx, org, c.User, nil, limit, offset)
		})
		if err != nil {
			return nil, gqlError(err)
		}
		for _, r := range list {
			// Listing an organization's rulesets takes its administrators
			// (the service checks), who see the bypass actors.
			conn.nodes = append(conn.nodes, &rulesetObj{r: r, org: org, showBypass: true})
		}
		return conn, nil
	}))

	rs := func(name string, f func(o *rulesetObj) any) {
		a.field("RepositoryRuleset", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*rulesetObj)), nil })
	}
	rs("id", func(o *rulesetObj) any { return wire.NodeID("RRS", o.r.ID) })
	rs("databaseId", func(o *rulesetObj) any { return o.r.ID })
	rs("name", func(o *rulesetObj) any { return o.r.Name })
	rs("target", func(o *rulesetObj) any { return strings.ToUpper(o.r.Target) })
	rs("enforcement", func(o *rulesetObj) any { return strings.ToUpper(o.r.Enforcement) })
	rs("createdAt", func(o *rulesetObj) any { return o.r.CreatedAt })
	rs("updatedAt", func(o *rulesetObj) any { return o.r.UpdatedAt })
	rs("source", func(o *rulesetObj) any {
		if o.repo != nil {
			return o.repo
		}
		return o.org
	})
	a.schema.Resolve("RepositoryRuleset", "rules", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := p.(*rulesetObj)
		list := make([]*ruleObj, len(o.r.Rules))
		for i := range o.r.Rules {
			list[i] = &ruleObj{set: o, index: i, rule: &o.r.Rules[i]}
		}
		return slicePage(list, b, "rules")
	}))
	a.field("RepositoryRule", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		o := p.(*ruleObj)
		return wire.GitNodeID("RRU", o.set.r.ID, itoa(int64(o.index))), nil
	})
	a.field("RepositoryRule", "type", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return strings.ToUpper(p.(*ruleObj).rule.Type), nil
	})
	a.field("RepositoryRule", "repositoryRuleset", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*ruleObj).set, nil
	})
}
