package store

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// A fork network is a root repository (source_id NULL) and every repository
// whose source_id is that root; parent_id links each fork to the repository
// it was forked from.

// nullID stores 0 as NULL (no such repository).
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// NetworkRepoOwnedBy is the repository owned by ownerID in repoID's fork
// network: repoID itself when ownerID owns it, else the network's root or a
// fork of any depth (the oldest when there are several);
// model.ErrNotFound when the owner has none.
func (q Q) NetworkRepoOwnedBy(ctx context.Context, repoID, ownerID int64) (*model.Repo, error) {
	var id int64
	err := q.row(ctx, `SELECT r.id FROM repos r
 JOIN (SELECT COALESCE(source_id, id) AS root FROM repos WHERE id = ?) n ON r.id = n.root OR r.source_id = n.root
 WHERE r.owner_id = ?
 ORDER BY CASE WHEN r.id = ? THEN 0 ELSE 1 END, r.created_at, r.id LIMIT 1`, repoID, ownerID, repoID).Scan(&id)
	if err != nil {
		return nil, notFound(err)
	}
	v, err := q.RepoByID(ctx, id, 0)
	if err != nil {
		return nil, err
	}
	return v.Repo, nil
}

// RepoNameTaken reports whether an account has a repository of that name
// (ignoring case).
func (q Q) RepoNameTaken(ctx context.Context, ownerID int64, name string) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM repos WHERE owner_id = ? AND lower_name = ?`, ownerID, strings.ToLower(name)).Scan(&n)
	return n > 0, err
}

// NetworkCount is the number of forks, at any depth, in the network whose
// root is rootID. Every repository read asks it (network_count), so it is
// kept in the read cache until the next write.
func (q Q) NetworkCount(ctx context.Context, rootID int64) (int, error) {
	type key struct{ network int64 }
	k := key{rootID}
	if q.tx == nil {
		if v, _, ok := q.s.cache.get(k); ok {
			return v.(int), nil
		}
	}
	gen := q.s.cache.gen.Load()
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM repos WHERE source_id = ?`, rootID).Scan(&n)
	if err == nil && q.tx == nil {
		q.s.cache.put(k, gen, n)
	}
	return n, err
}

// CopyRepoFacts gives a new fork the detected license and language of its
// parent: its git copy starts at the same default branch head.
func (q Q) CopyRepoFacts(ctx context.Context, parentID, forkID int64) error {
	_, err := q.exec(ctx, `INSERT INTO repo_facts (repo_id, commit_id, license_key, language)
 SELECT ?, commit_id, license_key, language FROM repo_facts WHERE repo_id = ?
 ON CONFLICT (repo_id) DO NOTHING`, forkID, parentID)
	return err
}

// detachForks keeps the fork network whole when repository id is deleted,
// as GitHub does: its direct forks move up to its parent; when it was the
// root, its oldest direct fork becomes the root, the other forks of id
// become that one's forks and the whole network takes it as source.
func (q Q) detachForks(ctx context.Context, id int64) error {
	var parent sql.NullInt64
	err := q.row(ctx, `SELECT parent_id FROM repos WHERE id = ?`, id).Scan(&parent)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	if parent.Valid {
		_, err := q.exec(ctx, `UPDATE repos SET parent_id = ? WHERE parent_id = ?`, parent.Int64, id)
		return err
	}
	var heir int64
	err = q.row(ctx, `SELECT id FROM repos WHERE parent_id = ? ORDER BY created_at, id LIMIT 1`, id).Scan(&heir)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // no forks
	}
	if err != nil {
		return err
	}
	if _, err := q.exec(ctx, `UPDATE repos SET parent_id = NULL, source_id = NULL WHERE id = ?`, heir); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `UPDATE repos SET parent_id = ? WHERE parent_id = ?`, heir, id); err != nil {
		return err
	}
	_, err = q.exec(ctx, `UPDATE repos SET source_id = ? WHERE source_id = ?`, heir, id)
	return err
}

// DetachNetwork takes the forks of root id out of its network when the
// root's visibility changes between public and private, as GitHub does.
// Made private, its (public) forks stay together as a new network under the
// oldest direct fork, as on deletion; made public, each direct (private)
// fork becomes a standalone repository, the root of its own forks.
func (q Q) DetachNetwork(ctx context.Context, id int64, standalone bool) error {
	if !standalone {
		return q.detachForks(ctx, id)
	}
	forks, err := q.int64s(ctx, `SELECT id FROM repos WHERE parent_id = ? ORDER BY id`, id)
	if err != nil {
		return err
	}
	for _, f := range forks {
		if _, err := q.exec(ctx, `UPDATE repos SET source_id = ? WHERE id IN (WITH RECURSIVE sub(id) AS (
 SELECT id FROM repos WHERE parent_id = ? UNION ALL SELECT r.id FROM repos r JOIN sub ON r.parent_id = sub.id) SELECT id FROM sub)`, f, f); err != nil {
			return err
		}
		if _, err := q.exec(ctx, `UPDATE repos SET parent_id = NULL, source_id = NULL WHERE id = ?`, f); err != nil {
			return err
		}
	}
	return nil
}

// MarkForkPushed sets a new fork's pushed_at to its parent's (nil: never).
func (q Q) MarkForkPushed(ctx context.Context, forkID int64, at *time.Time) error {
	_, err := q.exec(ctx, `UPDATE repos SET pushed_at = ? WHERE id = ?`, nullUnix(at), forkID)
	return err
}

// JobQueued reports whether a job with this key is pending or running (a
// fork's copy waits for its parent's).
func (q Q) JobQueued(ctx context.Context, key string) (bool, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM jobs WHERE dedup_key = ? AND state IN ('pending', 'running')`, key).Scan(&n)
	return n > 0, err
}

// PrivateForks lists the non-public forks, at any depth, of repository id
// (GitHub deletes them with a private repository), deepest last.
func (q Q) PrivateForks(ctx context.Context, id int64) ([]int64, error) {
	rows, err := q.query(ctx, `SELECT r.id, r.parent_id, r.visibility FROM repos r
 JOIN (SELECT COALESCE(source_id, id) AS root FROM repos WHERE id = ?) n ON r.source_id = n.root
 ORDER BY r.id`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	children := map[int64][]int64{}
	private := map[int64]bool{}
	for rows.Next() {
		var fid int64
		var parent sql.NullInt64
		var vis string
		if err := rows.Scan(&fid, &parent, &vis); err != nil {
			return nil, err
		}
		children[parent.Int64] = append(children[parent.Int64], fid)
		private[fid] = vis != string(model.Public)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []int64
	for next := children[id]; len(next) > 0; {
		var deeper []int64
		for _, f := range next {
			if private[f] {
				out = append(out, f)
			}
			deeper = append(deeper, children[f]...)
		}
		next = deeper
	}
	return out, nil
}

// LockNetwork takes the row lock of repoID's network root until the
// transaction ends, so that two forks of one network into one account
// cannot both see none there (PostgreSQL; SQLite has one writer anyway).
func (q Q) LockNetwork(ctx context.Context, repoID int64) error {
	_, err := q.exec(ctx, `UPDATE repos SET parent_id = parent_id
 WHERE id = (SELECT COALESCE(source_id, id) FROM repos WHERE id = ?)`, repoID)
	return err
}

// int64s runs a query of one integer column and returns its values.
func (q Q) int64s(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []int64{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// SetRepoTemplate records the template repository id was generated from.
func (q Q) SetRepoTemplate(ctx context.Context, id, templateID int64) error {
	_, err := q.exec(ctx, `UPDATE repos SET template_id = ? WHERE id = ?`, nullID(templateID), id)
	return err
}
