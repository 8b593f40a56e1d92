package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// Pull request reviews, review comments and review requests. A review
// comment belongs to a review (a single comment made outside a review gets
// a COMMENTED review of its own, as on GitHub); comments of a PENDING
// review are seen only by the review's author, so every list takes the
// viewer.

// ReactPullReviewComment is the reaction subject of pull request review
// comments.
const ReactPullReviewComment = "pull_request_review_comment"

var reviewSelect = `SELECT v.id, v.repo_id, v.pull_id, v.user_id, v.body, v.state, v.commit_id, v.dismissal_message,
 v.submitted_at, v.created_at, v.updated_at, i.number, ` + slim("u") + `, ` + association("v.user_id") + `
 FROM pull_reviews v JOIN repos r ON r.id = v.repo_id JOIN issues i ON i.id = v.pull_id LEFT JOIN accounts u ON u.id = v.user_id`

func scanReview(sc scanner) (*model.PullReview, error) {
	v := &model.PullReview{}
	var user, submitted sql.NullInt64
	var msg sql.NullString
	var created, updated int64
	var u slimAccount
	dest := []any{&v.ID, &v.RepoID, &v.PullID, &user, &v.Body, &v.State, &v.CommitID, &msg, &submitted, &created, &updated, &v.PullNumber}
	dest = append(append(dest, u.dest()...), &v.Association)
	if err := sc.Scan(dest...); err != nil {
		return nil, err
	}
	v.UserID, v.User, v.DismissalMessage = user.Int64, u.account(), msg.String
	v.SubmittedAt, v.CreatedAt, v.UpdatedAt = fromNullUnix(submitted), fromUnix(created), fromUnix(updated)
	return v, nil
}

// CreatePullReview inserts a review (ID and times are set; SubmittedAt is
// now unless the review is pending). A second pending review of the same
// user and pull request is ErrDuplicate.
func (q Q) CreatePullReview(ctx context.Context, v *model.PullReview) error {
	now := q.Now()
	v.CreatedAt, v.UpdatedAt = now, now
	if v.State != model.ReviewPending {
		v.SubmittedAt = &now
	}
	id, err := q.insert(ctx, `INSERT INTO pull_reviews (repo_id, pull_id, user_id, body, state, commit_id, submitted_at, created_at, updated_at)
 VALUES (?,?,?,?,?,?,?,?,?)`, v.RepoID, v.PullID, idOrNil(v.UserID), v.Body, v.State, v.CommitID, nullUnix(v.SubmittedAt), unix(now), unix(now))
	if isUnique(err) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	v.ID = id
	return nil
}

// PullReviewByID finds a review of a pull request (by issue id).
func (q Q) PullReviewByID(ctx context.Context, pullID, id int64) (*model.PullReview, error) {
	v, err := scanReview(q.row(ctx, reviewSelect+` WHERE v.id = ? AND v.pull_id = ?`, id, pullID))
	return v, notFound(err)
}

// PullReviewsByID loads reviews by id (the timeline's "reviewed" rows).
func (q Q) PullReviewsByID(ctx context.Context, ids []int64) (map[int64]*model.PullReview, error) {
	out := map[int64]*model.PullReview{}
	for start := 0; start < len(ids); start += 100 {
		in, args := inList(ids[start:min(start+100, len(ids))])
		rows, err := q.query(ctx, reviewSelect+` WHERE v.id IN (`+in+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			v, err := scanReview(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			out[v.ID] = v
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// PendingReviewID is the id of a user's pending review of a pull request,
// 0 when there is none.
func (q Q) PendingReviewID(ctx context.Context, pullID, userID int64) (int64, error) {
	var id int64
	err := q.row(ctx, `SELECT id FROM pull_reviews WHERE pull_id = ? AND user_id = ? AND state = 'PENDING' LIMIT 1`, pullID, userID).Scan(&id)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return id, err
}

// ListPullReviews returns one page of a pull request's reviews in the order
// they were made (pending ones only to their author), and their count.
func (q Q) ListPullReviews(ctx context.Context, pullID, viewerID int64, limit, offset int) ([]*model.PullReview, int, error) {
	where := ` WHERE v.pull_id = ? AND (v.state <> 'PENDING' OR v.user_id = ?)`
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM pull_reviews v`+where, pullID, viewerID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, reviewSelect+where+` ORDER BY v.id LIMIT ? OFFSET ?`, pullID, viewerID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*model.PullReview{}
	for rows.Next() {
		v, err := scanReview(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, v)
	}
	return out, total, rows.Err()
}

// ListRepoPullReviews returns one page of a repository's submitted reviews
// (all pull requests, oldest first) and their count: the migration export.
func (q Q) ListRepoPullReviews(ctx context.Context, repoID int64, limit, offset int) ([]*model.PullReview, int, error) {
	where := ` WHERE v.repo_id = ? AND v.state <> 'PENDING'`
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM pull_reviews v`+where, repoID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := q.query(ctx, reviewSelect+where+` ORDER BY v.id LIMIT ? OFFSET ?`, repoID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*model.PullReview{}
	for rows.Next() {
		v, err := scanReview(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, v)
	}
	return out, total, rows.Err()
}

// UpdatePullReview writes a review's body, state, commit, dismissal
// message and submission time.
func (q Q) UpdatePullReview(ctx context.Context, v *model.PullReview) error {
	v.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE pull_reviews SET body = ?, state = ?, commit_id = ?, dismissal_message = ?, submitted_at = ?, updated_at = ?
 WHERE id = ?`, v.Body, v.State, v.CommitID, nullText(v.DismissalMessage), nullUnix(v.SubmittedAt), unix(v.UpdatedAt), v.ID)
	return err
}

// DeletePullReview removes a review with its comments and their reactions.
func (q Q) DeletePullReview(ctx context.Context, id int64) error {
	if _, err := q.exec(ctx, `DELETE FROM reactions WHERE subject_type = ? AND subject_id IN (SELECT id FROM pull_review_comments WHERE review_id = ?)`,
		ReactPullReviewComment, id); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `DELETE FROM pull_review_comments WHERE review_id = ?`, id); err != nil {
		return err
	}
	_, err := q.exec(ctx, `DELETE FROM pull_reviews WHERE id = ?`, id)
	return err
}

var reviewCommentSelect = `SELECT c.id, c.repo_id, c.pull_id, c.review_id, c.in_reply_to_id, c.user_id, c.body, c.path, c.commit_id,
 c.original_commit_id, c.diff_hunk, c.position, c.original_position, c.line, c.original_line, c.side, c.start_line,
 c.original_start_line, c.start_side, c.subject_type, c.reactions, c.created_at, c.updated_at, i.number, v.state,
 ` + slim("u") + `, ` + association("c.user_id") + `
 FROM pull_review_comments c JOIN repos r ON r.id = c.repo_id JOIN issues i ON i.id = c.pull_id
 JOIN pull_reviews v ON v.id = c.review_id LEFT JOIN accounts u ON u.id = c.user_id`

func nullI64(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	v := n.Int64
	return &v
}

func i64OrNil(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func scanReviewComment(sc scanner) (*model.PullReviewComment, error) {
	c := &model.PullReviewComment{}
	var reply, user, pos, opos, line, oline, start, ostart sql.NullInt64
	var side, startSide sql.NullString
	var created, updated int64
	var u slimAccount
	dest := []any{&c.ID, &c.RepoID, &c.PullID, &c.ReviewID, &reply, &user, &c.Body, &c.Path, &c.CommitID,
		&c.OriginalCommitID, &c.DiffHunk, &pos, &opos, &line, &oline, &side, &start,
		&ostart, &startSide, &c.SubjectType, &c.Reactions, &created, &updated, &c.PullNumber, &c.ReviewState}
	dest = append(append(dest, u.dest()...), &c.Association)
	if err := sc.Scan(dest...); err != nil {
		return nil, err
	}
	c.InReplyToID, c.UserID, c.User = reply.Int64, user.Int64, u.account()
	c.Position, c.OriginalPosition, c.Line, c.OriginalLine = nullI64(pos), nullI64(opos), nullI64(line), nullI64(oline)
	c.StartLine, c.OriginalStartLine = nullI64(start), nullI64(ostart)
	c.Side, c.StartSide = nullStr(side), nullStr(startSide)
	c.CreatedAt, c.UpdatedAt = fromUnix(created), fromUnix(updated)
	return c, nil
}

// CreatePullReviewComment inserts a review comment (ID and times are set).
func (q Q) CreatePullReviewComment(ctx context.Context, c *model.PullReviewComment) error {
	now := q.Now()
	c.CreatedAt, c.UpdatedAt = now, now
	id, err := q.insert(ctx, `INSERT INTO pull_review_comments (repo_id, pull_id, review_id, in_reply_to_id, user_id, body, path,
 commit_id, original_commit_id, diff_hunk, position, original_position, line, original_line, side, start_line, original_start_line,
 start_side, subject_type, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		c.RepoID, c.PullID, c.ReviewID, idOrNil(c.InReplyToID), idOrNil(c.UserID), c.Body, c.Path,
		c.CommitID, c.OriginalCommitID, c.DiffHunk, i64OrNil(c.Position), i64OrNil(c.OriginalPosition), i64OrNil(c.Line),
		i64OrNil(c.OriginalLine), strOrNil(c.Side), i64OrNil(c.StartLine), i64OrNil(c.OriginalStartLine),
		strOrNil(c.StartSide), c.SubjectType, unix(now), unix(now))
	if err != nil {
		return err
	}
	c.ID = id
	return nil
}

// PullReviewCommentByID finds a review comment of a repository with its
// reaction rollup.
func (q Q) PullReviewCommentByID(ctx context.Context, repoID, id int64) (*model.PullReviewComment, error) {
	c, err := scanReviewComment(q.row(ctx, reviewCommentSelect+` WHERE c.id = ? AND c.repo_id = ?`, id, repoID))
	if err != nil {
		return nil, notFound(err)
	}
	return c, q.reviewCommentRollups(ctx, []*model.PullReviewComment{c})
}

// ReviewCommentQuery selects review comments of a repository, of one pull
// request or of one review, as viewer sees them.
type ReviewCommentQuery struct {
	RepoID, PullID, ReviewID int64
	ViewerID                 int64
	Sort                     string // "" (id), created, updated
	Desc                     bool
	Since                    *time.Time // updated at or after
	Limit, Offset            int
}

// ListPullReviewComments returns one page of review comments with their
// reaction rollups, and their count.
func (q Q) ListPullReviewComments(ctx context.Context, f ReviewCommentQuery) ([]*model.PullReviewComment, int, error) {
	where, args := ` WHERE c.repo_id = ? AND (v.state <> 'PENDING' OR v.user_id = ?)`, []any{f.RepoID, f.ViewerID}
	if f.PullID != 0 {
		where, args = where+` AND c.pull_id = ?`, append(args, f.PullID)
	}
	if f.ReviewID != 0 {
		where, args = where+` AND c.review_id = ?`, append(args, f.ReviewID)
	}
	if f.Since != nil {
		where, args = where+` AND c.updated_at >= ?`, append(args, unix(*f.Since))
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM pull_review_comments c JOIN pull_reviews v ON v.id = c.review_id`+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	dir := " ASC"
	if f.Desc {
		dir = " DESC"
	}
	order := "c.id" + dir
	switch f.Sort {
	case "created":
		order = "c.created_at" + dir + ", c.id" + dir
	case "updated":
		order = "c.updated_at" + dir + ", c.id" + dir
	}
	rows, err := q.query(ctx, reviewCommentSelect+where+` ORDER BY `+order+` LIMIT ? OFFSET ?`, append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []*model.PullReviewComment{}
	for rows.Next() {
		c, err := scanReviewComment(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	return out, total, q.reviewCommentRollups(ctx, out)
}

// LineReviewComments are a pull request's comments on lines that are still
// in its diff (position set), the ones a moved head may make outdated.
func (q Q) LineReviewComments(ctx context.Context, pullID int64) ([]*model.PullReviewComment, error) {
	rows, err := q.query(ctx, reviewCommentSelect+` WHERE c.pull_id = ? AND c.subject_type = 'line' AND c.position IS NOT NULL ORDER BY c.id`, pullID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*model.PullReviewComment{}
	for rows.Next() {
		c, err := scanReviewComment(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// SetReviewCommentPlace writes where a comment sits in the current diff
// (nil position, line and start line: outdated) and its commit.
func (q Q) SetReviewCommentPlace(ctx context.Context, c *model.PullReviewComment) error {
	_, err := q.exec(ctx, `UPDATE pull_review_comments SET position = ?, line = ?, start_line = ?, commit_id = ? WHERE id = ?`,
		i64OrNil(c.Position), i64OrNil(c.Line), i64OrNil(c.StartLine), c.CommitID, c.ID)
	return err
}

// CountReviewComments is how many comments a review holds.
func (q Q) CountReviewComments(ctx context.Context, reviewID int64) (int, error) {
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM pull_review_comments WHERE review_id = ?`, reviewID).Scan(&n)
	return n, err
}

// UpdatePullReviewCommentBody changes a review comment's body.
func (q Q) UpdatePullReviewCommentBody(ctx context.Context, c *model.PullReviewComment) error {
	c.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE pull_review_comments SET body = ?, updated_at = ? WHERE id = ?`, c.Body, unix(c.UpdatedAt), c.ID)
	return err
}

// DeletePullReviewComment removes a review comment with its reactions;
// replies to it stay, as on GitHub.
func (q Q) DeletePullReviewComment(ctx context.Context, id int64) error {
	if _, err := q.exec(ctx, `DELETE FROM reactions WHERE subject_type = ? AND subject_id = ?`, ReactPullReviewComment, id); err != nil {
		return err
	}
	_, err := q.exec(ctx, `DELETE FROM pull_review_comments WHERE id = ?`, id)
	return err
}

// reviewCommentRollups loads the reaction rollups of comments, in one
// query per hundred. It asks for every comment rather than trusting the
// reactions column, which only counts once the reactions store knows the
// comments table.
func (q Q) reviewCommentRollups(ctx context.Context, list []*model.PullReviewComment) error {
	if len(list) == 0 {
		return nil
	}
	ids := make([]int64, len(list))
	for i, c := range list {
		ids[i] = c.ID
	}
	r, err := q.rollups(ctx, ReactPullReviewComment, ids)
	if err != nil {
		return err
	}
	for _, c := range list {
		c.Rollup = r[c.ID]
	}
	return nil
}

// RequestedReviewers are the users whose review is requested on pull
// requests (by issue id), in the order they were requested; one query.
func (q Q) RequestedReviewers(ctx context.Context, issueIDs []int64) (map[int64][]*model.Account, error) {
	out := map[int64][]*model.Account{}
	for start := 0; start < len(issueIDs); start += 100 {
		in, args := inList(issueIDs[start:min(start+100, len(issueIDs))])
		rows, err := q.query(ctx, `SELECT rr.pull_id, `+slim("a")+` FROM pull_review_requests rr JOIN accounts a ON a.id = rr.reviewer_id
 WHERE rr.pull_id IN (`+in+`) ORDER BY rr.pull_id, rr.id`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var pid int64
			var a slimAccount
			if err := rows.Scan(append([]any{&pid}, a.dest()...)...); err != nil {
				rows.Close()
				return nil, err
			}
			out[pid] = append(out[pid], a.account())
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// AddReviewRequest requests a user's review; added is false when it was
// already requested.
func (q Q) AddReviewRequest(ctx context.Context, pullID, userID int64) (added bool, err error) {
	res, err := q.exec(ctx, `INSERT INTO pull_review_requests (pull_id, reviewer_id, created_at) VALUES (?,?,?) ON CONFLICT DO NOTHING`,
		pullID, userID, unix(q.Now()))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// RemoveReviewRequest withdraws a user's review request; removed is false
// when there was none.
func (q Q) RemoveReviewRequest(ctx context.Context, pullID, userID int64) (removed bool, err error) {
	res, err := q.exec(ctx, `DELETE FROM pull_review_requests WHERE pull_id = ? AND reviewer_id = ?`, pullID, userID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// LatestReviews are GraphQL's PullRequest.latestReviews of many pull
// requests: each user's latest submitted (not pending) review, by pull id,
// in the order they were made.
func (q Q) LatestReviews(ctx context.Context, pullIDs []int64) (map[int64][]*model.PullReview, error) {
	out := map[int64][]*model.PullReview{}
	for start := 0; start < len(pullIDs); start += 100 {
		in, args := inList(pullIDs[start:min(start+100, len(pullIDs))])
		rows, err := q.query(ctx, reviewSelect+` WHERE v.pull_id IN (`+in+`) AND v.state <> 'PENDING' AND v.user_id IS NOT NULL
 AND v.id = (SELECT MAX(w.id) FROM pull_reviews w WHERE w.pull_id = v.pull_id AND w.user_id = v.user_id AND w.state <> 'PENDING')
 ORDER BY v.id`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			v, err := scanReview(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			out[v.PullID] = append(out[v.PullID], v)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
