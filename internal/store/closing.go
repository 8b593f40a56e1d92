package store

import (
	"context"
	"database/sql"

	"github.com/hubd/hubd/internal/model"
)

// PullsMergedAs loads a repository's pull requests whose merge commit is
// one of shas (internal/closing: a push that landed them).
func (q Q) PullsMergedAs(ctx context.Context, repoID int64, shas []string) ([]*model.Pull, error) {
	if len(shas) == 0 {
		return nil, nil
	}
	in, args := inList(shas)
	return q.pulls(ctx, pullSelect+` WHERE p.repo_id = ? AND p.merged_at IS NOT NULL AND p.merge_commit_sha IN (`+in+`) ORDER BY p.number`,
		append([]any{repoID}, args...)...)
}

// SetClosingReferences makes the issues pull request pullID's body says it
// closes exactly issueIDs, and reports which were added and removed.
func (q Q) SetClosingReferences(ctx context.Context, pullID int64, issueIDs []int64) (added, removed []int64, err error) {
	cur := map[int64]bool{}
	rows, err := q.query(ctx, `SELECT issue_id FROM closing_references WHERE pull_id = ?`, pullID)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, nil, err
		}
		cur[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	want := map[int64]bool{}
	for _, id := range issueIDs {
		if want[id] {
			continue
		}
		want[id] = true
		if !cur[id] {
			if _, err := q.exec(ctx, `INSERT INTO closing_references (pull_id, issue_id, created_at) VALUES (?,?,?)`, pullID, id, unix(q.Now())); err != nil {
				return nil, nil, err
			}
			added = append(added, id)
		}
	}
	for id := range cur {
		if !want[id] {
			if _, err := q.exec(ctx, `DELETE FROM closing_references WHERE pull_id = ? AND issue_id = ?`, pullID, id); err != nil {
				return nil, nil, err
			}
			removed = append(removed, id)
		}
	}
	return added, removed, nil
}

// ClosingLinks are one parent's closing references: how many it has, and
// the other sides of the page asked for, oldest first.
type ClosingLinks struct {
	Total int
	IDs   []int64
}

// ClosingReferences pages the closing references of each of ids in SQL:
// byPull gives the issues pull requests close, otherwise the pull requests
// that close issues (only those open or merged with openOrMerged). page
// turns a parent's total into the [start, end) offsets of its page. Two
// queries whatever the number of parents: the counts, then the pages.
func (q Q) ClosingReferences(ctx context.Context, ids []int64, byPull, openOrMerged bool, page func(total int) (int, int)) (map[int64]*ClosingLinks, error) {
	out := map[int64]*ClosingLinks{}
	if len(ids) == 0 {
		return out, nil
	}
	key, other := "issue_id", "pull_id"
	if byPull {
		key, other = other, key
	}
	in, args := inList(ids)
	from := ` FROM closing_references cr`
	where := ` WHERE cr.` + key + ` IN (` + in + `)`
	if openOrMerged && !byPull {
		from += ` JOIN issues o ON o.id = cr.pull_id LEFT JOIN pulls p ON p.issue_id = cr.pull_id`
		where += ` AND (o.state = 'open' OR p.merged_at IS NOT NULL)`
	}
	err := q.pagedByKey(ctx, `SELECT cr.`+key+`, COUNT(*)`+from+where+` GROUP BY cr.`+key,
		`SELECT cr.`+key+` AS k, cr.`+other+` AS o, ROW_NUMBER() OVER (PARTITION BY cr.`+key+
			` ORDER BY cr.created_at, cr.`+other+`) AS rn`+from+where, "k, o", args, page,
		func(rows *sql.Rows) error {
			var k, v int64
			if err := rows.Scan(&k, &v); err != nil {
				return err
			}
			out[k].IDs = append(out[k].IDs, v)
			return nil
		}, func(k int64, n int) { out[k] = &ClosingLinks{Total: n} })
	return out, err
}
