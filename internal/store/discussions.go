package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// Reaction subjects of discussions.
const (
	ReactDiscussion        = "discussion"
	ReactDiscussionComment = "discussion_comment"
)

// Upvote subjects.
const (
	UpvoteDiscussion = "discussion"
	UpvoteComment    = "comment"
)

const discussionCols = `d.id, d.repo_id, d.number, d.category_id, d.title, d.body, d.editor_id, d.closed, d.state_reason,
 d.closed_at, d.locked, d.lock_reason, d.pinned_at, d.answer_id, d.answer_chosen_at, d.answer_chosen_by, d.upvotes,
 d.reactions, d.comments, d.last_edited_at, d.created_at, d.updated_at, ` + `a.id, a.login, a.type, a.site_admin`

const discussionFrom = ` FROM discussions d LEFT JOIN accounts a ON a.id = d.user_id`

func (q Q) discussions(ctx context.Context, query string, args ...any) ([]*model.Discussion, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.Discussion
	for rows.Next() {
		d, err := scanDiscussion(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// scanDiscussion reads a row of discussionCols.
func scanDiscussion(rows *sql.Rows) (*model.Discussion, error) {
	d := &model.Discussion{}
	var editor, answer, chosenBy sql.NullInt64
	var reason, lock sql.NullString
	var closedAt, pinned, chosenAt, edited sql.NullInt64
	var created, updated int64
	var a slimAccount
	if err := rows.Scan(append([]any{&d.ID, &d.RepoID, &d.Number, &d.CategoryID, &d.Title, &d.Body, &editor, &d.Closed, &reason,
		&closedAt, &d.Locked, &lock, &pinned, &answer, &chosenAt, &chosenBy, &d.Upvotes, &d.Reactions, &d.Comments, &edited,
		&created, &updated}, a.dest()...)...); err != nil {
		return nil, err
	}
	d.EditorID, d.AnswerID, d.AnswerChosenBy = editor.Int64, answer.Int64, chosenBy.Int64
	d.StateReason, d.LockReason = reason.String, lock.String
	d.ClosedAt, d.PinnedAt, d.AnswerChosenAt, d.LastEditedAt = fromNullUnix(closedAt), fromNullUnix(pinned), fromNullUnix(chosenAt), fromNullUnix(edited)
	d.CreatedAt, d.UpdatedAt, d.User = fromUnix(created), fromUnix(updated), a.account()
	return d, nil
}

// discussionSearchFrom is the discussions of the repositories (r, owner a)
// a viewer may see; the author is u.
const discussionSearchFrom = ` FROM discussions d JOIN repos r ON r.id = d.repo_id JOIN accounts a ON a.id = r.owner_id` + viewerJoins + `
 LEFT JOIN accounts u ON u.id = d.user_id`

var discussionSearchCols = strings.Replace(discussionCols, "a.id, a.login, a.type, a.site_admin", "u.id, u.login, u.type, u.site_admin", 1)

// SearchDiscussions is a page of the discussions f selects (its RepoID
// left out) across the repositories v may see with discussions on, and
// their total.
func (q Q) SearchDiscussions(ctx context.Context, v Viewer, f DiscussionQuery, limit, offset int) ([]*model.Discussion, int, error) {
	s := visibleTo(v)
	conds, args := f.conds()
	s.w("r.has_discussions = ?", conds)
	s.arg(true)
	s.arg(args...)
	col := "d.updated_at"
	if f.OrderBy == "created_at" {
		col = "d.created_at"
	}
	dir := direction(!f.Asc)
	return runSearch(ctx, q, searchPage{from: discussionSearchFrom, cols: discussionSearchCols, where: s,
		order: " ORDER BY " + col + dir + ", d.id" + dir, limit: limit, offset: offset}, scanDiscussion)
}

// DiscussionByNumber is discussion number of a repository.
func (q Q) DiscussionByNumber(ctx context.Context, repoID, number int64) (*model.Discussion, error) {
	return one(q.discussions(ctx, `SELECT `+discussionCols+discussionFrom+` WHERE d.repo_id = ? AND d.number = ?`, repoID, number))
}

// DiscussionsByID loads discussions by id.
func (q Q) DiscussionsByID(ctx context.Context, ids []int64) (map[int64]*model.Discussion, error) {
	out := map[int64]*model.Discussion{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	list, err := q.discussions(ctx, `SELECT `+discussionCols+discussionFrom+` WHERE d.id IN (`+in+`)`, args...)
	for _, d := range list {
		out[d.ID] = d
	}
	return out, err
}

// DiscussionQuery selects discussions of a repository.
type DiscussionQuery struct {
	RepoID     int64
	OwnerID    int64 // SearchDiscussions: the repositories of an account
	CategoryID int64
	Closed     *bool // nil: open and closed
	Answered   *bool
	AuthorID   int64
	LabelIDs   []int64 // all of them
	Words      []string
	OrderBy    string // created_at, updated_at (default)
	Asc        bool
	// PinnedFirst lists pinned discussions first (the repository's list).
	PinnedFirst bool
}

func (f DiscussionQuery) where() (string, []any) {
	conds, args := f.conds()
	return ` WHERE d.repo_id = ?` + conds, append([]any{f.RepoID}, args...)
}

// conds are f's conditions other than its repository, each " AND ...".
func (f DiscussionQuery) conds() (string, []any) {
	var where string
	var args []any
	if f.OwnerID != 0 {
		where += ` AND r.owner_id = ?`
		args = append(args, f.OwnerID)
	}
	if f.CategoryID != 0 {
		where += ` AND d.category_id = ?`
		args = append(args, f.CategoryID)
	}
	if f.Closed != nil {
		where += ` AND d.closed = ?`
		args = append(args, *f.Closed)
	}
	if f.Answered != nil {
		if *f.Answered {
			where += ` AND d.answer_id IS NOT NULL`
		} else {
			where += ` AND d.answer_id IS NULL`
		}
	}
	if f.AuthorID != 0 {
		where += ` AND d.user_id = ?`
		args = append(args, f.AuthorID)
	}
	for _, l := range f.LabelIDs {
		where += ` AND EXISTS (SELECT 1 FROM discussion_labels dl WHERE dl.discussion_id = d.id AND dl.label_id = ?)`
		args = append(args, l)
	}
	for _, w := range f.Words {
		where += ` AND (LOWER(d.title) LIKE ? ESCAPE '\' OR LOWER(d.body) LIKE ? ESCAPE '\')`
		p := "%" + likeEscape(strings.ToLower(w)) + "%"
		args = append(args, p, p)
	}
	return where, args
}

// CountDiscussions counts the discussions f selects.
func (q Q) CountDiscussions(ctx context.Context, f DiscussionQuery) (int, error) {
	where, args := f.where()
	var n int
	err := q.row(ctx, `SELECT COUNT(*) FROM discussions d`+where, args...).Scan(&n)
	return n, err
}

// DiscussionsPage is a page of the discussions f selects, in its order.
func (q Q) DiscussionsPage(ctx context.Context, f DiscussionQuery, limit, offset int) ([]*model.Discussion, error) {
	where, args := f.where()
	col := "d.updated_at"
	if f.OrderBy == "created_at" {
		col = "d.created_at"
	}
	dir := " DESC"
	if f.Asc {
		dir = " ASC"
	}
	order := ` ORDER BY ` + col + dir + `, d.id` + dir
	if f.PinnedFirst {
		order = ` ORDER BY CASE WHEN d.pinned_at IS NULL THEN 1 ELSE 0 END, ` + col + dir + `, d.id` + dir
	}
	return q.discussions(ctx, `SELECT `+discussionCols+discussionFrom+where+order+` LIMIT ? OFFSET ?`, append(args, limit, offset)...)
}

// CreateDiscussion inserts a discussion with the repository's next issue
// number (discussions, issues and pull requests share the numbers).
func (q Q) CreateDiscussion(ctx context.Context, d *model.Discussion) error {
	n, err := q.countNewIssue(ctx, d.RepoID, 0, 0)
	if err != nil {
		return err
	}
	d.Number = n
	now := q.Now()
	d.CreatedAt, d.UpdatedAt = now, now
	var user any
	if d.User != nil {
		user = d.User.ID
	}
	d.ID, err = q.insert(ctx, `INSERT INTO discussions (repo_id, number, category_id, title, body, user_id, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?)`,
		d.RepoID, d.Number, d.CategoryID, d.Title, d.Body, user, unix(now), unix(now))
	return err
}

// UpdateDiscussion writes a discussion's mutable columns and moves its
// updated_at.
func (q Q) UpdateDiscussion(ctx context.Context, d *model.Discussion) error {
	d.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE discussions SET category_id = ?, title = ?, body = ?, editor_id = ?, closed = ?, state_reason = ?, closed_at = ?,
 locked = ?, lock_reason = ?, pinned_at = ?, answer_id = ?, answer_chosen_at = ?, answer_chosen_by = ?, last_edited_at = ?, updated_at = ? WHERE id = ?`,
		d.CategoryID, d.Title, d.Body, idOrNil(d.EditorID), d.Closed, emptyNull(d.StateReason), nullUnix(d.ClosedAt),
		d.Locked, emptyNull(d.LockReason), nullUnix(d.PinnedAt), idOrNil(d.AnswerID), nullUnix(d.AnswerChosenAt), idOrNil(d.AnswerChosenBy),
		nullUnix(d.LastEditedAt), unix(d.UpdatedAt), d.ID)
	return err
}

// MoveDiscussion gives a discussion a new repository, number and category
// (a transfer); its comments follow and its labels are dropped.
func (q Q) MoveDiscussion(ctx context.Context, d *model.Discussion, toRepo, categoryID int64) error {
	n, err := q.countNewIssue(ctx, toRepo, 0, 0)
	if err != nil {
		return err
	}
	d.RepoID, d.Number, d.CategoryID, d.UpdatedAt = toRepo, n, categoryID, q.Now()
	for _, st := range []struct {
		query string
		args  []any
	}{
		{`UPDATE discussions SET repo_id = ?, number = ?, category_id = ?, updated_at = ? WHERE id = ?`, []any{toRepo, n, categoryID, unix(d.UpdatedAt), d.ID}},
		{`UPDATE discussion_comments SET repo_id = ? WHERE discussion_id = ?`, []any{toRepo, d.ID}},
		{`DELETE FROM discussion_labels WHERE discussion_id = ?`, []any{d.ID}},
		{`UPDATE reactions SET repo_id = ? WHERE (subject_type = 'discussion' AND subject_id = ?)
 OR (subject_type = 'discussion_comment' AND subject_id IN (SELECT id FROM discussion_comments WHERE discussion_id = ?))`, []any{toRepo, d.ID, d.ID}},
	} {
		if _, err := q.exec(ctx, st.query, st.args...); err != nil {
			return err
		}
	}
	return nil
}

// DeleteDiscussion deletes a discussion with its comments, upvotes,
// labels and reactions.
func (q Q) DeleteDiscussion(ctx context.Context, id int64) error {
	for _, st := range []string{
		`DELETE FROM reactions WHERE subject_type = 'discussion_comment' AND subject_id IN (SELECT id FROM discussion_comments WHERE discussion_id = ?)`,
		`DELETE FROM discussion_upvotes WHERE subject_type = 'comment' AND subject_id IN (SELECT id FROM discussion_comments WHERE discussion_id = ?)`,
		`DELETE FROM reactions WHERE subject_type = 'discussion' AND subject_id = ?`,
		`DELETE FROM discussion_upvotes WHERE subject_type = 'discussion' AND subject_id = ?`,
		`DELETE FROM discussion_comments WHERE discussion_id = ? AND reply_to_id IS NOT NULL`,
		`DELETE FROM discussion_comments WHERE discussion_id = ?`,
		`DELETE FROM discussion_labels WHERE discussion_id = ?`,
		`DELETE FROM discussions WHERE id = ?`,
	} {
		if _, err := q.exec(ctx, st, id); err != nil {
			return err
		}
	}
	return nil
}

// Categories.

const categoryCols = `id, repo_id, slug, name, emoji, description, format, position, created_at, updated_at`

// DiscussionCategoriesOf is the stored categories of repositories, in
// order, and which repositories have stored theirs (the others have
// GitHub's defaults).
func (q Q) DiscussionCategoriesOf(ctx context.Context, repoIDs []int64) (map[int64][]*model.DiscussionCategory, map[int64]bool, error) {
	cats, stored := map[int64][]*model.DiscussionCategory{}, map[int64]bool{}
	if len(repoIDs) == 0 {
		return cats, stored, nil
	}
	in, args := inList(repoIDs)
	rows, err := q.query(ctx, `SELECT repo_id FROM discussion_repos WHERE repo_id IN (`+in+`)`, args...)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, nil, err
		}
		stored[id] = true
	}
	rows.Close()
	if len(stored) == 0 {
		return cats, stored, rows.Err()
	}
	rows, err = q.query(ctx, `SELECT `+categoryCols+` FROM discussion_categories WHERE repo_id IN (`+in+`) ORDER BY repo_id, position, id`, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		c := &model.DiscussionCategory{}
		var created, updated int64
		if err := rows.Scan(&c.ID, &c.RepoID, &c.Slug, &c.Name, &c.Emoji, &c.Description, &c.Format, &c.Position, &created, &updated); err != nil {
			return nil, nil, err
		}
		c.CreatedAt, c.UpdatedAt = fromUnix(created), fromUnix(updated)
		cats[c.RepoID] = append(cats[c.RepoID], c)
	}
	return cats, stored, rows.Err()
}

// StoreDiscussionCategories records a repository's categories as they are
// from now on (the first change to its defaults stores them all).
func (q Q) StoreDiscussionCategories(ctx context.Context, repoID int64, list []*model.DiscussionCategory) error {
	now := unix(q.Now())
	if _, err := q.exec(ctx, `INSERT INTO discussion_repos (repo_id, created_at) VALUES (?, ?) ON CONFLICT (repo_id) DO NOTHING`, repoID, now); err != nil {
		return err
	}
	for _, c := range list {
		if _, err := q.exec(ctx, `INSERT INTO discussion_categories (`+categoryCols+`) VALUES (?,?,?,?,?,?,?,?,?,?)
 ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, name = excluded.name, emoji = excluded.emoji, description = excluded.description,
 format = excluded.format, position = excluded.position, updated_at = excluded.updated_at`,
			c.ID, repoID, c.Slug, c.Name, c.Emoji, c.Description, c.Format, c.Position, unix(c.CreatedAt), now); err != nil {
			return err
		}
	}
	return nil
}

// DeleteDiscussionCategory removes a stored category.
func (q Q) DeleteDiscussionCategory(ctx context.Context, id int64) error {
	_, err := q.exec(ctx, `DELETE FROM discussion_categories WHERE id = ?`, id)
	return err
}

// MoveDiscussionsToCategory moves a category's discussions to another.
func (q Q) MoveDiscussionsToCategory(ctx context.Context, from, to int64) error {
	_, err := q.exec(ctx, `UPDATE discussions SET category_id = ? WHERE category_id = ?`, to, from)
	return err
}

// Comments.

const commentColsD = `c.id, c.discussion_id, c.repo_id, c.reply_to_id, c.body, c.editor_id, c.upvotes, c.reactions, c.last_edited_at,
 c.created_at, c.updated_at, (SELECT COUNT(*) FROM discussion_comments x WHERE x.reply_to_id = c.id), a.id, a.login, a.type, a.site_admin`

const commentFromD = ` FROM discussion_comments c LEFT JOIN accounts a ON a.id = c.user_id`

func (q Q) discussionComments(ctx context.Context, query string, args ...any) ([]*model.DiscussionComment, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*model.DiscussionComment
	for rows.Next() {
		c := &model.DiscussionComment{}
		var reply, editor, edited sql.NullInt64
		var created, updated int64
		var a slimAccount
		if err := rows.Scan(append([]any{&c.ID, &c.DiscussionID, &c.RepoID, &reply, &c.Body, &editor, &c.Upvotes, &c.Reactions, &edited,
			&created, &updated, &c.Replies}, a.dest()...)...); err != nil {
			return nil, err
		}
		c.ReplyToID, c.EditorID, c.LastEditedAt = reply.Int64, editor.Int64, fromNullUnix(edited)
		c.CreatedAt, c.UpdatedAt, c.User = fromUnix(created), fromUnix(updated), a.account()
		out = append(out, c)
	}
	return out, rows.Err()
}

// DiscussionCommentsByID loads comments by id.
func (q Q) DiscussionCommentsByID(ctx context.Context, ids []int64) (map[int64]*model.DiscussionComment, error) {
	out := map[int64]*model.DiscussionComment{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	list, err := q.discussionComments(ctx, `SELECT `+commentColsD+commentFromD+` WHERE c.id IN (`+in+`)`, args...)
	for _, c := range list {
		out[c.ID] = c
	}
	return out, err
}

// DiscussionRepliesOf is the replies of comments, oldest first, by the
// comment they reply to.
func (q Q) DiscussionRepliesOf(ctx context.Context, commentIDs []int64) (map[int64][]*model.DiscussionComment, error) {
	out := map[int64][]*model.DiscussionComment{}
	if len(commentIDs) == 0 {
		return out, nil
	}
	in, args := inList(commentIDs)
	list, err := q.discussionComments(ctx, `SELECT `+commentColsD+commentFromD+` WHERE c.reply_to_id IN (`+in+`) ORDER BY c.id`, args...)
	for _, c := range list {
		out[c.ReplyToID] = append(out[c.ReplyToID], c)
	}
	return out, err
}

// CreateDiscussionComment inserts a comment (or reply) and counts a
// top-level one on its discussion, whose updated_at moves.
func (q Q) CreateDiscussionComment(ctx context.Context, c *model.DiscussionComment) error {
	now := q.Now()
	c.CreatedAt, c.UpdatedAt = now, now
	var user any
	if c.User != nil {
		user = c.User.ID
	}
	var err error
	c.ID, err = q.insert(ctx, `INSERT INTO discussion_comments (discussion_id, repo_id, reply_to_id, body, user_id, created_at, updated_at) VALUES (?,?,?,?,?,?,?)`,
		c.DiscussionID, c.RepoID, idOrNil(c.ReplyToID), c.Body, user, unix(now), unix(now))
	if err != nil {
		return err
	}
	top := 0
	if c.ReplyToID == 0 {
		top = 1
	}
	_, err = q.exec(ctx, `UPDATE discussions SET comments = comments + ?, updated_at = ? WHERE id = ?`, top, unix(now), c.DiscussionID)
	return err
}

// UpdateDiscussionComment writes a comment's body.
func (q Q) UpdateDiscussionComment(ctx context.Context, c *model.DiscussionComment) error {
	c.UpdatedAt = q.Now()
	_, err := q.exec(ctx, `UPDATE discussion_comments SET body = ?, editor_id = ?, last_edited_at = ?, updated_at = ? WHERE id = ?`,
		c.Body, idOrNil(c.EditorID), nullUnix(c.LastEditedAt), unix(c.UpdatedAt), c.ID)
	return err
}

// DeleteDiscussionComment deletes a comment with its replies (and their
// upvotes and reactions); a deleted answer unmarks its discussion.
func (q Q) DeleteDiscussionComment(ctx context.Context, c *model.DiscussionComment) error {
	ids := `(SELECT id FROM discussion_comments WHERE id = ? OR reply_to_id = ?)`
	for _, st := range []string{
		`DELETE FROM reactions WHERE subject_type = 'discussion_comment' AND subject_id IN ` + ids,
		`DELETE FROM discussion_upvotes WHERE subject_type = 'comment' AND subject_id IN ` + ids,
		`UPDATE discussions SET answer_id = NULL, answer_chosen_at = NULL, answer_chosen_by = NULL WHERE answer_id IN ` + ids,
	} {
		if _, err := q.exec(ctx, st, c.ID, c.ID); err != nil {
			return err
		}
	}
	if _, err := q.exec(ctx, `DELETE FROM discussion_comments WHERE reply_to_id = ?`, c.ID); err != nil {
		return err
	}
	if _, err := q.exec(ctx, `DELETE FROM discussion_comments WHERE id = ?`, c.ID); err != nil {
		return err
	}
	if c.ReplyToID == 0 {
		_, err := q.exec(ctx, `UPDATE discussions SET comments = comments - 1 WHERE id = ?`, c.DiscussionID)
		return err
	}
	return nil
}

// Upvotes.

// SetUpvote adds (on) or removes a user's upvote of a discussion or
// comment; changed is false when there was nothing to do.
func (q Q) SetUpvote(ctx context.Context, subject string, id, userID int64, on bool) (bool, error) {
	var res sql.Result
	var err error
	if on {
		res, err = q.exec(ctx, `INSERT INTO discussion_upvotes (subject_type, subject_id, user_id, created_at) VALUES (?,?,?,?) ON CONFLICT DO NOTHING`,
			subject, id, userID, unix(q.Now()))
	} else {
		res, err = q.exec(ctx, `DELETE FROM discussion_upvotes WHERE subject_type = ? AND subject_id = ? AND user_id = ?`, subject, id, userID)
	}
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	table, delta := "discussions", 1
	if subject == UpvoteComment {
		table = "discussion_comments"
	}
	if !on {
		delta = -1
	}
	_, err = q.exec(ctx, `UPDATE `+table+` SET upvotes = upvotes + ? WHERE id = ?`, delta, id)
	return true, err
}

// UpvotedBy is which of the subjects a user has upvoted.
func (q Q) UpvotedBy(ctx context.Context, subject string, ids []int64, userID int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	if len(ids) == 0 || userID == 0 {
		return out, nil
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT subject_id FROM discussion_upvotes WHERE subject_type = ? AND user_id = ? AND subject_id IN (`+in+`)`,
		append([]any{subject, userID}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// Labels.

// DiscussionLabelsOf is the labels of discussions, by name.
func (q Q) DiscussionLabelsOf(ctx context.Context, ids []int64) (map[int64][]*model.Label, error) {
	out := map[int64][]*model.Label{}
	if len(ids) == 0 {
		return out, nil
	}
	in, args := inList(ids)
	rows, err := q.query(ctx, `SELECT dl.discussion_id, `+labelCols+` FROM discussion_labels dl JOIN labels l ON l.id = dl.label_id
 WHERE dl.discussion_id IN (`+in+`) ORDER BY l.lower_name, l.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var did int64
		l, err := scanLabel(prefixScanner{rows, []any{&did}})
		if err != nil {
			return nil, err
		}
		out[did] = append(out[did], l)
	}
	return out, rows.Err()
}

// SetDiscussionLabels adds (on) or removes labels of a discussion.
func (q Q) SetDiscussionLabels(ctx context.Context, discussionID int64, labelIDs []int64, on bool) error {
	for _, id := range labelIDs {
		var err error
		if on {
			_, err = q.exec(ctx, `INSERT INTO discussion_labels (discussion_id, label_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, discussionID, id)
		} else {
			_, err = q.exec(ctx, `DELETE FROM discussion_labels WHERE discussion_id = ? AND label_id = ?`, discussionID, id)
		}
		if err != nil {
			return err
		}
	}
	_, err := q.exec(ctx, `UPDATE discussions SET updated_at = ? WHERE id = ?`, unix(q.Now()), discussionID)
	return err
}

// CopyIssueCommentsToDiscussion copies an issue's comments to a
// discussion (converting an issue) and counts them on it.
func (q Q) CopyIssueCommentsToDiscussion(ctx context.Context, issueID int64, d *model.Discussion) error {
	res, err := q.exec(ctx, `INSERT INTO discussion_comments (discussion_id, repo_id, body, user_id, created_at, updated_at)
 SELECT ?, ?, body, user_id, created_at, updated_at FROM issue_comments WHERE issue_id = ? ORDER BY id`, d.ID, d.RepoID, issueID)
	if err != nil {
		return err
	}
	n, _ := res.RowsAffected()
	d.Comments = int(n)
	_, err = q.exec(ctx, `UPDATE discussions SET comments = ? WHERE id = ?`, n, d.ID)
	return err
}

// Associations is author_association of users on repositories, by
// [repository, user] pair (one query per repository at most).
func (q Q) Associations(ctx context.Context, pairs [][2]int64) (map[[2]int64]string, error) {
	keys := make([]assocKey, 0, len(pairs))
	for _, p := range pairs {
		if p[1] != 0 {
			keys = append(keys, assocKey{p[0], p[1]})
		}
	}
	got, err := q.associations(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[[2]int64]string, len(got))
	for k, v := range got {
		out[[2]int64{k.repo, k.user}] = v
	}
	return out, nil
}

// ReactionRollups counts the reactions of subjects by content (one query
// per hundred subjects).
func (q Q) ReactionRollups(ctx context.Context, subject string, ids []int64) (map[int64]model.ReactionRollup, error) {
	if len(ids) == 0 {
		return map[int64]model.ReactionRollup{}, nil
	}
	return q.rollups(ctx, subject, ids)
}

// DiscussionCommentWindow is a page of one discussion's top-level
// comments: offsets [Start, End) in the oldest-first list.
type DiscussionCommentWindow struct {
	DiscussionID int64
	Start, End   int
}

// DiscussionCommentsPages loads pages of several discussions' top-level
// comments in one query, by discussion.
func (q Q) DiscussionCommentsPages(ctx context.Context, pages []DiscussionCommentWindow) (map[int64][]*model.DiscussionComment, error) {
	out := map[int64][]*model.DiscussionComment{}
	var ids []int64
	var cond []string
	var args []any
	for _, p := range pages {
		if p.End > p.Start {
			ids = append(ids, p.DiscussionID)
			cond = append(cond, `(c.discussion_id = ? AND c.rn > ? AND c.rn <= ?)`)
			args = append(args, p.DiscussionID, p.Start, p.End)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	in, inArgs := inList(ids)
	list, err := q.discussionComments(ctx, `SELECT `+commentColsD+` FROM (SELECT x.*, ROW_NUMBER() OVER (PARTITION BY x.discussion_id ORDER BY x.id) AS rn
 FROM discussion_comments x WHERE x.reply_to_id IS NULL AND x.discussion_id IN (`+in+`)) c LEFT JOIN accounts a ON a.id = c.user_id
 WHERE `+strings.Join(cond, " OR ")+` ORDER BY c.discussion_id, c.id`, append(inArgs, args...)...)
	for _, c := range list {
		out[c.DiscussionID] = append(out[c.DiscussionID], c)
	}
	return out, err
}
