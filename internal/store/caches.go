package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// Actions caches and their limits, owned by internal/actions (caches.go).

const cacheCols = `id, repo_id, cache_key, version, ref, size, committed, created_at, last_accessed_at`

func scanCache(r rowScanner) (*model.ActionsCache, error) {
	c := &model.ActionsCache{}
	var cr, la int64
	if err := r.Scan(&c.ID, &c.RepoID, &c.Key, &c.Version, &c.Ref, &c.Size, &c.Committed, &cr, &la); err != nil {
		return nil, err
	}
	c.CreatedAt, c.LastAccessedAt = fromUnix(cr), fromUnix(la)
	return c, nil
}

func scanCaches(rows *sql.Rows, err error) ([]*model.ActionsCache, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.ActionsCache
	for rows.Next() {
		c, err := scanCache(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// MatchCache finds the committed cache of ref whose key is key (exact) or,
// with prefix, starts with key (the newest of them).
func (q Q) MatchCache(ctx context.Context, repoID int64, ref, key, version string, prefix bool) (*model.ActionsCache, error) {
	var c *model.ActionsCache
	var err error
	if prefix {
		c, err = scanCache(q.row(ctx, `SELECT `+cacheCols+` FROM actions_caches WHERE repo_id = ? AND ref = ? AND version = ? AND committed
 AND substr(cache_key, 1, ?) = ? ORDER BY created_at DESC, id DESC LIMIT 1`, repoID, ref, version, len(key), key))
	} else {
		c, err = scanCache(q.row(ctx, `SELECT `+cacheCols+` FROM actions_caches WHERE repo_id = ? AND ref = ? AND version = ? AND committed
 AND cache_key = ?`, repoID, ref, version, key))
	}
	return c, notFound(err)
}

// ReserveCache adds a cache being uploaded; ErrDuplicate when the ref has
// one of that key and version already.
func (q Q) ReserveCache(ctx context.Context, c *model.ActionsCache) error {
	now := unix(q.Now())
	id, err := q.insert(ctx, `INSERT INTO actions_caches (repo_id, cache_key, version, ref, size, committed, created_at, last_accessed_at)
 VALUES (?,?,?,?,?,FALSE,?,?)`, c.RepoID, c.Key, c.Version, c.Ref, c.Size, now, now)
	if isUnique(err) {
		return ErrDuplicate
	}
	c.ID = id
	return err
}

// CacheByID finds a cache of a repository, committed or not.
func (q Q) CacheByID(ctx context.Context, repoID, id int64) (*model.ActionsCache, error) {
	c, err := scanCache(q.row(ctx, `SELECT `+cacheCols+` FROM actions_caches WHERE repo_id = ? AND id = ?`, repoID, id))
	return c, notFound(err)
}

// CommitCache marks an uploaded cache committed with its size.
func (q Q) CommitCache(ctx context.Context, id, size int64) error {
	now := unix(q.Now())
	_, err := q.exec(ctx, `UPDATE actions_caches SET committed = TRUE, size = ?, created_at = ?, last_accessed_at = ? WHERE id = ?`, size, now, now, id)
	return err
}

// TouchCache records a restore of a cache.
func (q Q) TouchCache(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `UPDATE actions_caches SET last_accessed_at = ? WHERE id = ?`, unix(q.Now()), id)
	return err
}

// CacheFilter selects a repository's committed caches.
type CacheFilter struct {
	RepoID    int64
	Ref       string // exact
	KeyPrefix string
	Key       string // exact
	Sort      string // created_at, last_accessed_at (default), size_in_bytes
	Asc       bool
}

func (f CacheFilter) where() (string, []any) {
	cond, args := ` WHERE repo_id = ? AND committed`, []any{f.RepoID}
	if f.Ref != "" {
		cond, args = cond+` AND ref = ?`, append(args, f.Ref)
	}
	if f.KeyPrefix != "" {
		cond, args = cond+` AND substr(cache_key, 1, ?) = ?`, append(args, len(f.KeyPrefix), f.KeyPrefix)
	}
	if f.Key != "" {
		cond, args = cond+` AND cache_key = ?`, append(args, f.Key)
	}
	return cond, args
}

// Caches lists committed caches, a page at a time.
func (q Q) Caches(ctx context.Context, f CacheFilter, limit, offset int) ([]*model.ActionsCache, int, error) {
	cond, args := f.where()
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM actions_caches`+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	order := map[string]string{"created_at": "created_at", "size_in_bytes": "size"}[f.Sort]
	if order == "" {
		order = "last_accessed_at"
	}
	dir := " DESC"
	if f.Asc {
		dir = " ASC"
	}
	list, err := scanCaches(q.query(ctx, `SELECT `+cacheCols+` FROM actions_caches`+cond+` ORDER BY `+order+dir+`, id`+dir+` LIMIT ? OFFSET ?`,
		append(args, limit, offset)...))
	return list, total, err
}

// DeleteCaches deletes the listed caches (by id).
func (q Q) DeleteCaches(ctx context.Context, ids []int64) error {
	for _, id := range ids {
		if _, err := q.exec(ctx, `DELETE FROM actions_caches WHERE id = ?`, id); err != nil {
			return err
		}
	}
	return nil
}

// CachesByAge lists a repository's caches, committed or not, least
// recently used first (eviction).
func (q Q) CachesByAge(ctx context.Context, repoID int64) ([]*model.ActionsCache, error) {
	return scanCaches(q.query(ctx, `SELECT `+cacheCols+` FROM actions_caches WHERE repo_id = ? ORDER BY last_accessed_at, id`, repoID))
}

// StaleCaches lists up to limit caches not used since before: the
// candidates of the retention sweep (committed ones, uploads left
// unfinished, and those of deleted repositories).
func (q Q) StaleCaches(ctx context.Context, before time.Time, limit int) ([]*model.ActionsCache, error) {
	return scanCaches(q.query(ctx, `SELECT `+cacheCols+` FROM actions_caches WHERE last_accessed_at < ?
 OR NOT EXISTS (SELECT 1 FROM repos r WHERE r.id = actions_caches.repo_id) ORDER BY last_accessed_at LIMIT ?`, unix(before), limit))
}

// CacheUsage sums the committed caches of repositories: of one repository
// (repoID), of an owner's (ownerID), or of all (both 0); by repository,
// largest first, a page at a time; total counts the repositories.
func (q Q) CacheUsage(ctx context.Context, repoID, ownerID int64, limit, offset int) ([]model.CacheUsage, int, error) {
	cond, args := ` WHERE c.committed`, []any{}
	if repoID != 0 {
		cond, args = cond+` AND c.repo_id = ?`, append(args, repoID)
	}
	if ownerID != 0 {
		cond, args = cond+` AND r.owner_id = ?`, append(args, ownerID)
	}
	from := ` FROM actions_caches c JOIN repos r ON r.id = c.repo_id`
	var total int
	if err := q.row(ctx, `SELECT COUNT(DISTINCT c.repo_id)`+from+cond, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT c.repo_id, COUNT(*), SUM(c.size)`+from+cond+` GROUP BY c.repo_id ORDER BY SUM(c.size) DESC, c.repo_id LIMIT ? OFFSET ?`,
		append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []model.CacheUsage
	for rows.Next() {
		var u model.CacheUsage
		if err := rows.Scan(&u.RepoID, &u.Count, &u.Size); err != nil {
			return nil, 0, err
		}
		out = append(out, u)
	}
	return out, total, rows.Err()
}

// CacheTotals sums the committed caches of an owner's repositories (0:
// every repository).
func (q Q) CacheTotals(ctx context.Context, ownerID int64) (count, size int64, err error) {
	cond, args := ` WHERE c.committed`, []any{}
	if ownerID != 0 {
		cond, args = cond+` AND r.owner_id = ?`, append(args, ownerID)
	}
	err = q.row(ctx, `SELECT COUNT(*), COALESCE(SUM(c.size), 0) FROM actions_caches c JOIN repos r ON r.id = c.repo_id`+cond, args...).Scan(&count, &size)
	return count, size, err
}

// CacheLimits reads the cache settings of a scope (none set: zero value).
func (q Q) CacheLimits(ctx context.Context, scope string, id int64) (model.CacheLimits, error) {
	var l model.CacheLimits
	var r, s, d sql.NullInt64
	err := q.row(ctx, `SELECT retention_days, size_gb, default_size_gb FROM actions_cache_limits WHERE scope = ? AND scope_id = ?`, scope, id).Scan(&r, &s, &d)
	if err == sql.ErrNoRows {
		return l, nil
	}
	l.RetentionDays, l.SizeGB, l.DefaultSizeGB = nullInt(r), nullInt(s), nullInt(d)
	return l, err
}

func nullInt(v sql.NullInt64) *int64 {
	if !v.Valid {
		return nil
	}
	return &v.Int64
}

func int64OrNil(v *int64) any {
	if v == nil {
		return nil
	}
	return *v
}

// SetCacheLimits writes the cache settings of a scope.
func (q Q) SetCacheLimits(ctx context.Context, scope string, id int64, l model.CacheLimits) error {
	_, err := q.exec(ctx, `INSERT INTO actions_cache_limits (scope, scope_id, retention_days, size_gb, default_size_gb) VALUES (?,?,?,?,?)
 ON CONFLICT (scope, scope_id) DO UPDATE SET retention_days = excluded.retention_days, size_gb = excluded.size_gb, default_size_gb = excluded.default_size_gb`,
		scope, id, int64OrNil(l.RetentionDays), int64OrNil(l.SizeGB), int64OrNil(l.DefaultSizeGB))
	return err
}
