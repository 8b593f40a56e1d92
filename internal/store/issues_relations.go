package store

import (
	"context"
	"database/sql"

	"github.com/hubd/hubd/internal/model"
)

// Sub-issues live on the child's row (parent_id, sub_priority): an issue has
// at most one parent, and the parent's list is ordered by sub_priority. The
// parent's sub_issues column counts its children.

// AddSubIssue makes child a sub-issue of parent, last in its list; a
// previous parent loses it.
func (q Q) AddSubIssue(ctx context.Context, parent, child *model.Issue) error {
	if child.ParentID != 0 && child.ParentID != parent.ID {
		if _, err := q.exec(ctx, `UPDATE issues SET sub_issues = sub_issues - 1 WHERE id = ?`, child.ParentID); err != nil {
			return err
		}
	}
	var last sql.NullInt64
	if err := q.row(ctx, `SELECT MAX(sub_priority) FROM issues WHERE parent_id = ?`, parent.ID).Scan(&last); err != nil {
		return err
	}
	child.ParentID, child.SubPriority = parent.ID, last.Int64+1
	if _, err := q.exec(ctx, `UPDATE issues SET parent_id = ?, sub_priority = ? WHERE id = ?`, parent.ID, child.SubPriority, child.ID); err != nil {
		return err
	}
	_, err := q.exec(ctx, `UPDATE issues SET sub_issues = sub_issues + 1 WHERE id = ?`, parent.ID)
	return err
}

// RemoveSubIssue detaches child from its parent.
func (q Q) RemoveSubIssue(ctx context.Context, parent, child *model.Issue) error {
	if _, err := q.exec(ctx, `UPDATE issues SET parent_id = NULL, sub_priority = 0 WHERE id = ?`, child.ID); err != nil {
		return err
	}
	child.ParentID = 0
	_, err := q.exec(ctx, `UPDATE issues SET sub_issues = sub_issues - 1 WHERE id = ?`, parent.ID)
	return err
}

// SubIssueIDs lists a parent's sub-issues in priority order.
func (q Q) SubIssueIDs(ctx context.Context, parentID int64) ([]int64, error) {
	rows, err := q.query(ctx, `SELECT id FROM issues WHERE parent_id = ? ORDER BY sub_priority, id`, parentID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// SetSubIssueOrder renumbers a parent's sub-issues in the given order.
func (q Q) SetSubIssueOrder(ctx context.Context, parentID int64, ids []int64) error {
	for i, id := range ids {
		if _, err := q.exec(ctx, `UPDATE issues SET sub_priority = ? WHERE id = ? AND parent_id = ?`, i+1, id, parentID); err != nil {
			return err
		}
	}
	return nil
}

// ListSubIssues returns one page of a parent's sub-issues in priority
// order, and their count.
func (q Q) ListSubIssues(ctx context.Context, parentID int64, limit, offset int) ([]*model.Issue, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM issues WHERE parent_id = ?`, parentID).Scan(&total); err != nil {
		return nil, 0, err
	}
	list, err := q.issues(ctx, issueSelect+` WHERE i.parent_id = ? ORDER BY i.sub_priority, i.id LIMIT ? OFFSET ?`, parentID, limit, offset)
	return list, total, err
}

// AncestorIDs lists an issue's parent, its parent's parent, and so on
// (at most limit of them).
func (q Q) AncestorIDs(ctx context.Context, id int64, limit int) ([]int64, error) {
	var out []int64
	for len(out) < limit {
		var parent sql.NullInt64
		if err := q.row(ctx, `SELECT parent_id FROM issues WHERE id = ?`, id).Scan(&parent); err != nil {
			return nil, notFound(err)
		}
		if !parent.Valid {
			break
		}
		out = append(out, parent.Int64)
		id = parent.Int64
	}
	return out, nil
}

// SubIssueDepth is the number of levels of sub-issues below an issue
// (0 when it has none), counting at most limit levels.
func (q Q) SubIssueDepth(ctx context.Context, id int64, limit int) (int, error) {
	level := []int64{id}
	depth := 0
	for depth < limit {
		var next []int64
		for start := 0; start < len(level); start += 100 {
			in, args := inList(level[start:min(start+100, len(level))])
			rows, err := q.query(ctx, `SELECT DISTINCT id FROM issues WHERE parent_id IN (`+in+`)`, args...)
			if err != nil {
				return 0, err
			}
			for rows.Next() {
				var c int64
				if err := rows.Scan(&c); err != nil {
					rows.Close()
					return 0, err
				}
				next = append(next, c)
			}
			rows.Close()
		}
		if len(next) == 0 {
			break
		}
		depth++
		level = next
	}
	return depth, nil
}

func (q Q) loadSubSummaries(ctx context.Context, ids []int64, byID map[int64]*model.Issue) error {
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT parent_id, COUNT(*), COALESCE(SUM(CASE WHEN state = 'closed' THEN 1 ELSE 0 END), 0)
 FROM issues WHERE parent_id IN (`+in+`) GROUP BY parent_id`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var s model.SubIssuesSummary
		if err := rows.Scan(&id, &s.Total, &s.Completed); err != nil {
			return err
		}
		if is := byID[id]; is != nil {
			is.SubSummary = s
		}
	}
	return rows.Err()
}

// Dependencies: blocked_id is blocked by blocking_id. Both issues count the
// relation in their dependencies column.

// AddDependency records that blocked is blocked by blocking; it reports
// false when it already was.
func (q Q) AddDependency(ctx context.Context, blockedID, blockingID int64) (bool, error) {
	res, err := q.exec(ctx, `INSERT INTO issue_dependencies (blocked_id, blocking_id, created_at) VALUES (?,?,?) ON CONFLICT DO NOTHING`,
		blockedID, blockingID, unix(q.Now()))
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	_, err = q.exec(ctx, `UPDATE issues SET dependencies = dependencies + 1 WHERE id IN (?, ?)`, blockedID, blockingID)
	return true, err
}

// RemoveDependency removes a blocked-by relation; it reports false when
// there was none.
func (q Q) RemoveDependency(ctx context.Context, blockedID, blockingID int64) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM issue_dependencies WHERE blocked_id = ? AND blocking_id = ?`, blockedID, blockingID)
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	_, err = q.exec(ctx, `UPDATE issues SET dependencies = dependencies - 1 WHERE id IN (?, ?)`, blockedID, blockingID)
	return true, err
}

// CountDependencies counts the issues an issue is blocked by, or blocks.
func (q Q) CountDependencies(ctx context.Context, id int64, blocking bool) (int, error) {
	col := "blocked_id"
	if blocking {
		col = "blocking_id"
	}
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM issue_dependencies WHERE `+col+` = ?`, id).Scan(&n)
	return n, err
}

// ListDependencies returns one page of the issues an issue is blocked by
// (or, with blocking, those it blocks), and their count.
func (q Q) ListDependencies(ctx context.Context, id int64, blocking bool, limit, offset int) ([]*model.Issue, int, error) {
	mine, other := "blocked_id", "blocking_id"
	if blocking {
		mine, other = other, mine
	}
	total, err := q.CountDependencies(ctx, id, blocking)
	if err != nil {
		return nil, 0, err
	}
	list, err := q.issues(ctx, issueSelect+` JOIN issue_dependencies d ON d.`+other+` = i.id WHERE d.`+mine+` = ?
 ORDER BY d.created_at, i.id LIMIT ? OFFSET ?`, id, limit, offset)
	return list, total, err
}

// IsBlockedBy reports whether blocked is (directly) blocked by blocking.
func (q Q) IsBlockedBy(ctx context.Context, blockedID, blockingID int64) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM issue_dependencies WHERE blocked_id = ? AND blocking_id = ?`, blockedID, blockingID).Scan(&n)
	return n > 0, err
}

func (q Q) loadDepSummaries(ctx context.Context, ids []int64, byID map[int64]*model.Issue) error {
	in, args := inList(ids)
	for _, side := range []struct{ mine, other string }{{"blocked_id", "blocking_id"}, {"blocking_id", "blocked_id"}} {
		rows, err := q.query(ctx, `SELECT d.`+side.mine+`, COUNT(*), COALESCE(SUM(CASE WHEN o.state = 'open' THEN 1 ELSE 0 END), 0)
 FROM issue_dependencies d JOIN issues o ON o.id = d.`+side.other+` WHERE d.`+side.mine+` IN (`+in+`) GROUP BY d.`+side.mine, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var total, open int
			if err := rows.Scan(&id, &total, &open); err != nil {
				rows.Close()
				return err
			}
			if is := byID[id]; is != nil {
				if side.mine == "blocked_id" {
					is.DepSummary.TotalBlockedBy, is.DepSummary.BlockedBy = total, open
				} else {
					is.DepSummary.TotalBlocking, is.DepSummary.Blocking = total, open
				}
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// DeleteIssue removes an issue for good, as GitHub's deleteIssue does. Its
// number stays taken (IssueDeleted answers for it); the counts of the
// repository, its milestone, its parent issue and the issues it was linked
// to by dependencies follow; comments, labels, assignees, events and
// sub-issue links go with the row (ON DELETE CASCADE), reactions here.
func (q Q) DeleteIssue(ctx context.Context, is *model.Issue, actorID int64) error {
	if is.ParentID != 0 {
		if _, err := q.exec(ctx, `UPDATE issues SET sub_issues = sub_issues - 1 WHERE id = ?`, is.ParentID); err != nil {
			return err
		}
	}
	if _, err := q.exec(ctx, `UPDATE issues SET dependencies = dependencies - 1 WHERE id IN
 (SELECT blocking_id FROM issue_dependencies WHERE blocked_id = ? UNION ALL SELECT blocked_id FROM issue_dependencies WHERE blocking_id = ?)`,
		is.ID, is.ID); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `DELETE FROM reactions WHERE (subject_type = ? AND subject_id = ?)
 OR (subject_type = ? AND subject_id IN (SELECT id FROM issue_comments WHERE issue_id = ?))`,
		ReactIssue, is.ID, ReactComment, is.ID); err != nil {
		return err
	}
	if err := q.uncountIssue(ctx, is); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `INSERT INTO deleted_issues (repo_id, number, deleted_by_id, deleted_at) VALUES (?, ?, ?, ?)`,
		is.RepoID, is.Number, idOrNil(actorID), unix(q.Now())); err != nil {
		return err
	}
	_, err := q.exec(ctx, `DELETE FROM issues WHERE id = ?`, is.ID)
	return err
}

// IssueDeleted says whether a repository's issue number was deleted.
func (q Q) IssueDeleted(ctx context.Context, repoID, number int64) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM deleted_issues WHERE repo_id = ? AND number = ?`, repoID, number).Scan(&n)
	return n > 0, err
}
