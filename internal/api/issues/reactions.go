package issues

import (
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

// validContent reports whether c is one of GitHub's reaction types.
func validContent(c string) bool {
	for _, v := range model.ReactionContents {
		if v == c {
			return true
		}
	}
	return false
}

// subject is what a reaction route reacts to: an issue or a comment.
type subject struct {
	kind string // store.ReactIssue or store.ReactComment
	id   int64
}

func (a *API) issueSubject(r *http.Request, q store.Q, x *access) (subject, error) {
	is, err := a.issue(r, q, x)
	if err != nil {
		return subject{}, err
	}
	return subject{store.ReactIssue, is.ID}, nil
}

func (a *API) commentSubject(r *http.Request, q store.Q, x *access) (subject, error) {
	c, err := a.comment(r, q, x)
	if err != nil {
		return subject{}, err
	}
	return subject{store.ReactComment, c.ID}, nil
}

type subjectFunc func(*http.Request, store.Q, *access) (subject, error)

// GET /repos/{owner}/{repo}/issues/{issue_number}/reactions
func (a *API) listIssueReactions(w http.ResponseWriter, r *http.Request) error {
	return a.listReactions(w, r, a.issueSubject)
}

// GET /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions
func (a *API) listCommentReactions(w http.ResponseWriter, r *http.Request) error {
	return a.listReactions(w, r, a.commentSubject)
}

func (a *API) listReactions(w http.ResponseWriter, r *http.Request, find subjectFunc) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	s, err := find(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	content := r.URL.Query().Get("content")
	if content != "" && !validContent(content) {
		return &model.ValidationError{Errors: []model.FieldError{{Resource: "Reaction", Field: "content", Code: "invalid", Value: content}}}
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().ListReactions(r.Context(), s.kind, s.id, content, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	wr := a.writer(r)
	out := make([]any, 0, len(list))
	for _, re := range list {
		out = append(out, wr.ToReaction(re))
	}
	a.link(w, r, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// POST /repos/{owner}/{repo}/issues/{issue_number}/reactions: 201 for a
// new reaction, 200 when the caller had already reacted so.
func (a *API) createIssueReaction(w http.ResponseWriter, r *http.Request) error {
	return a.createReaction(w, r, a.issueSubject)
}

// POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions
func (a *API) createCommentReaction(w http.ResponseWriter, r *http.Request) error {
	return a.createReaction(w, r, a.commentSubject)
}

func (a *API) createReaction(w http.ResponseWriter, r *http.Request, find subjectFunc) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	if err := x.participate(r); err != nil {
		return err
	}
	var in struct {
		Content *string `json:"content"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if in.Content == nil {
		return model.Invalid("Reaction", "content", "missing_field")
	}
	if !validContent(*in.Content) {
		return &model.ValidationError{Errors: []model.FieldError{{Resource: "Reaction", Field: "content", Code: "invalid", Value: *in.Content}}}
	}
	ctx := r.Context()
	actor := x.c.UserID()
	var re *model.Reaction
	created := false
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		s, err := find(r, tx, x)
		if err != nil {
			return err
		}
		if re, created, err = tx.AddReaction(ctx, x.repo.ID, s.kind, s.id, actor, *in.Content); err != nil || !created {
			return err
		}
		return tx.AppendEvent(ctx, "reaction.created", actor, x.repo.ID, x.org(), map[string]any{
			"reaction_id": re.ID, "subject_type": s.kind, "subject_id": s.id, "content": re.Content})
	})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return rest.JSON(w, status, a.writer(r).ToReaction(re))
}

// DELETE /repos/{owner}/{repo}/issues/{issue_number}/reactions/{reaction_id}:
// users delete their own reactions.
func (a *API) deleteIssueReaction(w http.ResponseWriter, r *http.Request) error {
	return a.deleteReaction(w, r, a.issueSubject)
}

// DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions/{reaction_id}
func (a *API) deleteCommentReaction(w http.ResponseWriter, r *http.Request) error {
	return a.deleteReaction(w, r, a.commentSubject)
}

func (a *API) deleteReaction(w http.ResponseWriter, r *http.Request, find subjectFunc) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	if err := x.participate(r); err != nil {
		return err
	}
	id, err := pathInt(r, "reaction_id")
	if err != nil {
		return err
	}
	ctx := r.Context()
	actor := x.c.UserID()
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		s, err := find(r, tx, x)
		if err != nil {
			return err
		}
		re, err := tx.ReactionByID(ctx, s.kind, s.id, id)
		if err != nil {
			return err
		}
		if re.User == nil || re.User.ID != actor {
			return model.Forbidden("You can only delete your own reactions.")
		}
		if err := tx.DeleteReaction(ctx, s.kind, s.id, id); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "reaction.deleted", actor, x.repo.ID, x.org(), map[string]any{
			"reaction_id": id, "subject_type": s.kind, "subject_id": s.id, "content": re.Content})
	})
	if err != nil {
		return err
	}
	return rest.NoContent(w)
}
