package graphql

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/projects"
	"github.com/hubd/hubd/internal/store"
)

// Values of Projects (v2) fields beyond text, number, date and single
// select: iteration values of iteration fields, and the built-in fields
// whose values are the content's (Title, Labels, Assignees, Milestone,
// Repository, Reviewers, Linked pull requests). They load with the page: the issues and pull requests of
// the items and their details in a constant number of queries.

// contentValueObj is a field value that is not a stored text, number,
// date or option: an iteration, or a built-in field's value taken from
// the item's issue or pull request.
type contentValueObj struct {
	typ  string // the GraphQL type
	item int64
	f    *model.ProjectField
	iss  *issueObj
	iter model.ProjectIteration
	prs  []any // linked pull requests
	revs []any // requested reviewers
}

// iterationConfig is an iteration field's configuration.
type iterationConfig struct{ c *model.ProjectIterations }

type iterationObj struct{ it model.ProjectIteration }

// iterationEnded is whether an iteration lies wholly before today.
func iterationEnded(it model.ProjectIteration, now time.Time) bool {
	start, err := time.Parse("2006-01-02", it.StartDate)
	if err != nil {
		return false
	}
	return !start.AddDate(0, 0, it.Duration).After(now.UTC().Truncate(24 * time.Hour))
}

func (a *API) registerProjectValues() {
	a.connectionTypes("RequestedReviewerConnection", "RequestedReviewerEdge")
	a.schema.Resolve("Repository", "projectsV2", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		return a.repoProjects(ctx, p.(*repoObj), b)
	}))
	cv := func(p any) *contentValueObj { return p.(*contentValueObj) }
	for _, typ := range []string{"ProjectV2ItemFieldIterationValue", "ProjectV2ItemFieldLabelValue", "ProjectV2ItemFieldMilestoneValue",
		"ProjectV2ItemFieldPullRequestValue", "ProjectV2ItemFieldRepositoryValue", "ProjectV2ItemFieldUserValue", "ProjectV2ItemFieldReviewerValue"} {
		a.field(typ, "field", func(_ context.Context, p any, _ map[string]any) (any, error) {
			return &projectFieldObj{f: cv(p).f}, nil
		})
	}
	a.field("ProjectV2ItemFieldIterationValue", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		v := cv(p)
		return "PVTFIV_" + strconv.FormatInt(v.item, 10) + "_" + strconv.FormatInt(v.f.ID, 10), nil
	})
	a.field("ProjectV2ItemFieldIterationValue", "iterationId", func(_ context.Context, p any, _ map[string]any) (any, error) { return cv(p).iter.ID, nil })
	a.field("ProjectV2ItemFieldIterationValue", "title", func(_ context.Context, p any, _ map[string]any) (any, error) { return cv(p).iter.Title, nil })
	a.field("ProjectV2ItemFieldIterationValue", "startDate", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return cv(p).iter.StartDate, nil
	})
	a.field("ProjectV2ItemFieldIterationValue", "duration", func(_ context.Context, p any, _ map[string]any) (any, error) { return cv(p).iter.Duration, nil })
	a.schema.Resolve("ProjectV2ItemFieldLabelValue", "labels", engine.EachBatch(func(_ context.Context, p any, b *engine.Batch) (any, error) {
		o := cv(p).iss
		list := make([]*labelObj, len(o.is.Labels))
		for j, l := range o.is.Labels {
			list[j] = &labelObj{l: l, repo: o.repo}
		}
		return slicePage(list, b, "labels")
	}))
	a.schema.Resolve("ProjectV2ItemFieldUserValue", "users", engine.EachBatch(func(_ context.Context, p any, b *engine.Batch) (any, error) {
		return slicePage(cv(p).iss.is.Assignees, b, "users")
	}))
	a.schema.Resolve("ProjectV2ItemFieldPullRequestValue", "pullRequests", engine.EachBatch(func(_ context.Context, p any, b *engine.Batch) (any, error) {
		return slicePage(cv(p).prs, b, "pullRequests")
	}))
	a.schema.Resolve("ProjectV2ItemFieldReviewerValue", "reviewers", engine.EachBatch(func(_ context.Context, p any, b *engine.Batch) (any, error) {
		return slicePage(cv(p).revs, b, "reviewers")
	}))
	a.field("ProjectV2ItemFieldMilestoneValue", "milestone", func(_ context.Context, p any, _ map[string]any) (any, error) {
		o := cv(p).iss
		if o.is.Milestone == nil {
			return nil, nil
		}
		return &milestoneObj{m: o.is.Milestone, repo: o.repo}, nil
	})
	a.field("ProjectV2ItemFieldRepositoryValue", "repository", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return cv(p).iss.repo, nil
	})
	a.field("ProjectV2IterationField", "configuration", func(_ context.Context, p any, _ map[string]any) (any, error) {
		c := p.(*projectFieldObj).f.Iteration
		if c == nil {
			c = &model.ProjectIterations{StartDay: 1, Duration: 14}
		}
		return &iterationConfig{c: c}, nil
	})
	ic := func(p any) *model.ProjectIterations { return p.(*iterationConfig).c }
	a.field("ProjectV2IterationFieldConfiguration", "duration", func(_ context.Context, p any, _ map[string]any) (any, error) { return ic(p).Duration, nil })
	a.field("ProjectV2IterationFieldConfiguration", "startDay", func(_ context.Context, p any, _ map[string]any) (any, error) { return ic(p).StartDay, nil })
	iters := func(ended bool) func(context.Context, any, map[string]any) (any, error) {
		return func(_ context.Context, p any, _ map[string]any) (any, error) {
			now := time.Now()
			out := []any{}
			for _, it := range ic(p).Iterations {
				if iterationEnded(it, now) == ended {
					out = append(out, &iterationObj{it: it})
				}
			}
			return out, nil
		}
	}
	a.field("ProjectV2IterationFieldConfiguration", "iterations", iters(false))
	a.field("ProjectV2IterationFieldConfiguration", "completedIterations", iters(true))
	io := func(p any) model.ProjectIteration { return p.(*iterationObj).it }
	a.field("ProjectV2IterationFieldIteration", "id", func(_ context.Context, p any, _ map[string]any) (any, error) { return io(p).ID, nil })
	a.field("ProjectV2IterationFieldIteration", "title", func(_ context.Context, p any, _ map[string]any) (any, error) { return io(p).Title, nil })
	a.field("ProjectV2IterationFieldIteration", "startDate", func(_ context.Context, p any, _ map[string]any) (any, error) { return io(p).StartDate, nil })
	a.field("ProjectV2IterationFieldIteration", "duration", func(_ context.Context, p any, _ map[string]any) (any, error) { return io(p).Duration, nil })
}

// contentValues is the values of an item's built-in fields taken from its
// issue or pull request (o; nil for drafts and content the viewer may not
// see), the requested reviewers of a pull request and the pull requests
// linked to an issue (those that close it), or nil when the
// field shows none.
func contentValue(it *model.ProjectItem, f *model.ProjectField, o *issueObj, reviewers, linked []any) any {
	switch f.DataType {
	case "title":
		title := it.DraftTitle
		if o != nil {
			title = o.is.Title
		} else if it.ContentType != "DraftIssue" {
			return nil
		}
		return &valueObj{item: it.ID, f: f, v: &model.ProjectValue{ItemID: it.ID, FieldID: f.ID, Text: title}}
	}
	if o == nil {
		return nil
	}
	v := &contentValueObj{item: it.ID, f: f, iss: o}
	switch f.DataType {
	case "labels":
		if len(o.is.Labels) == 0 {
			return nil
		}
		v.typ = "ProjectV2ItemFieldLabelValue"
	case "assignees":
		if len(o.is.Assignees) == 0 {
			return nil
		}
		v.typ = "ProjectV2ItemFieldUserValue"
	case "milestone":
		if o.is.Milestone == nil {
			return nil
		}
		v.typ = "ProjectV2ItemFieldMilestoneValue"
	case "repository":
		v.typ = "ProjectV2ItemFieldRepositoryValue"
	case "linked_pull_requests":
		if len(linked) == 0 {
			return nil
		}
		v.typ, v.prs = "ProjectV2ItemFieldPullRequestValue", linked
	case "reviewers":
		if len(reviewers) == 0 {
			return nil
		}
		v.typ, v.revs = "ProjectV2ItemFieldReviewerValue", reviewers
	default:
		return nil
	}
	return v
}

// projectsFilter reads projectsV2's query ("is:open", "is:closed" and
// words of the title) and orderBy (NUMBER, TITLE, CREATED_AT, UPDATED_AT).
func projectsFilter(args map[string]any) store.ProjectsFilter {
	var f store.ProjectsFilter
	q, _ := args["query"].(string)
	var words []string
	for _, w := range strings.Fields(q) {
		switch strings.ToLower(w) {
		case "is:open":
			b := false
			f.Closed = &b
		case "is:closed":
			b := true
			f.Closed = &b
		default:
			words = append(words, w)
		}
	}
	f.Title = strings.Join(words, " ")
	if o, ok := args["orderBy"].(map[string]any); ok {
		field, _ := o["field"].(string)
		f.OrderBy = strings.ToLower(field)
		dir, _ := o["direction"].(string)
		f.Desc = dir == "DESC"
	}
	return f
}

// repoProjects is a repository's projectsV2: the projects linked to it
// that the viewer may read, filtered and ordered as the arguments say.
func (a *API) repoProjects(ctx context.Context, repo *repoObj, b *engine.Batch) (any, error) {
	ids, err := a.d.Store.R().ProjectIDsOfRepo(ctx, repo.v.Repo.ID)
	if err != nil {
		return nil, err
	}
	visible, err := projects.New(a.d.Store).Visible(ctx, from(ctx).caller, ids)
	if err != nil {
		return nil, err
	}
	f := projectsFilter(b.Args)
	var list []*projectObj
	for _, id := range ids {
		p := visible[id]
		if p == nil || f.Title != "" && !strings.Contains(strings.ToLower(p.Title), strings.ToLower(f.Title)) ||
			f.Closed != nil && *f.Closed != (p.ClosedAt != nil) {
			continue
		}
		list = append(list, &projectObj{p: p})
	}
	sort.SliceStable(list, func(i, j int) bool {
		x, y := list[i].p, list[j].p
		var less, equal bool
		switch f.OrderBy {
		case "title":
			less, equal = strings.ToLower(x.Title) < strings.ToLower(y.Title), strings.EqualFold(x.Title, y.Title)
		case "created_at":
			less, equal = x.CreatedAt.Before(y.CreatedAt), x.CreatedAt.Equal(y.CreatedAt)
		case "updated_at":
			less, equal = x.UpdatedAt.Before(y.UpdatedAt), x.UpdatedAt.Equal(y.UpdatedAt)
		default:
			less, equal = x.Number < y.Number, x.Number == y.Number
		}
		if equal {
			less = x.ID < y.ID
		}
		if f.Desc {
			return !less && !equal
		}
		return less
	})
	return slicePage(list, b, "projectsV2")
}

// linkedPulls is the pull requests that close each issue (not pull
// request) of issues, the first hundred of each, those the viewer may
// see: in a constant number of queries.
func (a *API) linkedPulls(ctx context.Context, issues map[int64]*issueObj) (map[int64][]any, error) {
	var ids []int64
	for id, o := range issues {
		if !o.is.IsPull {
			ids = append(ids, id)
		}
	}
	out := map[int64][]any{}
	if len(ids) == 0 {
		return out, nil
	}
	q := a.d.Store.R()
	links, err := q.ClosingReferences(ctx, ids, false, false, func(total int) (int, int) { return 0, min(total, 100) })
	if err != nil {
		return nil, err
	}
	var others []int64
	for _, l := range links {
		others = append(others, l.IDs...)
	}
	if len(others) == 0 {
		return out, nil
	}
	pulls, err := q.PullsByIssueID(ctx, others)
	if err != nil {
		return nil, err
	}
	repoIDs := make([]int64, 0, len(pulls))
	for _, p := range pulls {
		repoIDs = append(repoIDs, p.Issue.RepoID)
	}
	repos, err := a.reposByID(ctx, repoIDs)
	if err != nil {
		return nil, err
	}
	for id, l := range links {
		for _, other := range l.IDs {
			if p := pulls[other]; p != nil && repos[p.Issue.RepoID] != nil {
				out[id] = append(out[id], a.pullOf(p, repos[p.Issue.RepoID]))
			}
		}
	}
	return out, nil
}
