package store

import (
	"context"
	"database/sql"

	"github.com/hubd/hubd/internal/model"
)

// ReactCommitComment is the reaction subject of commit comments.
const ReactCommitComment = "commit_comment"

// commitCommentSelect loads comments with their authors and author
// associations in the same query, so a page costs one round trip (plus
// one for the reaction rollups of the comments that have reactions).
var commitCommentSelect = `SELECT c.id, c.repo_id, c.commit_id, c.user_id, c.body, c.path, c.position, c.line, c.reactions,
 c.created_at, c.updated_at, ` + slim("u") + `, ` + association("c.user_id") + `
 FROM commit_comments c JOIN repos r ON r.id = c.repo_id LEFT JOIN accounts u ON u.id = c.user_id`

func scanCommitComment(sc scanner) (*model.CommitComment, error) {
	c := &model.CommitComment{}
	var user, position, line sql.NullInt64
	var path sql.NullString
	var created, updated int64
	var u slimAccount
	dest := []any{&c.ID, &c.RepoID, &c.CommitID, &user, &c.Body, &path, &position, &line, &c.Reactions, &created, &updated}
	dest = append(append(dest, u.dest()...), &c.Association)
	if err := sc.Scan(dest...); err != nil {
		return nil, err
	}
	c.UserID, c.User, c.Path = user.Int64, u.account(), nullStr(path)
	if position.Valid {
		c.Position = &position.Int64
	}
	if line.Valid {
		c.Line = &line.Int64
	}
	c.CreatedAt, c.UpdatedAt = fromUnix(created), fromUnix(updated)
	return c, nil
}

// CommitCommentByID finds a commit comment of a repository.
func (q Q) CommitCommentByID(ctx context.Context, repoID, id int64) (*model.CommitComment, error) {
	c, err := scanCommitComment(q.row(ctx, commitCommentSelect+` WHERE c.id = ? AND c.repo_id = ?`, id, repoID))
	if err != nil {
		return nil, notFound(err)
	}
	return c, q.commitCommentRollups(ctx, []*model.CommitComment{c})
}

// CreateCommitComment inserts a commit comment (ID and times are set).
func (q Q) CreateCommitComment(ctx context.Context, c *model.CommitComment) error {
	now := q.Now()
	c.CreatedAt, c.UpdatedAt = now, now
	var pos, line any
	if c.Position != nil {
		pos = *c.Position
	}
	if c.Line != nil {
		line = *c.Line
	}
	id, err := q.insert(ctx, `INSERT INTO commit_comments (repo_id, commit_id, user_id, body, path, position, line, created_at, updated_at)
 VALUES (?,?,?,?,?,?,?,?,?)`, c.RepoID, c.CommitID, idOrNil(c.UserID), c.Body, strOrNil(c.Path), pos, line, unix(now), unix(now))
	if err != nil {
		return err
	}
	c.ID = id
	return nil
}

// UpdateCommitCommentBody changes a commit comment's body.
func (q Q) UpdateCommitCommentBody(ctx context.Context, c *model.CommitComment) error {
	c.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE commit_comments SET body = ?, updated_at = ? WHERE id = ?`, c.Body, unix(c.UpdatedAt), c.ID)
	return err
}

// DeleteCommitComment removes a commit comment with its reactions.
func (q Q) DeleteCommitComment(ctx context.Context, c *model.CommitComment) error {
	if _, err := q.exec(ctx, `DELETE FROM reactions WHERE subject_type = ? AND subject_id = ?`, ReactCommitComment, c.ID); err != nil {
		return err
	}
	_, err := q.exec(ctx, `DELETE FROM commit_comments WHERE id = ?`, c.ID)
	return err
}

// CommitCommentQuery selects the commit comments of a repository, or of
// one of its commits (CommitID, a full object id), oldest first.
type CommitCommentQuery struct {
	RepoID        int64
	CommitID      string
	Limit, Offset int
}

// ListCommitComments returns one page of commit comments with their
// reaction rollups, and their count.
func (q Q) ListCommitComments(ctx context.Context, f CommitCommentQuery) ([]*model.CommitComment, int, error) {
	where, args := ` WHERE c.repo_id = ?`, []any{f.RepoID}
	if f.CommitID != "" {
		where, args = where+` AND c.commit_id = ?`, append(args, f.CommitID)
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM commit_comments c`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, commitCommentSelect+where+` ORDER BY c.id LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*model.CommitComment{}
	for rows.Next() {
		c, err := scanCommitComment(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	return out, total, q.commitCommentRollups(ctx, out)
}

// commitCommentRollups loads the reaction rollups of the comments that
// have reactions, in one query per hundred.
func (q Q) commitCommentRollups(ctx context.Context, list []*model.CommitComment) error {
	var ids []int64
	for _, c := range list {
		if c.Reactions > 0 {
			ids = append(ids, c.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	r, err := q.rollups(ctx, ReactCommitComment, ids)
	if err != nil {
		return err
	}
	for _, c := range list {
		c.Rollup = r[c.ID]
	}
	return nil
}
