package graphql

import (
	"context"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pulls"
)

// pullCaller is the pulls service's view of the viewer.
func (a *API) pullCaller(ctx context.Context, perm authz.Permission) pulls.Caller {
	return pulls.CallerFor(a.d.Store, from(ctx).caller, perm)
}

// mayWritePulls is REST's participate: a token that may write and a
// repository that is not archived or locked for a migration.
func mayWritePulls(c *authz.Caller, repo *model.Repo) error {
	if err := deps.RequireScope(c, "public_repo"); err != nil {
		return err
	}
	return repo.WriteRefusal()
}

// pullByNodeID resolves a PullRequest id the viewer may see.
func (a *API) pullByNodeID(ctx context.Context, id string) (*pullObj, error) {
	prefix, n, ok := decodeNodeID(id)
	if !ok || prefix != "PR" {
		return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
	}
	objs, err := a.issuesAndPullsByID(ctx, []int64{n})
	if err != nil {
		return nil, err
	}
	o := objs[n]
	if o == nil || !o.is.IsPull {
		return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
	}
	if err := writeTarget(ctx, o.repo); err != nil {
		return nil, err
	}
	pr, err := a.d.Store.R().PullByIssueID(ctx, n)
	if err != nil {
		return nil, err
	}
	return a.pullOf(pr, o.repo), nil
}

func (a *API) registerPullMutations(svc *pulls.Service) {
	input := func(args map[string]any) map[string]any {
		in, _ := args["input"].(map[string]any)
		return in
	}
	answer := func(ctx context.Context, in map[string]any, repo *repoObj, n int64) (any, error) {
		pr, err := a.d.Store.R().PullByNumber(ctx, repo.v.Repo.ID, n)
		if err != nil {
			return nil, err
		}
		return &payload{clientMutationID: in["clientMutationId"], issue: a.pullOf(pr, repo)}, nil
	}

	a.field("Mutation", "createPullRequest", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := input(args)
		repoID, _ := in["repositoryId"].(string)
		repo, err := a.repoByNodeID(ctx, repoID)
		if err != nil {
			return nil, err
		}
		c := from(ctx).caller
		if err := mayWritePulls(c, repo.v.Repo); err != nil {
			return nil, gqlError(err)
		}
		ci := pulls.CreateInput{}
		ci.Title, _ = in["title"].(string)
		if b, ok := in["body"].(string); ok {
			ci.Body = &b
		}
		ci.Base, _ = in["baseRefName"].(string)
		ci.Head, _ = in["headRefName"].(string)
		ci.Draft, _ = in["draft"].(bool)
		if m, ok := in["maintainerCanModify"].(bool); ok {
			ci.MaintainerCanModify = &m
		}
		if h, _ := in["headRepositoryId"].(string); h != "" {
			head, err := a.repoByNodeID(readOnly(ctx), h) // read, not written
			if err != nil {
				return nil, err
			}
			ci.HeadRepo = head.v.Repo.Name
			if head.v.Repo.OwnerID != repo.v.Repo.OwnerID {
				ci.Head = head.v.Repo.Owner.Login + ":" + ci.Head
			}
		}
		pr, err := svc.Create(ctx, repo.v.Repo, a.pullCaller(ctx, repo.perm), ci)
		if err != nil {
			return nil, gqlError(err)
		}
		return answer(ctx, in, repo, pr.Number)
	})

	update := func(ctx context.Context, in map[string]any, change func(o *pullObj, ui *pulls.UpdateInput) error) (any, error) {
		id, _ := in["pullRequestId"].(string)
		o, err := a.pullByNodeID(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := mayWritePulls(from(ctx).caller, o.iss.repo.v.Repo); err != nil {
			return nil, gqlError(err)
		}
		var ui pulls.UpdateInput
		if err := change(o, &ui); err != nil {
			return nil, err
		}
		if _, err := svc.Update(ctx, o.iss.repo.v.Repo, a.pullCaller(ctx, o.iss.repo.perm), o.p.Number, ui); err != nil {
			return nil, gqlError(err)
		}
		return answer(ctx, in, o.iss.repo, o.p.Number)
	}
	state := func(s string) func(ctx context.Context, _ any, args map[string]any) (any, error) {
		return func(ctx context.Context, _ any, args map[string]any) (any, error) {
			return update(ctx, input(args), func(o *pullObj, ui *pulls.UpdateInput) error {
				ui.State = &s
				return nil
			})
		}
	}
	a.field("Mutation", "closePullRequest", state("closed"))
	a.field("Mutation", "reopenPullRequest", state("open"))
	a.field("Mutation", "updatePullRequest", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := input(args)
		res, err := update(ctx, in, func(o *pullObj, ui *pulls.UpdateInput) error {
			if err := noProjects(in); err != nil {
				return err
			}
			if t, ok := in["title"].(string); ok {
				ui.Title = &t
			}
			if b, ok := in["body"]; ok {
				ui.BodySet = true
				if s, ok := b.(string); ok {
					ui.Body = &s
				}
			}
			switch in["state"] {
			case "OPEN":
				s := "open"
				ui.State = &s
			case "CLOSED":
				s := "closed"
				ui.State = &s
			}
			if b, ok := in["baseRefName"].(string); ok {
				ui.Base = &b
			}
			if m, ok := in["maintainerCanModify"].(bool); ok {
				ui.MaintainerCanModify = &m
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		// Assignees, labels and the milestone are the issue half's: the
		// issues service changes them, as PATCH .../issues/{number} does.
		_, hasL := in["labelIds"]
		_, hasA := in["assigneeIds"]
		_, hasM := in["milestoneId"]
		if !hasL && !hasA && !hasM {
			return res, nil
		}
		o := res.(*payload).issue.(*pullObj)
		var ii issues.IssueInput
		if hasL {
			ii.SetLabels = true
			if ii.Labels, err = a.labelNames(ctx, o.iss.repo.v.Repo.ID, idList(in["labelIds"])); err != nil {
				return nil, err
			}
		}
		if hasA {
			ii.SetAssignees = true
			if ii.Assignees, err = a.users(ctx, idList(in["assigneeIds"])); err != nil {
				return nil, err
			}
		}
		if hasM {
			ii.SetMilestone = true
			if s, _ := in["milestoneId"].(string); s != "" {
				if ii.Milestone, err = a.milestone(ctx, o.iss.repo.v.Repo.ID, s); err != nil {
					return nil, err
				}
			}
		}
		if err := a.issuesSvc.ChangeIssue(ctx, from(ctx).caller, o.iss.repo.v.Repo, o.iss.repo.perm, o.iss.is, ii); err != nil {
			return nil, gqlError(err)
		}
		return answer(ctx, in, o.iss.repo, o.p.Number)
	})
	a.field("Mutation", "mergePullRequest", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := input(args)
		id, _ := in["pullRequestId"].(string)
		o, err := a.pullByNodeID(ctx, id)
		if err != nil {
			return nil, err
		}
		if err := mayWritePulls(from(ctx).caller, o.iss.repo.v.Repo); err != nil {
			return nil, gqlError(err)
		}
		mi := pulls.MergeInput{}
		switch in["mergeMethod"] {
		case "SQUASH":
			mi.Method = model.MergeSquash
		case "REBASE":
			mi.Method = model.MergeRebase
		default:
			mi.Method = model.MergeMerge
		}
		if s, ok := in["commitHeadline"].(string); ok {
			mi.CommitTitle = &s
		}
		if s, ok := in["commitBody"].(string); ok {
			mi.CommitMessage = &s
		}
		mi.SHA, _ = in["expectedHeadOid"].(string)
		if _, err := svc.Merge(ctx, o.iss.repo.v.Repo, a.pullCaller(ctx, o.iss.repo.perm), o.p.Number, mi); err != nil {
			return nil, gqlError(err)
		}
		return answer(ctx, in, o.iss.repo, o.p.Number)
	})

	for _, typ := range []string{"CreatePullRequestPayload", "UpdatePullRequestPayload", "ClosePullRequestPayload",
		"ReopenPullRequestPayload", "MergePullRequestPayload"} {
		a.field(typ, "clientMutationId", func(_ context.Context, p any, _ map[string]any) (any, error) {
			return p.(*payload).clientMutationID, nil
		})
		a.field(typ, "pullRequest", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*payload).issue, nil })
	}
	for _, typ := range []string{"UpdatePullRequestPayload", "MergePullRequestPayload"} {
		a.field(typ, "actor", func(ctx context.Context, _ any, _ map[string]any) (any, error) { return from(ctx).caller.User, nil })
	}
	a.registerAutoMerge(svc)
}
