package graphql

import (
	"context"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/transfers"
)

// transferIssue runs the transfer service of issues (internal/transfers):
// the issue goes to another repository of the same owner and is answered
// where it now is.
func (a *API) registerTransfers(svc *transfers.Service) {
	a.field("Mutation", "transferIssue", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in, _ := args["input"].(map[string]any)
		issueID, _ := in["issueId"].(string)
		repoID, _ := in["repositoryId"].(string)
		o, err := a.issueByNodeID(ctx, issueID)
		if err != nil {
			return nil, err
		}
		if o.is.IsPull {
			return nil, notFound("Could not resolve to an Issue with the global id of '%s'", issueID)
		}
		to, err := a.repoByNodeID(ctx, repoID)
		if err != nil {
			return nil, err
		}
		if svc == nil {
			return nil, engine.Errorf("INTERNAL", "transfers are not available")
		}
		create, _ := in["createLabelsIfMissing"].(bool)
		is, err := svc.TransferIssue(ctx, from(ctx).caller, transfers.IssueInput{Issue: o.is, From: o.repo.v.Repo, FromPerm: o.repo.perm,
			To: to.v.Repo, ToPerm: to.perm, CreateLabelsIfMissing: create})
		if err != nil {
			return nil, gqlError(err)
		}
		moved, err := a.issuesAndPullsByID(ctx, []int64{is.ID})
		if err != nil {
			return nil, err
		}
		return &payload{clientMutationID: in["clientMutationId"], issue: moved[is.ID]}, nil
	})
	a.field("TransferIssuePayload", "clientMutationId", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*payload).clientMutationID, nil
	})
	a.field("TransferIssuePayload", "issue", func(_ context.Context, p any, _ map[string]any) (any, error) {
		if o, ok := p.(*payload).issue.(*issueObj); ok && o != nil {
			return o, nil
		}
		return nil, nil
	})
}
