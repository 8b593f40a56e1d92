package issues

import (
	"context"
	"errors"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Relations between issues: sub-issues (a parent with ordered children,
// possibly in other repositories of the same owner) and dependencies (an
// issue blocked by others, in any repository the caller can see). Each
// change records an issue event on both sides in its transaction.

// GitHub's limits on sub-issues and dependencies.
const (
	maxSubIssues    = 100 // per parent
	maxDepth        = 8   // levels of nesting
	maxDependencies = 50  // issues one issue may be blocked by
)

// require is what changing an issue's labels, assignees, relations or
// field values needs: issues enabled, the permission need, and a
// repository that is not archived.
func (x *Access) require(need authz.Permission) error {
	if !x.Repo.HasIssues {
		return ErrDisabled
	}
	if x.Perm < need {
		return authz.NeedPermission(need)
	}
	return x.Writable()
}

// issueIn loads issue id inside x's repository (another repository's
// issue is not found).
func issueIn(ctx context.Context, q store.Q, x *Access, id int64) (*model.Issue, error) {
	is, err := q.IssueByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if is.RepoID != x.Repo.ID {
		return nil, model.ErrNotFound
	}
	return is, nil
}

// related loads an issue by id for a relation with an issue of x: it must
// exist, be visible to the caller, — sameOwner — belong to the same owner,
// and — changes, when the relation changes the issue itself (its parent) —
// lie inside the caller's grant (an installation or fine-grained token
// does not reach into another repository through a relation). It returns
// the issue with its repository's access.
func related(ctx context.Context, q store.Q, x *Access, id int64, sameOwner, changes bool) (*model.Issue, *Access, error) {
	is, err := q.IssueByID(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if is.RepoID == x.Repo.ID {
		return is, x, nil
	}
	v, err := q.RepoByID(ctx, is.RepoID, x.Caller.UserID())
	if err != nil {
		return nil, nil, err
	}
	perm, err := authz.Authorize(x.Caller, v.Repo, v.Facts, changes, authz.None)
	if err != nil {
		return nil, nil, err
	}
	if sameOwner && v.Repo.OwnerID != x.Repo.OwnerID {
		return nil, nil, model.Unprocessable("The sub-issue must belong to the same repository owner as the parent issue.")
	}
	return is, &Access{Repo: v.Repo, Perm: perm, Caller: x.Caller}, nil
}

// Parent finds issue is's parent with its repository's access; not found
// when it has none or the caller may not see it.
func (a *Service) Parent(ctx context.Context, x *Access, is *model.Issue) (*model.Issue, *Access, error) {
	if is.ParentID == 0 {
		return nil, nil, model.ErrNotFound
	}
	return related(ctx, a.d.Store.R(), x, is.ParentID, false, false)
}

// relationEvent records event name on is, naming the other issue.
func relationEvent(ctx context.Context, tx store.Q, x *Access, is *model.Issue, actor int64, name string, other *model.Issue) error {
	return event(ctx, tx, x, is, model.IssueEvent{ActorID: actor, Event: name, SubjectID: other.ID}, map[string]any{"other_issue_id": other.ID})
}

// AddSubIssue makes issue childID a sub-issue of issue parentID (of x's
// repository), as POST .../issues/{n}/sub_issues does: triage access; the
// child belongs to the same owner, has no other parent unless
// replaceParent, and the tree stays within GitHub's limits (100
// sub-issues, 8 levels, no cycles). Events: sub_issue_added and
// parent_issue_added (and the removals from a replaced parent).
func (a *Service) AddSubIssue(ctx context.Context, x *Access, parentID, childID int64, replaceParent bool) error {
	if err := x.require(authz.Triage); err != nil {
		return err
	}
	return a.relation(ctx, x, parentID, childID, rel{sameOwner: true, changes: true}, func(tx store.Q, parent, child *model.Issue, cx *Access) (string, string, error) {
		if child.ID == parent.ID {
			return "", "", model.Unprocessable("An issue cannot be a sub-issue of itself.")
		}
		if child.ParentID == parent.ID {
			return "", "", model.Unprocessable("Issue may not contain duplicate sub-issues.")
		}
		if child.ParentID != 0 && !replaceParent {
			return "", "", model.Unprocessable("Sub issue may only have one parent.")
		}
		if parent.SubIssues >= maxSubIssues {
			return "", "", model.Unprocessable("Parent cannot have more than 100 sub-issues.")
		}
		ancestors, err := tx.AncestorIDs(ctx, parent.ID, maxDepth+1)
		if err != nil {
			return "", "", err
		}
		for _, id := range ancestors {
			if id == child.ID {
				return "", "", model.Unprocessable("An issue cannot be a sub-issue of its own sub-issue.")
			}
		}
		below, err := tx.SubIssueDepth(ctx, child.ID, maxDepth)
		if err != nil {
			return "", "", err
		}
		if len(ancestors)+1+below > maxDepth-1 {
			return "", "", model.Unprocessable("Sub-issues cannot be nested more than 8 levels deep.")
		}
		if child.ParentID != 0 {
			old, ox, err := related(ctx, tx, x, child.ParentID, false, false)
			if err != nil {
				return "", "", err
			}
			actor := x.Caller.UserID()
			if err := relationEvent(ctx, tx, ox, old, actor, "sub_issue_removed", child); err != nil {
				return "", "", err
			}
			if err := relationEvent(ctx, tx, cx, child, actor, "parent_issue_removed", old); err != nil {
				return "", "", err
			}
		}
		return "sub_issue_added", "parent_issue_added", tx.AddSubIssue(ctx, parent, child)
	})
}

// RemoveSubIssue detaches sub-issue childID from issue parentID, as DELETE
// .../issues/{n}/sub_issue does: triage access; not found when childID is
// not its sub-issue. Events: sub_issue_removed and parent_issue_removed.
func (a *Service) RemoveSubIssue(ctx context.Context, x *Access, parentID, childID int64) error {
	if err := x.require(authz.Triage); err != nil {
		return err
	}
	return a.relation(ctx, x, parentID, childID, rel{changes: true}, func(tx store.Q, parent, child *model.Issue, _ *Access) (string, string, error) {
		if child.ParentID != parent.ID {
			return "", "", model.ErrNotFound
		}
		return "sub_issue_removed", "parent_issue_removed", tx.RemoveSubIssue(ctx, parent, child)
	})
}

// rel says how relation finds the other issue (see related); notFound,
// when set, answers an other issue that is not found.
type rel struct {
	sameOwner, changes bool
	notFound           error
}

// relation runs change on issue id of x's repository and the related
// issue otherID in one transaction, then records the events change names:
// mine on the issue and theirs on the other one ("" records none).
func (a *Service) relation(ctx context.Context, x *Access, id, otherID int64, how rel,
	change func(tx store.Q, is, other *model.Issue, ox *Access) (mine, theirs string, err error)) error {
	actor := x.Caller.UserID()
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		is, err := issueIn(ctx, tx, x, id)
		if err != nil {
			return err
		}
		other, ox, err := related(ctx, tx, x, otherID, how.sameOwner, how.changes)
		if how.notFound != nil && errors.Is(err, model.ErrNotFound) {
			return how.notFound
		}
		if err != nil {
			return err
		}
		mine, theirs, err := change(tx, is, other, ox)
		if err != nil || mine == "" {
			return err
		}
		if err := relationEvent(ctx, tx, x, is, actor, mine, other); err != nil {
			return err
		}
		return relationEvent(ctx, tx, ox, other, actor, theirs, is)
	})
}

// ReprioritizeSubIssue moves sub-issue childID of issue parentID just
// after afterID or just before beforeID (exactly one is given), as PATCH
// .../sub_issues/priority does: triage access; 422 when the anchor is not
// another sub-issue of the parent. Domain event sub_issues.reprioritized.
func (a *Service) ReprioritizeSubIssue(ctx context.Context, x *Access, parentID, childID int64, afterID, beforeID *int64) error {
	if err := x.require(authz.Triage); err != nil {
		return err
	}
	if (afterID == nil) == (beforeID == nil) {
		return model.Unprocessable("Exactly one of after_id or before_id must be given.")
	}
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		parent, err := issueIn(ctx, tx, x, parentID)
		if err != nil {
			return err
		}
		ids, err := tx.SubIssueIDs(ctx, parent.ID)
		if err != nil {
			return err
		}
		anchor := afterID
		if anchor == nil {
			anchor = beforeID
		}
		others := make([]int64, 0, len(ids))
		found := false
		for _, id := range ids {
			if id == childID {
				found = true
				continue
			}
			others = append(others, id)
		}
		if !found {
			return model.ErrNotFound
		}
		pos := -1
		for i, id := range others {
			if id == *anchor {
				pos = i
			}
		}
		if pos < 0 {
			return model.Unprocessable("The after_id or before_id must be another sub-issue of this issue.")
		}
		if afterID != nil {
			pos++
		}
		order := append(append(append([]int64{}, others[:pos]...), childID), others[pos:]...)
		if err := tx.SetSubIssueOrder(ctx, parent.ID, order); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "sub_issues.reprioritized", x.Caller.UserID(), x.Repo.ID, x.Org(),
			map[string]any{"issue_id": parent.ID, "number": parent.Number, "sub_issue_id": childID})
	})
}

// AddBlockedBy records that issue blockedID (of x's repository) is
// blocked by issue blockingID, as POST .../dependencies/blocked_by does:
// triage access; the blocking issue is any issue the caller can see (an
// unknown or hidden one is a 422 naming issue_id); no self-blocks, cycles,
// or more than 50 blockers. Adding an existing dependency does nothing.
// Events: blocked_by_added and blocking_added.
func (a *Service) AddBlockedBy(ctx context.Context, x *Access, blockedID, blockingID int64) error {
	if err := x.require(authz.Triage); err != nil {
		return err
	}
	how := rel{notFound: &model.ValidationError{Errors: []model.FieldError{{Resource: "Issue", Field: "issue_id", Code: "invalid", Value: blockingID}}}}
	return a.relation(ctx, x, blockedID, blockingID, how, func(tx store.Q, blocked, blocking *model.Issue, _ *Access) (string, string, error) {
		if blocking.ID == blocked.ID {
			return "", "", model.Custom("Issue", "issue_id", "An issue cannot be blocked by itself.")
		}
		if circular, err := tx.IsBlockedBy(ctx, blocking.ID, blocked.ID); err != nil {
			return "", "", err
		} else if circular {
			return "", "", model.Custom("Issue", "issue_id", "Circular dependencies are not allowed.")
		}
		n, err := tx.CountDependencies(ctx, blocked.ID, false)
		if err != nil {
			return "", "", err
		}
		if n >= maxDependencies {
			return "", "", model.Custom("Issue", "issue_id", "An issue cannot be blocked by more than 50 issues.")
		}
		added, err := tx.AddDependency(ctx, blocked.ID, blocking.ID)
		if err != nil || !added {
			return "", "", err
		}
		return "blocked_by_added", "blocking_added", nil
	})
}

// RemoveBlockedBy drops the dependency of issue blockedID on issue
// blockingID, as DELETE .../dependencies/blocked_by/{issue_id} does:
// triage access; not found when there is none. Events: blocked_by_removed
// and blocking_removed.
func (a *Service) RemoveBlockedBy(ctx context.Context, x *Access, blockedID, blockingID int64) error {
	if err := x.require(authz.Triage); err != nil {
		return err
	}
	return a.relation(ctx, x, blockedID, blockingID, rel{}, func(tx store.Q, blocked, blocking *model.Issue, _ *Access) (string, string, error) {
		removed, err := tx.RemoveDependency(ctx, blocked.ID, blocking.ID)
		if err != nil {
			return "", "", err
		}
		if !removed {
			return "", "", model.ErrNotFound
		}
		return "blocked_by_removed", "blocking_removed", nil
	})
}
