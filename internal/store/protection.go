package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/hubd/hubd/internal/model"
)

const protectionSelect = `SELECT repo_id, branch, status_checks, strict, enforce_admins, reviews, required_approvals,
 dismiss_stale_reviews, allow_force_pushes, allow_deletions, require_code_owner_reviews, restricted, dismissal_restricted,
 created_at, updated_at FROM branch_protections`

func scanProtection(r rowScanner) (*model.BranchProtection, error) {
	p := &model.BranchProtection{}
	var created, updated int64
	err := r.Scan(&p.RepoID, &p.Branch, &p.StatusChecks, &p.Strict, &p.EnforceAdmins, &p.Reviews, &p.RequiredApprovals,
		&p.DismissStaleReviews, &p.AllowForcePushes, &p.AllowDeletions, &p.RequireCodeOwnerReviews, &p.Restricted,
		&p.DismissalRestricted, &created, &updated)
	if err != nil {
		return nil, err
	}
	p.CreatedAt, p.UpdatedAt = fromUnix(created), fromUnix(updated)
	return p, nil
}

// BranchProtection is the protection of a branch with its required
// contexts; nil (and no error) when the branch is not protected.
func (q Q) BranchProtection(ctx context.Context, repoID int64, branch string) (*model.BranchProtection, error) {
	p, err := scanProtection(q.row(ctx, protectionSelect+` WHERE repo_id = ? AND branch = ?`, repoID, branch))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if p.RequiredContexts, err = q.RequiredContexts(ctx, repoID, branch); err != nil {
		return nil, err
	}
	if err := q.protectionActors(ctx, repoID, map[string]*model.BranchProtection{branch: p}); err != nil {
		return nil, err
	}
	return p, nil
}

// Lists of branch_protection_actors.
const (
	actorsPush    = "push"
	actorsDismiss = "dismiss"
	actorsBypass  = "bypass"
)

// protectionActors loads the users, teams and apps of the protections of
// some branches of a repository in one query.
func (q Q) protectionActors(ctx context.Context, repoID int64, byBranch map[string]*model.BranchProtection) error {
	if len(byBranch) == 0 {
		return nil
	}
	names := make([]string, 0, len(byBranch))
	for b := range byBranch {
		names = append(names, b)
	}
	in, args := textList(names)
	rows, err := q.query(ctx, `SELECT branch, list, kind, actor_id FROM branch_protection_actors WHERE repo_id = ? AND branch IN (`+in+`)
 ORDER BY branch, list, kind, actor_id`, append([]any{repoID}, args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var branch, list, kind string
		var id int64
		if err := rows.Scan(&branch, &list, &kind, &id); err != nil {
			return err
		}
		p := byBranch[branch]
		if p == nil {
			continue
		}
		var a *model.Allowed
		switch list {
		case actorsPush:
			a = &p.Push
		case actorsDismiss:
			a = &p.Dismiss
		case actorsBypass:
			a = &p.Bypass
		default:
			continue
		}
		switch kind {
		case "User":
			a.Users = append(a.Users, id)
		case "Team":
			a.Teams = append(a.Teams, id)
		case "App":
			a.Apps = append(a.Apps, id)
		}
	}
	return rows.Err()
}

// putProtectionActors replaces the actor lists of a protection.
func (q Q) putProtectionActors(ctx context.Context, p *model.BranchProtection) error {
	if _, err := q.exec(ctx, `DELETE FROM branch_protection_actors WHERE repo_id = ? AND branch = ?`, p.RepoID, p.Branch); err != nil {
		return err
	}
	for _, l := range []struct {
		list string
		a    model.Allowed
	}{{actorsPush, p.Push}, {actorsDismiss, p.Dismiss}, {actorsBypass, p.Bypass}} {
		for _, k := range []struct {
			kind string
			ids  []int64
		}{{"User", l.a.Users}, {"Team", l.a.Teams}, {"App", l.a.Apps}} {
			for _, id := range k.ids {
				if _, err := q.exec(ctx, `INSERT INTO branch_protection_actors (repo_id, branch, list, kind, actor_id) VALUES (?,?,?,?,?)
 ON CONFLICT DO NOTHING`, p.RepoID, p.Branch, l.list, k.kind, id); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// BranchProtections are the protections of some branches of a repository
// by name (unprotected ones absent), in two queries whatever their number.
func (q Q) BranchProtections(ctx context.Context, repoID int64, branches []string) (map[string]*model.BranchProtection, error) {
	out := map[string]*model.BranchProtection{}
	if len(branches) == 0 {
		return out, nil
	}
	in, args := textList(branches)
	args = append([]any{repoID}, args...)
	rows, err := q.query(ctx, protectionSelect+` WHERE repo_id = ? AND branch IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		p, err := scanProtection(rows)
		if err != nil {
			return nil, err
		}
		p.RequiredContexts = []string{}
		out[p.Branch] = p
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return out, nil
	}
	if err := q.protectionActors(ctx, repoID, out); err != nil {
		return nil, err
	}
	crows, err := q.query(ctx, `SELECT branch, context FROM required_contexts WHERE repo_id = ? AND branch IN (`+in+`) ORDER BY branch, context`, args...)
	if err != nil {
		return nil, err
	}
	defer crows.Close()
	for crows.Next() {
		var b, c string
		if err := crows.Scan(&b, &c); err != nil {
			return nil, err
		}
		if p := out[b]; p != nil {
			p.RequiredContexts = append(p.RequiredContexts, c)
		}
	}
	return out, crows.Err()
}

func textList(vals []string) (string, []any) {
	args := make([]any, len(vals))
	in := make([]byte, 0, 2*len(vals))
	for i, v := range vals {
		if i > 0 {
			in = append(in, ',')
		}
		in = append(in, '?')
		args[i] = v
	}
	return string(in), args
}

// PutBranchProtection creates or replaces a branch's protection and its
// required contexts (none when StatusChecks is off).
func (q Q) PutBranchProtection(ctx context.Context, p *model.BranchProtection) error {
	now := q.Now()
	p.UpdatedAt = now
	var created int64
	err := q.row(ctx, `SELECT created_at FROM branch_protections WHERE repo_id = ? AND branch = ?`, p.RepoID, p.Branch).Scan(&created)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		p.CreatedAt = now
	case err != nil:
		return err
	default:
		p.CreatedAt = fromUnix(created)
	}
	_, err = q.exec(ctx, `INSERT INTO branch_protections (repo_id, branch, status_checks, strict, enforce_admins, reviews,
 required_approvals, dismiss_stale_reviews, allow_force_pushes, allow_deletions, require_code_owner_reviews, restricted,
 dismissal_restricted, created_at, updated_at)
 VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
 ON CONFLICT (repo_id, branch) DO UPDATE SET status_checks = excluded.status_checks, strict = excluded.strict,
 enforce_admins = excluded.enforce_admins, reviews = excluded.reviews, required_approvals = excluded.required_approvals,
 dismiss_stale_reviews = excluded.dismiss_stale_reviews, allow_force_pushes = excluded.allow_force_pushes,
 allow_deletions = excluded.allow_deletions, require_code_owner_reviews = excluded.require_code_owner_reviews,
 restricted = excluded.restricted, dismissal_restricted = excluded.dismissal_restricted, updated_at = excluded.updated_at`,
		p.RepoID, p.Branch, p.StatusChecks, p.Strict, p.EnforceAdmins, p.Reviews, p.RequiredApprovals,
		p.DismissStaleReviews, p.AllowForcePushes, p.AllowDeletions, p.RequireCodeOwnerReviews, p.Restricted,
		p.DismissalRestricted, unix(p.CreatedAt), unix(p.UpdatedAt))
	if err != nil {
		return err
	}
	if err := q.putProtectionActors(ctx, p); err != nil {
		return err
	}
	contexts := p.RequiredContexts
	if !p.StatusChecks {
		contexts = nil
	}
	return q.SetRequiredContexts(ctx, p.RepoID, p.Branch, contexts)
}

// DeleteBranchProtection removes a branch's protection and its required
// contexts; false when the branch was not protected.
func (q Q) DeleteBranchProtection(ctx context.Context, repoID int64, branch string) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM branch_protections WHERE repo_id = ? AND branch = ?`, repoID, branch)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	return n > 0, q.SetRequiredContexts(ctx, repoID, branch, nil)
}

// deciding are the review states that decide a reviewer's verdict.
const deciding = `('APPROVED', 'CHANGES_REQUESTED', 'DISMISSED')`

// ReviewVerdicts are the latest deciding review of each user on a pull
// request (reviews of deleted accounts count for nobody).
func (q Q) ReviewVerdicts(ctx context.Context, pullID int64) ([]model.ReviewVerdict, error) {
	m, err := q.ReviewVerdictsOf(ctx, []int64{pullID})
	if err != nil {
		return nil, err
	}
	if m[pullID] == nil {
		return []model.ReviewVerdict{}, nil
	}
	return m[pullID], nil
}

// ReviewVerdictsOf is ReviewVerdicts of many pull requests, by pull id.
func (q Q) ReviewVerdictsOf(ctx context.Context, pullIDs []int64) (map[int64][]model.ReviewVerdict, error) {
	out := map[int64][]model.ReviewVerdict{}
	for start := 0; start < len(pullIDs); start += 100 {
		in, args := inList(pullIDs[start:min(start+100, len(pullIDs))])
		rows, err := q.query(ctx, `SELECT v.pull_id, v.id, v.user_id, v.state, v.commit_id FROM pull_reviews v
 WHERE v.pull_id IN (`+in+`) AND v.user_id IS NOT NULL AND v.state IN `+deciding+`
 AND v.id = (SELECT MAX(w.id) FROM pull_reviews w WHERE w.pull_id = v.pull_id AND w.user_id = v.user_id AND w.state IN `+deciding+`)
 ORDER BY v.id`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var pull int64
			var v model.ReviewVerdict
			if err := rows.Scan(&pull, &v.ReviewID, &v.UserID, &v.State, &v.CommitID); err != nil {
				rows.Close()
				return nil, err
			}
			out[pull] = append(out[pull], v)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// StaleApprovals are the ids of a pull request's approvals made on
// another commit than head.
func (q Q) StaleApprovals(ctx context.Context, pullID int64, head string) ([]int64, error) {
	return q.int64s(ctx, `SELECT id FROM pull_reviews WHERE pull_id = ? AND state = 'APPROVED' AND commit_id <> ? ORDER BY id`, pullID, head)
}

// ProtectedBranchNames are the names of a repository's protected branches
// in name order (GET .../branches?protected=...).
func (q Q) ProtectedBranchNames(ctx context.Context, repoID int64) ([]string, error) {
	rows, err := q.query(ctx, `SELECT branch FROM branch_protections WHERE repo_id = ? ORDER BY branch`, repoID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// RenameBranchProtection moves a branch's protection and required contexts
// to its new name (a branch rename), unless the new name is protected
// already; it reports whether anything moved.
func (q Q) RenameBranchProtection(ctx context.Context, repoID int64, from, to string) (bool, error) {
	res, err := q.exec(ctx, `UPDATE branch_protections SET branch = ?, updated_at = ? WHERE repo_id = ? AND branch = ?
 AND NOT EXISTS (SELECT 1 FROM branch_protections o WHERE o.repo_id = ? AND o.branch = ?)`,
		to, unix(q.Now()), repoID, from, repoID, to)
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err
	}
	if _, err := q.exec(ctx, `DELETE FROM required_contexts WHERE repo_id = ? AND branch = ?`, repoID, to); err != nil {
		return false, err
	}
	_, err = q.exec(ctx, `UPDATE required_contexts SET branch = ? WHERE repo_id = ? AND branch = ?`, to, repoID, from)
	return err == nil, err
}
