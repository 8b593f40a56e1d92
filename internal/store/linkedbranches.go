package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Branches linked to issues (internal/refs): a link names a full ref of a
// repository; it goes when the ref is deleted.

const linkedBranchCols = `id, issue_id, repo_id, ref, created_by, created_at`

func scanLinkedBranch(sc interface{ Scan(...any) error }) (*model.LinkedBranch, error) {
	lb := &model.LinkedBranch{}
	var by sql.NullInt64
	var at int64
	if err := sc.Scan(&lb.ID, &lb.IssueID, &lb.RepoID, &lb.Ref, &by, &at); err != nil {
		return nil, err
	}
	lb.CreatedBy, lb.CreatedAt = by.Int64, fromUnix(at)
	return lb, nil
}

// LinkBranch links the ref of a repository to an issue (a link of the same
// ref left from before is replaced).
func (q Q) LinkBranch(ctx context.Context, issueID, repoID int64, ref string, by int64) (*model.LinkedBranch, error) {
	if _, err := q.exec(ctx, `DELETE FROM linked_branches WHERE issue_id = ? AND repo_id = ? AND ref = ?`, issueID, repoID, ref); err != nil {
		return nil, err
	}
	now := q.Now()
	id, err := q.insert(ctx, `INSERT INTO linked_branches (issue_id, repo_id, ref, created_by, created_at) VALUES (?,?,?,?,?)`,
		issueID, repoID, ref, idOrNil(by), unix(now))
	if err != nil {
		return nil, err
	}
	return &model.LinkedBranch{ID: id, IssueID: issueID, RepoID: repoID, Ref: ref, CreatedBy: by, CreatedAt: fromUnix(unix(now))}, nil
}

// LinkedBranchesByID loads links by id (missing ids are left out).
func (q Q) LinkedBranchesByID(ctx context.Context, ids []int64) (map[int64]*model.LinkedBranch, error) {
	out := map[int64]*model.LinkedBranch{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT `+linkedBranchCols+` FROM linked_branches WHERE id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		lb, err := scanLinkedBranch(rows)
		if err != nil {
			return nil, err
		}
		out[lb.ID] = lb
	}
	return out, rows.Err()
}

// UnlinkBranch removes a link; it reports whether there was one.
func (q Q) UnlinkBranch(ctx context.Context, id int64) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM linked_branches WHERE id = ?`, id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// UnlinkRefs removes the links to refs of a repository (the refs were
// deleted).
func (q Q) UnlinkRefs(ctx context.Context, repoID int64, refs []string) error {
	if len(refs) == 0 {
		return nil
	}
	in, args := inList(refs)
	_, err := q.exec(ctx, `DELETE FROM linked_branches WHERE repo_id = ? AND ref IN (`+in+`)`, append([]any{repoID}, args...)...)
	return err
}

// LinkedBranchPage is one issue's page of linked branches and how many it
// has in all.
type LinkedBranchPage struct {
	Total int
	Links []*model.LinkedBranch
}

// LinkedBranches pages the links of each of issueIDs in SQL, oldest first:
// page turns an issue's total into the [start, end) offsets of its page.
// Two queries whatever the number of issues.
func (q Q) LinkedBranches(ctx context.Context, issueIDs []int64, page func(total int) (int, int)) (map[int64]*LinkedBranchPage, error) {
	out := map[int64]*LinkedBranchPage{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	in, args := inList(issueIDs)
	err := q.pagedByKey(ctx, `SELECT issue_id, COUNT(*) FROM linked_branches WHERE issue_id IN (`+in+`) GROUP BY issue_id`,
		`SELECT `+linkedBranchCols+`, issue_id AS k, ROW_NUMBER() OVER (PARTITION BY issue_id ORDER BY created_at, id) AS rn
		 FROM linked_branches WHERE issue_id IN (`+in+`)`, linkedBranchCols, args, page,
		func(rows *sql.Rows) error {
			lb, err := scanLinkedBranch(rows)
			if err != nil {
				return err
			}
			out[lb.IssueID].Links = append(out[lb.IssueID].Links, lb)
			return nil
		}, func(k int64, n int) { out[k] = &LinkedBranchPage{Total: n} })
	return out, err
}

// pagedByKey pages rows partitioned by a key in SQL: counts selects (key,
// count) per key, each reported to total; rows is a subquery selecting
// cols with the key as k and the row's place in its partition as rn
// (ROW_NUMBER from 1); page turns a key's count into the [start, end)
// offsets of its page, and scan reads each row of the pages (cols), in
// key then rn order. args are the arguments of both queries.
func (q Q) pagedByKey(ctx context.Context, counts, rows, cols string, args []any, page func(total int) (int, int),
	scan func(*sql.Rows) error, total func(k int64, n int)) error {
	return pagedBy(ctx, q, counts, rows, cols, args, page, scan, total)
}

// pagedBy is pagedByKey for a key of any type (a commit's id, say).
func pagedBy[K any](ctx context.Context, q Q, counts, rows, cols string, args []any, page func(total int) (int, int),
	scan func(*sql.Rows) error, total func(k K, n int)) error {
	cr, err := q.query(ctx, counts, args...)
	if err != nil {
		return err
	}
	var ranges []string
	var rargs []any
	for cr.Next() {
		var k K
		var n int
		if err := cr.Scan(&k, &n); err != nil {
			cr.Close()
			return err
		}
		total(k, n)
		if start, end := page(n); end > start {
			ranges = append(ranges, `(k = ? AND rn > ? AND rn <= ?)`)
			rargs = append(rargs, k, start, end)
		}
	}
	cr.Close()
	if err := cr.Err(); err != nil || len(ranges) == 0 {
		return err
	}
	pr, err := q.query(ctx, `SELECT `+cols+` FROM (`+rows+`) t WHERE `+strings.Join(ranges, " OR ")+` ORDER BY k, rn`,
		append(append([]any{}, args...), rargs...)...)
	if err != nil {
		return err
	}
	defer pr.Close()
	for pr.Next() {
		if err := scan(pr); err != nil {
			return err
		}
	}
	return pr.Err()
}
