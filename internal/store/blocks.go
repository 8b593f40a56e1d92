package store

import (
	"context"

	"github.com/hubd/hubd/internal/model"
)

// Blocks: user_blocks holds one row per (blocker, blocked) pair; the blocker
// is a user or an organization (both are accounts).

// AddBlock records that blocker blocks blocked; false when it already did
// (blocking is idempotent).
func (q Q) AddBlock(ctx context.Context, blockerID, blockedID int64) (bool, error) {
	res, err := q.exec(ctx, `INSERT INTO user_blocks (blocker_id, blocked_id, created_at) VALUES (?,?,?)
 ON CONFLICT (blocker_id, blocked_id) DO NOTHING`, blockerID, blockedID, unix(q.Now()))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// RemoveBlock lifts a block; false when there was none.
func (q Q) RemoveBlock(ctx context.Context, blockerID, blockedID int64) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM user_blocks WHERE blocker_id = ? AND blocked_id = ?`, blockerID, blockedID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// IsBlocked reports whether blocker blocks blocked.
func (q Q) IsBlocked(ctx context.Context, blockerID, blockedID int64) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM user_blocks WHERE blocker_id = ? AND blocked_id = ?`, blockerID, blockedID).Scan(&n)
	return n > 0, err
}

// Blocks is a page of the accounts blocker blocks, oldest block first, with
// how many there are in all; the blocked accounts come in the same query.
func (q Q) Blocks(ctx context.Context, blockerID int64, limit, offset int) ([]*model.Block, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM user_blocks WHERE blocker_id = ?`, blockerID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT b.created_at, `+accountCols+` FROM user_blocks b JOIN accounts a ON a.id = b.blocked_id
 WHERE b.blocker_id = ? ORDER BY b.created_at, b.blocked_id LIMIT ? OFFSET ?`, blockerID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*model.Block{}
	for rows.Next() {
		var created int64
		a := &model.Account{}
		var sc scanner = scanFunc(func(dest ...any) error { return rows.Scan(append([]any{&created}, dest...)...) })
		if err := scanAccount(sc, a); err != nil {
			return nil, 0, err
		}
		out = append(out, &model.Block{BlockerID: blockerID, BlockedID: a.ID, Blocked: a, CreatedAt: fromUnix(created)})
	}
	return out, total, rows.Err()
}

// scanFunc adapts a function to scanner (to scan leading columns first).
type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// RemoveCollaboratorFromOwnerRepos takes userID off every repository owned by
// ownerID as a direct collaborator; it returns the ids of the repositories
// they were taken off, in id order.
func (q Q) RemoveCollaboratorFromOwnerRepos(ctx context.Context, ownerID, userID int64) ([]int64, error) {
	rows, err := q.query(ctx, `SELECT c.repo_id FROM repo_collaborators c JOIN repos r ON r.id = c.repo_id
 WHERE r.owner_id = ? AND c.user_id = ? ORDER BY c.repo_id`, ownerID, userID)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	_, err = q.exec(ctx, `DELETE FROM repo_collaborators WHERE user_id = ? AND repo_id IN (SELECT id FROM repos WHERE owner_id = ?)`, userID, ownerID)
	return ids, err
}

// RemoveAssigneeFromOwnerRepos unassigns userID from every issue and pull
// request of the repositories owned by ownerID; it returns how many
// assignments went.
func (q Q) RemoveAssigneeFromOwnerRepos(ctx context.Context, ownerID, userID int64) (int64, error) {
	res, err := q.exec(ctx, `DELETE FROM issue_assignees WHERE user_id = ? AND issue_id IN
 (SELECT i.id FROM issues i JOIN repos r ON r.id = i.repo_id WHERE r.owner_id = ?)`, userID, ownerID)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// CancelInvitationsInOwnerRepos deletes the pending repository invitations
// of userID to the repositories ownerID owns (a block cancels them); it
// reports how many.
func (q Q) CancelInvitationsInOwnerRepos(ctx context.Context, ownerID, userID int64) (int64, error) {
	res, err := q.exec(ctx, `DELETE FROM repo_invitations WHERE invitee_id = ? AND repo_id IN (SELECT id FROM repos WHERE owner_id = ?)`, userID, ownerID)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
