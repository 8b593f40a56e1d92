package commits

import (
	"errors"
	"net/http"
	"sort"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// GET /repos/{owner}/{repo}/tags: by name, descending, as GitHub lists
// them; annotated tags show the commit they point to.
func (a *API) listTags(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	var tags []gitrepo.Ref
	if g, ok := a.gitFor(repo); ok {
		if tags, err = g.Refs(r.Context(), "refs/tags/"); err != nil {
			return err
		}
	}
	sort.Slice(tags, func(i, j int) bool { return tags[i].Name > tags[j].Name })
	lo, hi := min(p.Offset(), len(tags)), min(p.Offset()+p.Limit(), len(tags))
	out := make([]wire.Tag, 0, hi-lo)
	for _, t := range tags[lo:hi] {
		target := t.OID
		if t.Type == "tag" && t.Peeled != "" {
			target = t.Peeled
		}
		out = append(out, a.d.URLs.ToTag(repo, strings.TrimPrefix(t.Name, "refs/tags/"), target))
	}
	rest.SetLink(w, r, a.d.URLs.API, p, len(tags))
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/languages: bytes per language in the default
// branch's tree (gitrepo remembers it per commit).
func (a *API) listLanguages(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	ctx := r.Context()
	g, head, err := a.resolve(ctx, repo, "")
	if errors.Is(err, api.ErrEmptyRepo) || errors.Is(err, model.ErrNotFound) {
		return rest.JSON(w, http.StatusOK, wire.Languages{}) // nothing pushed, or no default branch
	}
	if err != nil {
		return err
	}
	stats, err := g.Languages(ctx, head)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.Languages(stats))
}
