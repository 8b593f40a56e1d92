package issues

import (
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

// maxDependencies is GitHub's limit of issues an issue may be blocked by.
const maxDependencies = 50

// GET /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by
func (a *API) listBlockedBy(w http.ResponseWriter, r *http.Request) error {
	return a.listDependencies(w, r, false)
}

// GET /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocking
func (a *API) listBlocking(w http.ResponseWriter, r *http.Request) error {
	return a.listDependencies(w, r, true)
}

func (a *API) listDependencies(w http.ResponseWriter, r *http.Request, blocking bool) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	is, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().ListDependencies(r.Context(), is.ID, blocking, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out, err := a.renderAcross(r, x, list)
	if err != nil {
		return err
	}
	a.link(w, r, p, total)
	return out.send(w)
}

// POST /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by:
// triage access; the blocking issue (by id) is any issue the caller can
// see.
func (a *API) addBlockedBy(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openWritable(r, authz.Triage)
	if err != nil {
		return err
	}
	var in struct {
		IssueID *int64 `json:"issue_id"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if in.IssueID == nil {
		return model.Invalid("Issue", "issue_id", "missing_field")
	}
	ctx := r.Context()
	actor := x.Caller.UserID()
	var id int64
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		blocked, err := a.issue(r, tx, x)
		if err != nil {
			return err
		}
		id = blocked.ID
		blocking, bx, err := a.otherIssue(r, tx, x, *in.IssueID, false, false)
		if err == model.ErrNotFound {
			return &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: "issue_id", Code: "invalid", Value: *in.IssueID}}}
		}
		if err != nil {
			return err
		}
		if blocking.ID == blocked.ID {
			return model.Custom("Issue", "issue_id", "An issue cannot be blocked by itself.")
		}
		if circular, err := tx.IsBlockedBy(ctx, blocking.ID, blocked.ID); err != nil {
			return err
		} else if circular {
			return model.Custom("Issue", "issue_id", "Circular dependencies are not allowed.")
		}
		n, err := tx.CountDependencies(ctx, blocked.ID, false)
		if err != nil {
			return err
		}
		if n >= maxDependencies {
			return model.Custom("Issue", "issue_id", "An issue cannot be blocked by more than 50 issues.")
		}
		added, err := tx.AddDependency(ctx, blocked.ID, blocking.ID)
		if err != nil || !added {
			return err
		}
		if err := subEvent(ctx, tx, x, blocked, actor, "blocked_by_added", blocking); err != nil {
			return err
		}
		return subEvent(ctx, tx, bx, blocking, actor, "blocking_added", blocked)
	})
	if err != nil {
		return err
	}
	return a.respond(w, r, x, id, http.StatusCreated)
}

// DELETE /repos/{owner}/{repo}/issues/{issue_number}/dependencies/blocked_by/{issue_id}:
// triage access.
func (a *API) removeBlockedBy(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openWritable(r, authz.Triage)
	if err != nil {
		return err
	}
	otherID, err := pathInt(r, "issue_id")
	if err != nil {
		return err
	}
	ctx := r.Context()
	actor := x.Caller.UserID()
	var id int64
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		blocked, err := a.issue(r, tx, x)
		if err != nil {
			return err
		}
		id = blocked.ID
		blocking, bx, err := a.otherIssue(r, tx, x, otherID, false, false)
		if err != nil {
			return err
		}
		removed, err := tx.RemoveDependency(ctx, blocked.ID, blocking.ID)
		if err != nil {
			return err
		}
		if !removed {
			return model.ErrNotFound
		}
		if err := subEvent(ctx, tx, x, blocked, actor, "blocked_by_removed", blocking); err != nil {
			return err
		}
		return subEvent(ctx, tx, bx, blocking, actor, "blocking_removed", blocked)
	})
	if err != nil {
		return err
	}
	return a.respond(w, r, x, id, http.StatusOK)
}
