package store

import (
	"context"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

const autolinkCols = `id, repo_id, key_prefix, url_template, is_alphanumeric, created_at, updated_at`

func scanAutolink(sc scanner) (*model.Autolink, error) {
	a := &model.Autolink{}
	var created, updated int64
	if err := sc.Scan(&a.ID, &a.RepoID, &a.KeyPrefix, &a.URLTemplate, &a.Alphanumeric, &created, &updated); err != nil {
		return nil, err
	}
	a.CreatedAt, a.UpdatedAt = fromUnix(created), fromUnix(updated)
	return a, nil
}

// MaxAutolinks bounds a repository's autolink references (GitHub's limit).
const MaxAutolinks = 500

// CreateAutolink inserts an autolink reference; ErrDuplicate when the
// repository has one with that prefix (ignoring case).
func (q Q) CreateAutolink(ctx context.Context, a *model.Autolink) error {
	now := q.Now()
	a.CreatedAt, a.UpdatedAt = now, now
	id, err := q.insert(ctx, `INSERT INTO autolinks (repo_id, key_prefix, lower_key_prefix, url_template, is_alphanumeric, created_at, updated_at)
 VALUES (?,?,?,?,?,?,?)`, a.RepoID, a.KeyPrefix, strings.ToLower(a.KeyPrefix), a.URLTemplate, a.Alphanumeric, unix(now), unix(now))
	if isUnique(err) {
		return ErrDuplicate
	}
	a.ID = id
	return err
}

// Autolinks lists a repository's autolink references, oldest first.
func (q Q) Autolinks(ctx context.Context, repoID int64) ([]*model.Autolink, error) {
	rows, err := q.query(ctx, `SELECT `+autolinkCols+` FROM autolinks WHERE repo_id = ? ORDER BY id LIMIT ?`, repoID, MaxAutolinks)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.Autolink{}
	for rows.Next() {
		a, err := scanAutolink(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// AutolinkCount is how many autolink references a repository has.
func (q Q) AutolinkCount(ctx context.Context, repoID int64) (int, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM autolinks WHERE repo_id = ?`, repoID).Scan(&n)
	return n, err
}

// AutolinkByID finds one of a repository's autolink references.
func (q Q) AutolinkByID(ctx context.Context, repoID, id int64) (*model.Autolink, error) {
	a, err := scanAutolink(q.row(ctx, `SELECT `+autolinkCols+` FROM autolinks WHERE repo_id = ? AND id = ?`, repoID, id))
	return a, notFound(err)
}

// DeleteAutolink removes one of a repository's autolink references;
// ErrNotFound when it has none with that id.
func (q Q) DeleteAutolink(ctx context.Context, repoID, id int64) error {
	res, err := q.exec(ctx, `DELETE FROM autolinks WHERE repo_id = ? AND id = ?`, repoID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}
