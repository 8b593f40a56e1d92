package graphql

import (
	"context"
	"errors"
	"net/url"
	"strings"

	"github.com/hubd/hubd/internal/graphql/engine"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/releases"
	"github.com/hubd/hubd/internal/wire"
)

// releaseObj is a release of a repository the viewer sees; latest is
// whether it is the repository's latest release.
type releaseObj struct {
	r      *model.Release
	repo   *repoObj
	latest bool
}

// registerReleases serves a repository's releases with the releases
// service of REST (drafts only for writers, GitHub's latest rule).
func (a *API) registerReleases() {
	svc := &releases.Service{Store: a.d.Store}
	access := func(ctx context.Context, o *repoObj) releases.Access {
		return releases.Access{Repo: o.v.Repo, Perm: o.perm, UserID: from(ctx).caller.UserID(), Auth: from(ctx).caller}
	}
	latestID := func(ctx context.Context, o *repoObj) (int64, error) {
		r, err := svc.Latest(ctx, access(ctx, o))
		if errors.Is(err, model.ErrNotFound) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		return r.ID, nil
	}
	a.connectionTypes("ReleaseConnection", "ReleaseEdge")
	a.schema.Resolve("Repository", "releases", engine.EachBatch(func(ctx context.Context, p any, b *engine.Batch) (any, error) {
		o := p.(*repoObj)
		w, err := pageWindow(b.Args, "releases", engine.SelectsItems(b.Field.SelectionSet))
		if err != nil {
			return nil, err
		}
		asc := false
		if ob, ok := b.Args["orderBy"].(map[string]any); ok {
			if ob["field"] == "NAME" {
				return nil, engine.Errorf("INVALID_ARGUMENTS", "hubd orders releases by CREATED_AT only.")
			}
			asc = ob["direction"] == "ASC"
		}
		acc := access(ctx, o)
		// The store lists newest first; total first when the window or an
		// ascending order needs it.
		total := -1
		if w.needTotal || asc {
			if _, total, err = svc.List(ctx, acc, 1, 0); err != nil {
				return nil, err
			}
		}
		start, end := w.bounds(total)
		c := &connection{offset: start}
		limit, offset := end-start, start
		if asc {
			offset = total - end
		}
		list, n, err := svc.List(ctx, acc, max(limit, 1), max(offset, 0))
		if err != nil {
			return nil, err
		}
		c.total = n
		if end <= start {
			return c, nil
		}
		if asc {
			for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
				list[i], list[j] = list[j], list[i]
			}
		}
		latest, err := latestID(ctx, o)
		if err != nil {
			return nil, err
		}
		for _, r := range list {
			c.nodes = append(c.nodes, &releaseObj{r: r, repo: o, latest: r.ID == latest})
		}
		return c, nil
	}))
	a.field("Repository", "release", func(ctx context.Context, p any, args map[string]any) (any, error) {
		o := p.(*repoObj)
		tag, _ := args["tagName"].(string)
		r, err := svc.ByTag(ctx, access(ctx, o), tag)
		if errors.Is(err, model.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		latest, err := latestID(ctx, o)
		if err != nil {
			return nil, err
		}
		return &releaseObj{r: r, repo: o, latest: r.ID == latest}, nil
	})
	a.field("Repository", "latestRelease", func(ctx context.Context, p any, _ map[string]any) (any, error) {
		o := p.(*repoObj)
		r, err := svc.Latest(ctx, access(ctx, o))
		if errors.Is(err, model.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return &releaseObj{r: r, repo: o, latest: true}, nil
	})
	re := func(name string, f func(o *releaseObj) any) {
		a.field("Release", name, func(_ context.Context, p any, _ map[string]any) (any, error) { return f(p.(*releaseObj)), nil })
	}
	re("id", func(o *releaseObj) any { return wire.NodeID("RE", o.r.ID) })
	re("databaseId", func(o *releaseObj) any { return o.r.ID })
	re("name", func(o *releaseObj) any { return o.r.Name })
	re("tagName", func(o *releaseObj) any { return o.r.TagName })
	re("description", func(o *releaseObj) any { return o.r.Body })
	re("isDraft", func(o *releaseObj) any { return o.r.Draft })
	re("isPrerelease", func(o *releaseObj) any { return o.r.Prerelease })
	re("isLatest", func(o *releaseObj) any { return o.latest })
	re("createdAt", func(o *releaseObj) any { return o.r.CreatedAt })
	re("publishedAt", func(o *releaseObj) any { return o.r.PublishedAt })
	re("updatedAt", func(o *releaseObj) any { return o.r.UpdatedAt })
	re("author", func(o *releaseObj) any {
		if o.r.Author == nil {
			return nil
		}
		return o.r.Author
	})
	re("repository", func(o *releaseObj) any { return o.repo })
	path := func(o *releaseObj) string {
		tag := o.r.TagName
		if o.r.Draft {
			tag = o.r.DraftKey
		}
		segs := strings.Split(tag, "/")
		for i, s := range segs {
			segs[i] = url.PathEscape(s)
		}
		return "/" + o.repo.v.Repo.FullName() + "/releases/tag/" + strings.Join(segs, "/")
	}
	re("url", func(o *releaseObj) any { return a.d.URLs.Web + path(o) })
	re("resourcePath", func(o *releaseObj) any { return path(o) })
}
