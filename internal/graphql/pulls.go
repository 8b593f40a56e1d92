package graphql

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// pullObj is a pull request of a repository the viewer sees; iss is its
// issue half (labels, assignees, comments... resolve through it).
type pullObj struct {
	p   *model.Pull
	iss *issueObj
}

func (a *API) pullOf(p *model.Pull, repo *repoObj) *pullObj {
	is := p.Issue
	if is == nil {
		is = &model.Issue{ID: p.IssueID, RepoID: p.RepoID, Number: p.Number, IsPull: true}
	}
	return &pullObj{p: p, iss: &issueObj{is: is, repo: repo}}
}

// pullStates reads [PullRequestState!] into the store's filter: state
// open/closed/all and, among closed ones, merged or not.
func pullStates(v any) (state, merged string) {
	open, closed, mergedS := false, false, false
	for _, s := range asList(v) {
		switch s {
		case "OPEN":
			open = true
		case "CLOSED":
			closed = true
		case "MERGED":
			mergedS = true
		}
	}
	switch {
	case open == closed && closed == mergedS: // none or all three
		return "all", ""
	case open && closed: // not merged
		return "all", "unmerged"
	case open && mergedS:
		return "all", "open_or_merged"
	case open:
		return "open", ""
	case closed && mergedS:
		return "closed", ""
	case closed:
		return "closed", "unmerged"
	}
	return "closed", "merged"
}

func (a *API) registerPulls() {
	a.connectionTypes("PullRequestConnection", "PullRequestEdge")

	a.schema.Resolve("Repository", "pullRequests", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o, args := p.(*repoObj), b.Args
		w, err := pageWindow(args, "pullRequests", engine.SelectsItems(b.Field.SelectionSet))
		if err != nil {
			return nil, err
		}
		f := store.PullQuery{RepoID: o.v.Repo.ID}
		f.State, f.Merged = pullStates(args["states"])
		f.HeadRef, _ = args["headRefName"].(string)
		f.BaseRef, _ = args["baseRefName"].(string)
		if ob, ok := args["orderBy"].(map[string]any); ok {
			if ob["field"] == "UPDATED_AT" {
				f.Sort = "updated"
			}
			f.Desc = ob["direction"] == "DESC"
		}
		q := a.d.Store.R()
		total := -1
		if w.needTotal {
			f.Limit, f.Offset = 1, 0
			if _, total, err = q.ListPulls(ctx, f); err != nil {
				return nil, err
			}
		}
		start, end := w.bounds(total)
		c := &connection{offset: start}
		f.Limit, f.Offset = max(end-start, 1), start
		list, n, err := q.ListPulls(ctx, f)
		if err != nil {
			return nil, err
		}
		c.total = n
		if end <= start {
			return c, nil
		}
		for _, pr := range list {
			c.nodes = append(c.nodes, a.pullOf(pr, o))
		}
		return c, nil
	}))
	a.field("Repository", "pullRequest", func(ctx context.Context, p any, args map[string]any) (any, error) {
		o := p.(*repoObj)
		n, _ := intArg(args, "number")
		pr, err := a.d.Store.R().PullByNumber(ctx, o.v.Repo.ID, int64(n))
		if errors.Is(err, model.ErrNotFound) {
			return nil, notFound("Could not resolve to a PullRequest with the number of %d.", n)
		}
		if err != nil {
			return nil, err
		}
		return a.pullOf(pr, o), nil
	})
	a.field("Repository", "issueOrPullRequest", func(ctx context.Context, p any, args map[string]any) (any, error) {
		o := p.(*repoObj)
		n, _ := intArg(args, "number")
		is, err := a.d.Store.R().IssueByNumber(ctx, o.v.Repo.ID, int64(n))
		if errors.Is(err, model.ErrNotFound) {
			return nil, notFound("Could not resolve to an issue or pull request with the number of %d.", n)
		}
		if err != nil {
			return nil, err
		}
		if !is.IsPull {
			return &issueObj{is: is, repo: o}, nil
		}
		pr, err := a.d.Store.R().PullByIssueID(ctx, is.ID)
		if err != nil {
			return nil, err
		}
		return a.pullOf(pr, o), nil
	})

	pr := func(name string, f func(o *pullObj) any) {
		a.field("PullRequest", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*pullObj)), nil })
	}
	pr("id", func(o *pullObj) any { return wire.NodeID("PR", o.p.IssueID) })
	pr("databaseId", func(o *pullObj) any { return o.p.IssueID })
	pr("state", func(o *pullObj) any {
		switch {
		case o.p.Merged():
			return "MERGED"
		case o.iss.is.State == "closed":
			return "CLOSED"
		}
		return "OPEN"
	})
	pr("isDraft", func(o *pullObj) any { return o.p.Draft })
	pr("merged", func(o *pullObj) any { return o.p.Merged() })
	pr("mergedAt", func(o *pullObj) any { return o.p.MergedAt })
	pr("baseRefName", func(o *pullObj) any { return o.p.BaseRef })
	pr("headRefName", func(o *pullObj) any { return o.p.HeadRef })
	pr("baseRefOid", func(o *pullObj) any { return o.p.BaseSHA })
	pr("headRefOid", func(o *pullObj) any { return o.p.HeadSHA })
	pr("isCrossRepository", func(o *pullObj) any { return o.p.HeadRepoID != o.p.RepoID })
	pr("maintainerCanModify", func(o *pullObj) any { return o.p.MaintainerCanModify })
	pr("additions", func(o *pullObj) any { return o.p.Additions })
	pr("deletions", func(o *pullObj) any { return o.p.Deletions })
	pr("changedFiles", func(o *pullObj) any { return o.p.ChangedFiles })
	pr("mergeable", func(o *pullObj) any {
		// Only for the head and base the background check saw (GET never
		// computes it: mergeability is a job).
		if o.p.Mergeable == nil || o.p.Merged() {
			return "UNKNOWN"
		}
		if *o.p.Mergeable {
			return "MERGEABLE"
		}
		return "CONFLICTING"
	})
	pr("mergeStateStatus", func(o *pullObj) any {
		switch s := strings.ToUpper(o.p.MergeableState); s {
		case "CLEAN", "DIRTY", "BLOCKED", "BEHIND", "UNSTABLE", "DRAFT", "HAS_HOOKS":
			return s
		}
		return "UNKNOWN"
	})
	a.schema.Resolve("PullRequest", "headRepository", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		repos, err := a.headRepos(ctx, b)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			if r := repos[p.(*pullObj).p.HeadRepoID]; r != nil {
				out[i] = r
			}
		}
		return out, nil
	})
	a.schema.Resolve("PullRequest", "headRepositoryOwner", a.accountsBy(func(p *pullObj) int64 { return p.p.HeadOwnerID }))
	a.schema.Resolve("PullRequest", "mergedBy", a.accountsBy(func(p *pullObj) int64 { return p.p.MergedByID }))
}

// headRepos are the head repositories of a batch of pull requests the
// viewer may see, by id (deleted or hidden ones are missing).
func (a *API) headRepos(ctx context.Context, b *engine.Batch) (map[int64]*repoObj, error) {
	var ids []int64
	for _, p := range b.Parents {
		if id := p.(*pullObj).p.HeadRepoID; id != 0 {
			ids = append(ids, id)
		}
	}
	return a.reposByID(ctx, ids)
}

// accountsBy resolves an account field of pull requests from the account
// id id names, for the whole batch in one query (0: null).
func (a *API) accountsBy(id func(p *pullObj) int64) engine.Resolver {
	return func(ctx context.Context, b *engine.Batch) ([]any, error) {
		var ids []int64
		for _, p := range b.Parents {
			if n := id(p.(*pullObj)); n != 0 {
				ids = append(ids, n)
			}
		}
		accs, err := a.d.Store.R().AccountsByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			if acc := accs[id(p.(*pullObj))]; acc != nil {
				out[i] = acc
			}
		}
		return out, nil
	}
}
