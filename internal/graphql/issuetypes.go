package graphql

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/wire"
)

// Issue types: Repository.issueTypes (the owner organization's enabled
// types), Issue.issueType, updateIssueIssueType and createIssue's
// issueTypeId (gh issue create --type, gh issue edit --type).

func (a *API) registerIssueTypes(svc *issues.Service) {
	a.connectionTypes("IssueTypeConnection", "IssueTypeEdge")
	a.schema.Resolve("Repository", "issueTypes", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := p.(*repoObj)
		if o.v.Repo.Owner == nil || !o.v.Repo.Owner.IsOrg() {
			return nil, nil // GitHub: null where issue types are not supported
		}
		list, err := a.d.Store.R().IssueTypes(ctx, o.v.Repo.Owner.ID, true)
		if err != nil {
			return nil, err
		}
		return slicePage(list, b, "issueTypes")
	}))
	// Issue.issueType: the issues' details carry it.
	a.schema.Resolve("Issue", "issueType", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		if err := a.details(ctx, b.Parents); err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			if t := asIssue(p).is.Type; t != nil {
				out[i] = t
			}
		}
		return out, nil
	})
	it := func(name string, f func(t *model.IssueType) any) {
		a.field("IssueType", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*model.IssueType)), nil })
	}
	it("id", func(t *model.IssueType) any { return wire.NodeID("IT", t.ID) })
	it("name", func(t *model.IssueType) any { return t.Name })
	it("description", func(t *model.IssueType) any { return t.Description })
	it("color", func(t *model.IssueType) any {
		// GitHub's IssueTypeColor values; a type without a color is gray.
		if t.Color == nil {
			return "GRAY"
		}
		return strings.ToUpper(*t.Color)
	})

	a.field("Mutation", "updateIssueIssueType", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in, _ := args["input"].(map[string]any)
		id, _ := in["issueId"].(string)
		o, err := a.issueOnly(ctx, id)
		if err != nil {
			return nil, err
		}
		var t *model.IssueType
		if tid, _ := in["issueTypeId"].(string); tid != "" {
			if t, err = a.issueTypeByNodeID(ctx, o.repo, tid); err != nil {
				return nil, err
			}
		}
		if err := svc.SetType(ctx, from(ctx).caller, o.repo.v.Repo, o.repo.perm, o.is, t); err != nil {
			return nil, gqlError(err)
		}
		after, err := a.reloaded(ctx, o)
		if err != nil {
			return nil, err
		}
		return &payload{clientMutationID: in["clientMutationId"], issue: after}, nil
	})
	a.field("UpdateIssueIssueTypePayload", "clientMutationId", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*payload).clientMutationID, nil
	})
	a.field("UpdateIssueIssueTypePayload", "issue", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*payload).issue, nil
	})
}

// issueTypeByNodeID resolves an IssueType id the repository offers.
func (a *API) issueTypeByNodeID(ctx context.Context, repo *repoObj, id string) (*model.IssueType, error) {
	if prefix, n, ok := decodeNodeID(id); ok && prefix == "IT" {
		t, err := a.d.Store.R().IssueTypeByID(ctx, n)
		if err == nil && t.Enabled && repo.v.Repo.Owner != nil && t.OrgID == repo.v.Repo.Owner.ID {
			return t, nil
		}
	}
	return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
}
