package activity

import (
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/stars"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// starMedia reports whether the client asked for
// application/vnd.github.star+json (items with starred_at).
func starMedia(r *http.Request) bool { return rest.From(r).Media.Param == "star" }

// GET /repos/{owner}/{repo}/stargazers
func (a *API) stargazers(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.Stargazers(r.Context(), repo, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	if starMedia(r) {
		out := make([]wire.Stargazer, len(list))
		for i, s := range list {
			out[i] = a.d.URLs.ToStargazer(s.User, s.StarredAt)
		}
		return rest.JSON(w, http.StatusOK, out)
	}
	out := make([]wire.SimpleUser, len(list))
	for i, s := range list {
		out[i] = a.d.URLs.ToSimpleUser(s.User)
	}
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/stargazers/count
func (a *API) stargazerCount(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	_, total, err := a.svc.Stargazers(r.Context(), repo, 1, 0)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, map[string]int{"count": total})
}

// listQuery reads sort (created, the default, or updated) and direction
// (desc by default) of the starred lists; unknown values fall back to the
// defaults, as GitHub's lists do.
func listQuery(r *http.Request, p rest.Page) stars.ListQuery {
	q := r.URL.Query()
	return stars.ListQuery{Viewer: api.ViewerOf(rest.Caller(r)), Sort: q.Get("sort"), Desc: q.Get("direction") != "asc",
		Limit: p.Limit(), Offset: p.Offset()}
}

// GET /user/starred
func (a *API) myStarred(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.MyStarred(r.Context(), c, listQuery(r, p))
	if err != nil {
		return err
	}
	return a.writeStarred(w, r, p, list, total)
}

// GET /users/{username}/starred
func (a *API) userStarred(w http.ResponseWriter, r *http.Request) error {
	u, err := a.user(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.Starred(r.Context(), u, listQuery(r, p))
	if err != nil {
		return err
	}
	return a.writeStarred(w, r, p, list, total)
}

// writeStarred answers a page of starred repositories: repository objects,
// or starred-repository objects (starred_at and repo) for the star media
// type.
func (a *API) writeStarred(w http.ResponseWriter, r *http.Request, p rest.Page, list []store.StarredRepo, total int) error {
	views := make([]*store.RepoView, len(list))
	for i, s := range list {
		views[i] = s.View
	}
	objs, err := a.repositories(r.Context(), rest.Caller(r), views, false)
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	if !starMedia(r) {
		return rest.JSON(w, http.StatusOK, objs)
	}
	out := make([]wire.StarredRepository, len(list))
	for i, s := range list {
		out[i] = wire.StarredRepository{StarredAt: wire.Time(s.StarredAt), Repo: objs[i].(wire.Repository)}
	}
	return rest.JSON(w, http.StatusOK, out)
}

// GET /user/starred/{owner}/{repo}: 204 when starred, 404 when not.
func (a *API) isStarred(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := a.repoIDByPath(r)
	if err != nil {
		return err
	}
	starred, err := a.svc.IsStarred(r.Context(), c, id)
	if err != nil {
		return err
	}
	if !starred {
		return model.ErrNotFound
	}
	return rest.NoContent(w)
}

// PUT /user/starred/{owner}/{repo}
func (a *API) star(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := a.repoIDByPath(r)
	if err != nil {
		return err
	}
	if err := a.svc.Star(r.Context(), c, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// DELETE /user/starred/{owner}/{repo}
func (a *API) unstar(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	id, err := a.repoIDByPath(r)
	if err != nil {
		return err
	}
	if err := a.svc.Unstar(r.Context(), c, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}
