package issues

import (
	"context"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/api"
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
	return q.CommentByID(r.Context(), x.repo.ID, id)
}

func commentPayload(c *model.IssueComment, action string) map[string]any {
	return map[string]any{"action": action, "comment_id": c.ID, "issue_id": c.IssueID, "number": c.IssueNumber}
}

func (a *API) renderComments(r *http.Request, x *access, list []*model.IssueComment) []wire.IssueComment {
	wr := a.writer(r)
	out := make([]wire.IssueComment, 0, len(list))
	for _, c := range list {
		out = append(out, wr.ToComment(x.repo, c))
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
	f := store.CommentQuery{RepoID: x.repo.ID}
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
	f := store.CommentQuery{RepoID: x.repo.ID, IssueID: is.ID}
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
	return rest.JSON(w, http.StatusOK, a.writer(r).ToComment(x.repo, c))
}

type commentBody struct {
	Body *string `json:"body"`
}

func (in commentBody) text() (string, error) {
	if in.Body == nil || strings.TrimSpace(*in.Body) == "" {
		return "", model.Invalid("IssueComment", "body", "missing_field")
	}
	return *in.Body, checkCommentBody(*in.Body)
}

// POST /repos/{owner}/{repo}/issues/{issue_number}/comments: anyone who
// can read the repository; on a locked issue only those with write access.
func (a *API) createComment(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	if err := x.participate(r); err != nil {
		return err
	}
	if err := a.d.MayParticipate(r.Context(), x.repo, x.c.UserID(), "comment"); err != nil {
		return err
	}
	var in commentBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	body, err := in.text()
	if err != nil {
		return err
	}
	n, err := pathInt(r, "issue_number")
	if err != nil {
		return err
	}
	c, err := a.addComment(r.Context(), x, n, body)
	if err != nil {
		return err
	}
	return a.respondComment(w, r, x, c.ID, http.StatusCreated)
}

// addComment comments on issue (or pull request) number in one
// transaction, with its event, mentions and cross references.
func (a *API) addComment(ctx context.Context, x *access, number int64, body string) (*model.IssueComment, error) {
	actor := x.c.UserID()
	c := &model.IssueComment{RepoID: x.repo.ID, UserID: actor, Body: body}
	err := a.d.Store.Tx(ctx, func(tx store.Q) error {
		is, err := tx.IssueByNumber(ctx, x.repo.ID, number)
		if err != nil {
			return err
		}
		if is.Locked && x.perm < authz.Write {
			return errLocked
		}
		c.IssueID, c.IssueNumber = is.ID, is.Number
		if err := tx.CreateComment(ctx, c); err != nil {
			return err
		}
		if err := event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: "commented", SubjectID: c.ID},
			map[string]any{"comment_id": c.ID}); err != nil {
			return err
		}
		if err := tx.AddIssueMentions(ctx, is.ID, mentions(body)); err != nil {
			return err
		}
		return crossReference(ctx, tx, x, is, actor, body)
	})
	return c, err
}

// AddComment comments as POST .../issues/{number}/comments does (blocks,
// interaction limits, locked conversations and the body limit apply).
func (a *API) AddComment(ctx context.Context, c *authz.Caller, repo *model.Repo, perm authz.Permission, number int64, body string) (*model.IssueComment, error) {
	x, err := a.accessFor(c, repo, perm)
	if err != nil {
		return nil, err
	}
	if err := a.d.MayParticipate(ctx, repo, c.UserID(), "comment"); err != nil {
		return nil, err
	}
	in := commentBody{Body: &body}
	text, err := in.text()
	if err != nil {
		return nil, err
	}
	return a.addComment(ctx, x, number, text)
}

func (a *API) respondComment(w http.ResponseWriter, r *http.Request, x *access, id int64, status int) error {
	c, err := a.d.Store.R().CommentByID(r.Context(), x.repo.ID, id)
	if err != nil {
		return err
	}
	out := a.writer(r).ToComment(x.repo, c)
	if status == http.StatusCreated {
		w.Header().Set("Location", out.URL)
	}
	return rest.JSON(w, status, out)
}

// mayModify answers whether the caller may edit or delete a comment: its
// author, or anyone with write access.
func mayModify(x *access, c *model.IssueComment) error {
	if x.perm >= authz.Write || (c.UserID != 0 && c.UserID == x.c.UserID()) {
		return nil
	}
	return api.NeedPermission(authz.Write)
}

// PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}: its author or
// write access.
func (a *API) updateComment(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	if err := x.participate(r); err != nil {
		return err
	}
	var in commentBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	ctx := r.Context()
	var id int64
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		c, err := a.comment(r, tx, x)
		if err != nil {
			return err
		}
		if err := mayModify(x, c); err != nil {
			return err
		}
		body, err := in.text()
		if err != nil {
			return err
		}
		id = c.ID
		if body == c.Body {
			return nil
		}
		from := c.Body
		c.Body = body
		if err := tx.UpdateCommentBody(ctx, c); err != nil {
			return err
		}
		if err := tx.AddIssueMentions(ctx, c.IssueID, mentions(body)); err != nil {
			return err
		}
		is, err := tx.IssueByID(ctx, c.IssueID)
		if err != nil {
			return err
		}
		if err := crossReference(ctx, tx, x, is, x.c.UserID(), body); err != nil {
			return err
		}
		p := commentPayload(c, "edited")
		p["changes"] = map[string]any{"body": map[string]any{"from": from}}
		return tx.AppendEvent(ctx, "issue_comment.edited", x.c.UserID(), x.repo.ID, x.org(), p)
	})
	if err != nil {
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
	if err := x.participate(r); err != nil {
		return err
	}
	ctx := r.Context()
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		c, err := a.comment(r, tx, x)
		if err != nil {
			return err
		}
		if err := mayModify(x, c); err != nil {
			return err
		}
		if err := tx.DeleteComment(ctx, c); err != nil {
			return err
		}
		if err := tx.DeleteCommentedEvent(ctx, c.IssueID, c.ID); err != nil {
			return err
		}
		// The issue_comment webhook's "deleted" carries the comment as it was.
		p := commentPayload(c, "deleted")
		p["webhook"] = map[string]any{"comment": a.d.URLs.NewIssueWriter(wire.BodyFormat{Raw: true}).ToComment(x.repo, c)}
		return tx.AppendEvent(ctx, "issue_comment.deleted", x.c.UserID(), x.repo.ID, x.org(), p)
	})
	if err != nil {
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
	ctx := r.Context()
	actor := x.c.UserID()
	var id int64
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		c, err := a.comment(r, tx, x)
		if err != nil {
			return err
		}
		id = c.ID
		is, err := tx.IssueByID(ctx, c.IssueID)
		if err != nil {
			return err
		}
		ev := model.IssueEvent{ActorID: actor, Event: "pinned", SubjectID: c.ID}
		if pin {
			if c.PinnedAt != nil {
				return nil
			}
			prev, err := tx.PinComment(ctx, c, actor)
			if err != nil {
				return err
			}
			if prev != 0 {
				if err := event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: "unpinned", SubjectID: prev},
					map[string]any{"comment_id": prev}); err != nil {
					return err
				}
			}
		} else {
			if c.PinnedAt == nil {
				return nil
			}
			if err := tx.UnpinComment(ctx, c); err != nil {
				return err
			}
			ev.Event = "unpinned"
		}
		return event(ctx, tx, x, is, ev, map[string]any{"comment_id": c.ID})
	})
	if err != nil {
		return err
	}
	if !pin {
		return rest.NoContent(w)
	}
	return a.respondComment(w, r, x, id, http.StatusOK)
}
