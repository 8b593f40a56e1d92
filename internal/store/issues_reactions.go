package store

import (
	"context"
	"database/sql"

	"github.com/hubd/hubd/internal/model"
)

// Reaction subjects.
const (
	ReactIssue   = "issue"
	ReactComment = "comment"
)

func subjectTable(subject string) string {
	switch subject {
	case ReactComment:
		return "issue_comments"
	case ReactCommitComment:
		return "commit_comments"
	case ReactPullReviewComment:
		return "pull_review_comments"
	case ReactDiscussion:
		return "discussions"
	case ReactDiscussionComment:
		return "discussion_comments"
	}
	return "issues"
}

// rollups counts the reactions of subjects by content.
func (q Q) rollups(ctx context.Context, subject string, ids []int64) (map[int64]model.ReactionRollup, error) {
	out := map[int64]model.ReactionRollup{}
	for start := 0; start < len(ids); start += 100 {
		in, args := inList(ids[start:min(start+100, len(ids))])
		rows, err := q.query(ctx, `SELECT subject_id, content, COUNT(*) FROM reactions WHERE subject_type = ? AND subject_id IN (`+in+`)
 GROUP BY subject_id, content`, append([]any{subject}, args...)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id int64
			var content string
			var n int
			if err := rows.Scan(&id, &content, &n); err != nil {
				rows.Close()
				return nil, err
			}
			if out[id] == nil {
				out[id] = model.ReactionRollup{}
			}
			out[id][content] = n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

var reactionSelect = `SELECT x.id, x.content, x.created_at, ` + slim("a") + ` FROM reactions x JOIN accounts a ON a.id = x.user_id`

func scanReaction(sc scanner) (*model.Reaction, error) {
	r := &model.Reaction{}
	var created int64
	var a slimAccount
	if err := sc.Scan(append([]any{&r.ID, &r.Content, &created}, a.dest()...)...); err != nil {
		return nil, err
	}
	r.CreatedAt, r.User = fromUnix(created), a.account()
	return r, nil
}

// AddReaction records a user's reaction; when the user already reacted
// with that content it returns the existing one and false.
func (q Q) AddReaction(ctx context.Context, repoID int64, subject string, subjectID, userID int64, content string) (*model.Reaction, bool, error) {
	res, err := q.exec(ctx, `INSERT INTO reactions (repo_id, subject_type, subject_id, user_id, content, created_at) VALUES (?,?,?,?,?,?)
 ON CONFLICT DO NOTHING`, repoID, subject, subjectID, userID, content, unix(q.Now()))
	if err != nil {
		return nil, false, err
	}
	created, _ := res.RowsAffected()
	if created > 0 {
		if _, err := q.exec(ctx, `UPDATE `+subjectTable(subject)+` SET reactions = reactions + 1 WHERE id = ?`, subjectID); err != nil {
			return nil, false, err
		}
	}
	r, err := scanReaction(q.row(ctx, reactionSelect+` WHERE x.subject_type = ? AND x.subject_id = ? AND x.user_id = ? AND x.content = ?`,
		subject, subjectID, userID, content))
	return r, created > 0, err
}

// ReactionByID finds a reaction of a subject and the id of its user.
func (q Q) ReactionByID(ctx context.Context, subject string, subjectID, id int64) (*model.Reaction, error) {
	r, err := scanReaction(q.row(ctx, reactionSelect+` WHERE x.id = ? AND x.subject_type = ? AND x.subject_id = ?`, id, subject, subjectID))
	return r, notFound(err)
}

// DeleteReaction removes a reaction.
func (q Q) DeleteReaction(ctx context.Context, subject string, subjectID, id int64) error {
	res, err := q.exec(ctx, `DELETE FROM reactions WHERE id = ? AND subject_type = ? AND subject_id = ?`, id, subject, subjectID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notFound(sql.ErrNoRows)
	}
	_, err = q.exec(ctx, `UPDATE `+subjectTable(subject)+` SET reactions = reactions - 1 WHERE id = ?`, subjectID)
	return err
}

// ListReactions returns one page of a subject's reactions (of one content
// when content is not empty), oldest first, and their count.
func (q Q) ListReactions(ctx context.Context, subject string, subjectID int64, content string, limit, offset int) ([]*model.Reaction, int, error) {
	where, args := ` WHERE x.subject_type = ? AND x.subject_id = ?`, []any{subject, subjectID}
	if content != "" {
		where, args = where+` AND x.content = ?`, append(args, content)
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM reactions x`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, reactionSelect+where+` ORDER BY x.id LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*model.Reaction{}
	for rows.Next() {
		r, err := scanReaction(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, r)
	}
	return out, total, rows.Err()
}

// Rollup counts one subject's reactions.
func (q Q) Rollup(ctx context.Context, subject string, id int64) (model.ReactionRollup, error) {
	r, err := q.rollups(ctx, subject, []int64{id})
	return r[id], err
}
