package graphql

import (
	"context"
	"errors"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/model"
)

// Mutations run the same service code as their REST twins (one domain
// code path, two transports), so they check, write and record events
// exactly as REST does; GraphQL only resolves global ids into the values
// the services take and turns their errors into GraphQL errors.

// payload is a mutation payload: clientMutationId echoed and the objects
// the mutation answers with.
type payload struct {
	clientMutationID any
	issue            any
	comment          *commentObj
}

// gqlError turns a service error into GitHub's GraphQL error types.
func gqlError(err error) error {
	var he *model.HTTPError
	var ve *model.ValidationError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, model.ErrNotFound):
		return engine.Errorf("NOT_FOUND", "Could not resolve to a node with the given id.")
	case errors.As(err, &he):
		switch he.Status {
		case 401, 403:
			return engine.Errorf("FORBIDDEN", "%s", he.Message)
		case 404:
			return engine.Errorf("NOT_FOUND", "%s", he.Message)
		case 410:
			return engine.Errorf("UNPROCESSABLE", "%s", he.Message)
		}
		msg := he.Message
		if len(he.Reasons) > 0 {
			msg = strings.Join(he.Reasons, " ")
		}
		return engine.Errorf("UNPROCESSABLE", "%s", msg)
	case errors.As(err, &ve):
		var parts []string
		for _, f := range ve.Errors {
			switch {
			case f.Message != "":
				parts = append(parts, f.Message)
			default:
				parts = append(parts, f.Field+" is "+strings.ReplaceAll(f.Code, "_", " "))
			}
		}
		if len(parts) == 0 {
			parts = append(parts, ve.Message)
		}
		return engine.Errorf("UNPROCESSABLE", "%s", strings.Join(parts, ", "))
	}
	return err
}

// repoByNodeID resolves a Repository id the viewer may see.
func (a *API) repoByNodeID(ctx context.Context, id string) (*repoObj, error) {
	if prefix, n, ok := decodeNodeID(id); ok && prefix == "R" {
		repos, err := a.reposByID(ctx, []int64{n})
		if err != nil {
			return nil, err
		}
		if r := repos[n]; r != nil {
			return r, writeTarget(ctx, r)
		}
	}
	return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
}

// issueByNodeID resolves an Issue or PullRequest id the viewer may see.
func (a *API) issueByNodeID(ctx context.Context, id string) (*issueObj, error) {
	prefix, n, ok := decodeNodeID(id)
	if !ok || (prefix != "I" && prefix != "PR") {
		return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
	}
	objs, err := a.issuesAndPullsByID(ctx, []int64{n})
	if err != nil {
		return nil, err
	}
	o := objs[n]
	if o == nil || (prefix == "PR") != o.is.IsPull {
		return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
	}
	return o, writeTarget(ctx, o.repo)
}

// issuesAndPullsByID is issuesByID with pull requests' issue halves too.
func (a *API) issuesAndPullsByID(ctx context.Context, ids []int64) (map[int64]*issueObj, error) {
	list, err := a.d.Store.R().IssuesByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	repoIDs := make([]int64, len(list))
	for i, is := range list {
		repoIDs[i] = is.RepoID
	}
	repos, err := a.reposByID(ctx, repoIDs)
	if err != nil {
		return nil, err
	}
	out := map[int64]*issueObj{}
	for _, is := range list {
		if r := repos[is.RepoID]; r != nil {
			out[is.ID] = &issueObj{is: is, repo: r}
		}
	}
	return out, nil
}

func idList(v any) []string { return stringList(v) }

// noProjects refuses project ids: hubd has no projects, so none resolves
// (gh sends an empty projectIds, which is no change).
func noProjects(in map[string]any) error {
	if ids := idList(in["projectIds"]); len(ids) > 0 {
		return notFound("Could not resolve to a node with the global id of '%s'", ids[0])
	}
	return nil
}

// labelNames resolves label ids of one repository to their names.
func (a *API) labelNames(ctx context.Context, repoID int64, ids []string) ([]string, error) {
	var nums []int64
	for _, s := range ids {
		prefix, n, ok := decodeNodeID(s)
		if !ok || prefix != "LA" {
			return nil, notFound("Could not resolve to a node with the global id of '%s'", s)
		}
		nums = append(nums, n)
	}
	labels, err := a.d.Store.R().LabelsByID(ctx, nums)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(nums))
	for i, n := range nums {
		l := labels[n]
		if l == nil || l.RepoID != repoID {
			return nil, notFound("Could not resolve to a node with the global id of '%s'", ids[i])
		}
		out = append(out, l.Name)
	}
	return out, nil
}

// users resolves user ids.
func (a *API) users(ctx context.Context, ids []string) ([]*model.Account, error) {
	var nums []int64
	for _, s := range ids {
		prefix, n, ok := decodeNodeID(s)
		if !ok || prefix != "U" {
			return nil, notFound("Could not resolve to a node with the global id of '%s'", s)
		}
		nums = append(nums, n)
	}
	accs, err := a.d.Store.R().AccountsByID(ctx, nums)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Account, 0, len(nums))
	for i, n := range nums {
		if accs[n] == nil {
			return nil, notFound("Could not resolve to a node with the global id of '%s'", ids[i])
		}
		out = append(out, accs[n])
	}
	return out, nil
}

// milestone resolves a milestone id of one repository.
func (a *API) milestone(ctx context.Context, repoID int64, id string) (*model.Milestone, error) {
	prefix, n, ok := decodeNodeID(id)
	if ok && prefix == "MI" {
		m, err := a.d.Store.R().MilestoneByID(ctx, n)
		if err == nil && m.RepoID == repoID {
			return m, nil
		}
		if err != nil && !errors.Is(err, model.ErrNotFound) {
			return nil, err
		}
	}
	return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
}

func (a *API) registerMutations(svc *issues.Service) {
	input := func(args map[string]any) map[string]any {
		in, _ := args["input"].(map[string]any)
		return in
	}
	str := func(in map[string]any, k string) (string, bool) {
		s, ok := in[k].(string)
		return s, ok
	}
	caller := func(ctx context.Context) *authz.Caller { return from(ctx).caller }

	a.field("Mutation", "createIssue", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := input(args)
		repoID, _ := str(in, "repositoryId")
		repo, err := a.repoByNodeID(ctx, repoID)
		if err != nil {
			return nil, err
		}
		if err := noProjects(in); err != nil {
			return nil, err
		}
		title, _ := str(in, "title")
		ii := issues.IssueInput{Title: &title}
		if b, ok := str(in, "body"); ok {
			ii.Body = &b
		}
		if ii.Labels, err = a.labelNames(ctx, repo.v.Repo.ID, idList(in["labelIds"])); err != nil {
			return nil, err
		}
		if ii.Assignees, err = a.users(ctx, idList(in["assigneeIds"])); err != nil {
			return nil, err
		}
		if m, ok := str(in, "milestoneId"); ok && m != "" {
			if ii.Milestone, err = a.milestone(ctx, repo.v.Repo.ID, m); err != nil {
				return nil, err
			}
		}
		if t, ok := str(in, "issueTypeId"); ok && t != "" {
			if ii.Type, err = a.issueTypeByNodeID(ctx, repo, t); err != nil {
				return nil, err
			}
		}
		is, err := svc.OpenIssue(ctx, caller(ctx), repo.v.Repo, repo.perm, ii)
		if err != nil {
			return nil, gqlError(err)
		}
		return &payload{clientMutationID: in["clientMutationId"], issue: &issueObj{is: is, repo: repo}}, nil
	})

	// edit runs an issue edit and answers with the issue as it is after.
	edit := func(ctx context.Context, in map[string]any, idKey string, change func(o *issueObj, ii *issues.IssueInput) error) (any, error) {
		id, _ := str(in, idKey)
		o, err := a.issueByNodeID(ctx, id)
		if err != nil {
			return nil, err
		}
		var ii issues.IssueInput
		if err := change(o, &ii); err != nil {
			return nil, err
		}
		if err := svc.ChangeIssue(ctx, caller(ctx), o.repo.v.Repo, o.repo.perm, o.is, ii); err != nil {
			return nil, gqlError(err)
		}
		is, err := a.d.Store.R().IssueByID(ctx, o.is.ID)
		if err != nil {
			return nil, err
		}
		after := &issueObj{is: is, repo: o.repo}
		if is.IsPull {
			pr, err := a.d.Store.R().PullByIssueID(ctx, is.ID)
			if err != nil {
				return nil, err
			}
			return &payload{clientMutationID: in["clientMutationId"], issue: a.pullOf(pr, o.repo)}, nil
		}
		return &payload{clientMutationID: in["clientMutationId"], issue: after}, nil
	}
	a.field("Mutation", "closeIssue", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := input(args)
		return edit(ctx, in, "issueId", func(o *issueObj, ii *issues.IssueInput) error {
			if o.is.IsPull {
				return notFound("Could not resolve to an Issue with the global id of '%s'", in["issueId"])
			}
			ii.State = "closed"
			switch in["stateReason"] {
			case "NOT_PLANNED":
				ii.Reason = "not_planned"
			case "DUPLICATE":
				return engine.Errorf("UNPROCESSABLE", "hubd closes issues as duplicates through REST (state_reason duplicate with duplicate_issue_id).")
			default:
				ii.Reason = "completed"
			}
			return nil
		})
	})
	a.field("Mutation", "reopenIssue", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := input(args)
		return edit(ctx, in, "issueId", func(o *issueObj, ii *issues.IssueInput) error {
			if o.is.IsPull {
				return notFound("Could not resolve to an Issue with the global id of '%s'", in["issueId"])
			}
			ii.State = "open"
			return nil
		})
	})
	a.field("Mutation", "updateIssue", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := input(args)
		return edit(ctx, in, "id", func(o *issueObj, ii *issues.IssueInput) error {
			if o.is.IsPull {
				return notFound("Could not resolve to an Issue with the global id of '%s'", in["id"])
			}
			if err := noProjects(in); err != nil {
				return err
			}
			if t, ok := str(in, "title"); ok {
				ii.Title = &t
			}
			if b, ok := in["body"]; ok {
				ii.BodySet = true
				if s, ok := b.(string); ok {
					ii.Body = &s
				}
			}
			switch in["state"] {
			case "OPEN":
				ii.State = "open"
			case "CLOSED":
				ii.State = "closed"
			}
			var err error
			if v, ok := in["labelIds"]; ok {
				ii.SetLabels = true
				if ii.Labels, err = a.labelNames(ctx, o.repo.v.Repo.ID, idList(v)); err != nil {
					return err
				}
			}
			if v, ok := in["assigneeIds"]; ok {
				ii.SetAssignees = true
				if ii.Assignees, err = a.users(ctx, idList(v)); err != nil {
					return err
				}
			}
			if v, ok := in["milestoneId"]; ok {
				ii.SetMilestone = true
				if s, _ := v.(string); s != "" {
					if ii.Milestone, err = a.milestone(ctx, o.repo.v.Repo.ID, s); err != nil {
						return err
					}
				}
			}
			return nil
		})
	})
	labels := func(mode string) func(ctx context.Context, _ any, args map[string]any) (any, error) {
		return func(ctx context.Context, _ any, args map[string]any) (any, error) {
			in := input(args)
			field := map[string]string{"add": "addLabelsToLabelable", "remove": "removeLabelsFromLabelable"}[mode]
			if id, _ := str(in, "labelableId"); isDiscussionID(id) {
				if err := guardTarget(ctx, field, "Discussion"); err != nil {
					return nil, err
				}
				o, err := a.discussionLabels(ctx, in, mode == "add")
				if err != nil {
					return nil, err
				}
				return &payload{clientMutationID: in["clientMutationId"], issue: o}, nil
			}
			if err := guardTarget(ctx, field, "Issue"); err != nil {
				return nil, err
			}
			return edit(ctx, in, "labelableId", func(o *issueObj, ii *issues.IssueInput) error {
				names, err := a.labelNames(ctx, o.repo.v.Repo.ID, idList(in["labelIds"]))
				ii.SetLabels, ii.Labels, ii.LabelMode = true, names, mode
				return err
			})
		}
	}
	a.field("Mutation", "addLabelsToLabelable", labels("add"))
	a.field("Mutation", "removeLabelsFromLabelable", labels("remove"))
	assignees := func(mode string) func(ctx context.Context, _ any, args map[string]any) (any, error) {
		return func(ctx context.Context, _ any, args map[string]any) (any, error) {
			in := input(args)
			return edit(ctx, in, "assignableId", func(o *issueObj, ii *issues.IssueInput) error {
				users, err := a.users(ctx, idList(in["assigneeIds"]))
				ii.SetAssignees, ii.Assignees, ii.AssigneeMode = true, users, mode
				return err
			})
		}
	}
	a.field("Mutation", "addAssigneesToAssignable", assignees("add"))
	a.field("Mutation", "removeAssigneesFromAssignable", assignees("remove"))
	a.field("Mutation", "addComment", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := input(args)
		id, _ := str(in, "subjectId")
		o, err := a.issueByNodeID(ctx, id)
		if err != nil {
			return nil, err
		}
		body, _ := str(in, "body")
		c, err := svc.AddComment(ctx, caller(ctx), o.repo.v.Repo, o.repo.perm, o.is.Number, body)
		if err != nil {
			return nil, gqlError(err)
		}
		full, err := a.d.Store.R().CommentByID(ctx, o.repo.v.Repo.ID, c.ID)
		if err != nil {
			return nil, err
		}
		is, err := a.d.Store.R().IssueByID(ctx, o.is.ID)
		if err != nil {
			return nil, err
		}
		after := &issueObj{is: is, repo: o.repo}
		var subject any = after
		if o.is.IsPull {
			pr, err := a.d.Store.R().PullByIssueID(ctx, o.is.ID)
			if err != nil {
				return nil, err
			}
			subject = a.pullOf(pr, o.repo)
		}
		return &payload{clientMutationID: in["clientMutationId"], issue: subject, comment: &commentObj{c: full, issue: o}}, nil
	})

	for _, typ := range []string{"CreateIssuePayload", "CloseIssuePayload", "ReopenIssuePayload", "UpdateIssuePayload",
		"AddLabelsToLabelablePayload", "RemoveLabelsFromLabelablePayload", "AddAssigneesToAssignablePayload",
		"RemoveAssigneesFromAssignablePayload", "AddCommentPayload"} {
		a.field(typ, "clientMutationId", func(_ context.Context, p any, _ map[string]any) (any, error) {
			return p.(*payload).clientMutationID, nil
		})
	}
	for typ, f := range map[string]string{"CreateIssuePayload": "issue", "CloseIssuePayload": "issue", "ReopenIssuePayload": "issue",
		"UpdateIssuePayload": "issue", "AddLabelsToLabelablePayload": "labelable", "RemoveLabelsFromLabelablePayload": "labelable",
		"AddAssigneesToAssignablePayload": "assignable", "RemoveAssigneesFromAssignablePayload": "assignable", "AddCommentPayload": "subject"} {
		a.field(typ, f, func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*payload).issue, nil })
	}
	a.field("UpdateIssuePayload", "actor", func(ctx context.Context, _ any, _ map[string]any) (any, error) {
		return from(ctx).caller.User, nil
	})
	a.field("AddCommentPayload", "commentEdge", func(_ context.Context, p any, _ map[string]any) (any, error) {
		c := p.(*payload).comment
		// The new comment is the last of the issue's comments.
		return &edge{node: c, cursor: encodeCursor(c.issue.is.Comments)}, nil
	})
}
