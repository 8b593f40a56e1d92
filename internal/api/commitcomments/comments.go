package commitcomments

import (
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/commitcomments"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// open starts every handler: the repository with the caller's permission
// (404 when hidden, as api.Deps.Repo answers).
func (a *API) open(r *http.Request) (commitcomments.Access, error) {
	repo, perm, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return commitcomments.Access{}, err
	}
	return commitcomments.Access{Repo: repo, Perm: perm, UserID: rest.Caller(r).UserID()}, nil
}

// openWrite is open for changes: a user behind the request with a token
// that may write to public repositories.
func (a *API) openWrite(r *http.Request) (commitcomments.Access, error) {
	x, err := a.open(r)
	if err != nil {
		return x, err
	}
	c, err := api.RequireUser(r)
	if err != nil {
		return x, err
	}
	return x, api.RequireScope(c, "public_repo")
}

func commentID(r *http.Request) (int64, error) {
	v, err := strconv.ParseInt(r.PathValue("comment_id"), 10, 64)
	if err != nil || v <= 0 {
		return 0, model.ErrNotFound
	}
	return v, nil
}

// openComment starts the handlers of /comments/{comment_id}...: open (or
// openWrite) and the comment id.
func (a *API) openComment(r *http.Request, write bool) (commitcomments.Access, int64, error) {
	open := a.open
	if write {
		open = a.openWrite
	}
	x, err := open(r)
	if err != nil {
		return x, 0, err
	}
	id, err := commentID(r)
	return x, id, err
}

func (a *API) writer(r *http.Request) *wire.IssueWriter {
	return a.d.URLs.NewIssueWriter(wire.Bodies(rest.From(r).Media.Param))
}

func (a *API) page(w http.ResponseWriter, r *http.Request, sha string) error {
	x, err := a.open(r)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.List(r.Context(), x, sha, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	wr := a.writer(r)
	out := make([]wire.CommitComment, 0, len(list))
	for _, c := range list {
		out = append(out, wr.ToCommitComment(x.Repo, c))
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/comments
func (a *API) listForRepo(w http.ResponseWriter, r *http.Request) error {
	return a.page(w, r, "")
}

// GET /repos/{owner}/{repo}/commits/{commit_sha}/comments
func (a *API) listForCommit(w http.ResponseWriter, r *http.Request) error {
	sha := r.PathValue("commit_sha")
	if sha == "" {
		return model.ErrNotFound
	}
	return a.page(w, r, sha)
}

// GET /repos/{owner}/{repo}/comments/{comment_id}
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	x, id, err := a.openComment(r, false)
	if err != nil {
		return err
	}
	c, err := a.svc.Get(r.Context(), x, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.writer(r).ToCommitComment(x.Repo, c))
}

// POST /repos/{owner}/{repo}/commits/{commit_sha}/comments
func (a *API) create(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openWrite(r)
	if err != nil {
		return err
	}
	if err := a.d.MayParticipate(r.Context(), x.Repo, x.UserID, "comment"); err != nil {
		return err
	}
	var in struct {
		Body     *string `json:"body"`
		Path     *string `json:"path"`
		Position *int64  `json:"position"`
		Line     *int64  `json:"line"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	c, err := a.svc.Create(r.Context(), x, r.PathValue("commit_sha"), commitcomments.NewComment{
		Body: in.Body, Path: in.Path, Position: in.Position, Line: in.Line})
	if err != nil {
		return err
	}
	out := a.writer(r).ToCommitComment(x.Repo, c)
	w.Header().Set("Location", out.URL)
	return rest.JSON(w, http.StatusCreated, out)
}

// PATCH /repos/{owner}/{repo}/comments/{comment_id}
func (a *API) update(w http.ResponseWriter, r *http.Request) error {
	x, id, err := a.openComment(r, true)
	if err != nil {
		return err
	}
	var in struct {
		Body *string `json:"body"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	c, err := a.svc.Update(r.Context(), x, id, in.Body)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.writer(r).ToCommitComment(x.Repo, c))
}

// DELETE /repos/{owner}/{repo}/comments/{comment_id}
func (a *API) delete(w http.ResponseWriter, r *http.Request) error {
	x, id, err := a.openComment(r, true)
	if err != nil {
		return err
	}
	if err := a.svc.Delete(r.Context(), x, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}
