package issues

import (
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/reactions"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

// subjectFunc finds what a reaction route reacts to: an issue or a comment.
type subjectFunc func(*http.Request, store.Q, *access) (reactions.Subject, error)

func (a *API) issueSubject(r *http.Request, q store.Q, x *access) (reactions.Subject, error) {
	is, err := a.issue(r, q, x)
	if err != nil {
		return reactions.Subject{}, err
	}
	return reactions.Subject{Kind: store.ReactIssue, ID: is.ID}, nil
}

func (a *API) commentSubject(r *http.Request, q store.Q, x *access) (reactions.Subject, error) {
	c, err := a.comment(r, q, x)
	if err != nil {
		return reactions.Subject{}, err
	}
	return reactions.Subject{Kind: store.ReactComment, ID: c.ID}, nil
}

// target is the reactions service's view of the route's subject.
func (a *API) target(r *http.Request, x *access, find subjectFunc) reactions.Target {
	return reactions.Target{RepoID: x.Repo.ID, OrgID: x.Org(), Find: func(q store.Q) (reactions.Subject, error) { return find(r, q, x) }}
}

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
	p := rest.ParsePage(r)
	list, total, err := reactions.List(r.Context(), a.d.Store, a.target(r, x, find), r.URL.Query().Get("content"), p.Limit(), p.Offset())
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
	if err := participate(x, r); err != nil {
		return err
	}
	if err := a.d.MayParticipate(r.Context(), x.Repo, x.Caller.UserID(), "reaction"); err != nil {
		return err
	}
	var in struct {
		Content *string `json:"content"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	re, created, err := reactions.Add(r.Context(), a.d.Store, a.target(r, x, find), x.Caller.UserID(), in.Content)
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
	if err := participate(x, r); err != nil {
		return err
	}
	id, err := pathInt(r, "reaction_id")
	if err != nil {
		return err
	}
	if err := reactions.Remove(r.Context(), a.d.Store, a.target(r, x, find), x.Caller.UserID(), id); err != nil {
		return err
	}
	return rest.NoContent(w)
}
