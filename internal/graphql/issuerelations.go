package graphql

import (
	"context"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/wire"
)

// The issue mutations gh's issue commands run beyond create and edit:
// comment --edit-last (updateIssueComment), lock and unlock, sub-issues and
// blocked-by dependencies (edit --add-sub-issue, --blocked-by ...), each
// through the issue service with its REST twin's rules.

// relPayload answers a relation mutation: the issue, the other issue.
type relPayload struct {
	payload
	other any
}

// reloaded is an issue or pull request as it is after a write, answered
// as its GraphQL type.
func (a *API) reloaded(ctx context.Context, o *issueObj) (any, error) {
	is, err := a.d.Store.R().IssueByID(ctx, o.is.ID)
	if err != nil {
		return nil, err
	}
	if !is.IsPull {
		return &issueObj{is: is, repo: o.repo}, nil
	}
	pr, err := a.d.Store.R().PullByIssueID(ctx, is.ID)
	if err != nil {
		return nil, err
	}
	return a.pullOf(pr, o.repo), nil
}

// issueOnly resolves an Issue id (not a pull request's).
func (a *API) issueOnly(ctx context.Context, id string) (*issueObj, error) {
	o, err := a.issueByNodeID(ctx, id)
	if err == nil && o.is.IsPull {
		return nil, notFound("Could not resolve to an Issue with the global id of '%s'", id)
	}
	return o, err
}

// lockReasons maps GraphQL's LockReason onto REST's lock_reason.
var lockReasons = map[string]string{"OFF_TOPIC": "off-topic", "TOO_HEATED": "too heated", "RESOLVED": "resolved", "SPAM": "spam"}

func (a *API) registerIssueRelations(svc *issues.Service) {
	input := func(args map[string]any) map[string]any {
		in, _ := args["input"].(map[string]any)
		return in
	}
	str := func(in map[string]any, k string) string { s, _ := in[k].(string); return s }
	caller := func(ctx context.Context) *authz.Caller { return from(ctx).caller }
	// access is the caller's access to o's repository for a write needing
	// need (as the REST twin's route).
	access := func(ctx context.Context, o *issueObj, need authz.Permission) (*issues.Access, error) {
		x, err := svc.AccessTo(caller(ctx), o.repo.v.Repo, o.repo.perm, need)
		return x, gqlError(err)
	}

	a.field("Mutation", "updateIssueComment", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := input(args)
		id := str(in, "id")
		prefix, n, ok := decodeNodeID(id)
		if !ok || prefix != "IC" {
			return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
		}
		cs, err := a.d.Store.R().CommentsByID(ctx, []int64{n})
		if err != nil {
			return nil, err
		}
		c := cs[n]
		if c == nil {
			return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
		}
		objs, err := a.issuesAndPullsByID(ctx, []int64{c.IssueID})
		if err != nil {
			return nil, err
		}
		o := objs[c.IssueID]
		if o == nil {
			return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
		}
		if err := writeTarget(ctx, o.repo); err != nil {
			return nil, err
		}
		x, err := access(ctx, o, authz.Read)
		if err != nil {
			return nil, err
		}
		body := str(in, "body")
		if err := svc.UpdateComment(ctx, x, c.ID, &body); err != nil {
			return nil, gqlError(err)
		}
		after, err := a.d.Store.R().CommentByID(ctx, o.repo.v.Repo.ID, c.ID)
		if err != nil {
			return nil, err
		}
		return &payload{clientMutationID: in["clientMutationId"], comment: &commentObj{c: after, issue: o}}, nil
	})

	lock := func(locking bool) func(ctx context.Context, _ any, args map[string]any) (any, error) {
		return func(ctx context.Context, _ any, args map[string]any) (any, error) {
			in := input(args)
			field := "unlockLockable"
			if locking {
				field = "lockLockable"
			}
			if isDiscussionID(str(in, "lockableId")) {
				if err := guardTarget(ctx, field, "Discussion"); err != nil {
					return nil, err
				}
				o, err := a.discussionLock(ctx, in, locking)
				if err != nil {
					return nil, err
				}
				return &payload{clientMutationID: in["clientMutationId"], issue: o}, nil
			}
			if err := guardTarget(ctx, field, "Issue"); err != nil {
				return nil, err
			}
			o, err := a.issueByNodeID(ctx, str(in, "lockableId"))
			if err != nil {
				return nil, err
			}
			x, err := access(ctx, o, authz.Write)
			if err != nil {
				return nil, err
			}
			if locking {
				var reason *string
				if r, ok := lockReasons[str(in, "lockReason")]; ok {
					reason = &r
				}
				err = svc.Lock(ctx, x, o.is.Number, reason)
			} else {
				err = svc.Unlock(ctx, x, o.is.Number)
			}
			if err != nil {
				return nil, gqlError(err)
			}
			after, err := a.reloaded(ctx, o)
			if err != nil {
				return nil, err
			}
			return &payload{clientMutationID: in["clientMutationId"], issue: after}, nil
		}
	}
	a.field("Mutation", "lockLockable", lock(true))
	a.field("Mutation", "unlockLockable", lock(false))

	// relation runs a write between the input's issueId and the issue
	// under otherKey; the payload answers both as they are after.
	relation := func(otherKey string, write func(ctx context.Context, x *issues.Access, o, other *issueObj, in map[string]any) error) func(ctx context.Context, _ any, args map[string]any) (any, error) {
		return func(ctx context.Context, _ any, args map[string]any) (any, error) {
			in := input(args)
			o, err := a.issueOnly(ctx, str(in, "issueId"))
			if err != nil {
				return nil, err
			}
			other, err := a.issueOnly(ctx, str(in, otherKey))
			if err != nil {
				return nil, err
			}
			x, err := access(ctx, o, authz.Triage)
			if err != nil {
				return nil, err
			}
			if err := write(ctx, x, o, other, in); err != nil {
				return nil, gqlError(err)
			}
			objs, err := a.issuesAndPullsByID(ctx, []int64{o.is.ID, other.is.ID})
			if err != nil {
				return nil, err
			}
			return &relPayload{payload: payload{clientMutationID: in["clientMutationId"], issue: objs[o.is.ID]}, other: objs[other.is.ID]}, nil
		}
	}
	a.field("Mutation", "addSubIssue", func(ctx context.Context, p any, args map[string]any) (any, error) {
		in := input(args)
		if str(in, "subIssueId") == "" {
			if u := str(in, "subIssueUrl"); u != "" {
				id, err := a.issueIDByURL(ctx, u)
				if err != nil {
					return nil, err
				}
				in["subIssueId"] = id
			} else {
				return nil, engine.Errorf("UNPROCESSABLE", "Either subIssueId or subIssueUrl is required.")
			}
		}
		return relation("subIssueId", func(ctx context.Context, x *issues.Access, o, other *issueObj, in map[string]any) error {
			replace, _ := in["replaceParent"].(bool)
			return svc.AddSubIssue(ctx, x, o.is.ID, other.is.ID, replace)
		})(ctx, p, args)
	})
	a.field("Mutation", "removeSubIssue", relation("subIssueId", func(ctx context.Context, x *issues.Access, o, other *issueObj, _ map[string]any) error {
		return svc.RemoveSubIssue(ctx, x, o.is.ID, other.is.ID)
	}))
	a.field("Mutation", "reprioritizeSubIssue", relation("subIssueId", func(ctx context.Context, x *issues.Access, o, other *issueObj, in map[string]any) error {
		var after, before *int64
		for key, dst := range map[string]**int64{"afterId": &after, "beforeId": &before} {
			if s := str(in, key); s != "" {
				prefix, n, ok := decodeNodeID(s)
				if !ok || prefix != "I" {
					return notFound("Could not resolve to a node with the global id of '%s'", s)
				}
				*dst = &n
			}
		}
		return svc.ReprioritizeSubIssue(ctx, x, o.is.ID, other.is.ID, after, before)
	}))
	a.field("Mutation", "addBlockedBy", relation("blockingIssueId", func(ctx context.Context, x *issues.Access, o, other *issueObj, _ map[string]any) error {
		return svc.AddBlockedBy(ctx, x, o.is.ID, other.is.ID)
	}))
	a.field("Mutation", "removeBlockedBy", relation("blockingIssueId", func(ctx context.Context, x *issues.Access, o, other *issueObj, _ map[string]any) error {
		return svc.RemoveBlockedBy(ctx, x, o.is.ID, other.is.ID)
	}))

	// Payload fields.
	mutationID := func(p any) any {
		if r, ok := p.(*relPayload); ok {
			return r.clientMutationID
		}
		return p.(*payload).clientMutationID
	}
	for _, typ := range []string{"UpdateIssueCommentPayload", "LockLockablePayload", "UnlockLockablePayload", "AddSubIssuePayload",
		"RemoveSubIssuePayload", "ReprioritizeSubIssuePayload", "AddBlockedByPayload", "RemoveBlockedByPayload"} {
		a.field(typ, "clientMutationId", func(_ context.Context, p any, _ map[string]any) (any, error) { return mutationID(p), nil })
	}
	a.field("UpdateIssueCommentPayload", "issueComment", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*payload).comment, nil
	})
	for _, typ := range []string{"LockLockablePayload", "UnlockLockablePayload"} {
		a.field(typ, "actor", func(ctx context.Context, _ any, _ map[string]any) (any, error) { return from(ctx).caller.User, nil })
	}
	a.field("LockLockablePayload", "lockedRecord", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*payload).issue, nil })
	a.field("UnlockLockablePayload", "unlockedRecord", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*payload).issue, nil })
	orNil := func(v any) any {
		if o, ok := v.(*issueObj); ok && o != nil {
			return o
		}
		return nil
	}
	for typ, other := range map[string]string{"AddSubIssuePayload": "subIssue", "RemoveSubIssuePayload": "subIssue",
		"ReprioritizeSubIssuePayload": "", "AddBlockedByPayload": "blockingIssue", "RemoveBlockedByPayload": "blockingIssue"} {
		a.field(typ, "issue", func(_ context.Context, p any, _ map[string]any) (any, error) {
			return orNil(p.(*relPayload).issue), nil
		})
		if other != "" {
			a.field(typ, other, func(_ context.Context, p any, _ map[string]any) (any, error) {
				return orNil(p.(*relPayload).other), nil
			})
		}
	}

	// Issue.blockedBy and Issue.blocking: the dependencies, oldest first.
	for field, blocking := range map[string]bool{"blockedBy": false, "blocking": true} {
		a.schema.Resolve("Issue", field, engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
			o := asIssue(p)
			w, err := pageWindow(b.Args, field, engine.SelectsItems(b.Field.SelectionSet))
			if err != nil {
				return nil, err
			}
			q := a.d.Store.R()
			total, err := q.CountDependencies(ctx, o.is.ID, blocking)
			if err != nil {
				return nil, err
			}
			start, end := w.bounds(total)
			start, end = min(start, total), min(end, total)
			c := &connection{offset: start, total: total}
			if end <= start {
				return c, nil
			}
			list, _, err := q.ListDependencies(ctx, o.is.ID, blocking, end-start, start)
			if err != nil {
				return nil, err
			}
			ids := make([]int64, len(list))
			for i, is := range list {
				ids[i] = is.ID
			}
			// Issues in repositories the viewer may not see are left out.
			objs, err := a.issuesByID(ctx, ids)
			if err != nil {
				return nil, err
			}
			for _, id := range ids {
				if o := objs[id]; o != nil {
					c.nodes = append(c.nodes, o)
				}
			}
			return c, nil
		}))
	}
}

// issueIDByURL resolves an issue's web URL (…/{owner}/{repo}/issues/{n})
// to its node id, as addSubIssue's subIssueUrl.
func (a *API) issueIDByURL(ctx context.Context, u string) (string, error) {
	bad := notFound("Could not resolve to an Issue with the URL of '%s'.", u)
	parts := strings.Split(strings.TrimSuffix(u, "/"), "/")
	if len(parts) < 4 || parts[len(parts)-2] != "issues" {
		return "", bad
	}
	owner, name, num := parts[len(parts)-4], parts[len(parts)-3], parts[len(parts)-1]
	v, err := a.repoByName(ctx, owner, name, true)
	repo, _ := v.(*repoObj)
	if err != nil || repo == nil {
		return "", bad
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return "", bad
	}
	is, err := a.d.Store.R().IssueByNumber(ctx, repo.v.Repo.ID, n)
	if err != nil || is.IsPull {
		return "", bad
	}
	return wire.NodeID("I", is.ID), nil
}
