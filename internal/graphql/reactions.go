package graphql

import (
	"context"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
)

// reactionGroup is one ReactionContent of a subject, with its count.
type reactionGroup struct {
	subject   string // the store's subject type: issue, comment
	subjectID int64
	content   string // REST's name: +1, -1, laugh, ...
	count     int
}

// reactingUser is a ReactingUserEdge: the user and when they reacted.
type reactingUser struct {
	r *model.Reaction
}

// GitHub's ReactionContent order of reactionGroups, with REST's names.
var reactionEnum = []struct{ rest, gql string }{
	{"+1", "THUMBS_UP"}, {"-1", "THUMBS_DOWN"}, {"laugh", "LAUGH"}, {"hooray", "HOORAY"},
	{"confused", "CONFUSED"}, {"heart", "HEART"}, {"rocket", "ROCKET"}, {"eyes", "EYES"},
}

// groups are the eight reaction groups of a subject, as GitHub lists them
// (every content, counts from the subject's rollup).
func groups(subject string, id int64, rollup model.ReactionRollup) []*reactionGroup {
	out := make([]*reactionGroup, len(reactionEnum))
	for i, e := range reactionEnum {
		out[i] = &reactionGroup{subject: subject, subjectID: id, content: e.rest, count: rollup[e.rest]}
	}
	return out
}

func (a *API) registerReactions() {
	for _, typ := range []string{"Issue", "PullRequest"} {
		a.schema.Resolve(typ, "reactionGroups", func(ctx context.Context, b *engine.Batch) ([]any, error) {
			if err := a.details(ctx, b.Parents); err != nil { // loads the rollups
				return nil, err
			}
			out := make([]any, len(b.Parents))
			for i, p := range b.Parents {
				is := asIssue(p).is
				out[i] = groups("issue", is.ID, is.Rollup)
			}
			return out, nil
		})
	}
	a.field("IssueComment", "reactionGroups", func(_ context.Context, p any, _ map[string]any) (any, error) {
		c := p.(*commentObj).c
		return groups("comment", c.ID, c.Rollup), nil
	})
	a.field("ReactionGroup", "content", func(_ context.Context, p any, _ map[string]any) (any, error) {
		g := p.(*reactionGroup)
		for _, e := range reactionEnum {
			if e.rest == g.content {
				return e.gql, nil
			}
		}
		return nil, nil
	})
	a.schema.Resolve("ReactionGroup", "users", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		g := p.(*reactionGroup)
		w, err := pageWindow(b.Args, "users", engine.SelectsItems(b.Field.SelectionSet))
		if err != nil {
			return nil, err
		}
		start, end := w.bounds(g.count)
		start, end = min(start, g.count), min(end, g.count)
		c := &connection{offset: start, total: g.count}
		if end <= start {
			return c, nil
		}
		list, n, err := a.d.Store.R().ListReactions(ctx, g.subject, g.subjectID, g.content, end-start, start)
		if err != nil {
			return nil, err
		}
		c.total = n
		for _, r := range list {
			if r.User != nil {
				c.nodes = append(c.nodes, &reactingUser{r: r})
			}
		}
		return c, nil
	}))
	a.field("ReactingUserConnection", "totalCount", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*connection).total, nil })
	a.field("ReactingUserConnection", "pageInfo", func(_ context.Context, p any, _ map[string]any) (any, error) { return pageInfo{p.(*connection)}, nil })
	a.field("ReactingUserConnection", "nodes", func(_ context.Context, p any, _ map[string]any) (any, error) {
		c := p.(*connection)
		out := make([]any, len(c.nodes))
		for i, n := range c.nodes {
			out[i] = n.(*reactingUser).r.User
		}
		return out, nil
	})
	a.field("ReactingUserConnection", "edges", func(_ context.Context, p any, _ map[string]any) (any, error) {
		c := p.(*connection)
		out := make([]*edge, len(c.nodes))
		for i, n := range c.nodes {
			out[i] = &edge{node: n, cursor: encodeCursor(c.offset + i)}
		}
		return out, nil
	})
	a.field("ReactingUserEdge", "cursor", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*edge).cursor, nil })
	a.field("ReactingUserEdge", "node", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*edge).node.(*reactingUser).r.User, nil
	})
	a.field("ReactingUserEdge", "reactedAt", func(_ context.Context, p any, _ map[string]any) (any, error) {
		return p.(*edge).node.(*reactingUser).r.CreatedAt, nil
	})
}
