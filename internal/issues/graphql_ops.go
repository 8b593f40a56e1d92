package issues

import (
	"context"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Writes GraphQL's issue mutations run, with the rules of their REST twins
// (issues/{n}/lock, comments/{id}, sub_issues, dependencies/blocked_by).
// The REST handlers of sub-issues and dependencies still hold their own
// copy of these rules (internal/api/issues/subissues.go, dependencies.go):
// once those handlers call the functions here, they are the only copy.

// GitHub's limits on the issue graph.
const (
	MaxSubIssues    = 100 // per parent
	MaxSubDepth     = 8   // levels of nesting
	MaxDependencies = 50  // issues blocking one issue
)

// AccessTo is the caller's access to repo for a write that needs need: a
// signed-in user whose token may write, issues enabled, not archived.
func (a *Service) AccessTo(c *authz.Caller, repo *model.Repo, perm, need authz.Permission) (*Access, error) {
	x, err := a.accessFor(c, repo, perm)
	if err != nil {
		return nil, err
	}
	if perm < need {
		return nil, deps.NeedPermission(need)
	}
	return x, nil
}

// otherAccess is the caller's access to the repository of an issue a
// relation reaches (the same as x's, or found and authorized: write when
// the relation changes that issue).
func otherAccess(ctx context.Context, tx store.Q, x *Access, is *model.Issue, changes bool) (*Access, error) {
	if is.RepoID == x.Repo.ID {
		return x, nil
	}
	v, err := tx.RepoByID(ctx, is.RepoID, x.Caller.UserID())
	if err != nil {
		return nil, err
	}
	perm, err := authz.Authorize(x.Caller, v.Repo, v.Facts, changes, authz.None)
	if err != nil {
		return nil, err
	}
	return &Access{Repo: v.Repo, Perm: perm, Caller: x.Caller}, nil
}

// pair loads the issues a relation joins and the caller's access to the
// second one's repository (changes: the relation changes that issue).
func pair(ctx context.Context, tx store.Q, x *Access, firstID, secondID int64, changes bool) (first, second *model.Issue, sx *Access, err error) {
	if first, err = tx.IssueByID(ctx, firstID); err != nil {
		return nil, nil, nil, err
	}
	if second, err = tx.IssueByID(ctx, secondID); err != nil {
		return nil, nil, nil, err
	}
	sx, err = otherAccess(ctx, tx, x, second, changes)
	return first, second, sx, err
}

func relationEvent(ctx context.Context, tx store.Q, x *Access, is *model.Issue, name string, other *model.Issue) error {
	return Event(ctx, tx, x, is, model.IssueEvent{ActorID: x.Caller.UserID(), Event: name, SubjectID: other.ID},
		map[string]any{"other_issue_id": other.ID})
}

// AttachSubIssue makes childID a sub-issue of parentID (x: triage access to
// the parent's repository): same owner, one parent unless replace, at most
// 100 sub-issues, 8 levels and no cycles.
func (a *Service) AttachSubIssue(ctx context.Context, x *Access, parentID, childID int64, replace bool) error {
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		parent, child, cx, err := pair(ctx, tx, x, parentID, childID, true)
		if err != nil {
			return err
		}
		switch {
		case cx.Repo.OwnerID != x.Repo.OwnerID:
			return model.Unprocessable("The sub-issue must belong to the same repository owner as the parent issue.")
		case child.ID == parent.ID:
			return model.Unprocessable("An issue cannot be a sub-issue of itself.")
		case child.ParentID == parent.ID:
			return model.Unprocessable("Issue may not contain duplicate sub-issues.")
		case child.ParentID != 0 && !replace:
			return model.Unprocessable("Sub issue may only have one parent.")
		case parent.SubIssues >= MaxSubIssues:
			return model.Unprocessable("Parent cannot have more than 100 sub-issues.")
		}
		ancestors, err := tx.AncestorIDs(ctx, parent.ID, MaxSubDepth+1)
		if err != nil {
			return err
		}
		for _, id := range ancestors {
			if id == child.ID {
				return model.Unprocessable("An issue cannot be a sub-issue of its own sub-issue.")
			}
		}
		below, err := tx.SubIssueDepth(ctx, child.ID, MaxSubDepth)
		if err != nil {
			return err
		}
		if len(ancestors)+1+below > MaxSubDepth-1 {
			return model.Unprocessable("Sub-issues cannot be nested more than 8 levels deep.")
		}
		if child.ParentID != 0 {
			old, err := tx.IssueByID(ctx, child.ParentID)
			if err != nil {
				return err
			}
			ox, err := otherAccess(ctx, tx, x, old, false)
			if err != nil {
				return err
			}
			if err := relationEvent(ctx, tx, ox, old, "sub_issue_removed", child); err != nil {
				return err
			}
			if err := relationEvent(ctx, tx, cx, child, "parent_issue_removed", old); err != nil {
				return err
			}
		}
		if err := tx.AddSubIssue(ctx, parent, child); err != nil {
			return err
		}
		if err := relationEvent(ctx, tx, x, parent, "sub_issue_added", child); err != nil {
			return err
		}
		return relationEvent(ctx, tx, cx, child, "parent_issue_added", parent)
	})
}

// DetachSubIssue removes childID from parentID's sub-issues (x: triage
// access to the parent's repository); not a sub-issue of it is not found.
func (a *Service) DetachSubIssue(ctx context.Context, x *Access, parentID, childID int64) error {
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		parent, child, cx, err := pair(ctx, tx, x, parentID, childID, true)
		if err != nil {
			return err
		}
		if child.ParentID != parent.ID {
			return model.ErrNotFound
		}
		if err := tx.RemoveSubIssue(ctx, parent, child); err != nil {
			return err
		}
		if err := relationEvent(ctx, tx, x, parent, "sub_issue_removed", child); err != nil {
			return err
		}
		return relationEvent(ctx, tx, cx, child, "parent_issue_removed", parent)
	})
}

// MoveSubIssue moves childID among parentID's sub-issues to just after
// afterID, or just before beforeID (exactly one is non-zero).
func (a *Service) MoveSubIssue(ctx context.Context, x *Access, parentID, childID, afterID, beforeID int64) error {
	if (afterID == 0) == (beforeID == 0) {
		return model.Unprocessable("Exactly one of after_id or before_id must be given.")
	}
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		parent, err := tx.IssueByID(ctx, parentID)
		if err != nil {
			return err
		}
		ids, err := tx.SubIssueIDs(ctx, parent.ID)
		if err != nil {
			return err
		}
		anchor := max(afterID, beforeID)
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
			if id == anchor {
				pos = i
			}
		}
		if pos < 0 {
			return model.Unprocessable("The after_id or before_id must be another sub-issue of this issue.")
		}
		if afterID != 0 {
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

// BlockBy records that blockedID is blocked by blockingID (x: triage
// access to the blocked issue's repository): not itself, no cycle, at
// most 50 blocking issues. An existing dependency stays as it is.
func (a *Service) BlockBy(ctx context.Context, x *Access, blockedID, blockingID int64) error {
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		blocked, blocking, bx, err := pair(ctx, tx, x, blockedID, blockingID, false)
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
		if n >= MaxDependencies {
			return model.Custom("Issue", "issue_id", "An issue cannot be blocked by more than 50 issues.")
		}
		added, err := tx.AddDependency(ctx, blocked.ID, blocking.ID)
		if err != nil || !added {
			return err
		}
		if err := relationEvent(ctx, tx, x, blocked, "blocked_by_added", blocking); err != nil {
			return err
		}
		return relationEvent(ctx, tx, bx, blocking, "blocking_added", blocked)
	})
}

// Unblock removes the dependency of blockedID on blockingID; none is not
// found.
func (a *Service) Unblock(ctx context.Context, x *Access, blockedID, blockingID int64) error {
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		blocked, blocking, bx, err := pair(ctx, tx, x, blockedID, blockingID, false)
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
		if err := relationEvent(ctx, tx, x, blocked, "blocked_by_removed", blocking); err != nil {
			return err
		}
		return relationEvent(ctx, tx, bx, blocking, "blocking_removed", blocked)
	})
}

// MaxPinnedIssues is how many issues a repository pins at most.
const MaxPinnedIssues = 3

// Pin pins issue is to its repository, or unpins it (write access), with
// its pinned/unpinned event; pinning a fourth is refused.
func (a *Service) Pin(ctx context.Context, c *authz.Caller, repo *model.Repo, perm authz.Permission, is *model.Issue, pin bool) error {
	x, err := a.AccessTo(c, repo, perm, authz.Write)
	if err != nil {
		return err
	}
	if is.IsPull {
		return model.Unprocessable("Pull requests cannot be pinned.")
	}
	return a.d.Store.Tx(ctx, func(tx store.Q) error {
		pinned, err := tx.PinnedIssues(ctx, repo.ID)
		if err != nil {
			return err
		}
		was := false
		for _, p := range pinned {
			was = was || p.IssueID == is.ID
		}
		ev := "pinned"
		switch {
		case pin == was:
			return nil
		case pin && len(pinned) >= MaxPinnedIssues:
			return model.Unprocessable("Repository already has 3 pinned issues.")
		case pin:
			err = tx.PinIssue(ctx, is, c.UserID())
		default:
			ev = "unpinned"
			_, err = tx.UnpinIssue(ctx, is.ID)
		}
		if err != nil {
			return err
		}
		return Event(ctx, tx, x, is, model.IssueEvent{ActorID: c.UserID(), Event: ev}, nil)
	})
}
