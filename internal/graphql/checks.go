package graphql

import (
	"context"
	"errors"
	"slices"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/protection"
)

// registerIsRequired resolves CheckRun.isRequired and
// StatusContext.isRequired(pullRequestId:, pullRequestNumber:): whether
// the base branch of that pull request (of the context's repository)
// requires the check by name, through its protection or a ruleset. One
// batch reads the pull request and the required checks once.
func (a *API) registerIsRequired() {
	resolve := func(name func(p any) (string, *repoObj)) engine.Resolver {
		return func(ctx context.Context, b *engine.Batch) ([]any, error) {
			out := b.Values(len(b.Parents))
			required := map[int64][]string{} // by repository
			for i, p := range b.Parents {
				n, repo := name(p)
				list, ok := required[repo.v.Repo.ID]
				if !ok {
					var err error
					if list, err = a.requiredFor(ctx, repo, b.Args); err != nil {
						return nil, err
					}
					required[repo.v.Repo.ID] = list
				}
				out[i] = slices.Contains(list, n)
			}
			return out, nil
		}
	}
	a.schema.Resolve("CheckRun", "isRequired", resolve(func(p any) (string, *repoObj) {
		o := p.(*checkRunObj)
		return o.r.Name, o.repo
	}))
	a.schema.Resolve("StatusContext", "isRequired", resolve(func(p any) (string, *repoObj) {
		o := p.(*statusObj)
		return o.s.Context, o.commit.repo
	}))
}

// requiredFor are the checks the base branch of the pull request args name
// requires; none when it is not a pull request of repo.
func (a *API) requiredFor(ctx context.Context, repo *repoObj, args map[string]any) ([]string, error) {
	q := a.d.Store.R()
	var pr *model.Pull
	var err error
	switch {
	case args["pullRequestId"] != nil:
		id, _ := args["pullRequestId"].(string)
		prefix, n, ok := decodeNodeID(id)
		if !ok || prefix != "PR" {
			return nil, nil
		}
		pr, err = q.PullByIssueID(ctx, n)
	case args["pullRequestNumber"] != nil:
		n, _ := intArg(args, "pullRequestNumber")
		pr, err = q.PullByNumber(ctx, repo.v.Repo.ID, int64(n))
	default:
		return nil, nil // GitHub: required by nothing without a pull request
	}
	if errors.Is(err, model.ErrNotFound) || (err == nil && pr.RepoID != repo.v.Repo.ID) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	svc := &protection.Service{Store: a.d.Store, Git: a.d.Git}
	return svc.RequiredChecks(ctx, repo.v.Repo, pr.BaseRef)
}
