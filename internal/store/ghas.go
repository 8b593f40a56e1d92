package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// RepoSecurity is a repository's security and analysis settings (all off
// when none were ever set).
func (q Q) RepoSecurity(ctx context.Context, repoID int64) (model.RepoSecurity, error) {
	var s model.RepoSecurity
	err := q.row(ctx, `SELECT advanced_security, secret_scanning, secret_scanning_push_protection FROM repo_security WHERE repo_id = ?`,
		repoID).Scan(&s.AdvancedSecurity, &s.SecretScanning, &s.PushProtection)
	if errors.Is(err, sql.ErrNoRows) {
		return model.RepoSecurity{}, nil
	}
	return s, err
}

// SetRepoSecurity stores a repository's security and analysis settings.
func (q Q) SetRepoSecurity(ctx context.Context, repoID int64, s model.RepoSecurity) error {
	_, err := q.exec(ctx, `INSERT INTO repo_security (repo_id, advanced_security, secret_scanning, secret_scanning_push_protection, updated_at)
 VALUES (?, ?, ?, ?, ?)
 ON CONFLICT (repo_id) DO UPDATE SET advanced_security = excluded.advanced_security, secret_scanning = excluded.secret_scanning,
 secret_scanning_push_protection = excluded.secret_scanning_push_protection, updated_at = excluded.updated_at`,
		repoID, s.AdvancedSecurity, s.SecretScanning, s.PushProtection, unix(q.Now()))
	return err
}

// RecordPushCommitters records that a push at time at brought commits by
// the users of committers (user id → the commit address that matched):
// each row keeps the latest push per repository and user.
func (q Q) RecordPushCommitters(ctx context.Context, repoID int64, at time.Time, committers map[int64]string) error {
	for uid, email := range committers {
		_, err := q.exec(ctx, `INSERT INTO push_committers (repo_id, user_id, email, pushed_at) VALUES (?, ?, ?, ?)
 ON CONFLICT (repo_id, user_id) DO UPDATE SET email = excluded.email, pushed_at = excluded.pushed_at
 WHERE excluded.pushed_at >= push_committers.pushed_at`, repoID, uid, email, unix(at))
		if err != nil {
			return err
		}
	}
	return nil
}

// GHASRepo is a repository that counts for Advanced Security billing.
type GHASRepo struct {
	ID       int64
	FullName string
}

// ghasScope limits billing to private and internal repositories owned by
// organizations (GitHub bills no public repository, and only
// organizations' repositories can enable Advanced Security): one
// organization's when orgID is not 0, else the enterprise's.
func ghasScope(orgID int64) (string, []any) {
	if orgID != 0 {
		return `r.visibility <> 'public' AND r.owner_id = ?`, []any{orgID}
	}
	return `r.visibility <> 'public' AND r.owner_id IN (SELECT id FROM accounts WHERE type = 'Organization')`, nil
}

// GHASRepos is one page of the repositories in scope (see ghasScope) with
// Advanced Security enabled, by full name, and their count.
func (q Q) GHASRepos(ctx context.Context, orgID int64, limit, offset int) ([]GHASRepo, int, error) {
	cond, args := ghasScope(orgID)
	from := ` FROM repos r JOIN repo_security s ON s.repo_id = r.id WHERE s.advanced_security = ? AND ` + cond
	args = append([]any{true}, args...)
	var total int
	if err := q.row(ctx, `SELECT COUNT(*)`+from, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT r.id, o.login || '/' || r.name`+
		` FROM repos r JOIN repo_security s ON s.repo_id = r.id JOIN accounts o ON o.id = r.owner_id WHERE s.advanced_security = ? AND `+cond+
		` ORDER BY o.lower_login, r.lower_name LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []GHASRepo
	for rows.Next() {
		var g GHASRepo
		if err := rows.Scan(&g.ID, &g.FullName); err != nil {
			return nil, 0, err
		}
		out = append(out, g)
	}
	return out, total, rows.Err()
}

// ActiveCommitters loads, in one query, the users who pushed to each of
// the repositories since the time given, by login.
func (q Q) ActiveCommitters(ctx context.Context, repoIDs []int64, since time.Time) (map[int64][]model.ActiveCommitter, error) {
	out := map[int64][]model.ActiveCommitter{}
	if len(repoIDs) == 0 {
		return out, nil
	}
	in, args := inList(repoIDs)
	rows, err := q.query(ctx, `SELECT c.repo_id, a.login, c.email, c.pushed_at FROM push_committers c JOIN accounts a ON a.id = c.user_id
 WHERE c.repo_id IN (`+in+`) AND c.pushed_at >= ? ORDER BY c.repo_id, a.lower_login`, append(args, unix(since))...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, at int64
		var c model.ActiveCommitter
		if err := rows.Scan(&id, &c.Login, &c.Email, &at); err != nil {
			return nil, err
		}
		c.PushedAt = time.Unix(at, 0).UTC()
		out[id] = append(out[id], c)
	}
	return out, rows.Err()
}

// GHASCommitterTotals counts the distinct users who pushed since the time
// given: to the repositories in scope with Advanced Security enabled
// (active), and to all repositories in scope (maximum: the seats needed
// were every one of them to enable it).
func (q Q) GHASCommitterTotals(ctx context.Context, orgID int64, since time.Time) (active, maximum int, err error) {
	cond, args := ghasScope(orgID)
	err = q.row(ctx, `SELECT COUNT(DISTINCT c.user_id) FROM push_committers c JOIN repos r ON r.id = c.repo_id
 JOIN repo_security s ON s.repo_id = r.id WHERE s.advanced_security = ? AND c.pushed_at >= ? AND `+cond,
		append([]any{true, unix(since)}, args...)...).Scan(&active)
	if err != nil {
		return 0, 0, err
	}
	err = q.row(ctx, `SELECT COUNT(DISTINCT c.user_id) FROM push_committers c JOIN repos r ON r.id = c.repo_id
 WHERE c.pushed_at >= ? AND `+cond, append([]any{unix(since)}, args...)...).Scan(&maximum)
	return active, maximum, err
}
