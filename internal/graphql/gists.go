package graphql

import (
	"context"
	"path"
	"strings"

	"github.com/hubd/hubd/internal/gists"
	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/wire"
)

// Gists: the gists service of /gists (gh gist list asks viewer.gists).

// gistFileObj is one GistFile: a file of a gist's current revision.
type gistFileObj struct {
	g *model.Gist
	f model.GistFile
}

func (a *API) registerGists(svc *gists.Service) {
	a.connectionTypes("GistConnection", "GistEdge")

	// A user's gists: public ones, and the viewer's own secret ones when
	// privacy asks (SECRET or ALL), as GitHub.
	a.schema.Resolve("User", "gists", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		u := p.(*model.Account)
		q := gists.ListQuery{Privacy: "PUBLIC"}
		if v, ok := b.Args["privacy"].(string); ok {
			q.Privacy = v
		}
		if ob, ok := b.Args["orderBy"].(map[string]any); ok {
			q.OrderUpdated = ob["field"] == "UPDATED_AT" || ob["field"] == "PUSHED_AT"
			q.Asc = ob["direction"] == "ASC"
		}
		c := from(ctx).caller
		conn, list, err := counted(ctx, b, "gists", func(limit, offset int) ([]*model.Gist, int, error) {
			q.Limit, q.Offset = limit, offset
			return svc.ByUser(ctx, c, u, q)
		})
		if err != nil {
			return nil, gqlError(err)
		}
		for _, g := range list {
			conn.nodes = append(conn.nodes, g)
		}
		return conn, nil
	}))
	a.field("User", "gist", func(ctx context.Context, p any, args map[string]any) (any, error) {
		name, _ := args["name"].(string)
		g, err := svc.Get(ctx, name)
		if err != nil || g.OwnerID != p.(*model.Account).ID {
			return nil, nil
		}
		return g, nil
	})

	gf := func(name string, f func(g *model.Gist) any) {
		a.field("Gist", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*model.Gist)), nil })
	}
	gf("id", func(g *model.Gist) any { return wire.NodeID("G", g.ID) })
	gf("name", func(g *model.Gist) any { return g.Name })
	gf("description", func(g *model.Gist) any {
		if g.Description == nil {
			return nil
		}
		return *g.Description
	})
	gf("isPublic", func(g *model.Gist) any { return g.Public })
	gf("isFork", func(g *model.Gist) any { return g.ForkOf != 0 })
	gf("createdAt", func(g *model.Gist) any { return g.CreatedAt })
	gf("updatedAt", func(g *model.Gist) any { return g.UpdatedAt })
	gf("pushedAt", func(g *model.Gist) any { return g.UpdatedAt })
	gf("url", func(g *model.Gist) any { return a.d.URLs.GistHTMLURL(g) })
	gf("resourcePath", func(g *model.Gist) any { return "/gist/" + g.Name })
	gf("owner", func(g *model.Gist) any { return g.Owner })
	a.schema.Resolve("Gist", "stargazerCount", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		list := make([]*model.Gist, len(b.Parents))
		for i, p := range b.Parents {
			list[i] = p.(*model.Gist)
		}
		counts, err := svc.StarCounts(ctx, list)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(list))
		for i, g := range list {
			out[i] = counts[g.ID]
		}
		return out, nil
	})
	a.schema.Resolve("Gist", "viewerHasStarred", func(ctx context.Context, b *engine.Batch) ([]any, error) {
		list := make([]*model.Gist, len(b.Parents))
		for i, p := range b.Parents {
			list[i] = p.(*model.Gist)
		}
		starred, err := svc.StarredBy(ctx, from(ctx).caller.UserID(), list)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(list))
		for i, g := range list {
			out[i] = starred[g.ID]
		}
		return out, nil
	})
	a.field("Gist", "files", func(_ context.Context, p any, args map[string]any) (any, error) {
		g := p.(*model.Gist)
		limit := 10 // GitHub's default
		if v, ok := intArg(args, "limit"); ok {
			limit = v
		}
		if limit < 0 {
			limit = 0
		}
		out := []*gistFileObj{}
		for i, f := range g.Files {
			if i == limit {
				break
			}
			out = append(out, &gistFileObj{g: g, f: f})
		}
		return out, nil
	})

	ff := func(name string, f func(o *gistFileObj) any) {
		a.field("GistFile", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*gistFileObj)), nil })
	}
	ff("name", func(o *gistFileObj) any { return o.f.Name })
	ff("encodedName", func(o *gistFileObj) any { return o.f.Name })
	ff("encoding", func(o *gistFileObj) any { return "UTF-8" })
	ff("extension", func(o *gistFileObj) any { return path.Ext(o.f.Name) })
	ff("size", func(o *gistFileObj) any { return o.f.Size })
	ff("isImage", func(o *gistFileObj) any { return strings.HasPrefix(wire.GistFileType(o.f.Name), "image/") })
	ff("isTruncated", func(o *gistFileObj) any { return o.f.Size > gists.MaxContent })
	a.field("GistFile", "text", func(ctx context.Context, p any, args map[string]any) (any, error) {
		o := p.(*gistFileObj)
		max := int64(gists.MaxContent)
		if v, ok := intArg(args, "truncate"); ok && v >= 0 && int64(v) < max {
			max = int64(v)
		}
		c, err := svc.Text(ctx, o.g, o.f, max)
		if err != nil {
			return nil, err
		}
		return c.Text, nil
	})
}
