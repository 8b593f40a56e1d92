package graphql

import (
	"context"
	"time"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/stars"
)

// Starring and watching: the stars service of /user/starred and
// /repos/{owner}/{repo}/subscribers.

// stargazer is one StargazerEdge: a user and when they starred.
type stargazer struct {
	user   *model.Account
	at     time.Time
	cursor string
}

// counted pages a list the store pages itself (limit, offset) and whose
// total it knows cheaply, as GitHub's first/after/last/before ask.
func counted[T any](ctx context.Context, b *engine.Batch, conn string, fetch func(limit, offset int) ([]T, int, error)) (*connection, []T, error) {
	w, err := pageWindow(b.Args, conn, engine.SelectsItems(b.Field.SelectionSet))
	if err != nil {
		return nil, nil, err
	}
	total := -1
	if w.needTotal {
		if _, total, err = fetch(1, 0); err != nil {
			return nil, nil, err
		}
	}
	start, end := w.bounds(total)
	list, n, err := fetch(max(end-start, 1), start)
	if err != nil {
		return nil, nil, err
	}
	if end <= start {
		list = nil
	}
	return &connection{offset: start, total: n}, list, nil
}

func (a *API) registerStars(svc *stars.Service) {
	a.schema.Resolve("Repository", "viewerHasStarred", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		ids := make([]int64, len(b.Parents))
		for i, p := range b.Parents {
			ids[i] = p.(*repoObj).v.Repo.ID
		}
		starred, err := svc.StarredBy(ctx, from(ctx).caller.UserID(), ids)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(b.Parents))
		for i, id := range ids {
			out[i] = starred[id]
		}
		return out, nil
	})
	a.schema.Resolve("Repository", "stargazers", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		repo := p.(*repoObj).v.Repo
		c, list, err := counted(ctx, b, "stargazers", func(limit, offset int) ([]*stargazer, int, error) {
			page, total, err := svc.Stargazers(ctx, repo, limit, offset)
			out := make([]*stargazer, len(page))
			for i, s := range page {
				out[i] = &stargazer{user: s.User, at: s.StarredAt, cursor: encodeCursor(offset + i)}
			}
			return out, total, err
		})
		if err != nil {
			return nil, err
		}
		for _, s := range list {
			c.nodes = append(c.nodes, s)
		}
		return c, nil
	}))
	a.field("StargazerConnection", "totalCount", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*connection).total, nil })
	a.field("StargazerConnection", "pageInfo", func(_ context.Context, p any, _ map[string]any) (any, error) { return pageInfo{p.(*connection)}, nil })
	a.field("StargazerConnection", "nodes", func(_ context.Context, p any, _ map[string]any) (any, error) {
		out := make([]any, len(p.(*connection).nodes))
		for i, n := range p.(*connection).nodes {
			out[i] = n.(*stargazer).user
		}
		return out, nil
	})
	a.field("StargazerConnection", "edges", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*connection).nodes, nil })
	a.field("StargazerEdge", "node", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*stargazer).user, nil })
	a.field("StargazerEdge", "cursor", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*stargazer).cursor, nil })
	a.field("StargazerEdge", "starredAt", func(_ context.Context, p any, _ map[string]any) (any, error) { return p.(*stargazer).at, nil })

	a.schema.Resolve("Repository", "watchers", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		repo := p.(*repoObj).v.Repo
		c, list, err := counted(ctx, b, "watchers", func(limit, offset int) ([]*model.Account, int, error) {
			return svc.Watchers(ctx, repo, limit, offset)
		})
		if err != nil {
			return nil, err
		}
		for _, u := range list {
			c.nodes = append(c.nodes, u)
		}
		return c, nil
	}))

	input := func(args map[string]any) map[string]any {
		in, _ := args["input"].(map[string]any)
		return in
	}
	star := func(add bool) func(ctx context.Context, _ any, args map[string]any) (any, error) {
		return func(ctx context.Context, _ any, args map[string]any) (any, error) {
			in := input(args)
			id, _ := in["starrableId"].(string)
			if prefix, _, ok := decodeNodeID(id); ok && prefix == "G" {
				return a.starGist(ctx, id, add, in["clientMutationId"])
			}
			o, err := a.repoByNodeID(ctx, id) // hubd's other starrables are repositories
			if err != nil {
				return nil, err
			}
			change := svc.Unstar
			if add {
				change = svc.Star
			}
			if err := change(ctx, from(ctx).caller, o.v.Repo.ID); err != nil {
				return nil, gqlError(err)
			}
			// The count moved: read the repository again.
			objs, err := a.reposByID(ctx, []int64{o.v.Repo.ID})
			if err != nil {
				return nil, err
			}
			return &payload{clientMutationID: in["clientMutationId"], issue: objs[o.v.Repo.ID]}, nil
		}
	}
	a.field("Mutation", "addStar", star(true))
	a.field("Mutation", "removeStar", star(false))
	for _, typ := range []string{"AddStarPayload", "RemoveStarPayload"} {
		a.field(typ, "clientMutationId", func(_ context.Context, p any, _ map[string]any) (any, error) {
			return p.(*payload).clientMutationID, nil
		})
		a.field(typ, "starrable", func(_ context.Context, p any, _ map[string]any) (any, error) {
			switch o := p.(*payload).issue.(type) {
			case *repoObj:
				if o != nil {
					return o, nil
				}
			case *model.Gist:
				return o, nil
			}
			return nil, nil
		})
	}
}

// starGist stars or unstars the gist of node id through the gists service
// of PUT/DELETE /gists/{gist_id}/star.
func (a *API) starGist(ctx context.Context, id string, add bool, clientMutationID any) (any, error) {
	nodes, err := a.nodes(ctx, []string{id})
	if err != nil {
		return nil, err
	}
	g, _ := nodes[0].(*model.Gist)
	if g == nil {
		return nil, notFound("Could not resolve to a node with the global id of '%s'", id)
	}
	if err := a.gistsSvc.Star(ctx, from(ctx).caller, g.Name, add); err != nil {
		return nil, gqlError(err)
	}
	return &payload{clientMutationID: clientMutationID, issue: g}, nil
}
