package graphql

import (
	"context"
	"net/url"
	"path"
	"strconv"
)

// UniformResourceLocatable's url and resourcePath of the objects that had
// no url of their own before Query.resource (which answers with that
// interface) kept it: check runs, pull request commits, workflows and
// workflow runs; a commit's resourcePath.
func (a *API) registerLocatable() {
	locatable := func(typ string, f func(p any) string) {
		a.field(typ, "url", func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p), nil })
		a.field(typ, "resourcePath", func(_ context.Context, p any, _ map[string]any) (any, error) { return pathOf(f(p)), nil })
	}
	locatable("CheckRun", func(p any) string {
		o := p.(*checkRunObj)
		return a.repoURL(o.repo) + "/runs/" + strconv.FormatInt(o.r.ID, 10)
	})
	locatable("PullRequestCommit", func(p any) string {
		o := p.(*prCommit)
		return a.repoURL(o.commit.repo) + "/pull/" + strconv.FormatInt(o.pr.iss.is.Number, 10) + "/commits/" + o.commit.sha
	})
	locatable("WorkflowRun", func(p any) string {
		o := p.(*workflowRunObj)
		return a.repoURL(o.repo) + "/actions/runs/" + strconv.FormatInt(o.r.ID, 10)
	})
	locatable("Workflow", func(p any) string {
		o := p.(*workflowOf)
		return a.repoURL(o.repo) + "/actions/workflows/" + path.Base(o.r.WorkflowPath)
	})
	a.field("Commit", "resourcePath", func(_ context.Context, p any, _ map[string]any) (any, error) {
		o := p.(*commitObj)
		return pathOf(a.d.URLs.CommitHTMLURL(o.repo.v.Repo, o.sha)), nil
	})
}

// pathOf is the path of an absolute URL.
func pathOf(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Path
	}
	return u
}
