package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/hubd/hubd/internal/model"
)

var commentSelect = `SELECT c.id, c.repo_id, c.issue_id, i.number, c.user_id, c.body, c.reactions, c.pinned_at,
 c.created_at, c.updated_at, c.via_app_id, ` + slim("u") + `, ` + slim("p") + `, ` + association("c.user_id") + `
 FROM issue_comments c JOIN issues i ON i.id = c.issue_id JOIN repos r ON r.id = c.repo_id
 LEFT JOIN accounts u ON u.id = c.user_id LEFT JOIN accounts p ON p.id = c.pinned_by_id`

func scanComment(sc scanner) (*model.IssueComment, error) {
	c := &model.IssueComment{}
	var user, pinned, via sql.NullInt64
	var created, updated int64
	var u, p slimAccount
	dest := []any{&c.ID, &c.RepoID, &c.IssueID, &c.IssueNumber, &user, &c.Body, &c.Reactions, &pinned, &created, &updated, &via}
	dest = append(append(append(dest, u.dest()...), p.dest()...), &c.Association)
	if err := sc.Scan(dest...); err != nil {
		return nil, err
	}
	c.UserID, c.PinnedAt, c.ViaAppID = user.Int64, fromNullUnix(pinned), via.Int64
	c.CreatedAt, c.UpdatedAt = fromUnix(created), fromUnix(updated)
	c.User, c.PinnedBy = u.account(), p.account()
	return c, nil
}

func (q Q) comments(ctx context.Context, query string, args ...any) ([]*model.IssueComment, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.IssueComment{}
	for rows.Next() {
		c, err := scanComment(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func (q Q) commentsByID(ctx context.Context, ids []int64) (map[int64]*model.IssueComment, error) {
	in, args := inList(ids)
	list, err := q.comments(ctx, commentSelect+` WHERE c.id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	if err := q.CommentRollups(ctx, list); err != nil {
		return nil, err
	}
	out := make(map[int64]*model.IssueComment, len(list))
	for _, c := range list {
		out[c.ID] = c
	}
	return out, nil
}

// CommentByID finds a comment of a repository.
func (q Q) CommentByID(ctx context.Context, repoID, id int64) (*model.IssueComment, error) {
	c, err := scanComment(q.row(ctx, commentSelect+` WHERE c.id = ? AND c.repo_id = ?`, id, repoID))
	if err != nil {
		return nil, notFound(err)
	}
	return c, q.CommentRollups(ctx, []*model.IssueComment{c})
}

// CreateComment inserts a comment and counts it on its issue.
func (q Q) CreateComment(ctx context.Context, c *model.IssueComment) error {
	now := q.Now()
	c.CreatedAt, c.UpdatedAt = now, now
	c.ViaAppID = viaAppOf(ctx)
	id, err := q.insert(ctx, `INSERT INTO issue_comments (repo_id, issue_id, user_id, body, created_at, updated_at, via_app_id) VALUES (?,?,?,?,?,?,?)`,
		c.RepoID, c.IssueID, idOrNil(c.UserID), c.Body, unix(now), unix(now), idOrNil(c.ViaAppID))
	if err != nil {
		return err
	}
	c.ID = id
	_, err = q.exec(ctx, `UPDATE issues SET comments = comments + 1, updated_at = ? WHERE id = ?`, unix(now), c.IssueID)
	return err
}

// UpdateCommentBody changes a comment's body.
func (q Q) UpdateCommentBody(ctx context.Context, c *model.IssueComment) error {
	c.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE issue_comments SET body = ?, updated_at = ? WHERE id = ?`, c.Body, unix(c.UpdatedAt), c.ID)
	return err
}

// DeleteComment removes a comment with its reactions, uncounts it and
// unpins it.
func (q Q) DeleteComment(ctx context.Context, c *model.IssueComment) error {
	if _, err := q.exec(ctx, `DELETE FROM reactions WHERE subject_type = 'comment' AND subject_id = ?`, c.ID); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `DELETE FROM issue_comments WHERE id = ?`, c.ID); err != nil {
		return err
	}
	_, err := q.exec(ctx, `UPDATE issues SET comments = comments - 1,
 pinned_comment_id = CASE WHEN pinned_comment_id = ? THEN NULL ELSE pinned_comment_id END WHERE id = ?`, c.ID, c.IssueID)
	return err
}

// PinComment pins a comment on its issue; a comment pinned before on the
// same issue is unpinned (an issue has one pinned comment). It returns the
// id of that other comment (0 when none).
func (q Q) PinComment(ctx context.Context, c *model.IssueComment, by int64) (int64, error) {
	var prev sql.NullInt64
	if err := q.row(ctx, `SELECT pinned_comment_id FROM issues WHERE id = ?`, c.IssueID).Scan(&prev); err != nil {
		return 0, notFound(err)
	}
	now := q.Now()
	if prev.Valid && prev.Int64 != c.ID {
		if _, err := q.exec(ctx, `UPDATE issue_comments SET pinned_at = NULL, pinned_by_id = NULL WHERE id = ?`, prev.Int64); err != nil {
			return 0, err
		}
	}
	if _, err := q.exec(ctx, `UPDATE issue_comments SET pinned_at = ?, pinned_by_id = ? WHERE id = ?`, unix(now), by, c.ID); err != nil {
		return 0, err
	}
	if _, err := q.exec(ctx, `UPDATE issues SET pinned_comment_id = ? WHERE id = ?`, c.ID, c.IssueID); err != nil {
		return 0, err
	}
	c.PinnedAt = &now
	if prev.Valid && prev.Int64 != c.ID {
		return prev.Int64, nil
	}
	return 0, nil
}

// UnpinComment unpins a comment.
func (q Q) UnpinComment(ctx context.Context, c *model.IssueComment) error {
	if _, err := q.exec(ctx, `UPDATE issue_comments SET pinned_at = NULL, pinned_by_id = NULL WHERE id = ?`, c.ID); err != nil {
		return err
	}
	_, err := q.exec(ctx, `UPDATE issues SET pinned_comment_id = NULL WHERE id = ? AND pinned_comment_id = ?`, c.IssueID, c.ID)
	return err
}

// CommentQuery selects comments: an issue's (IssueID) or a repository's.
type CommentQuery struct {
	RepoID, IssueID int64
	Since           *time.Time
	Sort            string // created (default), updated
	Desc            bool
	Limit, Offset   int
}

// ListComments returns one page of comments with their reaction rollups,
// and their count.
func (q Q) ListComments(ctx context.Context, f CommentQuery) ([]*model.IssueComment, int, error) {
	where, args := ` WHERE c.repo_id = ?`, []any{f.RepoID}
	if f.IssueID != 0 {
		where, args = where+` AND c.issue_id = ?`, append(args, f.IssueID)
	}
	if f.Since != nil {
		where, args = where+` AND c.updated_at >= ?`, append(args, unix(*f.Since))
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM issue_comments c`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	dir := " ASC"
	if f.Desc {
		dir = " DESC"
	}
	order := ` ORDER BY c.id` + dir
	if f.Sort == "updated" {
		order = ` ORDER BY c.updated_at` + dir + `, c.id` + dir
	}
	list, err := q.comments(ctx, commentSelect+where+order+` LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	return list, total, q.CommentRollups(ctx, list)
}

// CommentRollups loads the reaction rollups of the comments that have
// reactions.
func (q Q) CommentRollups(ctx context.Context, list []*model.IssueComment) error {
	var ids, bots, via []int64
	for _, c := range list {
		if c.Reactions > 0 {
			ids = append(ids, c.ID)
		}
		if c.User != nil && c.User.Type == model.TypeBot {
			bots = append(bots, c.UserID)
		}
		if c.ViaAppID != 0 {
			via = append(via, c.ViaAppID)
		}
	}
	if len(bots)+len(via) > 0 {
		// What an app wrote (store/viaapps.go).
		byBot, byID, err := q.viaApps(ctx, bots, via)
		if err != nil {
			return err
		}
		for _, c := range list {
			c.ViaApp = viaApp(byBot, byID, c.UserID, c.ViaAppID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	r, err := q.rollups(ctx, "comment", ids)
	if err != nil {
		return err
	}
	for _, c := range list {
		c.Rollup = r[c.ID]
	}
	return nil
}
