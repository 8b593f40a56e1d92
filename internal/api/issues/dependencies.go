package issues

import (
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

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
	blocked, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	if err := a.svc.AddBlockedBy(r.Context(), x, blocked.ID, *in.IssueID); err != nil {
		return err
	}
	return a.respond(w, r, x, blocked.ID, http.StatusCreated)
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
	blocked, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	if err := a.svc.RemoveBlockedBy(r.Context(), x, blocked.ID, otherID); err != nil {
		return err
	}
	return a.respond(w, r, x, blocked.ID, http.StatusOK)
}
