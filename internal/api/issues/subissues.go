package issues

import (
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// renderAcross converts issues that may live in other repositories of the
// owner, leaving out those the caller may not see.
func (a *API) renderAcross(r *http.Request, x *access, list []*model.Issue) (*issueList, error) {
	ctx := r.Context()
	st := a.d.Store.R()
	if err := st.IssueDetails(ctx, list, false); err != nil {
		return nil, err
	}
	c := rest.Caller(r)
	var other []int64
	for _, is := range list {
		if is.RepoID != x.Repo.ID {
			other = append(other, is.RepoID)
		}
	}
	repos, err := st.ReposByID(ctx, other, c.UserID())
	if err != nil {
		return nil, err
	}
	out := &issueList{wr: a.writer(r), items: make([]wire.Issue, 0, len(list))}
	for _, is := range list {
		if is.RepoID == x.Repo.ID {
			out.items = append(out.items, out.wr.ToIssue(x.Repo, is, nil))
			continue
		}
		v := repos[is.RepoID]
		if v != nil && authz.CanSee(authz.RepoPermission(c, v.Repo, v.Facts)) {
			out.items = append(out.items, out.wr.ToIssue(v.Repo, is, nil))
		}
	}
	return out, nil
}

// GET /repos/{owner}/{repo}/issues/{issue_number}/parent
func (a *API) getParent(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	is, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	parent, px, err := a.svc.Parent(r.Context(), x, is)
	if err != nil {
		return err
	}
	out, err := a.render(r, px, parent, true)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/issues/{issue_number}/sub_issues: in priority
// order.
func (a *API) listSubIssues(w http.ResponseWriter, r *http.Request) error {
	x, err := a.open(r, authz.Read)
	if err != nil {
		return err
	}
	is, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().ListSubIssues(r.Context(), is.ID, p.Limit(), p.Offset())
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

type subIssueBody struct {
	SubIssueID    *int64 `json:"sub_issue_id"`
	ReplaceParent bool   `json:"replace_parent"`
	AfterID       *int64 `json:"after_id"`
	BeforeID      *int64 `json:"before_id"`
}

func (in subIssueBody) id() (int64, error) {
	if in.SubIssueID == nil {
		return 0, model.Invalid("Issue", "sub_issue_id", "missing_field")
	}
	return *in.SubIssueID, nil
}

// POST /repos/{owner}/{repo}/issues/{issue_number}/sub_issues: triage
// access; the sub-issue (by id) belongs to the same owner, has no other
// parent unless replace_parent, and the tree stays within GitHub's limits
// (100 sub-issues, 8 levels, no cycles).
func (a *API) addSubIssue(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openWritable(r, authz.Triage)
	if err != nil {
		return err
	}
	var in subIssueBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	childID, err := in.id()
	if err != nil {
		return err
	}
	parent, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	if err := a.svc.AddSubIssue(r.Context(), x, parent.ID, childID, in.ReplaceParent); err != nil {
		return err
	}
	return a.respond(w, r, x, parent.ID, http.StatusCreated)
}

// DELETE /repos/{owner}/{repo}/issues/{issue_number}/sub_issue: triage
// access.
func (a *API) removeSubIssue(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openWritable(r, authz.Triage)
	if err != nil {
		return err
	}
	var in subIssueBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	childID, err := in.id()
	if err != nil {
		return err
	}
	parent, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	if err := a.svc.RemoveSubIssue(r.Context(), x, parent.ID, childID); err != nil {
		return err
	}
	return a.respond(w, r, x, parent.ID, http.StatusOK)
}

// PATCH /repos/{owner}/{repo}/issues/{issue_number}/sub_issues/priority:
// triage access; moves a sub-issue just after after_id or before
// before_id.
func (a *API) reprioritizeSubIssue(w http.ResponseWriter, r *http.Request) error {
	x, err := a.openWritable(r, authz.Triage)
	if err != nil {
		return err
	}
	var in subIssueBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	childID, err := in.id()
	if err != nil {
		return err
	}
	if (in.AfterID == nil) == (in.BeforeID == nil) {
		return model.Unprocessable("Exactly one of after_id or before_id must be given.")
	}
	parent, err := a.issue(r, a.d.Store.R(), x)
	if err != nil {
		return err
	}
	if err := a.svc.ReprioritizeSubIssue(r.Context(), x, parent.ID, childID, in.AfterID, in.BeforeID); err != nil {
		return err
	}
	return a.respond(w, r, x, parent.ID, http.StatusOK)
}
