package graphql

import (
	"context"

	"github.com/hubd/hubd/internal/discussions"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// discPayload is the payload of a discussion mutation.
type discPayload struct {
	clientMutationID any
	disc             *discObj
	comment          *dcommentObj
	subject          any // addUpvote, removeUpvote
}

func dArg(in map[string]any, k string) string { s, _ := in[k].(string); return s }

func dInput(args map[string]any) map[string]any {
	in, _ := args["input"].(map[string]any)
	return in
}

// discByNodeID is a discussion the viewer may see, by its id, with its
// repository (for a mutation: inside the caller's grant).
func (a *API) discByNodeID(ctx context.Context, id string) (*discObj, error) {
	miss := notFound("Could not resolve to a node with the global id of '%s'", id)
	prefix, _, n, ok := decodeNodeID3(id)
	if !ok || prefix != "D" {
		return nil, miss
	}
	m, err := a.d.Store.R().DiscussionsByID(ctx, []int64{n})
	if err != nil {
		return nil, err
	}
	d := m[n]
	if d == nil {
		return nil, miss
	}
	repos, err := a.reposByID(ctx, []int64{d.RepoID})
	if err != nil {
		return nil, err
	}
	r := repos[d.RepoID]
	if r == nil || !r.v.Repo.HasDiscussions {
		return nil, miss
	}
	if err := writeTarget(ctx, r); err != nil {
		return nil, err
	}
	return &discObj{d: d, repo: r}, nil
}

// dcommentByNodeID is a discussion comment the viewer may see, by its id.
func (a *API) dcommentByNodeID(ctx context.Context, id string) (*dcommentObj, error) {
	miss := notFound("Could not resolve to a node with the global id of '%s'", id)
	prefix, _, n, ok := decodeNodeID3(id)
	if !ok || prefix != "DC" {
		return nil, miss
	}
	m, err := a.d.Store.R().DiscussionCommentsByID(ctx, []int64{n})
	if err != nil {
		return nil, err
	}
	c := m[n]
	if c == nil {
		return nil, miss
	}
	o, err := a.discByNodeID(ctx, nodeID3("D", c.RepoID, c.DiscussionID))
	if err != nil {
		return nil, miss
	}
	return &dcommentObj{c: c, disc: o}, nil
}

// reloadDisc is a discussion as it is after a write.
func (a *API) reloadDisc(ctx context.Context, o *discObj) (*discObj, error) {
	m, err := a.d.Store.R().DiscussionsByID(ctx, []int64{o.d.ID})
	if err != nil {
		return nil, err
	}
	if m[o.d.ID] == nil {
		return nil, model.ErrNotFound
	}
	return &discObj{d: m[o.d.ID], repo: o.repo}, nil
}

func (a *API) reloadComment(ctx context.Context, o *dcommentObj) (*dcommentObj, error) {
	m, err := a.d.Store.R().DiscussionCommentsByID(ctx, []int64{o.c.ID})
	if err != nil {
		return nil, err
	}
	if m[o.c.ID] == nil {
		return nil, model.ErrNotFound
	}
	disc, err := a.reloadDisc(ctx, o.disc)
	if err != nil {
		return nil, err
	}
	return &dcommentObj{c: m[o.c.ID], disc: disc}, nil
}

// categoryID reads a DiscussionCategory id.
func categoryID(s string) (int64, error) {
	prefix, _, n, ok := decodeNodeID3(s)
	if !ok || prefix != "DIC" {
		return 0, notFound("Could not resolve to a node with the global id of '%s'", s)
	}
	return n, nil
}

func (a *API) registerDiscussionMutations() {
	svc := a.discussionsSvc()
	// afterDisc answers a discussion mutation with the discussion after it.
	afterDisc := func(ctx context.Context, in map[string]any, o *discObj, err error) (any, error) {
		if err != nil {
			return nil, gqlError(err)
		}
		after, err := a.reloadDisc(ctx, o)
		if err != nil {
			return nil, err
		}
		return &discPayload{clientMutationID: in["clientMutationId"], disc: after}, nil
	}
	a.field("Mutation", "createDiscussion", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := dInput(args)
		repo, err := a.repoByNodeID(ctx, dArg(in, "repositoryId"))
		if err != nil {
			return nil, err
		}
		cat, err := categoryID(dArg(in, "categoryId"))
		if err != nil {
			return nil, err
		}
		d, err := svc.Create(ctx, discAccess(ctx, repo), cat, dArg(in, "title"), dArg(in, "body"))
		if err != nil {
			return nil, gqlError(err)
		}
		return afterDisc(ctx, in, &discObj{d: d, repo: repo}, nil)
	})
	a.field("Mutation", "updateDiscussion", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := dInput(args)
		o, err := a.discByNodeID(ctx, dArg(in, "discussionId"))
		if err != nil {
			return nil, err
		}
		var ui discussions.Input
		if v, ok := in["title"].(string); ok {
			ui.Title = &v
		}
		if v, ok := in["body"].(string); ok {
			ui.Body = &v
		}
		if v, ok := in["categoryId"].(string); ok && v != "" {
			id, err := categoryID(v)
			if err != nil {
				return nil, err
			}
			ui.CategoryID = &id
		}
		return afterDisc(ctx, in, o, svc.Update(ctx, discAccess(ctx, o.repo), o.d, ui))
	})
	a.field("Mutation", "deleteDiscussion", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := dInput(args)
		o, err := a.discByNodeID(ctx, dArg(in, "id"))
		if err != nil {
			return nil, err
		}
		if err := svc.Delete(ctx, discAccess(ctx, o.repo), o.d); err != nil {
			return nil, gqlError(err)
		}
		return &discPayload{clientMutationID: in["clientMutationId"], disc: o}, nil
	})
	a.field("Mutation", "closeDiscussion", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := dInput(args)
		o, err := a.discByNodeID(ctx, dArg(in, "discussionId"))
		if err != nil {
			return nil, err
		}
		return afterDisc(ctx, in, o, svc.Close(ctx, discAccess(ctx, o.repo), o.d, dArg(in, "reason")))
	})
	a.field("Mutation", "reopenDiscussion", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := dInput(args)
		o, err := a.discByNodeID(ctx, dArg(in, "discussionId"))
		if err != nil {
			return nil, err
		}
		return afterDisc(ctx, in, o, svc.Reopen(ctx, discAccess(ctx, o.repo), o.d))
	})
	a.field("Mutation", "addDiscussionComment", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := dInput(args)
		o, err := a.discByNodeID(ctx, dArg(in, "discussionId"))
		if err != nil {
			return nil, err
		}
		var replyTo int64
		if s := dArg(in, "replyToId"); s != "" {
			prefix, _, n, ok := decodeNodeID3(s)
			if !ok || prefix != "DC" {
				return nil, notFound("Could not resolve to a node with the global id of '%s'", s)
			}
			replyTo = n
		}
		c, err := svc.AddComment(ctx, discAccess(ctx, o.repo), o.d, dArg(in, "body"), replyTo)
		if err != nil {
			return nil, gqlError(err)
		}
		after, err := a.reloadComment(ctx, &dcommentObj{c: c, disc: o})
		if err != nil {
			return nil, err
		}
		return &discPayload{clientMutationID: in["clientMutationId"], comment: after}, nil
	})
	a.field("Mutation", "updateDiscussionComment", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := dInput(args)
		o, err := a.dcommentByNodeID(ctx, dArg(in, "commentId"))
		if err != nil {
			return nil, err
		}
		if err := svc.UpdateComment(ctx, discAccess(ctx, o.disc.repo), o.disc.d, o.c, dArg(in, "body")); err != nil {
			return nil, gqlError(err)
		}
		after, err := a.reloadComment(ctx, o)
		if err != nil {
			return nil, err
		}
		return &discPayload{clientMutationID: in["clientMutationId"], comment: after}, nil
	})
	a.field("Mutation", "deleteDiscussionComment", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := dInput(args)
		o, err := a.dcommentByNodeID(ctx, dArg(in, "id"))
		if err != nil {
			return nil, err
		}
		if err := svc.DeleteComment(ctx, discAccess(ctx, o.disc.repo), o.disc.d, o.c); err != nil {
			return nil, gqlError(err)
		}
		return &discPayload{clientMutationID: in["clientMutationId"], comment: o}, nil
	})
	answer := func(mark bool) func(ctx context.Context, _ any, args map[string]any) (any, error) {
		return func(ctx context.Context, _ any, args map[string]any) (any, error) {
			in := dInput(args)
			o, err := a.dcommentByNodeID(ctx, dArg(in, "id"))
			if err != nil {
				return nil, err
			}
			return afterDisc(ctx, in, o.disc, svc.MarkAnswer(ctx, discAccess(ctx, o.disc.repo), o.disc.d, o.c, mark))
		}
	}
	a.field("Mutation", "markDiscussionCommentAsAnswer", answer(true))
	a.field("Mutation", "unmarkDiscussionCommentAsAnswer", answer(false))
	upvote := func(on bool) func(ctx context.Context, _ any, args map[string]any) (any, error) {
		return func(ctx context.Context, _ any, args map[string]any) (any, error) {
			in := dInput(args)
			id := dArg(in, "subjectId")
			prefix, _, _, _ := decodeNodeID3(id)
			switch prefix {
			case "D":
				o, err := a.discByNodeID(ctx, id)
				if err != nil {
					return nil, err
				}
				if err := svc.Upvote(ctx, discAccess(ctx, o.repo), store.UpvoteDiscussion, o.d.ID, on); err != nil {
					return nil, gqlError(err)
				}
				after, err := a.reloadDisc(ctx, o)
				if err != nil {
					return nil, err
				}
				return &discPayload{clientMutationID: in["clientMutationId"], subject: after}, nil
			case "DC":
				o, err := a.dcommentByNodeID(ctx, id)
				if err != nil {
					return nil, err
				}
				if err := svc.Upvote(ctx, discAccess(ctx, o.disc.repo), store.UpvoteComment, o.c.ID, on); err != nil {
					return nil, gqlError(err)
				}
				after, err := a.reloadComment(ctx, o)
				if err != nil {
					return nil, err
				}
				return &discPayload{clientMutationID: in["clientMutationId"], subject: after}, nil
			}
			return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
		}
	}
	a.field("Mutation", "addUpvote", upvote(true))
	a.field("Mutation", "removeUpvote", upvote(false))

	for _, typ := range []string{"CreateDiscussionPayload", "UpdateDiscussionPayload", "DeleteDiscussionPayload", "CloseDiscussionPayload",
		"ReopenDiscussionPayload", "AddDiscussionCommentPayload", "UpdateDiscussionCommentPayload", "DeleteDiscussionCommentPayload",
		"MarkDiscussionCommentAsAnswerPayload", "UnmarkDiscussionCommentAsAnswerPayload", "AddUpvotePayload", "RemoveUpvotePayload"} {
		a.field(typ, "clientMutationId", func(_ context.Context, p any, _ map[string]any) (any, error) {
			return p.(*discPayload).clientMutationID, nil
		})
	}
	for _, typ := range []string{"CreateDiscussionPayload", "UpdateDiscussionPayload", "DeleteDiscussionPayload", "CloseDiscussionPayload",
		"ReopenDiscussionPayload", "MarkDiscussionCommentAsAnswerPayload", "UnmarkDiscussionCommentAsAnswerPayload"} {
		a.field(typ, "discussion", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*discPayload).disc, nil })
	}
	for _, typ := range []string{"AddDiscussionCommentPayload", "UpdateDiscussionCommentPayload", "DeleteDiscussionCommentPayload"} {
		a.field(typ, "comment", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*discPayload).comment, nil })
	}
	for _, typ := range []string{"AddUpvotePayload", "RemoveUpvotePayload"} {
		a.field(typ, "subject", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*discPayload).subject, nil })
	}
}

// discussionLabels serves addLabelsToLabelable and
// removeLabelsFromLabelable for a discussion: the labelable is the
// discussion after the change.
func (a *API) discussionLabels(ctx context.Context, in map[string]any, on bool) (*discObj, error) {
	o, err := a.discByNodeID(ctx, dArg(in, "labelableId"))
	if err != nil {
		return nil, err
	}
	var nums []int64
	for _, s := range idList(in["labelIds"]) {
		prefix, n, ok := decodeNodeID(s)
		if !ok || prefix != "LA" {
			return nil, notFound("Could not resolve to a node with the global id of '%s'", s)
		}
		nums = append(nums, n)
	}
	m, err := a.d.Store.R().LabelsByID(ctx, nums)
	if err != nil {
		return nil, err
	}
	labels := make([]*model.Label, 0, len(nums))
	for _, n := range nums {
		if m[n] == nil || m[n].RepoID != o.repo.v.Repo.ID {
			return nil, notFound("Could not resolve to a node with the global id of '%s'", "LA")
		}
		labels = append(labels, m[n])
	}
	if err := a.discussionsSvc().SetLabels(ctx, discAccess(ctx, o.repo), o.d, labels, on); err != nil {
		return nil, gqlError(err)
	}
	return a.reloadDisc(ctx, o)
}

// discussionLock serves lockLockable and unlockLockable for a discussion.
func (a *API) discussionLock(ctx context.Context, in map[string]any, lock bool) (*discObj, error) {
	o, err := a.discByNodeID(ctx, dArg(in, "lockableId"))
	if err != nil {
		return nil, err
	}
	if err := a.discussionsSvc().Lock(ctx, discAccess(ctx, o.repo), o.d, lock, dArg(in, "lockReason")); err != nil {
		return nil, gqlError(err)
	}
	return a.reloadDisc(ctx, o)
}

// isDiscussionID reports whether a global id names a discussion.
func isDiscussionID(id string) bool {
	prefix, _, _, ok := decodeNodeID3(id)
	return ok && prefix == "D"
}
