package graphql

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pulls"
)

// autoMergeObj is a pull request's AutoMergeRequest.
type autoMergeObj struct {
	a  *model.AutoMerge
	pr *pullObj
}

// registerAutoMerge: PullRequest.autoMergeRequest and the two mutations
// (the pulls service stores the request and its job merges).
func (a *API) registerAutoMerge(svc *pulls.Service) {
	a.schema.Resolve("PullRequest", "autoMergeRequest", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		ids := make([]int64, len(b.Parents))
		for i, p := range b.Parents {
			ids[i] = p.(*pullObj).p.IssueID
		}
		autos, err := a.d.Store.R().AutoMerges(ctx, ids)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			o := p.(*pullObj)
			if am := autos[o.p.IssueID]; am != nil && !o.p.Merged() {
				out[i] = &autoMergeObj{a: am, pr: o}
			}
		}
		return out, nil
	})
	am := func(name string, f func(o *autoMergeObj) any) {
		a.field("AutoMergeRequest", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*autoMergeObj)), nil })
	}
	opt := func(s *string) any {
		if s == nil {
			return nil
		}
		return *s
	}
	am("authorEmail", func(o *autoMergeObj) any { return opt(o.a.AuthorEmail) })
	am("commitHeadline", func(o *autoMergeObj) any { return opt(o.a.CommitTitle) })
	am("commitBody", func(o *autoMergeObj) any { return opt(o.a.CommitMessage) })
	am("mergeMethod", func(o *autoMergeObj) any { return strings.ToUpper(o.a.Method) })
	am("enabledAt", func(o *autoMergeObj) any { return o.a.EnabledAt })
	am("enabledBy", func(o *autoMergeObj) any {
		if o.a.EnabledBy == nil {
			return nil
		}
		return o.a.EnabledBy
	})
	am("pullRequest", func(o *autoMergeObj) any { return o.pr })

	toggle := func(enable bool) func(ctx context.Context, _ any, args map[string]any) (any, error) {
		return func(ctx context.Context, _ any, args map[string]any) (any, error) {
			in, _ := args["input"].(map[string]any)
			id, _ := in["pullRequestId"].(string)
			o, err := a.pullByNodeID(ctx, id)
			if err != nil {
				return nil, err
			}
			repo := o.iss.repo.v.Repo
			if err := mayWritePulls(from(ctx).caller, repo); err != nil {
				return nil, gqlError(err)
			}
			c := a.pullCaller(ctx, o.iss.repo.perm)
			var pr *model.Pull
			if enable {
				ai := pulls.AutoMergeInput{Method: strings.ToLower(stringArg(in, "mergeMethod"))}
				for k, dst := range map[string]**string{"commitHeadline": &ai.CommitTitle, "commitBody": &ai.CommitMessage, "authorEmail": &ai.AuthorEmail} {
					if s, ok := in[k].(string); ok {
						*dst = &s
					}
				}
				ai.SHA = stringArg(in, "expectedHeadOid")
				pr, err = svc.EnableAutoMerge(ctx, repo, c, o.p.Number, ai)
			} else {
				pr, err = svc.DisableAutoMerge(ctx, repo, c, o.p.Number)
			}
			if err != nil {
				return nil, gqlError(err)
			}
			return &payload{clientMutationID: in["clientMutationId"], issue: a.pullOf(pr, o.iss.repo)}, nil
		}
	}
	a.field("Mutation", "enablePullRequestAutoMerge", toggle(true))
	a.field("Mutation", "disablePullRequestAutoMerge", toggle(false))
	for _, typ := range []string{"EnablePullRequestAutoMergePayload", "DisablePullRequestAutoMergePayload"} {
		a.field(typ, "clientMutationId", func(_ context.Context, p any, _ map[string]any) (any, error) {
			return p.(*payload).clientMutationID, nil
		})
		a.field(typ, "pullRequest", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*payload).issue, nil })
		a.field(typ, "actor", func(ctx context.Context, _ any, _ map[string]any) (any, error) { return from(ctx).caller.User, nil })
	}
}

func stringArg(in map[string]any, k string) string {
	s, _ := in[k].(string)
	return s
}
