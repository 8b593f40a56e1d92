package graphql

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/wire"
)

// What gh pr view asks of a pull request beyond its issue half: commits
// with their status check rollup, review requests and reviews.

// commitObj is a commit of a repository the viewer sees.
type commitObj struct {
	repo *repoObj
	sha  string
	git  *gitrepo.Commit // read once for the whole batch (loadCommits)
}

// prCommit is a PullRequestCommit: a commit in a pull request.
type prCommit struct {
	pr     *pullObj
	commit *commitObj
}

// rollup is a commit's StatusCheckRollup: the newest status of each
// context and the newest check run of each name.
type rollup struct {
	commit   *commitObj
	statuses []*model.CommitStatus
	runs     []*model.CheckRun
}

type statusObj struct {
	s      *model.CommitStatus
	commit *commitObj
}

type checkRunObj struct {
	r    *model.CheckRun
	repo *repoObj
}

type checkSuiteObj struct {
	id    int64
	repo  *repoObj
	runID int64             // the check run it was reached from (a workflow job's has the job's id), or 0
	s     *model.CheckSuite // the suite's row: nil until a field needs it (loadSuites)
}

// reviewRequest is one requested reviewer: a user or a team.
type reviewRequest struct {
	pr   *pullObj
	user *model.Account
	team *model.Team
}

type reviewObj struct {
	v  *model.PullReview
	pr *pullObj
}

// state is the rollup's combined state, as GitHub combines statuses and
// check runs: any failure fails it, else anything unfinished leaves it
// pending, else it succeeded.
func (r *rollup) state() string {
	failed, pending := false, false
	for _, s := range r.statuses {
		switch s.State {
		case model.StatusFailure, model.StatusError:
			failed = true
		case model.StatusPending:
			pending = true
		}
	}
	for _, run := range r.runs {
		if run.Status != "completed" {
			pending = true
			continue
		}
		if run.Conclusion != nil {
			switch *run.Conclusion {
			case "failure", "cancelled", "timed_out", "action_required", "startup_failure":
				failed = true
			}
		}
	}
	switch {
	case failed:
		return "FAILURE"
	case pending:
		return "PENDING"
	}
	return "SUCCESS"
}

func (a *API) registerPullView() {
	a.connectionTypes("PullRequestCommitConnection", "PullRequestCommitEdge")
	a.connectionTypes("ReviewRequestConnection", "ReviewRequestEdge")
	a.connectionTypes("PullRequestReviewConnection", "PullRequestReviewEdge")
	a.connectionTypes("StatusCheckRollupContextConnection", "StatusCheckRollupContextEdge")

	a.schema.Resolve("PullRequest", "commits", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := p.(*pullObj)
		w, err := pageWindow(b.Args, "commits", engine.SelectsItems(b.Field.SelectionSet))
		if err != nil {
			return nil, err
		}
		total := o.p.Commits
		start, end := w.bounds(total)
		start, end = min(start, total), min(end, total)
		c := &connection{offset: start, total: total}
		if end <= start || a.d.Git == nil {
			return c, nil
		}
		if start == total-1 && end == total {
			// commits(last: 1), gh's way to the head's statusCheckRollup:
			// the newest commit is the head (the count was recorded with
			// it), no git process needed.
			c.nodes = []any{&prCommit{pr: o, commit: &commitObj{repo: o.iss.repo, sha: o.p.HeadSHA}}}
			return c, nil
		}
		g := a.d.Git.Open(o.iss.repo.v.Repo.ID)
		// head ^base is head ^merge-base: what both reach, a merge base
		// reaches (one git process fewer).
		ids, n, err := g.RevList(ctx, gitrepo.LogOptions{Include: []string{o.p.HeadSHA}, Exclude: []string{o.p.BaseSHA}, Reverse: true, Skip: start, Max: end - start})
		if err != nil {
			return nil, err
		}
		c.total = n
		for _, id := range ids {
			c.nodes = append(c.nodes, &prCommit{pr: o, commit: &commitObj{repo: o.iss.repo, sha: id}})
		}
		return c, nil
	}))
	a.field("PullRequestCommit", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		pc := p.(*prCommit)
		return wire.GitNodeID("PURC", pc.pr.p.IssueID, pc.commit.sha), nil
	})
	a.field("PullRequestCommit", "commit", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*prCommit).commit, nil })
	a.field("PullRequestCommit", "pullRequest", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*prCommit).pr, nil })

	cm := func(name string, f func(o *commitObj) any) {
		a.field("Commit", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*commitObj)), nil })
	}
	cm("id", func(o *commitObj) any { return wire.GitNodeID("C", o.repo.v.Repo.ID, o.sha) })
	cm("oid", func(o *commitObj) any { return o.sha })
	cm("abbreviatedOid", func(o *commitObj) any { return o.sha[:min(7, len(o.sha))] })
	cm("url", func(o *commitObj) any { return a.d.URLs.CommitHTMLURL(o.repo.v.Repo, o.sha) })
	cm("repository", func(o *commitObj) any { return o.repo })
	// One query for the statuses and one for the check runs of every
	// commit of a repository in the batch (gh pr list asks the rollup of
	// each pull request's head).
	a.schema.Resolve("Commit", "statusCheckRollup", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		byRepo := map[int64][]string{}
		for _, p := range b.Parents {
			o := p.(*commitObj)
			byRepo[o.repo.v.Repo.ID] = append(byRepo[o.repo.v.Repo.ID], o.sha)
		}
		q := a.d.Store.R()
		statuses := map[int64]map[string][]*model.CommitStatus{}
		runs := map[int64]map[string][]*model.CheckRun{}
		for id, shas := range byRepo {
			var err error
			if statuses[id], err = q.LatestStatusesOfCommits(ctx, id, shas); err != nil {
				return nil, err
			}
			if runs[id], err = q.LatestCheckRunsOfCommits(ctx, id, shas); err != nil {
				return nil, err
			}
		}
		out := b.Values(len(b.Parents))
		for i, p := range b.Parents {
			o := p.(*commitObj)
			st, rs := statuses[o.repo.v.Repo.ID][o.sha], runs[o.repo.v.Repo.ID][o.sha]
			if len(st) == 0 && len(rs) == 0 {
				continue // GitHub: null when nothing reported on the commit
			}
			out[i] = &rollup{commit: o, statuses: st, runs: rs}
		}
		return out, nil
	})
	a.field("StatusCheckRollup", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		r := p.(*rollup)
		return wire.GitNodeID("SCR", r.commit.repo.v.Repo.ID, r.commit.sha), nil
	})
	a.field("StatusCheckRollup", "state", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*rollup).state(), nil })
	a.field("StatusCheckRollup", "commit", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*rollup).commit, nil })
	a.schema.Resolve("StatusCheckRollup", "contexts", engine.EachBatch(func(_ context.Context, p any, b *engine.Batch) (any, error) {
		r := p.(*rollup)
		var all []any
		for _, run := range r.runs {
			all = append(all, &checkRunObj{r: run, repo: r.commit.repo})
		}
		for _, s := range r.statuses {
			all = append(all, &statusObj{s: s, commit: r.commit})
		}
		return slicePage(all, b, "contexts")
	}))

	st := func(name string, f func(o *statusObj) any) {
		a.field("StatusContext", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*statusObj)), nil })
	}
	st("id", func(o *statusObj) any { return wire.NodeID("SC", o.s.ID) })
	st("context", func(o *statusObj) any { return o.s.Context })
	st("state", func(o *statusObj) any { return strings.ToUpper(string(o.s.State)) })
	st("description", func(o *statusObj) any { return o.s.Description })
	st("targetUrl", func(o *statusObj) any { return o.s.TargetURL })
	st("createdAt", func(o *statusObj) any { return o.s.CreatedAt })
	st("commit", func(o *statusObj) any { return o.commit })

	cr := func(name string, f func(o *checkRunObj) any) {
		a.field("CheckRun", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*checkRunObj)), nil })
	}
	cr("id", func(o *checkRunObj) any { return wire.NodeID("CR", o.r.ID) })
	cr("databaseId", func(o *checkRunObj) any { return o.r.ID })
	cr("name", func(o *checkRunObj) any { return o.r.Name })
	cr("status", func(o *checkRunObj) any { return strings.ToUpper(o.r.Status) })
	cr("conclusion", func(o *checkRunObj) any {
		if o.r.Conclusion == nil {
			return nil
		}
		return strings.ToUpper(*o.r.Conclusion)
	})
	cr("startedAt", func(o *checkRunObj) any { return o.r.StartedAt })
	cr("completedAt", func(o *checkRunObj) any { return o.r.CompletedAt })
	cr("detailsUrl", func(o *checkRunObj) any { return o.r.DetailsURL })
	cr("checkSuite", func(o *checkRunObj) any { return suiteOf(o.r, o.repo) })
	a.field("CheckSuite", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return wire.NodeID("CS", p.(*checkSuiteObj).id), nil
	})
	a.registerWorkflowRuns()
	a.registerCheckAnnotations()
	a.registerCheckSuites()

	a.schema.Resolve("PullRequest", "reviewRequests", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := p.(*pullObj)
		viewer := from(ctx).caller.UserID()
		users, err := a.d.Store.R().RequestedReviewers(ctx, []int64{o.p.IssueID})
		if err != nil {
			return nil, err
		}
		teams, err := a.d.Store.R().RequestedTeams(ctx, []int64{o.p.IssueID}, viewer)
		if err != nil {
			return nil, err
		}
		var list []*reviewRequest
		for _, u := range users[o.p.IssueID] {
			list = append(list, &reviewRequest{pr: o, user: u})
		}
		for _, t := range teams[o.p.IssueID] {
			list = append(list, &reviewRequest{pr: o, team: t})
		}
		return slicePage(list, b, "reviewRequests")
	}))
	a.field("ReviewRequest", "id", func(_ context.Context, p any, _ map[string]any) (any, error) {
		rr := p.(*reviewRequest)
		if rr.team != nil {
			return wire.GitNodeID("RRT", rr.pr.p.IssueID, wire.NodeID("T", rr.team.ID)), nil
		}
		return wire.GitNodeID("RR", rr.pr.p.IssueID, rr.user.Login), nil
	})
	a.field("ReviewRequest", "asCodeOwner", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return false, nil // hubd has no CODEOWNERS requests
	})
	a.field("ReviewRequest", "pullRequest", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*reviewRequest).pr, nil })
	a.field("ReviewRequest", "requestedReviewer", func(_ context.Context, p any, _ map[string]any) (any, error) {
		rr := p.(*reviewRequest)
		if rr.team != nil {
			return rr.team, nil
		}
		return rr.user, nil
	})

	tm := func(name string, f func(t *model.Team) any) {
		a.field("Team", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*model.Team)), nil })
	}
	tm("id", func(t *model.Team) any { return wire.NodeID("T", t.ID) })
	tm("databaseId", func(t *model.Team) any { return t.ID })
	tm("name", func(t *model.Team) any { return t.Name })
	tm("slug", func(t *model.Team) any { return t.Slug })
	tm("description", func(t *model.Team) any { return t.Description })
	a.schema.Resolve("Team", "organization", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		ids := make([]int64, len(b.Parents))
		for i, p := range b.Parents {
			ids[i] = p.(*model.Team).OrgID
		}
		accs, err := a.d.Store.R().AccountsByID(ctx, ids)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			if acc := accs[p.(*model.Team).OrgID]; acc != nil {
				out[i] = acc
			}
		}
		return out, nil
	})
	for _, f := range []string{"id", "login", "avatarUrl", "resourcePath", "url"} {
		a.field("Bot", f, func(_ context.Context, p any, _ map[string]any) (any, error) {
			return nil, errors.New("graphql: hubd has no bots yet (GitHub Apps)")
		})
	}

	a.schema.Resolve("PullRequest", "reviews", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := p.(*pullObj)
		w, err := pageWindow(b.Args, "reviews", engine.SelectsItems(b.Field.SelectionSet))
		if err != nil {
			return nil, err
		}
		q := a.d.Store.R()
		viewer := from(ctx).caller.UserID()
		total := -1
		if w.needTotal {
			if _, total, err = q.ListPullReviews(ctx, o.p.IssueID, viewer, 1, 0); err != nil {
				return nil, err
			}
		}
		start, end := w.bounds(total)
		list, n, err := q.ListPullReviews(ctx, o.p.IssueID, viewer, max(end-start, 1), start)
		if err != nil {
			return nil, err
		}
		c := &connection{offset: start, total: n}
		if end <= start {
			return c, nil
		}
		for _, v := range list {
			c.nodes = append(c.nodes, &reviewObj{v: v, pr: o})
		}
		return c, nil
	}))
	rv := func(name string, f func(o *reviewObj) any) {
		a.field("PullRequestReview", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*reviewObj)), nil })
	}
	rv("id", func(o *reviewObj) any { return wire.NodeID("PRR", o.v.ID) })
	rv("databaseId", func(o *reviewObj) any { return o.v.ID })
	rv("body", func(o *reviewObj) any { return o.v.Body })
	rv("state", func(o *reviewObj) any { return strings.ToUpper(o.v.State) })
	rv("submittedAt", func(o *reviewObj) any { return o.v.SubmittedAt })
	rv("createdAt", func(o *reviewObj) any { return o.v.CreatedAt })
	rv("updatedAt", func(o *reviewObj) any { return o.v.UpdatedAt })
	rv("authorAssociation", func(o *reviewObj) any {
		if o.v.Association == "" {
			return "NONE"
		}
		return o.v.Association
	})
	rv("author", func(o *reviewObj) any {
		if o.v.User == nil {
			return nil
		}
		return o.v.User
	})
	rv("commit", func(o *reviewObj) any {
		if o.v.CommitID == "" {
			return nil
		}
		return &commitObj{repo: o.pr.iss.repo, sha: o.v.CommitID}
	})
	rv("pullRequest", func(o *reviewObj) any { return o.pr })
	rv("url", func(o *reviewObj) any {
		return a.issueURL(o.pr.iss) + "#pullrequestreview-" + itoa(o.v.ID)
	})
	rv("reactionGroups", func(o *reviewObj) any {
		// hubd takes no reactions on reviews: eight empty groups.
		return groups("review", o.v.ID, nil)
	})
}

// registerProjectItems: classic projects (cards) are gone from GitHub and
// hubd has none, so an issue's projectCards are empty; its projectItems
// (Projects v2) are projects.go's.
func (a *API) registerProjectItems() {
	a.registerProjects()
	a.connectionTypes("ProjectCardConnection", "ProjectCardEdge")
	for _, typ := range []string{"Issue", "PullRequest"} {
		a.schema.Resolve(typ, "projectCards", engine.EachBatch(func(_ context.Context, _ any, b *engine.Batch) (any, error) {
			if _, err := pageWindow(b.Args, "projectCards", engine.SelectsItems(b.Field.SelectionSet)); err != nil {
				return nil, err
			}
			return &connection{}, nil
		}))
	}
	a.noProjects("ProjectCard", "id", "project", "column")
	a.noProjects("Project", "id", "name")
	a.noProjects("ProjectColumn", "id", "name")
}
