package graphql

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Commit.checkSuites and what a suite answers: its app, branch, commit,
// state, workflow run and check runs. Each workflow run is a suite of its
// own (of the GitHub Actions app); runs and suites posted through the API
// belong to no app, so their suite's app is null. Every field of a batch
// of suites costs a fixed number of queries: the suites' pages, their runs'
// pages, the suites themselves when reached from check runs, their apps.

func (a *API) registerCheckSuites() {
	a.connectionTypes("CheckSuiteConnection", "CheckSuiteEdge")
	a.connectionTypes("CheckRunConnection", "CheckRunEdge")

	a.schema.Resolve("Commit", "checkSuites", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		page, err := sqlPage(b, "checkSuites")
		if err != nil {
			return nil, err
		}
		var f store.CheckSuiteFilter
		if by, ok := b.Args["filterBy"].(map[string]any); ok {
			if n, ok := intArg(by, "appId"); ok {
				id := int64(n)
				f.AppID = &id
			}
			if s, ok := by["checkName"].(string); ok {
				f.Name = &s
			}
		}
		byRepo := map[int64][]string{}
		repos := map[int64]*repoObj{}
		for _, p := range b.Parents {
			o := p.(*commitObj)
			id := o.repo.v.Repo.ID
			repos[id] = o.repo
			byRepo[id] = append(byRepo[id], o.sha)
		}
		pages := map[int64]map[string]*store.CheckSuitePage{}
		for id, shas := range byRepo {
			if pages[id], err = a.d.Store.R().CheckSuitePages(ctx, id, shas, f, page); err != nil {
				return nil, err
			}
		}
		out := b.Values(len(b.Parents))
		for i, p := range b.Parents {
			o := p.(*commitObj)
			c := &connection{}
			if pg := pages[o.repo.v.Repo.ID][o.sha]; pg != nil {
				c.total = pg.Total
				c.offset, _ = page(pg.Total)
				for _, s := range pg.Suites {
					c.nodes = append(c.nodes, &checkSuiteObj{id: s.ID, repo: o.repo, s: s})
				}
			}
			out[i] = c
		}
		return out, nil
	})

	// Fields of the suite row, loaded for suites reached from check runs.
	suite := func(name string, f func(o *checkSuiteObj) any) {
		a.schema.Resolve("CheckSuite", name, func(ctx context.Context, b *engine.Batch) ([]any, error) {
			if err := a.loadSuites(ctx, b.Parents); err != nil {
				return nil, err
			}
			out := b.Values(len(b.Parents))
			for i, p := range b.Parents {
				if o := p.(*checkSuiteObj); o.s != nil {
					out[i] = f(o)
				}
			}
			return out, nil
		})
	}
	a.field("CheckSuite", "databaseId", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*checkSuiteObj).id, nil })
	a.field("CheckSuite", "repository", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*checkSuiteObj).repo, nil })
	suite("status", func(o *checkSuiteObj) any { return strings.ToUpper(o.s.Status) })
	suite("conclusion", func(o *checkSuiteObj) any {
		if o.s.Conclusion == nil {
			return nil
		}
		return strings.ToUpper(*o.s.Conclusion)
	})
	suite("createdAt", func(o *checkSuiteObj) any { return o.s.CreatedAt })
	suite("updatedAt", func(o *checkSuiteObj) any { return o.s.UpdatedAt })
	suite("commit", func(o *checkSuiteObj) any { return &commitObj{repo: o.repo, sha: o.s.HeadSHA} })
	suite("branch", func(o *checkSuiteObj) any {
		if o.s.HeadBranch == nil || *o.s.HeadBranch == "" {
			return nil
		}
		return &refObj{repo: o.repo, name: *o.s.HeadBranch}
	})
	a.schema.Resolve("CheckSuite", "app", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		if err := a.loadSuites(ctx, b.Parents); err != nil {
			return nil, err
		}
		var ids []int64
		for _, p := range b.Parents {
			if o := p.(*checkSuiteObj); o.s != nil && o.s.AppID != 0 {
				ids = append(ids, o.s.AppID)
			}
		}
		apps, err := a.d.Store.R().AppsByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		out := b.Values(len(b.Parents))
		for i, p := range b.Parents {
			if o := p.(*checkSuiteObj); o.s != nil {
				if app := apps[o.s.AppID]; app != nil {
					out[i] = app
				}
			}
		}
		return out, nil
	})
	a.schema.Resolve("CheckSuite", "checkRuns", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		page, err := sqlPage(b, "checkRuns")
		if err != nil {
			return nil, err
		}
		f := checkRunFilter(b.Args)
		ids := make([]int64, 0, len(b.Parents))
		for _, p := range b.Parents {
			ids = append(ids, p.(*checkSuiteObj).id)
		}
		pages, err := a.d.Store.R().CheckRunPages(ctx, ids, f, page)
		if err != nil {
			return nil, err
		}
		out := b.Values(len(b.Parents))
		for i, p := range b.Parents {
			o := p.(*checkSuiteObj)
			c := &connection{}
			if pg := pages[o.id]; pg != nil {
				c.total = pg.Total
				c.offset, _ = page(pg.Total)
				for _, r := range pg.Runs {
					c.nodes = append(c.nodes, &checkRunObj{r: r, repo: o.repo})
				}
			}
			out[i] = c
		}
		return out, nil
	})

	cr := func(name string, f func(o *checkRunObj) any) {
		a.field("CheckRun", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*checkRunObj)), nil })
	}
	cr("title", func(o *checkRunObj) any { return o.r.OutputTitle })
	cr("summary", func(o *checkRunObj) any { return o.r.OutputSummary })
	cr("text", func(o *checkRunObj) any { return o.r.OutputText })
	cr("externalId", func(o *checkRunObj) any { return o.r.ExternalID })
	cr("repository", func(o *checkRunObj) any { return o.repo })

	run := func(name string, f func(o *workflowRunObj) any) {
		a.field("WorkflowRun", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*workflowRunObj)), nil })
	}
	run("createdAt", func(o *workflowRunObj) any { return o.r.CreatedAt })
	run("updatedAt", func(o *workflowRunObj) any { return o.r.UpdatedAt })
	run("checkSuite", func(o *workflowRunObj) any { return &checkSuiteObj{id: o.r.CheckSuiteID, repo: o.repo} })
}

// loadSuites reads, in one query, the suites of those parents that were
// reached by id alone (from a check run or a workflow run).
func (a *API) loadSuites(ctx context.Context, parents []any) error {
	var ids []int64
	for _, p := range parents {
		if o := p.(*checkSuiteObj); o.s == nil {
			ids = append(ids, o.id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	suites, err := a.d.Store.R().CheckSuitesByID(ctx, ids)
	if err != nil {
		return err
	}
	for _, p := range parents {
		if o := p.(*checkSuiteObj); o.s == nil {
			if s := suites[o.id]; s != nil && s.RepoID == o.repo.v.Repo.ID {
				o.s = s
			}
		}
	}
	return nil
}

// checkRunFilter reads CheckSuite.checkRuns' filterBy: the newest run of
// each name unless checkType is ALL (as the REST API's filter=latest).
func checkRunFilter(args map[string]any) store.CheckRunFilter {
	f := store.CheckRunFilter{Latest: true}
	by, _ := args["filterBy"].(map[string]any)
	if by == nil {
		return f
	}
	if t, _ := by["checkType"].(string); t == "ALL" {
		f.Latest = false
	}
	if n, ok := intArg(by, "appId"); ok {
		id := int64(n)
		f.AppID = &id
	}
	if s, ok := by["checkName"].(string); ok {
		f.Name = &s
	}
	lower := func(v any) []string {
		var out []string
		switch l := v.(type) {
		case []any:
			for _, x := range l {
				if s, ok := x.(string); ok {
					out = append(out, strings.ToLower(s))
				}
			}
		case []string:
			for _, s := range l {
				out = append(out, strings.ToLower(s))
			}
		case string:
			out = append(out, strings.ToLower(l))
		}
		return out
	}
	// statuses overrides status.
	if v, ok := by["statuses"]; ok && v != nil {
		f.Statuses = lower(v)
	} else if v, ok := by["status"]; ok && v != nil {
		f.Statuses = lower(v)
	}
	if v, ok := by["conclusions"]; ok && v != nil {
		f.Conclusions = lower(v)
	}
	return f
}

// suiteOf is a check run's suite, known by id until a field needs its row.
func suiteOf(r *model.CheckRun, repo *repoObj) *checkSuiteObj {
	return &checkSuiteObj{id: r.SuiteID, repo: repo, runID: r.ID}
}
