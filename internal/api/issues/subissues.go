package issues

import (
	"context"
	"net/http"

	"github.com/hubd/hubd/internal/authz"
	issuesvc "github.com/hubd/hubd/internal/issues"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// GitHub's limits on sub-issues.
const (
	maxSubIssues = 100 // per parent
	maxDepth     = 8   // levels of nesting
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

// otherIssue loads an issue by id for a relation with an issue of x: it
// must exist, be visible to the caller, — sameOwner — belong to the same
// owner, and — changes, when the relation changes the issue itself (its
// parent) — lie inside the caller's grant (authz.Authorize: an
// installation or fine-grained token does not reach into another
// repository through a relation). It returns the issue with its
// repository's access.
func (a *API) otherIssue(r *http.Request, tx store.Q, x *access, id int64, sameOwner, changes bool) (*model.Issue, *access, error) {
	ctx := r.Context()
	is, err := tx.IssueByID(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if is.RepoID == x.Repo.ID {
		return is, x, nil
	}
	c := rest.Caller(r)
	v, err := tx.RepoByID(ctx, is.RepoID, c.UserID())
	if err != nil {
		return nil, nil, err
	}
	perm, err := authz.Authorize(c, v.Repo, v.Facts, changes, authz.None)
	if err != nil {
		return nil, nil, err
	}
	if sameOwner && v.Repo.OwnerID != x.Repo.OwnerID {
		return nil, nil, model.Unprocessable("The sub-issue must belong to the same repository owner as the parent issue.")
	}
	return is, &access{Repo: v.Repo, Perm: perm, Caller: c}, nil
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
	if is.ParentID == 0 {
		return model.ErrNotFound
	}
	parent, px, err := a.otherIssue(r, a.d.Store.R(), x, is.ParentID, false, false)
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

func subEvent(ctx context.Context, tx store.Q, x *access, is *model.Issue, actor int64, name string, other *model.Issue) error {
	return issuesvc.Event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: name, SubjectID: other.ID}, map[string]any{"other_issue_id": other.ID})
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
	ctx := r.Context()
	actor := x.Caller.UserID()
	var parentID int64
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		parent, err := a.issue(r, tx, x)
		if err != nil {
			return err
		}
		parentID = parent.ID
		child, cx, err := a.otherIssue(r, tx, x, childID, true, true)
		if err != nil {
			return err
		}
		if child.ID == parent.ID {
			return model.Unprocessable("An issue cannot be a sub-issue of itself.")
		}
		if child.ParentID == parent.ID {
			return model.Unprocessable("Issue may not contain duplicate sub-issues.")
		}
		if child.ParentID != 0 && !in.ReplaceParent {
			return model.Unprocessable("Sub issue may only have one parent.")
		}
		if parent.SubIssues >= maxSubIssues {
			return model.Unprocessable("Parent cannot have more than 100 sub-issues.")
		}
		ancestors, err := tx.AncestorIDs(ctx, parent.ID, maxDepth+1)
		if err != nil {
			return err
		}
		for _, id := range ancestors {
			if id == child.ID {
				return model.Unprocessable("An issue cannot be a sub-issue of its own sub-issue.")
			}
		}
		below, err := tx.SubIssueDepth(ctx, child.ID, maxDepth)
		if err != nil {
			return err
		}
		if len(ancestors)+1+below > maxDepth-1 {
			return model.Unprocessable("Sub-issues cannot be nested more than 8 levels deep.")
		}
		if child.ParentID != 0 {
			old, ox, err := a.otherIssue(r, tx, x, child.ParentID, false, false)
			if err != nil {
				return err
			}
			if err := subEvent(ctx, tx, ox, old, actor, "sub_issue_removed", child); err != nil {
				return err
			}
			if err := subEvent(ctx, tx, cx, child, actor, "parent_issue_removed", old); err != nil {
				return err
			}
		}
		if err := tx.AddSubIssue(ctx, parent, child); err != nil {
			return err
		}
		if err := subEvent(ctx, tx, x, parent, actor, "sub_issue_added", child); err != nil {
			return err
		}
		return subEvent(ctx, tx, cx, child, actor, "parent_issue_added", parent)
	})
	if err != nil {
		return err
	}
	return a.respond(w, r, x, parentID, http.StatusCreated)
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
	ctx := r.Context()
	actor := x.Caller.UserID()
	var parentID int64
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		parent, err := a.issue(r, tx, x)
		if err != nil {
			return err
		}
		parentID = parent.ID
		child, cx, err := a.otherIssue(r, tx, x, childID, false, true)
		if err != nil {
			return err
		}
		if child.ParentID != parent.ID {
			return model.ErrNotFound
		}
		if err := tx.RemoveSubIssue(ctx, parent, child); err != nil {
			return err
		}
		if err := subEvent(ctx, tx, x, parent, actor, "sub_issue_removed", child); err != nil {
			return err
		}
		return subEvent(ctx, tx, cx, child, actor, "parent_issue_removed", parent)
	})
	if err != nil {
		return err
	}
	return a.respond(w, r, x, parentID, http.StatusOK)
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
	ctx := r.Context()
	var parentID int64
	err = a.d.Store.Tx(ctx, func(tx store.Q) error {
		parent, err := a.issue(r, tx, x)
		if err != nil {
			return err
		}
		parentID = parent.ID
		ids, err := tx.SubIssueIDs(ctx, parent.ID)
		if err != nil {
			return err
		}
		anchor := in.AfterID
		if anchor == nil {
			anchor = in.BeforeID
		}
		rest := make([]int64, 0, len(ids))
		found := false
		for _, id := range ids {
			if id == childID {
				found = true
				continue
			}
			rest = append(rest, id)
		}
		if !found {
			return model.ErrNotFound
		}
		pos := -1
		for i, id := range rest {
			if id == *anchor {
				pos = i
			}
		}
		if pos < 0 {
			return model.Unprocessable("The after_id or before_id must be another sub-issue of this issue.")
		}
		if in.AfterID != nil {
			pos++
		}
		order := append(append(append([]int64{}, rest[:pos]...), childID), rest[pos:]...)
		if err := tx.SetSubIssueOrder(ctx, parent.ID, order); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "sub_issues.reprioritized", x.Caller.UserID(), x.Repo.ID, x.Org(),
			map[string]any{"issue_id": parent.ID, "number": parent.Number, "sub_issue_id": childID})
	})
	if err != nil {
		return err
	}
	return a.respond(w, r, x, parentID, http.StatusOK)
}
