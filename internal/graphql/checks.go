package graphql

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/protection"
	"github.com/hubd/hubd/internal/wire"
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

// registerWorkflowRuns resolves CheckSuite.workflowRun: the workflow run of
// the job whose check run the suite was reached from (null for a suite of
// runs no workflow made), with its event and workflow. One query per
// repository of the batch.
func (a *API) registerWorkflowRuns() {
	a.schema.Resolve("CheckSuite", "workflowRun", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		out := b.Values(len(b.Parents))
		// A suite reached from a job's check run finds its run through the
		// job; one whose row is loaded (or reached from no run) names it.
		byJob, byRun := map[int64][]int64{}, map[int64][]int64{}
		for _, p := range b.Parents {
			o := p.(*checkSuiteObj)
			if o.s == nil && o.runID != 0 {
				byJob[o.repo.v.Repo.ID] = append(byJob[o.repo.v.Repo.ID], o.runID)
			}
		}
		var rest []any
		for _, p := range b.Parents {
			if o := p.(*checkSuiteObj); o.s != nil || o.runID == 0 {
				rest = append(rest, p)
			}
		}
		if err := a.loadSuites(ctx, rest); err != nil {
			return nil, err
		}
		for _, p := range rest {
			if o := p.(*checkSuiteObj); o.s != nil && o.s.WorkflowRunID != 0 {
				byRun[o.repo.v.Repo.ID] = append(byRun[o.repo.v.Repo.ID], o.s.WorkflowRunID)
			}
		}
		q := a.d.Store.R()
		ofJob, ofRun := map[int64]map[int64]*model.WorkflowRun{}, map[int64]map[int64]*model.WorkflowRun{}
		for repoID, ids := range byJob {
			m, err := q.RunsOfJobs(ctx, repoID, ids)
			if err != nil {
				return nil, err
			}
			ofJob[repoID] = m
		}
		for repoID, ids := range byRun {
			m, err := q.RunsByIDs(ctx, repoID, ids)
			if err != nil {
				return nil, err
			}
			ofRun[repoID] = m
		}
		for i, p := range b.Parents {
			o := p.(*checkSuiteObj)
			var r *model.WorkflowRun
			if o.s == nil && o.runID != 0 {
				r = ofJob[o.repo.v.Repo.ID][o.runID]
			} else if o.s != nil {
				r = ofRun[o.repo.v.Repo.ID][o.s.WorkflowRunID]
			}
			if r != nil {
				out[i] = &workflowRunObj{r: r, repo: o.repo}
			}
		}
		return out, nil
	})
	run := func(name string, f func(r *model.WorkflowRun) any) {
		a.field("WorkflowRun", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*workflowRunObj).r), nil })
	}
	run("id", func(r *model.WorkflowRun) any { return wire.NodeID("WFR_", r.ID) })
	run("databaseId", func(r *model.WorkflowRun) any { return r.ID })
	run("runNumber", func(r *model.WorkflowRun) any { return r.RunNumber })
	run("event", func(r *model.WorkflowRun) any { return r.Event })
	a.field("WorkflowRun", "workflow", func(_ context.Context, p any, _ map[string]any) (any, error) {
		o := p.(*workflowRunObj)
		return &workflowOf{r: o.r, repo: o.repo}, nil
	})
	a.field("Workflow", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return wire.NodeID("W_", p.(*workflowOf).r.WorkflowID), nil
	})
	a.field("Workflow", "name", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*workflowOf).r.Name, nil })
}

// workflowOf is the workflow of a run, as the run names it.
type workflowOf struct {
	r    *model.WorkflowRun
	repo *repoObj
}

// workflowRunObj is a workflow run of a repository.
type workflowRunObj struct {
	r    *model.WorkflowRun
	repo *repoObj
}

// registerCheckAnnotations resolves CheckRun.annotations, oldest first:
// each run counts its annotations, so the pages of a whole batch of runs
// are cut in one query.
func (a *API) registerCheckAnnotations() {
	a.schema.Resolve("CheckRun", "annotations", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		w, err := pageWindow(b.Args, "annotations", engine.SelectsItems(b.Field.SelectionSet))
		if err != nil {
			return nil, err
		}
		out := b.Values(len(b.Parents))
		pages := map[int64][2]int{}
		for _, p := range b.Parents {
			r := p.(*checkRunObj).r
			start, end := w.bounds(r.AnnotationsCount)
			pages[r.ID] = [2]int{min(start, r.AnnotationsCount), min(end, r.AnnotationsCount)}
		}
		list, err := a.d.Store.R().CheckAnnotationPages(ctx, pages)
		if err != nil {
			return nil, err
		}
		for i, p := range b.Parents {
			o := p.(*checkRunObj)
			c := &connection{offset: pages[o.r.ID][0], total: o.r.AnnotationsCount}
			for _, an := range list[o.r.ID] {
				c.nodes = append(c.nodes, &annotationObj{an, o.repo})
			}
			out[i] = c
		}
		return out, nil
	})
	a.connectionTypes("CheckAnnotationConnection", "CheckAnnotationEdge")
	an := func(name string, f func(o *annotationObj) any) {
		a.field("CheckAnnotation", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*annotationObj)), nil })
	}
	an("databaseId", func(o *annotationObj) any { return o.a.ID })
	an("path", func(o *annotationObj) any { return o.a.Path })
	an("message", func(o *annotationObj) any { return o.a.Message })
	an("title", func(o *annotationObj) any { return o.a.Title })
	an("rawDetails", func(o *annotationObj) any { return o.a.RawDetails })
	an("annotationLevel", func(o *annotationObj) any { return strings.ToUpper(o.a.AnnotationLevel) })
	an("blobUrl", func(o *annotationObj) any {
		return a.d.URLs.RepoHTMLURL(o.repo.v.Repo) + "/blob/" + o.a.HeadSHA + "/" + o.a.Path
	})
	an("location", func(o *annotationObj) any { return o })
	span := func(name string, line func(a *model.CheckAnnotation) int, col func(a *model.CheckAnnotation) *int) {
		a.field("CheckAnnotationSpan", name, func(_ context.Context, p any, _ map[string]any) (any, error) {
			o := p.(*annotationObj)
			return annotationPos{line(o.a), col(o.a)}, nil
		})
	}
	span("start", func(a *model.CheckAnnotation) int { return a.StartLine }, func(a *model.CheckAnnotation) *int { return a.StartColumn })
	span("end", func(a *model.CheckAnnotation) int { return a.EndLine }, func(a *model.CheckAnnotation) *int { return a.EndColumn })
	a.field("CheckAnnotationPosition", "line", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(annotationPos).line, nil
	})
	a.field("CheckAnnotationPosition", "column", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(annotationPos).column, nil
	})
}

// annotationObj is a check run's annotation with its repository.
type annotationObj struct {
	a    *model.CheckAnnotation
	repo *repoObj
}

// annotationPos is one end of an annotation's span.
type annotationPos struct {
	line   int
	column *int
}
