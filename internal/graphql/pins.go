package graphql

import (
	"context"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/wire"
)

// Pinned issues (gh issue pin/unpin, gh issue view's isPinned): at most
// three per repository, through the issue service.

type pinnedObj struct {
	p     *model.PinnedIssue
	issue *issueObj
}

func (a *API) registerPins(svc *issues.Service) {
	a.schema.Resolve("Issue", "isPinned", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		ids := make([]int64, len(b.Parents))
		for i, p := range b.Parents {
			ids[i] = asIssue(p).is.ID
		}
		pinned, err := a.d.Store.R().PinnedAmong(ctx, ids)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(ids))
		for i, id := range ids {
			out[i] = pinned[id]
		}
		return out, nil
	})
	a.connectionTypes("PinnedIssueConnection", "PinnedIssueEdge")
	a.schema.Resolve("Repository", "pinnedIssues", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := p.(*repoObj)
		list, err := a.d.Store.R().PinnedIssues(ctx, o.v.Repo.ID)
		if err != nil {
			return nil, err
		}
		ids := make([]int64, len(list))
		for i, pin := range list {
			ids[i] = pin.IssueID
		}
		objs, err := a.issuesByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		out := make([]*pinnedObj, 0, len(list))
		for _, pin := range list {
			if is := objs[pin.IssueID]; is != nil {
				out = append(out, &pinnedObj{p: pin, issue: is})
			}
		}
		return slicePage(out, b, "pinnedIssues")
	}))
	a.field("PinnedIssue", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return wire.NodeID("PIN", p.(*pinnedObj).p.IssueID), nil
	})
	a.field("PinnedIssue", "issue", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*pinnedObj).issue, nil })
	a.field("PinnedIssue", "repository", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*pinnedObj).issue.repo, nil })
	a.schema.Resolve("PinnedIssue", "pinnedBy", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		ids := make([]int64, len(b.Parents))
		for i, p := range b.Parents {
			ids[i] = p.(*pinnedObj).p.PinnedBy
		}
		accs, err := a.d.Store.R().AccountsByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(ids))
		for i, id := range ids {
			if acc := accs[id]; acc != nil {
				out[i] = acc
			} else {
				out[i] = ghost
			}
		}
		return out, nil
	})

	pin := func(on bool) func(ctx context.Context, _ any, args map[string]any) (any, error) {
		return func(ctx context.Context, _ any, args map[string]any) (any, error) {
			in, _ := args["input"].(map[string]any)
			id, _ := in["issueId"].(string)
			o, err := a.issueOnly(ctx, id)
			if err != nil {
				return nil, err
			}
			if err := svc.Pin(ctx, from(ctx).caller, o.repo.v.Repo, o.repo.perm, o.is, on); err != nil {
				return nil, gqlError(err)
			}
			after, err := a.reloaded(ctx, o)
			if err != nil {
				return nil, err
			}
			return &payload{clientMutationID: in["clientMutationId"], issue: after}, nil
		}
	}
	a.field("Mutation", "pinIssue", pin(true))
	a.field("Mutation", "unpinIssue", pin(false))
	for _, typ := range []string{"PinIssuePayload", "UnpinIssuePayload"} {
		a.field(typ, "clientMutationId", func(_ context.Context, p any, _ map[string]any) (any, error) {
			return p.(*payload).clientMutationID, nil
		})
		a.field(typ, "issue", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*payload).issue, nil })
	}
	a.field("UnpinIssuePayload", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		// The PinnedIssue that was removed.
		return wire.NodeID("PIN", asIssue(p.(*payload).issue).is.ID), nil
	})
}

// ghost stands for an account that is gone, as GitHub's @ghost does.
var ghost = &model.Account{ID: 10137, Login: "ghost", Type: model.TypeUser}
