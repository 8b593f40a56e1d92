package graphql

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pullreviews"
	"github.com/hubd/hubd/internal/pulls"
	"github.com/hubd/hubd/internal/wire"
)

// What gh pr status and gh pr review ask beyond gh pr view: the base and
// head refs with the base's protection, the review decision and each
// reviewer's latest review; reviews, review requests and draft state
// change through the pull request review and pulls services, as REST's do.

// protectionObj is the protection of one branch (hubd protects exact
// branch names, so a rule's pattern is its branch).
type protectionObj struct {
	bp   *model.BranchProtection
	repo *repoObj
}

// refExists answers, for refs of one batch, whether each branch exists,
// asking git once per repository and branch.
func (a *API) refExists(ctx context.Context) func(repo *repoObj, branch string) (bool, error) {
	type key struct {
		repo   int64
		branch string
	}
	seen := map[key]bool{}
	return func(repo *repoObj, branch string) (bool, error) {
		if a.d.Git == nil || branch == "" {
			return false, nil
		}
		k := key{repo.v.Repo.ID, branch}
		if ok, done := seen[k]; done {
			return ok, nil
		}
		g, err := a.d.GitRepo(ctx, repo.v.Repo)
		if err != nil {
			return false, err
		}
		_, err = g.Info(ctx, "refs/heads/"+branch)
		seen[k] = err == nil
		return err == nil, nil
	}
}

func (a *API) registerPullReviewing(svc *pulls.Service, reviews *pullreviews.Service) {
	a.schema.Resolve("PullRequest", "baseRef", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		exists := a.refExists(ctx)
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			o := p.(*pullObj)
			ok, err := exists(o.iss.repo, o.p.BaseRef)
			if err != nil {
				return nil, err
			}
			if ok {
				out[i] = &refObj{repo: o.iss.repo, name: o.p.BaseRef}
			}
		}
		return out, nil
	})
	a.schema.Resolve("PullRequest", "headRef", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		repos, err := a.headRepos(ctx, b)
		if err != nil {
			return nil, err
		}
		exists := a.refExists(ctx)
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			o := p.(*pullObj)
			head := repos[o.p.HeadRepoID]
			if head == nil {
				continue
			}
			ok, err := exists(head, o.p.HeadRef)
			if err != nil {
				return nil, err
			}
			if ok {
				out[i] = &refObj{repo: head, name: o.p.HeadRef}
			}
		}
		return out, nil
	})
	a.schema.Resolve("Ref", "branchProtectionRule", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		type key struct {
			repo   int64
			branch string
		}
		found := map[key]*model.BranchProtection{}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			o := p.(*refObj)
			if o.prefixOrHeads() != "refs/heads/" {
				continue // a tag is no branch: no branch protection
			}
			k := key{o.repo.v.Repo.ID, o.name}
			bp, done := found[k]
			if !done {
				var err error
				if bp, err = a.d.Store.R().BranchProtection(ctx, k.repo, k.branch); err != nil {
					return nil, err
				}
				found[k] = bp
			}
			if bp != nil {
				out[i] = &protectionObj{bp: bp, repo: o.repo}
			}
		}
		return out, nil
	})
	bpr := func(name string, f func(o *protectionObj) any) {
		a.field("BranchProtectionRule", name, func(_ context.Context, p any, _ map[string]any) (any, error) {
			return f(p.(*protectionObj)), nil
		})
	}
	bpr("id", func(o *protectionObj) any { return wire.GitNodeID("BPR", o.bp.RepoID, o.bp.Branch) })
	bpr("pattern", func(o *protectionObj) any { return o.bp.Branch })
	bpr("repository", func(o *protectionObj) any { return o.repo })
	bpr("allowsDeletions", func(o *protectionObj) any { return o.bp.AllowDeletions })
	bpr("allowsForcePushes", func(o *protectionObj) any { return o.bp.AllowForcePushes })
	bpr("dismissesStaleReviews", func(o *protectionObj) any { return o.bp.DismissStaleReviews })
	bpr("isAdminEnforced", func(o *protectionObj) any { return o.bp.EnforceAdmins })
	bpr("requiresApprovingReviews", func(o *protectionObj) any { return o.bp.Reviews })
	bpr("requiredApprovingReviewCount", func(o *protectionObj) any {
		if !o.bp.Reviews {
			return nil
		}
		return o.bp.RequiredApprovals
	})
	bpr("requiresStatusChecks", func(o *protectionObj) any { return o.bp.StatusChecks })
	bpr("requiresStrictStatusChecks", func(o *protectionObj) any { return o.bp.StatusChecks && o.bp.Strict })
	bpr("requiredStatusCheckContexts", func(o *protectionObj) any {
		out := make([]any, len(o.bp.RequiredContexts))
		for i, c := range o.bp.RequiredContexts {
			out[i] = c
		}
		return out
	})

	a.schema.Resolve("PullRequest", "reviewDecision", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		// One call per repository of the batch (gh's lists hold one).
		byRepo := map[int64][]*model.Pull{}
		repos := map[int64]*model.Repo{}
		for _, p := range b.Parents {
			o := p.(*pullObj)
			r := o.iss.repo.v.Repo
			if o.p.Issue == nil {
				o.p.Issue = o.iss.is
			}
			byRepo[r.ID] = append(byRepo[r.ID], o.p)
			repos[r.ID] = r
		}
		decisions := map[int64]string{}
		for id, list := range byRepo {
			d, err := svc.Protection.ReviewDecisions(ctx, repos[id], list)
			if err != nil {
				return nil, err
			}
			for k, v := range d {
				decisions[k] = v
			}
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			if d := decisions[p.(*pullObj).p.IssueID]; d != "" {
				out[i] = d
			}
		}
		return out, nil
	})
	a.schema.Resolve("PullRequest", "latestReviews", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		ids := make([]int64, len(b.Parents))
		for i, p := range b.Parents {
			ids[i] = p.(*pullObj).p.IssueID
		}
		latest, err := a.d.Store.R().LatestReviews(ctx, ids)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, p := range b.Parents {
			o := p.(*pullObj)
			list := make([]*reviewObj, 0, len(latest[o.p.IssueID]))
			for _, v := range latest[o.p.IssueID] {
				list = append(list, &reviewObj{v: v, pr: o})
			}
			if out[i], err = slicePage(list, b, "latestReviews"); err != nil {
				return nil, err
			}
		}
		return out, nil
	})

	a.registerReviewMutations(svc, reviews)
}

// reviewAccess is the review service's view of the viewer on a pull
// request's repository; it refuses tokens that may not write.
func reviewAccess(ctx context.Context, o *pullObj) (pullreviews.Access, error) {
	c := from(ctx).caller
	if c.User == nil {
		return pullreviews.Access{}, engine.Errorf("FORBIDDEN", "You must be logged in to do that.")
	}
	if err := deps.RequireScope(c, "public_repo"); err != nil {
		return pullreviews.Access{}, gqlError(err)
	}
	return pullreviews.Access{Repo: o.iss.repo.v.Repo, Perm: o.iss.repo.perm, UserID: c.UserID()}, nil
}

func (a *API) registerReviewMutations(svc *pulls.Service, reviews *pullreviews.Service) {
	input := func(args map[string]any) map[string]any {
		in, _ := args["input"].(map[string]any)
		return in
	}
	pull := func(ctx context.Context, in map[string]any) (*pullObj, error) {
		id, _ := in["pullRequestId"].(string)
		return a.pullByNodeID(ctx, id)
	}
	answer := func(ctx context.Context, in map[string]any, o *pullObj) (any, error) {
		p, err := a.d.Store.R().PullByIssueID(ctx, o.p.IssueID)
		if err != nil {
			return nil, err
		}
		return &payload{clientMutationID: in["clientMutationId"], issue: a.pullOf(p, o.iss.repo)}, nil
	}

	a.field("Mutation", "addPullRequestReview", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := input(args)
		o, err := pull(ctx, in)
		if err != nil {
			return nil, err
		}
		x, err := reviewAccess(ctx, o)
		if err != nil {
			return nil, err
		}
		if err := a.d.MayParticipate(ctx, x.Repo, x.UserID, "review"); err != nil {
			return nil, gqlError(err)
		}
		var ri pullreviews.ReviewInput
		if s, ok := in["body"].(string); ok {
			ri.Body = &s
		}
		if s, ok := in["commitOID"].(string); ok {
			ri.CommitID = &s
		}
		switch ev, _ := in["event"].(string); ev {
		case "":
		case "DISMISS":
			return nil, engine.Errorf("UNPROCESSABLE", "A review cannot be dismissed when it is created.")
		default:
			ri.Event = &ev
		}
		for _, c := range asList(in["comments"]) {
			m, _ := c.(map[string]any)
			ci := pullreviews.CommentInput{}
			if s, ok := m["body"].(string); ok {
				ci.Body = &s
			}
			if s, ok := m["path"].(string); ok {
				ci.Path = &s
			}
			if n, ok := intArg(m, "position"); ok {
				pos := int64(n)
				ci.Position = &pos
			}
			ri.Comments = append(ri.Comments, ci)
		}
		v, err := reviews.CreateReview(ctx, x, o.p.Number, ri)
		if err != nil {
			return nil, gqlError(err)
		}
		return &reviewPayload{clientMutationID: in["clientMutationId"], review: &reviewObj{v: v, pr: o}}, nil
	})
	a.field("AddPullRequestReviewPayload", "clientMutationId", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*reviewPayload).clientMutationID, nil
	})
	a.field("AddPullRequestReviewPayload", "pullRequestReview", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*reviewPayload).review, nil
	})

	a.field("Mutation", "requestReviews", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := input(args)
		o, err := pull(ctx, in)
		if err != nil {
			return nil, err
		}
		x, err := reviewAccess(ctx, o)
		if err != nil {
			return nil, err
		}
		users, err := a.users(ctx, idList(in["userIds"]))
		if err != nil {
			return nil, err
		}
		logins := make([]string, len(users))
		for i, u := range users {
			logins[i] = u.Login
		}
		var slugs []string
		for _, id := range idList(in["teamIds"]) {
			prefix, n, ok := decodeNodeID(id)
			var t *model.Team
			if ok && prefix == "T" {
				t, err = a.d.Store.R().TeamByID(ctx, n)
				if err != nil && !errors.Is(err, model.ErrNotFound) {
					return nil, err
				}
			}
			if t == nil || x.Repo.Owner == nil || t.OrgID != x.Repo.Owner.ID {
				return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
			}
			slugs = append(slugs, t.Slug)
		}
		change := reviews.SetRequestedReviewers
		if union, _ := in["union"].(bool); union {
			change = reviews.RequestReviewers
		}
		if _, err := change(ctx, x, o.p.Number, logins, slugs); err != nil {
			return nil, gqlError(err)
		}
		return answer(ctx, in, o)
	})
	a.field("RequestReviewsPayload", "actor", func(ctx context.Context, _ any, _ map[string]any) (any, error) {
		return from(ctx).caller.User, nil
	})

	draft := func(to bool) func(ctx context.Context, _ any, args map[string]any) (any, error) {
		return func(ctx context.Context, _ any, args map[string]any) (any, error) {
			in := input(args)
			o, err := pull(ctx, in)
			if err != nil {
				return nil, err
			}
			if err := mayWritePulls(from(ctx).caller, o.iss.repo.v.Repo); err != nil {
				return nil, gqlError(err)
			}
			if _, err := svc.SetDraft(ctx, o.iss.repo.v.Repo, a.pullCaller(ctx, o.iss.repo.perm), o.p.Number, to); err != nil {
				return nil, gqlError(err)
			}
			return answer(ctx, in, o)
		}
	}
	a.field("Mutation", "markPullRequestReadyForReview", draft(false))
	a.field("Mutation", "convertPullRequestToDraft", draft(true))

	for _, typ := range []string{"RequestReviewsPayload", "MarkPullRequestReadyForReviewPayload", "ConvertPullRequestToDraftPayload"} {
		a.field(typ, "clientMutationId", func(_ context.Context, p any, _ map[string]any) (any, error) {
			return p.(*payload).clientMutationID, nil
		})
		a.field(typ, "pullRequest", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*payload).issue, nil })
	}
}

// reviewPayload is addPullRequestReview's payload.
type reviewPayload struct {
	clientMutationID any
	review           *reviewObj
}
