package store

import (
	"context"

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

// maxClosingPulls bounds the pull requests listed as closing one issue.
const maxClosingPulls = 250

// ClosingReferences maps each of ids to the other side of its closing
// references, oldest first: byPull gives the issues pull requests close,
// otherwise the pull requests (at most 250) that close issues.
func (q Q) ClosingReferences(ctx context.Context, ids []int64, byPull bool) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	if len(ids) == 0 {
		return out, nil
	}
	key, other := "issue_id", "pull_id"
	if byPull {
		key, other = other, key
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT `+key+`, `+other+` FROM closing_references WHERE `+key+` IN (`+in+`) ORDER BY created_at, `+other, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var k, v int64
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		if len(out[k]) < maxClosingPulls {
			out[k] = append(out[k], v)
		}
	}
	return out, rows.Err()
}
