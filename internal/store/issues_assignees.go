package store

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// assignable is the condition for user a to be assignable to issues of
// repository r (arguments: the repository id twice): its owner, a direct
// collaborator, or an active member of the owning organization whom
// membership gives access (admins always; members through the base
// permission, or any internal repository).
const assignable = `a.type = 'User' AND EXISTS (SELECT 1 FROM repos r JOIN accounts o ON o.id = r.owner_id WHERE r.id = ? AND (
 r.owner_id = a.id
 OR EXISTS (SELECT 1 FROM repo_collaborators rc WHERE rc.repo_id = r.id AND rc.user_id = a.id)
 OR EXISTS (SELECT 1 FROM org_members om WHERE om.org_id = r.owner_id AND om.user_id = a.id AND om.state = 'active'
   AND (om.role = 'admin' OR o.default_repo_permission <> 'none' OR r.visibility = 'internal'))))`

// ListAssignable returns one page of the users who may be assigned to a
// repository's issues, by login, and their count.
func (q Q) ListAssignable(ctx context.Context, repoID int64, limit, offset int) ([]*model.Account, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM accounts a WHERE `+assignable, repoID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT `+slim("a")+` FROM accounts a WHERE `+assignable+` ORDER BY a.lower_login LIMIT ? OFFSET ?`,
		repoID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*model.Account{}
	for rows.Next() {
		var a slimAccount
		if err := rows.Scan(a.dest()...); err != nil {
			return nil, 0, err
		}
		out = append(out, a.account())
	}
	return out, total, rows.Err()
}

// AssignableByLogin finds the users among logins who may be assigned to a
// repository's issues; the result maps lowercased logins to accounts.
func (q Q) AssignableByLogin(ctx context.Context, repoID int64, logins []string) (map[string]*model.Account, error) {
	out := map[string]*model.Account{}
	if len(logins) == 0 {
		return out, nil
	}
	args := []any{repoID}
	for _, l := range logins {
		args = append(args, strings.ToLower(l))
	}
	rows, err := q.query(ctx, `SELECT `+slim("a")+` FROM accounts a WHERE `+assignable+` AND a.lower_login IN (`+
		strings.TrimSuffix(strings.Repeat("?,", len(logins)), ",")+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var a slimAccount
		if err := rows.Scan(a.dest()...); err != nil {
			return nil, err
		}
		acc := a.account()
		out[strings.ToLower(acc.Login)] = acc
	}
	return out, rows.Err()
}

// IssueAssignees lists an issue's assignees in the order they were
// assigned.
func (q Q) IssueAssignees(ctx context.Context, issueID int64) ([]*model.Account, error) {
	pairs, err := q.linkPairs(ctx, `SELECT issue_id, user_id FROM issue_assignees WHERE issue_id IN (`,
		`) ORDER BY issue_id, created_at, user_id`, []int64{issueID})
	if err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(pairs))
	for _, p := range pairs {
		ids = append(ids, p[1])
	}
	accs, err := q.cachedAccounts(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Account, 0, len(ids))
	for _, id := range ids {
		if a := accs[id]; a != nil {
			out = append(out, a)
		}
	}
	return out, nil
}

// AddIssueAssignee assigns a user; it reports false when they already were.
func (q Q) AddIssueAssignee(ctx context.Context, issueID, userID int64) (bool, error) {
	res, err := q.exec(ctx, `INSERT INTO issue_assignees (issue_id, user_id, created_at) VALUES (?,?,?) ON CONFLICT DO NOTHING`,
		issueID, userID, unix(q.Now()))
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// RemoveIssueAssignee unassigns a user; it reports false when they were not
// assigned.
func (q Q) RemoveIssueAssignee(ctx context.Context, issueID, userID int64) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM issue_assignees WHERE issue_id = ? AND user_id = ?`, issueID, userID)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}
