package store

import (
	"context"
	"database/sql"
	"errors"
)

// The Actions policies of the enterprise, organizations and repositories
// (internal/actionspolicy): one row of settings per scope, kept as the
// service's JSON document, and the selected organizations or repositories
// of a scope's lists (kind "enabled": Actions enabled; "self_hosted": may
// use self-hosted runners).

// ActionsPolicy is a scope's settings document (nil: none stored yet).
func (q Q) ActionsPolicy(ctx context.Context, scope string, id int64) ([]byte, error) {
	var s string
	err := q.row(ctx, `SELECT settings FROM actions_policies WHERE scope = ? AND scope_id = ?`, scope, id).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return []byte(s), err
}

// ActionsPolicies loads the settings documents of several scopes at once
// (the enterprise, an organization and a repository): scope → document.
func (q Q) ActionsPolicies(ctx context.Context, keys map[string]int64) (map[string][]byte, error) {
	out := map[string][]byte{}
	var where string
	var args []any
	for scope, id := range keys {
		if where != "" {
			where += " OR "
		}
		where += "(scope = ? AND scope_id = ?)"
		args = append(args, scope, id)
	}
	if where == "" {
		return out, nil
	}
	rows, err := q.query(ctx, `SELECT scope, settings FROM actions_policies WHERE `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var scope, s string
		if err := rows.Scan(&scope, &s); err != nil {
			return nil, err
		}
		out[scope] = []byte(s)
	}
	return out, rows.Err()
}

// SetActionsPolicy stores a scope's settings document.
func (q Q) SetActionsPolicy(ctx context.Context, scope string, id int64, doc []byte) error {
	_, err := q.exec(ctx, `INSERT INTO actions_policies (scope, scope_id, settings, updated_at) VALUES (?, ?, ?, ?)
 ON CONFLICT (scope, scope_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at`,
		scope, id, string(doc), unix(q.Now()))
	return err
}

// actionsTargetTable is the table a kind of target lives in (selected
// organizations are accounts, selected repositories repos): targets whose
// row is gone are left out of lists and counts.
func actionsTargetTable(scope string) string {
	if scope == "enterprise" {
		return "accounts"
	}
	return "repos"
}

// ActionsPolicyTargets is one page of a scope's selected ids of a kind,
// in id order, and their number.
func (q Q) ActionsPolicyTargets(ctx context.Context, scope string, id int64, kind string, limit, offset int) ([]int64, int, error) {
	from := ` FROM actions_policy_targets t JOIN ` + actionsTargetTable(scope) + ` x ON x.id = t.target_id
 WHERE t.scope = ? AND t.scope_id = ? AND t.kind = ?`
	var total int
	if err := q.row(ctx, `SELECT COUNT(*)`+from, scope, id, kind).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT t.target_id`+from+` ORDER BY t.target_id LIMIT ? OFFSET ?`, scope, id, kind, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var t int64
		if err := rows.Scan(&t); err != nil {
			return nil, 0, err
		}
		out = append(out, t)
	}
	return out, total, rows.Err()
}

// ActionsPolicyHasTarget reports whether target is one of a scope's
// selected ids of a kind.
func (q Q) ActionsPolicyHasTarget(ctx context.Context, scope string, id int64, kind string, target int64) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM actions_policy_targets WHERE scope = ? AND scope_id = ? AND kind = ? AND target_id = ?`,
		scope, id, kind, target).Scan(&n)
	return n > 0, err
}

// SetActionsPolicyTargets replaces a scope's selected ids of a kind.
func (q Q) SetActionsPolicyTargets(ctx context.Context, scope string, id int64, kind string, targets []int64) error {
	if _, err := q.exec(ctx, `DELETE FROM actions_policy_targets WHERE scope = ? AND scope_id = ? AND kind = ?`, scope, id, kind); err != nil {
		return err
	}
	for _, t := range targets {
		if err := q.AddActionsPolicyTarget(ctx, scope, id, kind, t); err != nil {
			return err
		}
	}
	return nil
}

// AddActionsPolicyTarget selects one id (selected already: nothing changes).
func (q Q) AddActionsPolicyTarget(ctx context.Context, scope string, id int64, kind string, target int64) error {
	_, err := q.exec(ctx, `INSERT INTO actions_policy_targets (scope, scope_id, kind, target_id) VALUES (?, ?, ?, ?)
 ON CONFLICT (scope, scope_id, kind, target_id) DO NOTHING`, scope, id, kind, target)
	return err
}

// RemoveActionsPolicyTarget unselects one id.
func (q Q) RemoveActionsPolicyTarget(ctx context.Context, scope string, id int64, kind string, target int64) error {
	_, err := q.exec(ctx, `DELETE FROM actions_policy_targets WHERE scope = ? AND scope_id = ? AND kind = ? AND target_id = ?`,
		scope, id, kind, target)
	return err
}

// JobByTokenID finds the running job whose GITHUB_TOKEN is the token
// (the OIDC token endpoint's caller).
func (q Q) JobByTokenID(ctx context.Context, tokenID int64) (repoID, jobID int64, err error) {
	if tokenID == 0 {
		return 0, 0, sql.ErrNoRows
	}
	err = q.row(ctx, `SELECT repo_id, id FROM actions_jobs WHERE token_id = ?`, tokenID).Scan(&repoID, &jobID)
	return repoID, jobID, err
}
