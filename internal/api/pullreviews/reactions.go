package pullreviews

import (
	"net/http"

	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// GET /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions
func (a *API) listReactions(w http.ResponseWriter, r *http.Request) error {
	x, id, err := a.openComment(r, false)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.Reactions(r.Context(), x, id, r.URL.Query().Get("content"), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	wr := a.writer(r)
	out := make([]wire.Reaction, 0, len(list))
	for _, re := range list {
		out = append(out, wr.ToReaction(re))
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions: 201
// for a new reaction, 200 when the caller had already reacted so.
func (a *API) createReaction(w http.ResponseWriter, r *http.Request) error {
	x, id, err := a.openComment(r, true)
	if err != nil {
		return err
	}
	var in struct {
		Content *string `json:"content"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	re, created, err := a.svc.React(r.Context(), x, id, in.Content)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return rest.JSON(w, status, a.writer(r).ToReaction(re))
}

// DELETE /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions/{reaction_id}
func (a *API) deleteReaction(w http.ResponseWriter, r *http.Request) error {
	x, id, err := a.openComment(r, true)
	if err != nil {
		return err
	}
	rid, err := pathID(r, "reaction_id")
	if err != nil {
		return err
	}
	if err := a.svc.Unreact(r.Context(), x, id, rid); err != nil {
		return err
	}
	return rest.NoContent(w)
}
