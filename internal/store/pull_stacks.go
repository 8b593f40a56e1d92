package store

import (
	"context"
	"database/sql"

	"github.com/hubd/hubd/internal/model"
)

// Pull request stacks: a pull_stacks row per stack, numbered per repository
// from pull_stack_counters (numbers are never reused, even once a stack is
// dissolved), and one pull_stack_members row per pull request (its primary
// key is the pull request, so a pull request is in at most one stack).
// Positions are kept 1..n without gaps by every writer.

const stackCols = `s.id, s.repo_id, s.number, s.version, s.created_at, s.updated_at`

func (q Q) pullStacks(ctx context.Context, query string, args ...any) ([]*model.PullStack, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.PullStack{}
	for rows.Next() {
		s := &model.PullStack{Members: []*model.PullStackMember{}}
		var created, updated int64
		if err := rows.Scan(&s.ID, &s.RepoID, &s.Number, &s.Version, &created, &updated); err != nil {
			return nil, err
		}
		s.CreatedAt, s.UpdatedAt = fromUnix(created), fromUnix(updated)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, q.loadStackMembers(ctx, out)
}

// loadStackMembers fills the members of stacks, bottom first, in one query.
func (q Q) loadStackMembers(ctx context.Context, stacks []*model.PullStack) error {
	if len(stacks) == 0 {
		return nil
	}
	byID := make(map[int64]*model.PullStack, len(stacks))
	ids := make([]int64, len(stacks))
	for i, s := range stacks {
		byID[s.ID], ids[i] = s, s.ID
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT m.stack_id, m.issue_id, m.pos, p.number, i.state, p.draft, p.merged_at,
 p.head_ref, p.head_sha, p.base_ref, p.base_sha
 FROM pull_stack_members m JOIN pulls p ON p.issue_id = m.issue_id JOIN issues i ON i.id = m.issue_id
 WHERE m.stack_id IN (`+in+`) ORDER BY m.stack_id, m.pos`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		m := &model.PullStackMember{}
		var stackID int64
		var merged sql.NullInt64
		if err := rows.Scan(&stackID, &m.IssueID, &m.Position, &m.Number, &m.State, &m.Draft, &merged,
			&m.HeadRef, &m.HeadSHA, &m.BaseRef, &m.BaseSHA); err != nil {
			return err
		}
		m.MergedAt = fromNullUnix(merged)
		if s := byID[stackID]; s != nil {
			s.Members = append(s.Members, m)
		}
	}
	return rows.Err()
}

// PullStackByNumber is a repository's stack number n with its members
// (model.ErrNotFound when there is none).
func (q Q) PullStackByNumber(ctx context.Context, repoID, number int64) (*model.PullStack, error) {
	list, err := q.pullStacks(ctx, `SELECT `+stackCols+` FROM pull_stacks s WHERE s.repo_id = ? AND s.number = ?`, repoID, number)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, model.ErrNotFound
	}
	return list[0], nil
}

// PullStacks is a page of a repository's stacks, newest first, with their
// members, and how many there are in all. pullNumber, when not 0, keeps
// only the stack holding that pull request.
func (q Q) PullStacks(ctx context.Context, repoID, pullNumber int64, limit, offset int) ([]*model.PullStack, int, error) {
	where, args := ` WHERE s.repo_id = ?`, []any{repoID}
	if pullNumber != 0 {
		where += ` AND s.id IN (SELECT m.stack_id FROM pull_stack_members m JOIN pulls p ON p.issue_id = m.issue_id
 WHERE p.repo_id = ? AND p.number = ?)`
		args = append(args, repoID, pullNumber)
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM pull_stacks s`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	if total == 0 {
		return []*model.PullStack{}, 0, nil
	}
	list, err := q.pullStacks(ctx, `SELECT `+stackCols+` FROM pull_stacks s`+where+` ORDER BY s.number DESC LIMIT ? OFFSET ?`,
		append(args, limit, offset)...)
	return list, total, err
}

// CreatePullStack inserts s for repository s.RepoID with the pull requests
// issueIDs, bottom first, taking the repository's next stack number. A
// pull request already in a stack makes it fail with ErrDuplicate.
func (q Q) CreatePullStack(ctx context.Context, s *model.PullStack, issueIDs []int64) error {
	var n int64
	err := q.row(ctx, `INSERT INTO pull_stack_counters (repo_id, last_number) VALUES (?, 1)
 ON CONFLICT (repo_id) DO UPDATE SET last_number = pull_stack_counters.last_number + 1 RETURNING last_number`, s.RepoID).Scan(&n)
	if err != nil {
		return err
	}
	now := unix(q.Now())
	id, err := q.insert(ctx, `INSERT INTO pull_stacks (repo_id, number, version, created_at, updated_at) VALUES (?,?,1,?,?)`,
		s.RepoID, n, now, now)
	if err != nil {
		return err
	}
	s.ID, s.Number, s.Version, s.CreatedAt, s.UpdatedAt = id, n, 1, fromUnix(now), fromUnix(now)
	return q.AddPullStackMembers(ctx, id, 1, issueIDs)
}

// AddPullStackMembers puts issueIDs into stack stackID at positions from,
// from+1, ... (ErrDuplicate when one is already in a stack).
func (q Q) AddPullStackMembers(ctx context.Context, stackID int64, from int, issueIDs []int64) error {
	for i, id := range issueIDs {
		if _, err := q.exec(ctx, `INSERT INTO pull_stack_members (issue_id, stack_id, pos) VALUES (?,?,?)`, id, stackID, from+i); err != nil {
			if isUnique(err) {
				return ErrDuplicate
			}
			return err
		}
	}
	return nil
}

// ClaimPullStack is the compare-and-swap every change of a stack starts
// with: it moves the stack's version on from version and reports whether
// the stack was still at it (false: someone changed or dissolved it since
// it was read).
func (q Q) ClaimPullStack(ctx context.Context, stackID, version int64) (bool, error) {
	res, err := q.exec(ctx, `UPDATE pull_stacks SET version = version + 1, updated_at = ? WHERE id = ? AND version = ?`,
		unix(q.Now()), stackID, version)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// SetPullStackMembers makes keep (bottom first) the whole of stack
// stackID: other members leave it and positions become 1..len(keep).
func (q Q) SetPullStackMembers(ctx context.Context, stackID int64, keep []int64) error {
	if len(keep) == 0 {
		_, err := q.exec(ctx, `DELETE FROM pull_stack_members WHERE stack_id = ?`, stackID)
		return err
	}
	rows, err := q.query(ctx, `SELECT issue_id FROM pull_stack_members WHERE stack_id = ?`, stackID)
	if err != nil {
		return err
	}
	kept := make(map[int64]bool, len(keep))
	for _, id := range keep {
		kept[id] = true
	}
	var drop []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		if !kept[id] {
			drop = append(drop, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, id := range drop {
		if _, err := q.exec(ctx, `DELETE FROM pull_stack_members WHERE issue_id = ? AND stack_id = ?`, id, stackID); err != nil {
			return err
		}
	}
	for i, id := range keep {
		if _, err := q.exec(ctx, `UPDATE pull_stack_members SET pos = ? WHERE issue_id = ? AND stack_id = ?`, i+1, id, stackID); err != nil {
			return err
		}
	}
	return nil
}

// DeletePullStack dissolves a stack (its memberships go with it).
func (q Q) DeletePullStack(ctx context.Context, stackID int64) error {
	_, err := q.exec(ctx, `DELETE FROM pull_stacks WHERE id = ?`, stackID)
	return err
}

// PullsQueuedForMerge are those of issueIDs with a pending asynchronous
// merge request: a stack may not let go of them.
func (q Q) PullsQueuedForMerge(ctx context.Context, issueIDs []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	in, args := inList(issueIDs)
	return q.idSet(ctx, `SELECT DISTINCT pull_id FROM pull_merge_requests WHERE status = 'pending' AND pull_id IN (`+in+`)`, args...)
}

// StacksOfPulls is the stack membership of the pull requests issueIDs (the
// "stack" key of pull request objects), keyed by issue id; pull requests in
// no stack are absent. One query: the stack's size and its bottom pull
// request's base come from sub-queries.
func (q Q) StacksOfPulls(ctx context.Context, issueIDs []int64) (map[int64]*model.PullStackRef, error) {
	out := map[int64]*model.PullStackRef{}
	if len(issueIDs) == 0 {
		return out, nil
	}
	in, args := inList(issueIDs)
	rows, err := q.query(ctx, `SELECT m.issue_id, s.id, s.number, m.pos,
 (SELECT COUNT(*) FROM pull_stack_members c WHERE c.stack_id = s.id),
 COALESCE(bp.base_ref, ''), COALESCE(bp.base_sha, '')
 FROM pull_stack_members m JOIN pull_stacks s ON s.id = m.stack_id
 LEFT JOIN pull_stack_members b ON b.stack_id = s.id
  AND b.pos = (SELECT MIN(x.pos) FROM pull_stack_members x WHERE x.stack_id = s.id)
 LEFT JOIN pulls bp ON bp.issue_id = b.issue_id
 WHERE m.issue_id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var issueID int64
		r := &model.PullStackRef{}
		if err := rows.Scan(&issueID, &r.ID, &r.Number, &r.Position, &r.Size, &r.BaseRef, &r.BaseSHA); err != nil {
			return nil, err
		}
		out[issueID] = r
	}
	return out, rows.Err()
}

// PullIssueIDsByNumber maps those of numbers that are pull requests of
// repoID to their issue ids, in one query.
func (q Q) PullIssueIDsByNumber(ctx context.Context, repoID int64, numbers []int64) (map[int64]int64, error) {
	out := map[int64]int64{}
	if len(numbers) == 0 {
		return out, nil
	}
	in, args := inList(numbers)
	rows, err := q.query(ctx, `SELECT number, issue_id FROM pulls WHERE repo_id = ? AND number IN (`+in+`)`, append([]any{repoID}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var n, id int64
		if err := rows.Scan(&n, &id); err != nil {
			return nil, err
		}
		out[n] = id
	}
	return out, rows.Err()
}
