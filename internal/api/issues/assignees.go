package issues

import (
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	issuesvc "github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
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
	ctx := r.Context()
	actor := x.Caller.UserID()
	var id int64
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		is, err := a.issue(r, tx, x)
		if err != nil {
			return err
		}
		id = is.ID
		if !x.Triage() || len(list) == 0 {
			return nil
		}
		cur, err := tx.IssueAssignees(ctx, is.ID)
		if err != nil {
			return err
		}
		changed := false
		if add {
			found, err := tx.AssignableByLogin(ctx, x.Repo.ID, list)
			if err != nil {
				return err
			}
			n := len(cur)
			for _, l := range list {
				u := found[strings.ToLower(l)]
				if u == nil || n >= issuesvc.MaxAssignees {
					continue
				}
				ok, err := issuesvc.Assign(ctx, tx, x, is, actor, u)
				if err != nil {
					return err
				}
				if ok {
					n++
					changed = true
				}
			}
		} else {
			drop := map[string]bool{}
			for _, l := range list {
				drop[strings.ToLower(l)] = true
			}
			for _, u := range cur {
				if !drop[strings.ToLower(u.Login)] {
					continue
				}
				if _, err := issuesvc.Unassign(ctx, tx, x, is, actor, u); err != nil {
					return err
				}
				changed = true
			}
		}
		if changed {
			return tx.TouchIssue(ctx, is)
		}
		return nil
	})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if add {
		status = http.StatusCreated
	}
	return a.respond(w, r, x, id, status)
}
