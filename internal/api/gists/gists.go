// Package gists is the REST adapter of gists (GitHub's "Gists" category):
// it parses requests, calls the gists service (internal/gists) and writes
// GitHub's shapes; it also serves the files' raw_url.
package gists

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/gists"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// API is the gists package.
type API struct {
	d   *api.Deps
	svc *gists.Service
}

// New makes the package and its service.
func New(d *api.Deps) *API { return &API{d: d, svc: gists.New(d.Store, d.Git)} }

// Service is the gists service (GraphQL and the git transport call it).
func (a *API) Service() *gists.Service { return a.svc }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	g := []string{"gist"}
	return []rest.Route{
		{Method: "GET", Pattern: "/gists", OperationID: "gists/list", Handler: a.list},
		{Method: "POST", Pattern: "/gists", OperationID: "gists/create", Handler: a.create, Scopes: g},
		{Method: "GET", Pattern: "/gists/public", OperationID: "gists/list-public", Handler: a.listPublic},
		{Method: "GET", Pattern: "/gists/starred", OperationID: "gists/list-starred", Handler: a.listStarred},
		{Method: "GET", Pattern: "/gists/{gist_id}", OperationID: "gists/get", Handler: a.get},
		{Method: "PATCH", Pattern: "/gists/{gist_id}", OperationID: "gists/update", Handler: a.update, Scopes: g},
		{Method: "DELETE", Pattern: "/gists/{gist_id}", OperationID: "gists/delete", Handler: a.delete, Scopes: g},
		{Method: "GET", Pattern: "/gists/{gist_id}/comments", OperationID: "gists/list-comments", Handler: a.listComments},
		{Method: "POST", Pattern: "/gists/{gist_id}/comments", OperationID: "gists/create-comment", Handler: a.createComment, Scopes: g},
		{Method: "GET", Pattern: "/gists/{gist_id}/comments/{comment_id}", OperationID: "gists/get-comment", Handler: a.getComment},
		{Method: "PATCH", Pattern: "/gists/{gist_id}/comments/{comment_id}", OperationID: "gists/update-comment", Handler: a.updateComment, Scopes: g},
		{Method: "DELETE", Pattern: "/gists/{gist_id}/comments/{comment_id}", OperationID: "gists/delete-comment", Handler: a.deleteComment, Scopes: g},
		{Method: "GET", Pattern: "/gists/{gist_id}/commits", OperationID: "gists/list-commits", Handler: a.commits},
		{Method: "GET", Pattern: "/gists/{gist_id}/forks", OperationID: "gists/list-forks", Handler: a.forks},
		{Method: "POST", Pattern: "/gists/{gist_id}/forks", OperationID: "gists/fork", Handler: a.fork, Scopes: g},
		{Method: "GET", Pattern: "/gists/{gist_id}/star", OperationID: "gists/check-is-starred", Handler: a.isStarred},
		{Method: "PUT", Pattern: "/gists/{gist_id}/star", OperationID: "gists/star", Handler: a.star, Scopes: g},
		{Method: "DELETE", Pattern: "/gists/{gist_id}/star", OperationID: "gists/unstar", Handler: a.unstar, Scopes: g},
		{Method: "GET", Pattern: "/gists/{gist_id}/{sha}", OperationID: "gists/get-revision", Handler: a.revision},
		{Method: "GET", Pattern: "/users/{username}/gists", OperationID: "gists/list-for-user", Handler: a.listForUser},
		// GitHub takes POST for PATCH here, and gh gist edit sends POST.
		{Method: "POST", Pattern: "/gists/{gist_id}", OperationID: "hubd/gists-update-post", Handler: a.update, Scopes: g, Extension: true},
		// raw_url: a file's content (GHES serves gist.githubusercontent.com's
		// role under /gist/).
		{Method: "GET", Pattern: "/gist/{owner}/{gist_id}/raw/{sha}/{filename...}", OperationID: "hubd/gist-raw", Handler: a.raw, Extension: true, Stream: true},
	}
}

func (a *API) gist(r *http.Request) (*model.Gist, error) {
	return a.svc.Get(r.Context(), r.PathValue("gist_id"))
}

func (a *API) query(r *http.Request) (gists.ListQuery, rest.Page, error) {
	p := rest.ParsePage(r)
	since, err := rest.TimeParam(r.URL.Query(), "since")
	return gists.ListQuery{Since: since, Limit: p.Limit(), Offset: p.Offset()}, p, err
}

// writeList answers a page of gists (base-gist objects).
func (a *API) writeList(w http.ResponseWriter, r *http.Request, p rest.Page, list []*model.Gist, total int) error {
	out := make([]wire.Gist, len(list))
	for i, g := range list {
		out[i] = a.d.URLs.ToGist(g, gists.MaxFiles)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /gists
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	q, p, err := a.query(r)
	if err != nil {
		return err
	}
	list, total, err := a.svc.Mine(r.Context(), rest.Caller(r), q)
	if err != nil {
		return err
	}
	return a.writeList(w, r, p, list, total)
}

// GET /gists/public
func (a *API) listPublic(w http.ResponseWriter, r *http.Request) error {
	q, p, err := a.query(r)
	if err != nil {
		return err
	}
	list, total, err := a.svc.Public(r.Context(), q)
	if err != nil {
		return err
	}
	return a.writeList(w, r, p, list, total)
}

// GET /gists/starred
func (a *API) listStarred(w http.ResponseWriter, r *http.Request) error {
	q, p, err := a.query(r)
	if err != nil {
		return err
	}
	list, total, err := a.svc.Starred(r.Context(), rest.Caller(r), q)
	if err != nil {
		return err
	}
	return a.writeList(w, r, p, list, total)
}

// GET /users/{username}/gists
func (a *API) listForUser(w http.ResponseWriter, r *http.Request) error {
	login := r.PathValue("username")
	if login == "" || len(login) > 100 {
		return model.ErrNotFound
	}
	u, err := a.d.Store.R().AccountByLogin(r.Context(), login)
	if err != nil {
		return err
	}
	q, p, err := a.query(r)
	if err != nil {
		return err
	}
	list, total, err := a.svc.ByUser(r.Context(), rest.Caller(r), u, q)
	if err != nil {
		return err
	}
	return a.writeList(w, r, p, list, total)
}

// full renders one gist with its contents, history, forks and parent.
func (a *API) full(ctx context.Context, g *model.Gist) (wire.Gist, error) {
	contents, err := a.svc.Contents(ctx, g)
	if err != nil {
		return wire.Gist{}, err
	}
	wc := make(map[string]wire.GistFileContent, len(contents))
	for k, c := range contents {
		wc[k] = wire.GistFileContent(c)
	}
	history, _, err := a.svc.History(ctx, g, 100, 0)
	if err != nil {
		return wire.Gist{}, err
	}
	// GitHub lists a few forks here (deprecated in favour of /forks); their
	// users are full public users, whose counters cost a query each, so
	// the list is bounded.
	forkList, _, err := a.svc.Forks(ctx, g, 10, 0)
	if err != nil {
		return wire.Gist{}, err
	}
	forks := make([]wire.GistFork, len(forkList))
	for i, f := range forkList {
		c, err := a.d.Store.R().CountsFor(ctx, f.OwnerID)
		if err != nil {
			return wire.Gist{}, err
		}
		forks[i] = a.d.URLs.ToGistFork(f, wire.UserCounts(c))
	}
	var parent *model.Gist
	if g.ForkOf != 0 {
		parents, err := a.svc.Parents(ctx, []*model.Gist{g})
		if err != nil {
			return wire.Gist{}, err
		}
		parent = parents[g.ForkOf]
	}
	return a.d.URLs.ToGistFull(g, gists.MaxFiles, wc, history, forks, parent), nil
}

// GET /gists/{gist_id}
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	g, err := a.gist(r)
	if err != nil {
		return err
	}
	out, err := a.full(r.Context(), g)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out)
}

// GET /gists/{gist_id}/{sha}
func (a *API) revision(w http.ResponseWriter, r *http.Request) error {
	g, err := a.gist(r)
	if err != nil {
		return err
	}
	at, err := a.svc.AtRevision(r.Context(), g, r.PathValue("sha"))
	if err != nil {
		return err
	}
	out, err := a.full(r.Context(), at)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out)
}

// createBody is POST /gists's body; public may be a boolean or "true" /
// "false".
type createBody struct {
	Description *string                               `json:"description"`
	Public      json.RawMessage                       `json:"public"`
	Files       map[string]*struct{ Content *string } `json:"files"`
}

// POST /gists
func (a *API) create(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	var in createBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	public := false
	switch string(in.Public) {
	case "true", `"true"`:
		public = true
	}
	files := map[string]string{}
	for name, f := range in.Files {
		if f != nil && f.Content != nil {
			files[name] = *f.Content
		}
	}
	g, err := a.svc.Create(r.Context(), c, gists.CreateInput{Description: in.Description, Public: public, Files: files})
	if err != nil {
		return err
	}
	out, err := a.full(r.Context(), g)
	if err != nil {
		return err
	}
	w.Header().Set("Location", out.URL)
	return rest.JSON(w, http.StatusCreated, out)
}

type fileEdit struct {
	Content  *string          `json:"content"`
	Filename rest.Opt[string] `json:"filename"`
}

type updateBody struct {
	Description rest.Opt[string]     `json:"description"`
	Files       map[string]*fileEdit `json:"files"`
}

// PATCH /gists/{gist_id}
func (a *API) update(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	var in updateBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	up := gists.UpdateInput{SetDescription: in.Description.Set, Files: map[string]gists.FileEdit{}}
	if v, ok := in.Description.Get(); ok {
		up.Description = &v
	}
	for name, f := range in.Files {
		if f == nil {
			up.Files[name] = gists.FileEdit{Delete: true}
			continue
		}
		e := gists.FileEdit{Content: f.Content}
		if v, ok := f.Filename.Get(); ok {
			e.Filename = &v
		}
		up.Files[name] = e
	}
	g, err := a.svc.Update(r.Context(), c, r.PathValue("gist_id"), up)
	if err != nil {
		return err
	}
	out, err := a.full(r.Context(), g)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out)
}

// DELETE /gists/{gist_id}
func (a *API) delete(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	if err := a.svc.Delete(r.Context(), c, r.PathValue("gist_id")); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /gists/{gist_id}/commits
func (a *API) commits(w http.ResponseWriter, r *http.Request) error {
	g, err := a.gist(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.History(r.Context(), g, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.GistHistory, len(list))
	for i, h := range list {
		out[i] = a.d.URLs.ToGistHistory(g, h)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /gists/{gist_id}/forks
func (a *API) forks(w http.ResponseWriter, r *http.Request) error {
	g, err := a.gist(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.Forks(r.Context(), g, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	return a.writeList(w, r, p, list, total)
}

// POST /gists/{gist_id}/forks
func (a *API) fork(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	g, err := a.svc.Fork(r.Context(), c, r.PathValue("gist_id"))
	if err != nil {
		return err
	}
	out := a.d.URLs.ToGist(g, gists.MaxFiles)
	w.Header().Set("Location", out.URL)
	return rest.JSON(w, http.StatusCreated, out)
}

// GET /gists/{gist_id}/star: 204 when starred, 404 when not.
func (a *API) isStarred(w http.ResponseWriter, r *http.Request) error {
	ok, err := a.svc.IsStarred(r.Context(), rest.Caller(r), r.PathValue("gist_id"))
	if err != nil {
		return err
	}
	if !ok {
		// GitHub's description: an empty object, not the error shape.
		return rest.JSON(w, http.StatusNotFound, struct{}{})
	}
	return rest.NoContent(w)
}

// PUT /gists/{gist_id}/star
func (a *API) star(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	if err := a.svc.Star(r.Context(), c, r.PathValue("gist_id"), true); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// DELETE /gists/{gist_id}/star
func (a *API) unstar(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	if err := a.svc.Star(r.Context(), c, r.PathValue("gist_id"), false); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /gist/{owner}/{gist_id}/raw/{sha}/{filename...}
func (a *API) raw(w http.ResponseWriter, r *http.Request) error {
	g, err := a.gist(r)
	if err != nil {
		return err
	}
	if g.Owner.Login != r.PathValue("owner") {
		return model.ErrNotFound
	}
	rc, err := a.svc.Raw(r.Context(), g, r.PathValue("sha"), r.PathValue("filename"))
	if err != nil {
		return err
	}
	defer rc.Close()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, err = io.Copy(w, rc)
	return err
}

// commentPath is the gist and the comment id of a
// /gists/{gist_id}/comments/{comment_id} path.
func (a *API) commentPath(r *http.Request) (*model.Gist, int64, error) {
	g, err := a.gist(r)
	if err != nil {
		return nil, 0, err
	}
	id, err := strconv.ParseInt(r.PathValue("comment_id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, 0, model.ErrNotFound
	}
	return g, id, nil
}

func (a *API) comment(g *model.Gist, c *model.GistComment) wire.GistComment {
	return a.d.URLs.ToGistComment(g, c, gists.Association(g, c.UserID))
}

// GET /gists/{gist_id}/comments
func (a *API) listComments(w http.ResponseWriter, r *http.Request) error {
	g, err := a.gist(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.Comments(r.Context(), g, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.GistComment, len(list))
	for i, c := range list {
		out[i] = a.comment(g, c)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /gists/{gist_id}/comments/{comment_id}
func (a *API) getComment(w http.ResponseWriter, r *http.Request) error {
	g, id, err := a.commentPath(r)
	if err != nil {
		return err
	}
	c, err := a.svc.Comment(r.Context(), g, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.comment(g, c))
}

type commentBody struct {
	Body *string `json:"body"`
}

// POST /gists/{gist_id}/comments
func (a *API) createComment(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	g, err := a.gist(r)
	if err != nil {
		return err
	}
	var in commentBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	cm, err := a.svc.AddComment(r.Context(), c, g, in.Body)
	if err != nil {
		return err
	}
	out := a.comment(g, cm)
	w.Header().Set("Location", out.URL)
	return rest.JSON(w, http.StatusCreated, out)
}

// PATCH /gists/{gist_id}/comments/{comment_id}
func (a *API) updateComment(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	g, id, err := a.commentPath(r)
	if err != nil {
		return err
	}
	var in commentBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	cm, err := a.svc.EditComment(r.Context(), c, g, id, in.Body)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.comment(g, cm))
}

// DELETE /gists/{gist_id}/comments/{comment_id}
func (a *API) deleteComment(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	g, id, err := a.commentPath(r)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteComment(r.Context(), c, g, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}
