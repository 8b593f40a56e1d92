package issues

import (
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// comment loads the {comment_id} comment of the repository.
func (a *API) comment(r *http.Request, q store.Q, x *access) (*model.IssueComment, error) {
	id, err := pathInt(r, "comment_id")
	if err != nil {
		return nil, err
	}
	return q.CommentByID(r.Context(), x.Repo.ID, id)
}

func (a *API) renderComments(r *http.Request, x *access, list []*model.IssueComment) []wire.IssueComment {
	wr := a.writer(r)
	out := make([]wire.IssueComment, 0, len(list))
	for _, c := range list {
		out = append(out, wr.ToComment(x.Repo, c))
	}
	return out
}

// GET /repos/{owner}/{repo}/issues/comments: by id, or by update time with
// sort=updated; direction applies only with sort.
func (a *API) listRepoComments(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := store.CommentQuery{RepoID: x.Repo.ID}
	if s := q.Get("sort"); s == "created" || s == "updated" {
		f.Sort, f.Desc = s, q.Get("direction") == "desc"
	}
	if f.Since, err = since(r); err != nil {
		return err
	}
	return a.pageComments(w, r, x, f)
}

func (a *API) pageComments(w http.ResponseWriter, r *http.Request, x *access, f store.CommentQuery) error {
	p := rest.ParsePage(r)
	f.Limit, f.Offset = p.Limit(), p.Offset()
	list, total, err := a.d.Store.R().ListComments(r.Context(), f)
	if err != nil {
		return err
	}
	a.link(w, r, p, total)
	return rest.JSON(w, http.StatusOK, a.renderComments(r, x, list))
}

// GET /repos/{owner}/{repo}/issues/{issue_number}/comments: oldest first.
func (a *API) listComments(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	is, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	f := store.CommentQuery{RepoID: x.Repo.ID, IssueID: is.ID}
	if f.Since, err = since(r); err != nil {
		return err
	}
	return a.pageComments(w, r, x, f)
}

// GET /repos/{owner}/{repo}/issues/comments/{comment_id}
func (a *API) getComment(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	c, err := a.comment(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.writer(r).ToComment(x.Repo, c))
}

type commentBody struct {
	Body *string `json:"body"`
}

// POST /repos/{owner}/{repo}/issues/{issue_number}/comments: anyone who
// can read the repository; on a locked issue only those with write access.
func (a *API) createComment(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	if err := participate(x, r); err != nil {
		return err
	}
	var in commentBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	n, err := pathInt(r, "issue_number")
	if err != nil {
		return err
	}
	body := ""
	if in.Body != nil {
		body = *in.Body
	}
	c, err := a.svc.AddComment(r.Context(), x.Caller, x.Repo, x.Perm, n, body)
	if err != nil {
		return err
	}
	return a.respondComment(w, r, x, c.ID, http.StatusCreated)
}

func (a *API) respondComment(w http.ResponseWriter, r *http.Request, x *access, id int64, status int) error {
	c, err := a.d.Store.R().CommentByID(r.Context(), x.Repo.ID, id)
	if err != nil {
		return err
	}
	out := a.writer(r).ToComment(x.Repo, c)
	if status == http.StatusCreated {
		w.Header().Set("Location", out.URL)
	}
	return rest.JSON(w, status, out)
}

// PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}: its author or
// write access.
func (a *API) updateComment(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	if err := participate(x, r); err != nil {
		return err
	}
	var in commentBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	id, err := pathInt(r, "comment_id")
	if err != nil {
		return err
	}
	if err := a.svc.UpdateComment(r.Context(), x, id, in.Body); err != nil {
		return err
	}
	return a.respondComment(w, r, x, id, http.StatusOK)
}

// DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}: its author or
// write access.
func (a *API) deleteComment(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	if err := participate(x, r); err != nil {
		return err
	}
	id, err := pathInt(r, "comment_id")
	if err != nil {
		return err
	}
	if err := a.svc.DeleteComment(r.Context(), x, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// PUT /repos/{owner}/{repo}/issues/comments/{comment_id}/pin: write
// access; an issue has one pinned comment, so pinning another unpins the
// one before.
func (a *API) pinComment(w http.ResponseWriter, r *http.Request) error {
	return a.pin(w, r, true)
}

// DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}/pin
func (a *API) unpinComment(w http.ResponseWriter, r *http.Request) error {
	return a.pin(w, r, false)
}

func (a *API) pin(w http.ResponseWriter, r *http.Request, pin bool) error {
	x, err := a.openWritable(r, authz.Write)
	if err != nil {
		return err
	}
	id, err := pathInt(r, "comment_id")
	if err != nil {
		return err
	}
	if err := a.svc.PinComment(r.Context(), x, id, pin); err != nil {
		return err
	}
	if !pin {
		return rest.NoContent(w)
	}
	return a.respondComment(w, r, x, id, http.StatusOK)
}
