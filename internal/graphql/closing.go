package graphql

import (
	"context"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
)

// The links closing keywords make between pull requests and issues
// (internal/closing): PullRequest.closingIssuesReferences and
// Issue.closedByPullRequestsReferences. Each batch loads the links of all
// its parents, then the other sides and their repositories, in one query
// each; the other sides the viewer may not see are left out. There are no
// manually linked ones, so userLinkedOnly lists none.
func (a *API) registerClosing() {
	a.schema.Resolve("PullRequest", "closingIssuesReferences", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		return a.closingSide(ctx, b, true, "closingIssuesReferences")
	})
	a.schema.Resolve("Issue", "closedByPullRequestsReferences", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		return a.closingSide(ctx, b, false, "closedByPullRequestsReferences")
	})
}

// closingSide resolves one side of the links for a batch: byPull gives the
// issues of pull requests, otherwise the pull requests of issues.
func (a *API) closingSide(ctx context.Context, b *engine.Batch, byPull bool, conn string) ([]any, error) {
	ids := make([]int64, len(b.Parents))
	for i, p := range b.Parents {
		ids[i] = asIssue(p).is.ID
	}
	q := a.d.Store.R()
	links, err := q.ClosingReferences(ctx, ids, byPull)
	if err != nil {
		return nil, err
	}
	if on, _ := b.Args["userLinkedOnly"].(bool); on {
		links = nil
	}
	var others []int64
	for _, list := range links {
		others = append(others, list...)
	}
	objs := map[int64]any{}
	if len(others) > 0 {
		var issues []*model.Issue
		var pulls map[int64]*model.Pull
		if byPull {
			if issues, err = q.IssuesByID(ctx, others); err != nil {
				return nil, err
			}
		} else {
			if pulls, err = q.PullsByIssueID(ctx, others); err != nil {
				return nil, err
			}
			withClosed, _ := b.Args["includeClosedPrs"].(bool)
			for _, p := range pulls {
				if withClosed || p.Issue.State == "open" || p.Merged() {
					issues = append(issues, p.Issue)
				}
			}
		}
		repoIDs := make([]int64, 0, len(issues))
		for _, is := range issues {
			repoIDs = append(repoIDs, is.RepoID)
		}
		repos, err := a.reposByID(ctx, repoIDs)
		if err != nil {
			return nil, err
		}
		for _, is := range issues {
			r := repos[is.RepoID]
			switch {
			case r == nil: // the viewer may not see it
			case byPull:
				objs[is.ID] = &issueObj{is: is, repo: r}
			default:
				p := pulls[is.ID]
				p.Issue = is
				objs[is.ID] = a.pullOf(p, r)
			}
		}
	}
	out := make([]any, len(b.Parents))
	for i, id := range ids {
		var list []any
		for _, other := range links[id] {
			if o := objs[other]; o != nil {
				list = append(list, o)
			}
		}
		c, err := slicePage(list, b, conn)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}
