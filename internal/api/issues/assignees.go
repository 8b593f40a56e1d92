package issues

import (
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// GET /repos/{owner}/{repo}/assignees: the owner, collaborators and the
// organization members who have access.
func (a *API) listAssignees(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepo(r, authz.Read)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().ListAssignable(r.Context(), x.Repo.ID, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	wr := a.writer(r)
	out := make([]any, 0, len(list))
	for _, u := range list {
		out = append(out, wr.User(u))
	}
	a.link(w, r, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// assignable answers 204 when the {assignee} may be assigned, else 404.
func (a *API) assignable(w http.ResponseWriter, r *http.Request, x *access) error {
	login := r.PathValue("assignee")
	found, err := a.d.Store.R().AssignableByLogin(r.Context(), x.Repo.ID, []string{login})
	if err != nil {
		return err
	}
	if found[strings.ToLower(login)] == nil {
		return model.ErrNotFound
	}
	return rest.NoContent(w)
}

// GET /repos/{owner}/{repo}/assignees/{assignee}
func (a *API) checkAssignee(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openRepo(r, authz.Read)
	if err != nil {
		return err
	}
	return a.assignable(w, r, x)
}

// GET /repos/{owner}/{repo}/issues/{issue_number}/assignees/{assignee}
func (a *API) checkIssueAssignee(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	if _, err := a.issue(r, a.d.Store.R(), x); err != nil {
		return err
	}
	return a.assignable(w, r, x)
}

type assigneesBody struct {
	Assignees *[]loginIn `json:"assignees"`
}

// POST /repos/{owner}/{repo}/issues/{issue_number}/assignees: triage
// access adds up to ten assignees in all; logins that may not be assigned,
// and the whole request without triage access, are silently ignored.
func (a *API) addAssignees(w http.ResponseWriter, r *http.Request) error {
	return a.changeAssignees(w, r, true)
}

// DELETE /repos/{owner}/{repo}/issues/{issue_number}/assignees
func (a *API) removeAssignees(w http.ResponseWriter, r *http.Request) error {
	return a.changeAssignees(w, r, false)
}

func (a *API) changeAssignees(w http.ResponseWriter, r *http.Request, add bool) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	if err := participate(x, r); err != nil {
		return err
	}
	var in assigneesBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if !add && in.Assignees == nil {
		return model.Unprocessable("Invalid request.\n\n\"assignees\" wasn't supplied.")
	}
	var list []string
	if in.Assignees != nil {
		list = logins(*in.Assignees)
	}
	is, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	change := a.svc.RemoveAssignees
	status := http.StatusOK
	if add {
		change, status = a.svc.AddAssignees, http.StatusCreated
	}
	if err := change(r.Context(), x, is.ID, list); err != nil {
		return err
	}
	return a.respond(w, r, x, is.ID, status)
}
