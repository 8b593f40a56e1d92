package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// SSH public keys (internal/sshkeys): public_keys holds users' keys and
// repositories' deploy keys; fingerprint is unique across both.

const publicKeyCols = `id, COALESCE(user_id, 0), COALESCE(repo_id, 0), title, key_text, fingerprint, read_only, verified, added_by, created_at, last_used`

func scanPublicKey(sc scanner) (*model.PublicKey, error) {
	k := &model.PublicKey{}
	var created int64
	var last sql.NullInt64
	if err := sc.Scan(&k.ID, &k.UserID, &k.RepoID, &k.Title, &k.Key, &k.Fingerprint, &k.ReadOnly, &k.Verified, &k.AddedBy, &created, &last); err != nil {
		return nil, err
	}
	k.CreatedAt = fromUnix(created)
	if last.Valid {
		t := fromUnix(last.Int64)
		k.LastUsed = &t
	}
	return k, nil
}

// CreatePublicKey stores a new key; ErrDuplicate when its fingerprint is
// already in use (by any user or repository).
func (q Q) CreatePublicKey(ctx context.Context, k *model.PublicKey) error {
	k.CreatedAt = q.Now()
	id, err := q.insert(ctx, `INSERT INTO public_keys (user_id, repo_id, title, key_text, fingerprint, read_only, verified, added_by, created_at)
 VALUES (?,?,?,?,?,?,?,?,?)`, nullID(k.UserID), nullID(k.RepoID), k.Title, k.Key, k.Fingerprint, k.ReadOnly, k.Verified, k.AddedBy, unix(k.CreatedAt))
	if isUnique(err) {
		return ErrDuplicate
	}
	k.ID = id
	return err
}

// PublicKey loads one key by id.
func (q Q) PublicKey(ctx context.Context, id int64) (*model.PublicKey, error) {
	k, err := scanPublicKey(q.row(ctx, `SELECT `+publicKeyCols+` FROM public_keys WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, model.ErrNotFound
	}
	return k, err
}

// PublicKeyByFingerprint finds the key an SSH client authenticates with.
func (q Q) PublicKeyByFingerprint(ctx context.Context, fp string) (*model.PublicKey, error) {
	k, err := scanPublicKey(q.row(ctx, `SELECT `+publicKeyCols+` FROM public_keys WHERE fingerprint = ?`, fp))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, model.ErrNotFound
	}
	return k, err
}

// UserPublicKeys is a page of a user's keys, oldest first, and their count.
func (q Q) UserPublicKeys(ctx context.Context, userID int64, limit, offset int) ([]*model.PublicKey, int, error) {
	return q.publicKeys(ctx, `user_id = ?`, `id`, []any{userID}, limit, offset)
}

// RepoPublicKeys is a page of a repository's deploy keys, newest first (as
// GitHub lists them), and their count.
func (q Q) RepoPublicKeys(ctx context.Context, repoID int64, limit, offset int) ([]*model.PublicKey, int, error) {
	return q.publicKeys(ctx, `repo_id = ?`, `id DESC`, []any{repoID}, limit, offset)
}

// AllPublicKeys is a page of every key (those used at or after since
// when it is not zero), sorted by creation or, for "accessed", last use,
// for site administrators; deploy keys come with their repository's full
// name.
func (q Q) AllPublicKeys(ctx context.Context, since time.Time, sort string, asc bool, limit, offset int) ([]*model.PublicKey, int, error) {
	dir := " DESC"
	if asc {
		dir = " ASC"
	}
	order := `k.created_at` + dir + `, k.id` + dir
	if sort == "accessed" {
		order = `COALESCE(k.last_used, 0)` + dir + `, k.id` + dir
	}
	where, arg := `k.id > ?`, any(0)
	if !since.IsZero() {
		where, arg = `k.last_used >= ?`, unix(since)
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM public_keys k WHERE `+where, arg).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT k.id, COALESCE(k.user_id, 0), COALESCE(k.repo_id, 0), k.title, k.key_text, k.fingerprint,
 k.read_only, k.verified, k.added_by, k.created_at, k.last_used, COALESCE(a.login || '/' || r.name, '')
 FROM public_keys k LEFT JOIN repos r ON r.id = k.repo_id LEFT JOIN accounts a ON a.id = r.owner_id
 WHERE `+where+` ORDER BY `+order+` LIMIT ? OFFSET ?`, arg, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*model.PublicKey{}
	for rows.Next() {
		var full string
		k, err := scanPublicKey(scanFunc(func(dest ...any) error { return rows.Scan(append(dest, &full)...) }))
		if err != nil {
			return nil, 0, err
		}
		k.RepoFullName = full
		out = append(out, k)
	}
	return out, total, rows.Err()
}

func (q Q) publicKeys(ctx context.Context, where, order string, args []any, limit, offset int) ([]*model.PublicKey, int, error) {
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM public_keys WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, `SELECT `+publicKeyCols+` FROM public_keys WHERE `+where+` ORDER BY `+order+` LIMIT ? OFFSET ?`,
		append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*model.PublicKey{}
	for rows.Next() {
		k, err := scanPublicKey(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, k)
	}
	return out, total, rows.Err()
}

// DeletePublicKey removes a key; false when there was none.
func (q Q) DeletePublicKey(ctx context.Context, id int64) (bool, error) {
	res, err := q.exec(ctx, `DELETE FROM public_keys WHERE id = ?`, id)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// TouchPublicKey records that a key was used at now, at most once per
// interval: a key used all day costs one write an interval, not one per
// connection.
func (q Q) TouchPublicKey(ctx context.Context, id int64, now time.Time, interval time.Duration) error {
	_, err := q.exec(ctx, `UPDATE public_keys SET last_used = ? WHERE id = ? AND (last_used IS NULL OR last_used < ?)`,
		unix(now), id, unix(now.Add(-interval)))
	return err
}
