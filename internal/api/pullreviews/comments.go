package pullreviews

import (
	"net/http"

	"github.com/hubd/hubd/internal/pullreviews"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// listComments answers both comment lists: sort, direction and since as
// GitHub reads them (direction counts only with sort; default by id).
func (a *API) listComments(w http.ResponseWriter, r *http.Request, x pullreviews.Access, number int64) error {
	q := r.URL.Query()
	f := pullreviews.CommentQuery{Number: number}
	switch q.Get("sort") {
	case "created", "created_at":
		f.Sort = "created"
	case "updated":
		f.Sort = "updated"
	}
	if f.Sort != "" {
		f.Desc = q.Get("direction") != "asc"
	}
	var err error
	if f.Since, err = since(r); err != nil {
		return err
	}
	p := rest.ParsePage(r)
	f.Limit, f.Offset = p.Limit(), p.Offset()
	list, total, err := a.svc.Comments(r.Context(), x, f)
	if err != nil {
		return err
	}
	wr := a.writer(r)
	out := make([]wire.PullReviewComment, 0, len(list))
	for _, c := range list {
		out = append(out, wr.ToPullReviewComment(x.Repo, c))
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/pulls/comments
func (a *API) listRepoComments(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r)
	if err != nil {
		return err
	}
	return a.listComments(w, r, x, 0)
}

// GET /repos/{owner}/{repo}/pulls/{pull_number}/comments
func (a *API) listPullComments(w http.ResponseWriter, r *http.Request) error {
	x, n, err := a.openPull(r, false)
	if err != nil {
		return err
	}
	return a.listComments(w, r, x, n)
}

// GET /repos/{owner}/{repo}/pulls/comments/{comment_id}
func (a *API) getComment(w http.ResponseWriter, r *http.Request) error {
	x, id, err := a.openComment(r, false)
	if err != nil {
		return err
	}
	c, err := a.svc.Comment(r.Context(), x, id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.writer(r).ToPullReviewComment(x.Repo, c))
}

// POST /repos/{owner}/{repo}/pulls/{pull_number}/comments
func (a *API) createComment(w http.ResponseWriter, r *http.Request) error {
	x, n, err := a.openPull(r, true)
	if err != nil {
		return err
	}
	if err := a.d.MayParticipate(r.Context(), x.Repo, x.UserID, "comment"); err != nil {
		return err
	}
	var in commentBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	c, err := a.svc.CreateComment(r.Context(), x, n, in.input())
	if err != nil {
		return err
	}
	out := a.writer(r).ToPullReviewComment(x.Repo, c)
	w.Header().Set("Location", out.URL)
	return rest.JSON(w, http.StatusCreated, out)
}

// POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies
func (a *API) reply(w http.ResponseWriter, r *http.Request) error {
	x, n, err := a.openPull(r, true)
	if err != nil {
		return err
	}
	if err := a.d.MayParticipate(r.Context(), x.Repo, x.UserID, "comment"); err != nil {
		return err
	}
	id, err := pathID(r, "comment_id")
	if err != nil {
		return err
	}
	var in struct {
		Body *string `json:"body"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	c, err := a.svc.Reply(r.Context(), x, n, id, in.Body)
	if err != nil {
		return err
	}
	out := a.writer(r).ToPullReviewComment(x.Repo, c)
	w.Header().Set("Location", out.URL)
	return rest.JSON(w, http.StatusCreated, out)
}

// PATCH /repos/{owner}/{repo}/pulls/comments/{comment_id}
func (a *API) updateComment(w http.ResponseWriter, r *http.Request) error {
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
	c, err := a.svc.UpdateComment(r.Context(), x, id, in.Body)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.writer(r).ToPullReviewComment(x.Repo, c))
}

// DELETE /repos/{owner}/{repo}/pulls/comments/{comment_id}
func (a *API) deleteComment(w http.ResponseWriter, r *http.Request) error {
	x, id, err := a.openComment(r, true)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteComment(r.Context(), x, id); err != nil {
		return err
	}
	return rest.NoContent(w)
}
