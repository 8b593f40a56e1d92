package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// Gists, their stars and comments, owned by internal/gists. A gist's files
// live in its git repository; the row caches the current revision's file
// list (names, sizes, blob ids) so that lists need no git.

const gistCols = `g.id, g.name, g.owner_id, g.public, g.description, g.files, g.head, g.fork_of,
 g.comments_count, g.created_at, g.updated_at`

type gistFileRow struct {
	Name string `json:"name"`
	Size int64  `json:"size"`
	OID  string `json:"oid"`
}

func encodeGistFiles(files []model.GistFile) string {
	rows := make([]gistFileRow, len(files))
	for i, f := range files {
		rows[i] = gistFileRow(f)
	}
	b, _ := json.Marshal(rows)
	return string(b)
}

func scanGist(sc scanner) (*model.Gist, error) {
	g := &model.Gist{Owner: &model.Account{}}
	var desc sql.NullString
	var files string
	var forkOf sql.NullInt64
	var created, updated int64
	pre := []any{&g.ID, &g.Name, &g.OwnerID, &g.Public, &desc, &files, &g.Head, &forkOf, &g.Comments, &created, &updated}
	if err := scanAccount(expand{sc: sc, pre: pre}, g.Owner); err != nil {
		return nil, err
	}
	if desc.Valid {
		g.Description = &desc.String
	}
	var rows []gistFileRow
	if err := json.Unmarshal([]byte(files), &rows); err != nil {
		return nil, err
	}
	g.Files = make([]model.GistFile, len(rows))
	for i, r := range rows {
		g.Files[i] = model.GistFile(r)
	}
	g.ForkOf = forkOf.Int64
	g.CreatedAt, g.UpdatedAt = fromUnix(created), fromUnix(updated)
	return g, nil
}

// InsertGist records a new gist and sets g.ID and its timestamps. With
// g.Head empty the row only reserves the id its git storage is written
// under: it is hidden until SetGistRevision records the first revision
// (a failure in between leaves an invisible orphan, never a broken gist).
func (q Q) InsertGist(ctx context.Context, g *model.Gist) error {
	now := unix(q.Now())
	var forkOf any
	if g.ForkOf != 0 {
		forkOf = g.ForkOf
	}
	id, err := q.insert(ctx, `INSERT INTO gists (name, owner_id, public, description, files, head, fork_of, created_at, updated_at)
 VALUES (?,?,?,?,?,?,?,?,?)`, g.Name, g.OwnerID, g.Public, nullString(g.Description), encodeGistFiles(g.Files), g.Head, forkOf, now, now)
	if err != nil {
		return err
	}
	g.ID = id
	g.CreatedAt, g.UpdatedAt = fromUnix(now), fromUnix(now)
	return nil
}

// GistByName loads a gist by its public id with its owner.
func (q Q) GistByName(ctx context.Context, name string) (*model.Gist, error) {
	g, err := scanGist(q.row(ctx, `SELECT `+gistCols+`, `+accountCols+` FROM gists g JOIN accounts a ON a.id = g.owner_id WHERE g.name = ? AND g.head <> ''`, name))
	return g, notFound(err)
}

// GistsByID loads gists by row id (the fork_of parents of a page), in one
// query; absent ids are left out.
func (q Q) GistsByID(ctx context.Context, ids []int64) (map[int64]*model.Gist, error) {
	out := map[int64]*model.Gist{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT `+gistCols+`, `+accountCols+` FROM gists g JOIN accounts a ON a.id = g.owner_id WHERE g.id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		g, err := scanGist(rows)
		if err != nil {
			return nil, err
		}
		out[g.ID] = g
	}
	return out, rows.Err()
}

// GistFilter selects a list of gists. Zero values select nothing by that
// criterion.
type GistFilter struct {
	OwnerID      int64      // gists of this user
	PublicOnly   bool       // only public gists
	SecretOnly   bool       // only secret gists
	StarredBy    int64      // gists this user starred
	ForkOf       int64      // forks of this gist
	Since        *time.Time // updated at or after
	OrderUpdated bool       // newest update first (else newest first)
	Asc          bool       // oldest first
	Limit        int
	Offset       int
}

// Gists is one page of the gists f selects, and their total.
func (q Q) Gists(ctx context.Context, f GistFilter) ([]*model.Gist, int, error) {
	from := ` FROM gists g JOIN accounts a ON a.id = g.owner_id`
	where := ` WHERE g.head <> ''`
	var args []any
	if f.StarredBy != 0 {
		from += ` JOIN gist_stars s ON s.gist_id = g.id AND s.user_id = ?`
		args = append(args, f.StarredBy)
	}
	if f.OwnerID != 0 {
		where += ` AND g.owner_id = ?`
		args = append(args, f.OwnerID)
	}
	if f.PublicOnly {
		where += ` AND g.public = ?`
		args = append(args, true)
	}
	if f.SecretOnly {
		where += ` AND g.public = ?`
		args = append(args, false)
	}
	if f.ForkOf != 0 {
		where += ` AND g.fork_of = ?`
		args = append(args, f.ForkOf)
	}
	if f.Since != nil {
		where += ` AND g.updated_at >= ?`
		args = append(args, unix(*f.Since))
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*)`+from+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	order := ` ORDER BY g.id DESC`
	switch {
	case f.OrderUpdated && f.Asc:
		order = ` ORDER BY g.updated_at, g.id`
	case f.OrderUpdated:
		order = ` ORDER BY g.updated_at DESC, g.id DESC`
	case f.Asc:
		order = ` ORDER BY g.id`
	}
	rows, err := q.query(ctx, `SELECT `+gistCols+`, `+accountCols+from+where+order+` LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*model.Gist{}
	for rows.Next() {
		g, err := scanGist(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, g)
	}
	return out, total, rows.Err()
}

// SetGistRevision records a new revision of gist id: its files and head
// commit, and the description when desc is set. It moves updated_at.
func (q Q) SetGistRevision(ctx context.Context, id int64, files []model.GistFile, head string, setDesc bool, desc *string) error {
	now := unix(q.Now())
	var err error
	if setDesc {
		_, err = q.exec(ctx, `UPDATE gists SET files = ?, head = ?, description = ?, updated_at = ? WHERE id = ?`,
			encodeGistFiles(files), head, nullString(desc), now, id)
	} else {
		_, err = q.exec(ctx, `UPDATE gists SET files = ?, head = ?, updated_at = ? WHERE id = ?`, encodeGistFiles(files), head, now, id)
	}
	return err
}

// DeleteGist removes a gist with its stars and comments; its forks stay,
// no longer forks of anything.
func (q Q) DeleteGist(ctx context.Context, id int64) error {
	if _, err := q.exec(ctx, `UPDATE gists SET fork_of = NULL WHERE fork_of = ?`, id); err != nil {
		return err
	}
	res, err := q.exec(ctx, `DELETE FROM gists WHERE id = ?`, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	return nil
}

// StarGist records userID's star on gistID (nothing changes when it
// exists).
func (q Q) StarGist(ctx context.Context, userID, gistID int64) (created bool, err error) {
	res, err := q.exec(ctx, `INSERT INTO gist_stars (user_id, gist_id, created_at) VALUES (?,?,?) ON CONFLICT (user_id, gist_id) DO NOTHING`,
		userID, gistID, unix(q.Now()))
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// UnstarGist removes userID's star on gistID; removed is false when there
// was none.
func (q Q) UnstarGist(ctx context.Context, userID, gistID int64) (removed bool, err error) {
	res, err := q.exec(ctx, `DELETE FROM gist_stars WHERE user_id = ? AND gist_id = ?`, userID, gistID)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// HasStarredGist reports whether userID starred gistID.
func (q Q) HasStarredGist(ctx context.Context, userID, gistID int64) (bool, error) {
	var one int
	err := q.row(ctx, `SELECT 1 FROM gist_stars WHERE user_id = ? AND gist_id = ?`, userID, gistID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// GistStarCounts counts the stars of gists, in one query (GraphQL's
// stargazerCount over a page).
func (q Q) GistStarCounts(ctx context.Context, ids []int64) (map[int64]int, error) {
	out := map[int64]int{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT gist_id, COUNT(*) FROM gist_stars WHERE gist_id IN (`+in+`) GROUP BY gist_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}

// GistsStarredBy reports which of ids userID starred, in one query
// (GraphQL's viewerHasStarred over a page); userID 0 starred nothing.
func (q Q) GistsStarredBy(ctx context.Context, userID int64, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if userID == 0 || len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	return q.idSet(ctx, `SELECT gist_id FROM gist_stars WHERE user_id = ? AND gist_id IN (`+in+`)`, append([]any{userID}, args...)...)
}

const gistCommentCols = `c.id, c.gist_id, c.user_id, c.body, c.created_at, c.updated_at`

func scanGistComment(sc scanner) (*model.GistComment, error) {
	c := &model.GistComment{User: &model.Account{}}
	var created, updated int64
	pre := []any{&c.ID, &c.GistID, &c.UserID, &c.Body, &created, &updated}
	if err := scanAccount(expand{sc: sc, pre: pre}, c.User); err != nil {
		return nil, err
	}
	c.CreatedAt, c.UpdatedAt = fromUnix(created), fromUnix(updated)
	return c, nil
}

// InsertGistComment records a comment and counts it on its gist.
func (q Q) InsertGistComment(ctx context.Context, c *model.GistComment) error {
	now := unix(q.Now())
	id, err := q.insert(ctx, `INSERT INTO gist_comments (gist_id, user_id, body, created_at, updated_at) VALUES (?,?,?,?,?)`,
		c.GistID, c.UserID, c.Body, now, now)
	if err != nil {
		return err
	}
	c.ID, c.CreatedAt, c.UpdatedAt = id, fromUnix(now), fromUnix(now)
	_, err = q.exec(ctx, `UPDATE gists SET comments_count = comments_count + 1 WHERE id = ?`, c.GistID)
	return err
}

// GistComment loads comment id of gist gistID with its author.
func (q Q) GistComment(ctx context.Context, gistID, id int64) (*model.GistComment, error) {
	c, err := scanGistComment(q.row(ctx, `SELECT `+gistCommentCols+`, `+accountCols+` FROM gist_comments c JOIN accounts a ON a.id = c.user_id
 WHERE c.id = ? AND c.gist_id = ?`, id, gistID))
	return c, notFound(err)
}

// GistComments is one page of a gist's comments, oldest first, and their
// total.
func (q Q) GistComments(ctx context.Context, gistID int64, limit, offset int) ([]*model.GistComment, int, error) {
	var total int
	if err := q.row(ctx, `SELECT comments_count FROM gists WHERE id = ?`, gistID).Scan(&total); err != nil {
		return nil, 0, notFound(err)
	}
	rows, err := q.query(ctx, `SELECT `+gistCommentCols+`, `+accountCols+` FROM gist_comments c JOIN accounts a ON a.id = c.user_id
 WHERE c.gist_id = ? ORDER BY c.id LIMIT ? OFFSET ?`, gistID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*model.GistComment{}
	for rows.Next() {
		c, err := scanGistComment(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, c)
	}
	return out, total, rows.Err()
}

// UpdateGistComment replaces a comment's body and moves its updated_at.
func (q Q) UpdateGistComment(ctx context.Context, c *model.GistComment, body string) error {
	now := q.Now()
	if _, err := q.exec(ctx, `UPDATE gist_comments SET body = ?, updated_at = ? WHERE id = ?`, body, unix(now), c.ID); err != nil {
		return err
	}
	c.Body, c.UpdatedAt = body, fromUnix(unix(now))
	return nil
}

// DeleteGistComment removes a comment and uncounts it.
func (q Q) DeleteGistComment(ctx context.Context, c *model.GistComment) error {
	res, err := q.exec(ctx, `DELETE FROM gist_comments WHERE id = ?`, c.ID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return model.ErrNotFound
	}
	_, err = q.exec(ctx, `UPDATE gists SET comments_count = comments_count - 1 WHERE id = ?`, c.GistID)
	return err
}
