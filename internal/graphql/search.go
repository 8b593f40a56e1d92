package graphql

import (
	"context"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/search"
)

// searchConn is a page of search results with the count of its kind.
type searchConn struct {
	connection
	kind string // ISSUE, REPOSITORY, USER, DISCUSSION
}

// registerSearch serves Query.search with the search service REST's
// /search endpoints use (same syntax, same visibility).
func (a *API) registerSearch() {
	svc := search.New(a.d.Store)
	a.schema.Resolve("Query", "search", engine.EachBatch(func(ctx context.Context, _ any, b *engine.Batch) (any, error) {
		w, err := pageWindow(b.Args, "search", engine.SelectsItems(b.Field.SelectionSet))
		if err != nil {
			return nil, err
		}
		q, _ := b.Args["query"].(string)
		kind, _ := b.Args["type"].(string)
		c := from(ctx).caller
		out := &searchConn{kind: kind}
		run := func(limit, offset int) (int, error) {
			switch kind {
			case "ISSUE", "ISSUE_ADVANCED":
				res, err := svc.Issues(ctx, c, q, "", "", limit, offset)
				if err != nil {
					return 0, err
				}
				if err := a.searchIssues(ctx, out, res); err != nil {
					return 0, err
				}
				return res.Total, nil
			case "REPOSITORY":
				res, err := svc.Repositories(ctx, c, q, "", "", limit, offset)
				if err != nil {
					return 0, err
				}
				for _, v := range res.Repos {
					out.nodes = append(out.nodes, &repoObj{v: v, perm: authz.RepoPermission(c, v.Repo, v.Facts)})
				}
				return res.Total, nil
			case "USER":
				res, err := svc.Users(ctx, c, q, "", "", limit, offset)
				if err != nil {
					return 0, err
				}
				for _, u := range res.Users {
					out.nodes = append(out.nodes, u)
				}
				return res.Total, nil
			case "DISCUSSION":
				return a.searchDiscussions(ctx, out, q, limit, offset)
			}
			return 0, nil
		}
		total := -1
		if w.needTotal {
			if total, err = run(1, 0); err != nil {
				return nil, gqlError(err)
			}
			out.nodes = nil
			total = min(total, search.MaxResults)
		}
		start, end := w.bounds(total)
		end = min(end, search.MaxResults)
		out.offset = start
		if end <= start {
			if total < 0 {
				if total, err = run(1, 0); err != nil {
					return nil, gqlError(err)
				}
				out.nodes = nil
			}
			out.total = total
			return out, nil
		}
		if out.total, err = run(end-start, start); err != nil {
			return nil, gqlError(err)
		}
		return out, nil
	}))
	count := func(name, kind string, also ...string) {
		a.field("SearchResultItemConnection", name, func(_ context.Context, p any, _ map[string]any) (any, error) {
			sc := p.(*searchConn)
			if sc.kind == kind || (len(also) > 0 && sc.kind == also[0]) {
				return sc.total, nil
			}
			return 0, nil
		})
	}
	count("issueCount", "ISSUE", "ISSUE_ADVANCED")
	count("repositoryCount", "REPOSITORY")
	count("userCount", "USER")
	count("discussionCount", "DISCUSSION")
	a.field("SearchResultItemConnection", "nodes", func(_ context.Context, p any, _ map[string]any) (any, error) {
		if n := p.(*searchConn).nodes; n != nil {
			return n, nil
		}
		return []any{}, nil
	})
	a.field("SearchResultItemConnection", "pageInfo", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return pageInfo{&p.(*searchConn).connection}, nil
	})
	a.field("SearchResultItemConnection", "edges", func(_ context.Context, p any, _ map[string]any) (any, error) {
		c := p.(*searchConn)
		out := make([]*edge, len(c.nodes))
		for i, n := range c.nodes {
			out[i] = &edge{node: n, cursor: encodeCursor(c.offset + i)}
		}
		return out, nil
	})
	a.field("SearchResultItemEdge", "node", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*edge).node, nil })
	a.field("SearchResultItemEdge", "cursor", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*edge).cursor, nil })
}

// searchIssues turns an issue search page into Issue and PullRequest
// objects (their details are loaded; pull halves in one query).
func (a *API) searchIssues(ctx context.Context, out *searchConn, res *search.IssueResults) error {
	c := from(ctx).caller
	var pullIDs []int64
	for _, is := range res.Issues {
		if is.IsPull {
			pullIDs = append(pullIDs, is.ID)
		}
	}
	pulls, err := a.d.Store.R().PullsByIssueID(ctx, pullIDs)
	if err != nil {
		return err
	}
	repos := map[int64]*repoObj{}
	for _, is := range res.Issues {
		v := res.Repos[is.RepoID]
		if v == nil {
			continue
		}
		r := repos[is.RepoID]
		if r == nil {
			r = &repoObj{v: v, perm: authz.RepoPermission(c, v.Repo, v.Facts)}
			repos[is.RepoID] = r
		}
		if is.IsPull {
			if p := pulls[is.ID]; p != nil {
				p.Issue = is
				out.nodes = append(out.nodes, a.pullOf(p, r))
			}
			continue
		}
		out.nodes = append(out.nodes, &issueObj{is: is, repo: r})
	}
	return nil
}
