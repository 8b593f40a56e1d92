package graphql

import (
	"context"

	"github.com/hubd/hubd/internal/store"

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
// issues of pull requests, otherwise the pull requests of issues. Pages
// are cut in SQL; other sides the viewer may not see are left out of a
// page (its totalCount still counts them), as for subIssues.
func (a *API) closingSide(ctx context.Context, b *engine.Batch, byPull bool, conn string) ([]any, error) {
	page, err := sqlPage(b, conn)
	if err != nil {
		return nil, err
	}
	ids := issueIDsOf(b.Parents)
	q := a.d.Store.R()
	links := map[int64]*store.ClosingLinks{}
	if on, _ := b.Args["userLinkedOnly"].(bool); !on {
		withClosed, _ := b.Args["includeClosedPrs"].(bool)
		if links, err = q.ClosingReferences(ctx, ids, byPull, !withClosed, page); err != nil {
			return nil, err
		}
	}
	var others []int64
	for _, l := range links {
		others = append(others, l.IDs...)
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
			for _, p := range pulls {
				issues = append(issues, p.Issue)
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
		c := &connection{}
		if l := links[id]; l != nil {
			c.total = l.Total
			c.offset, _ = page(l.Total)
			for _, other := range l.IDs {
				if o := objs[other]; o != nil {
					c.nodes = append(c.nodes, o)
				}
			}
		}
		out[i] = c
	}
	return out, nil
}
