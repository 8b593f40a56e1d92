package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// ReactionService is a comment service's side of reactions: X is what its
// open step hands over (the repository and the caller's access).
type ReactionService[X any] interface {
	Reactions(ctx context.Context, x X, id int64, content string, limit, offset int) ([]*model.Reaction, int, error)
	React(ctx context.Context, x X, id int64, content *string) (*model.Reaction, bool, error)
	Unreact(ctx context.Context, x X, id, reactionID int64) error
}

// Reactions are the three REST handlers of reactions on one kind of
// comment (list, create, delete), the same for every kind.
type Reactions[X any] struct {
	D   *Deps
	Svc ReactionService[X]
	// Open finds the comment of {comment_id} and the caller's access; write
	// asks for what reacting needs.
	Open func(r *http.Request, write bool) (X, int64, error)
	// Repo is the repository of an opened comment (blocks and interaction
	// limits guard new reactions).
	Repo func(X) *model.Repo
}

func (h Reactions[X]) writer(r *http.Request) *wire.IssueWriter {
	return h.D.URLs.NewIssueWriter(wire.Bodies(rest.From(r).Media.Param))
}

// List answers GET .../reactions (content filters, pages with Link).
func (h Reactions[X]) List(w http.ResponseWriter, r *http.Request) error {
	x, id, err := h.Open(r, false)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := h.Svc.Reactions(r.Context(), x, id, r.URL.Query().Get("content"), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	wr := h.writer(r)
	out := make([]wire.Reaction, 0, len(list))
	for _, re := range list {
		out = append(out, wr.ToReaction(re))
	}
	rest.SetLink(w, r, h.D.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// Create answers POST .../reactions: 201 for a new reaction, 200 when the
// caller had already reacted so.
func (h Reactions[X]) Create(w http.ResponseWriter, r *http.Request) error {
	x, id, err := h.Open(r, true)
	if err != nil {
		return err
	}
	if err := h.D.MayParticipate(r.Context(), h.Repo(x), rest.Caller(r).UserID(), "reaction"); err != nil {
		return err
	}
	var in struct {
		Content *string `json:"content"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	re, created, err := h.Svc.React(r.Context(), x, id, in.Content)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return rest.JSON(w, status, h.writer(r).ToReaction(re))
}

// Delete answers DELETE .../reactions/{reaction_id}.
func (h Reactions[X]) Delete(w http.ResponseWriter, r *http.Request) error {
	x, id, err := h.Open(r, true)
	if err != nil {
		return err
	}
	rid, err := strconv.ParseInt(r.PathValue("reaction_id"), 10, 64)
	if err != nil || rid <= 0 {
		return model.ErrNotFound
	}
	if err := h.Svc.Unreact(r.Context(), x, id, rid); err != nil {
		return err
	}
	return rest.NoContent(w)
}
