package web

import (
	"errors"
	"html/template"
	"strings"

	"github.com/hubd/hubd/internal/markdown/linked"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/releases"
	"github.com/hubd/hubd/internal/wire"
)

type releaseView struct {
	Head
	Release    *model.Release
	Title, Tag string
	Notes      template.HTML
	Assets     []wire.ReleaseAsset
	Zip, Tar   string
	Draft, Pre bool
	TagHref    string
}

// releasePage serves /releases/tag/{tag...}, a release's html_url: its
// title, tag, author, notes rendered as on GitHub, and its assets linked
// at their browser_download_url, with the source archives. A draft is
// seen (by its untagged-... key) only by those who may push.
func (x *req) releasePage() bool {
	if len(x.pg.rest) < 2 || x.pg.rest[0] != "tag" {
		return x.notFound()
	}
	tag := strings.Join(x.pg.rest[1:], "/")
	acc := releases.Access{Repo: x.repo, Perm: x.perm, UserID: x.caller().UserID(), Auth: x.caller()}
	r, err := (&releases.Service{Store: x.h.d.Store}).ByPath(x.r.Context(), acc, tag)
	if errors.Is(err, model.ErrNotFound) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	v := releaseView{Head: x.head("code"), Release: r, Tag: r.TagName, Draft: r.Draft, Pre: r.Prerelease,
		TagHref: x.base + "/tree/" + r.TagName}
	v.Title = r.TagName
	if r.Name != nil && *r.Name != "" {
		v.Title = *r.Name
	}
	if r.Body != nil && *r.Body != "" {
		out, err := linked.Render(x.r.Context(), x.h.d, x.caller(), x.repo, *r.Body, true)
		if err != nil {
			return x.fail(err)
		}
		v.Notes = template.HTML(out)
	}
	for _, as := range r.Assets {
		v.Assets = append(v.Assets, x.h.d.URLs.ToReleaseAsset(x.repo, as))
	}
	// The source archives of the tag (a draft's tag need not exist).
	if rel := x.h.d.URLs.ToRelease(x.repo, r, wire.BodyFormat{}); rel.ZipballURL != nil {
		v.Zip, v.Tar = *rel.ZipballURL, *rel.TarballURL
	}
	return x.ok(v.Title+" · "+x.repo.FullName(), "release", v)
}
