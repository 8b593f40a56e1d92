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

// resolver is a field resolver.
type resolver = func(ctx context.Context, _ any, args map[string]any) (any, error)

// onDisc is a mutation on the discussion named by the input's key: act
// writes through the service; the answer is the discussion after it.
func (a *API) onDisc(key string, act func(ctx context.Context, in map[string]any, x *discussions.Access, o *discObj) error) resolver {
	return func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := dInput(args)
		o, err := a.discByNodeID(ctx, dArg(in, key))
		if err != nil {
			return nil, err
		}
		if err := act(ctx, in, discAccess(ctx, o.repo), o); err != nil {
			return nil, gqlError(err)
		}
		after, err := a.reloadDisc(ctx, o)
		if err != nil {
			return nil, err
		}
		return &discPayload{clientMutationID: in["clientMutationId"], disc: after}, nil
	}
}

// onComment is a mutation on the discussion comment named by the input's
// key; the answer is the comment after it (its discussion when
// ofDisc, as for answers).
func (a *API) onComment(key string, ofDisc bool, act func(ctx context.Context, in map[string]any, x *discussions.Access, o *dcommentObj) error) resolver {
	return func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := dInput(args)
		o, err := a.dcommentByNodeID(ctx, dArg(in, key))
		if err != nil {
			return nil, err
		}
		if err := act(ctx, in, discAccess(ctx, o.disc.repo), o); err != nil {
			return nil, gqlError(err)
		}
		after, err := a.reloadComment(ctx, o)
		if err != nil {
			return nil, err
		}
		if ofDisc {
			return &discPayload{clientMutationID: in["clientMutationId"], disc: after.disc}, nil
		}
		return &discPayload{clientMutationID: in["clientMutationId"], comment: after}, nil
	}
}

// replyToID reads addDiscussionComment's replyToId (0: none).
func replyToID(in map[string]any) (int64, error) {
	s := dArg(in, "replyToId")
	if s == "" {
		return 0, nil
	}
	prefix, _, n, ok := decodeNodeID3(s)
	if !ok || prefix != "DC" {
		return 0, notFound("Could not resolve to a node with the global id of '%s'", s)
	}
	return n, nil
}

func (a *API) registerDiscussionMutations() {
	svc := a.discussionsSvc()
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
		after, err := a.reloadDisc(ctx, &discObj{d: d, repo: repo})
		if err != nil {
			return nil, err
		}
		return &discPayload{clientMutationID: in["clientMutationId"], disc: after}, nil
	})
	a.field("Mutation", "updateDiscussion", a.onDisc("discussionId", func(ctx context.Context, in map[string]any, x *discussions.Access, o *discObj) error {
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
				return err
			}
			ui.CategoryID = &id
		}
		return svc.Update(ctx, x, o.d, ui)
	}))
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
	a.field("Mutation", "closeDiscussion", a.onDisc("discussionId", func(ctx context.Context, in map[string]any, x *discussions.Access, o *discObj) error {
		return svc.Close(ctx, x, o.d, dArg(in, "reason"))
	}))
	a.field("Mutation", "reopenDiscussion", a.onDisc("discussionId", func(ctx context.Context, _ map[string]any, x *discussions.Access, o *discObj) error {
		return svc.Reopen(ctx, x, o.d)
	}))
	a.field("Mutation", "addDiscussionComment", func(ctx context.Context, _ any, args map[string]any) (any, error) {
		in := dInput(args)
		o, err := a.discByNodeID(ctx, dArg(in, "discussionId"))
		if err != nil {
			return nil, err
		}
		replyTo, err := replyToID(in)
		if err != nil {
			return nil, err
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
	a.field("Mutation", "updateDiscussionComment", a.onComment("commentId", false, func(ctx context.Context, in map[string]any, x *discussions.Access, o *dcommentObj) error {
		return svc.UpdateComment(ctx, x, o.disc.d, o.c, dArg(in, "body"))
	}))
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
	for name, mark := range map[string]bool{"markDiscussionCommentAsAnswer": true, "unmarkDiscussionCommentAsAnswer": false} {
		a.field("Mutation", name, a.onComment("id", true, func(ctx context.Context, _ map[string]any, x *discussions.Access, o *dcommentObj) error {
			return svc.MarkAnswer(ctx, x, o.disc.d, o.c, mark)
		}))
	}
	for name, on := range map[string]bool{"addUpvote": true, "removeUpvote": false} {
		onDisc := a.onDisc("subjectId", func(ctx context.Context, _ map[string]any, x *discussions.Access, o *discObj) error {
			return svc.Upvote(ctx, x, store.UpvoteDiscussion, o.d.ID, on)
		})
		onComment := a.onComment("subjectId", false, func(ctx context.Context, _ map[string]any, x *discussions.Access, o *dcommentObj) error {
			return svc.Upvote(ctx, x, store.UpvoteComment, o.c.ID, on)
		})
		a.field("Mutation", name, func(ctx context.Context, p any, args map[string]any) (any, error) {
			id := dArg(dInput(args), "subjectId")
			prefix, _, _, _ := decodeNodeID3(id)
			var out any
			var err error
			switch prefix {
			case "D":
				out, err = onDisc(ctx, p, args)
			case "DC":
				out, err = onComment(ctx, p, args)
			default:
				return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
			}
			if pl, ok := out.(*discPayload); ok && err == nil {
				// The upvotable is the subject either way.
				if pl.disc != nil {
					pl.subject = pl.disc
				} else {
					pl.subject = pl.comment
				}
			}
			return out, err
		})
	}

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
