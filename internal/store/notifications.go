package store

import (
	"context"
	"database/sql"
	"time"
)

// Notification threads (owned by internal/notifications): one row per user
// and subject (an issue, a pull request, a release), written by the
// notifications outbox consumer, with the user's thread subscription
// (Sub: "", "subscribed" or "ignored").

// Thread is one notification thread.
type Thread struct {
	ID               int64
	UserID, RepoID   int64
	SubjectType      string // Issue, PullRequest, Release
	SubjectKey       int64  // the issue number or release id
	Title            string
	SubjectURL       string
	LatestCommentURL string
	Reason           string
	Unread, Done     bool
	UpdatedAt        time.Time
	LastReadAt       *time.Time
	Sub              string
	SubAt            *time.Time
}

const threadCols = `t.id, t.user_id, t.repo_id, t.subject_type, t.subject_key, t.title, t.subject_url, t.latest_comment_url,
 t.reason, t.unread, t.done, t.updated_at, t.last_read_at, t.sub, t.sub_at`

func scanThread(sc interface{ Scan(...any) error }) (*Thread, error) {
	t := &Thread{}
	var upd int64
	var read, subAt sql.NullInt64
	err := sc.Scan(&t.ID, &t.UserID, &t.RepoID, &t.SubjectType, &t.SubjectKey, &t.Title, &t.SubjectURL, &t.LatestCommentURL,
		&t.Reason, &t.Unread, &t.Done, &upd, &read, &t.Sub, &subAt)
	t.UpdatedAt, t.LastReadAt, t.SubAt = fromUnix(upd), fromNullUnix(read), fromNullUnix(subAt)
	return t, err
}

// SubjectThreads is every user's thread of one subject.
func (q Q) SubjectThreads(ctx context.Context, repoID int64, typ string, key int64) ([]*Thread, error) {
	rows, err := q.query(ctx, `SELECT `+threadCols+` FROM notification_threads t
 WHERE t.repo_id = ? AND t.subject_type = ? AND t.subject_key = ? ORDER BY t.id`, repoID, typ, key)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Thread
	for rows.Next() {
		t, err := scanThread(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// UpsertThreads creates or updates threads (one per user and subject):
// an existing one takes the new title, urls, reason, subscription and
// update time, unread and done flags.
func (q Q) UpsertThreads(ctx context.Context, list []*Thread) error {
	for _, t := range list {
		_, err := q.exec(ctx, `INSERT INTO notification_threads (user_id, repo_id, subject_type, subject_key, title, subject_url,
 latest_comment_url, reason, unread, done, updated_at, last_read_at, sub, sub_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,NULL,?,?)
 ON CONFLICT (user_id, repo_id, subject_type, subject_key) DO UPDATE SET title = excluded.title,
 subject_url = excluded.subject_url, latest_comment_url = excluded.latest_comment_url, reason = excluded.reason,
 unread = excluded.unread, done = excluded.done, updated_at = excluded.updated_at, sub = excluded.sub, sub_at = excluded.sub_at`,
			t.UserID, t.RepoID, t.SubjectType, t.SubjectKey, t.Title, t.SubjectURL, t.LatestCommentURL, t.Reason,
			t.Unread, t.Done, unix(t.UpdatedAt), t.Sub, nullUnix(t.SubAt))
		if err != nil {
			return err
		}
	}
	return nil
}

// RepoWatchers is the users subscribed to repoID (watching) and those
// ignoring it.
func (q Q) RepoWatchers(ctx context.Context, repoID int64) (watching, ignoring []int64, err error) {
	rows, err := q.query(ctx, `SELECT user_id, subscribed, ignored FROM repo_subscriptions WHERE repo_id = ?`, repoID)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var sub, ign bool
		if err := rows.Scan(&id, &sub, &ign); err != nil {
			return nil, nil, err
		}
		if ign {
			ignoring = append(ignoring, id)
		} else if sub {
			watching = append(watching, id)
		}
	}
	return watching, ignoring, rows.Err()
}

// TeamMemberIDs is the active members of teamID.
func (q Q) TeamMemberIDs(ctx context.Context, teamID int64) ([]int64, error) {
	return q.int64s(ctx, `SELECT tm.user_id FROM team_members tm JOIN teams t ON t.id = tm.team_id
 JOIN org_members om ON om.org_id = t.org_id AND om.user_id = tm.user_id AND om.state = 'active' WHERE tm.team_id = ?`, teamID)
}

// RepoReaders is which of userIDs may read repoID (the visibility rule
// of authz.RepoPermission, for each user).
func (q Q) RepoReaders(ctx context.Context, repoID int64, userIDs []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	for _, id := range userIDs {
		if out[id] {
			continue
		}
		vis, args := (&RepoQuery{Viewer: Viewer{UserID: id}}).where()
		var one int
		err := q.row(ctx, `SELECT 1 FROM repos r JOIN accounts a ON a.id = r.owner_id
 LEFT JOIN org_members m ON m.org_id = r.owner_id AND m.user_id = ? AND m.state = 'active'
 LEFT JOIN repo_collaborators c ON c.repo_id = r.id AND c.user_id = ?`+vis+` AND r.id = ?`,
			append(append([]any{id, id}, args...), repoID)...).Scan(&one)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, nil
}

// ThreadQuery selects a page of a user's threads.
type ThreadQuery struct {
	UserID        int64
	Viewer        Viewer // threads of repositories the user no longer sees are left out
	RepoID        int64  // 0: every repository
	All           bool   // read ones too
	Participating bool   // only reasons of participation
	Done          bool   // threads marked as done too
	Since, Before *time.Time
	Limit, Offset int
}

// Participating lists the reasons that are not a repository's watch.
var participating = `t.reason IN ('assign','author','comment','manual','mention','review_requested','state_change','team_mention')`

func (f ThreadQuery) from() (string, []any) {
	vis, visArgs := (&RepoQuery{Viewer: f.Viewer}).where()
	from := ` FROM notification_threads t JOIN repos r ON r.id = t.repo_id JOIN accounts a ON a.id = r.owner_id
 LEFT JOIN org_members m ON m.org_id = r.owner_id AND m.user_id = ? AND m.state = 'active'
 LEFT JOIN repo_collaborators c ON c.repo_id = r.id AND c.user_id = ?` + vis + ` AND t.user_id = ?`
	args := append(append([]any{f.Viewer.UserID, f.Viewer.UserID}, visArgs...), f.UserID)
	if !f.Done {
		from, args = from+` AND t.done = ?`, append(args, false)
	}
	if f.RepoID != 0 {
		from, args = from+` AND t.repo_id = ?`, append(args, f.RepoID)
	}
	if !f.All {
		from, args = from+` AND t.unread = ?`, append(args, true)
	}
	if f.Participating {
		from += ` AND ` + participating
	}
	if f.Since != nil {
		from, args = from+` AND t.updated_at >= ?`, append(args, unix(*f.Since))
	}
	if f.Before != nil {
		from, args = from+` AND t.updated_at < ?`, append(args, unix(*f.Before))
	}
	return from, args
}

// Threads is one page of f's threads, latest update first, their total
// and the latest update among them all (zero when none).
func (q Q) Threads(ctx context.Context, f ThreadQuery) ([]*Thread, int, time.Time, error) {
	from, args := f.from()
	var total int
	var last sql.NullInt64
	if err := q.row(ctx, `SELECT COUNT(*), MAX(t.updated_at)`+from, args...).Scan(&total, &last); err != nil {
		return nil, 0, time.Time{}, err
	}
	var lastAt time.Time
	if last.Valid {
		lastAt = fromUnix(last.Int64)
	}
	if total == 0 || f.Offset >= total {
		return []*Thread{}, total, lastAt, nil
	}
	rows, err := q.query(ctx, `SELECT `+threadCols+from+` ORDER BY t.updated_at DESC, t.id DESC LIMIT ? OFFSET ?`,
		append(args, f.Limit, f.Offset)...)
	if err != nil {
		return nil, 0, lastAt, err
	}
	defer rows.Close()
	out := []*Thread{}
	for rows.Next() {
		t, err := scanThread(rows)
		if err != nil {
			return nil, 0, lastAt, err
		}
		out = append(out, t)
	}
	return out, total, lastAt, rows.Err()
}

// ThreadOf is userID's thread id as viewer sees it (model.ErrNotFound when
// it is another user's, or its repository is hidden from the viewer).
func (q Q) ThreadOf(ctx context.Context, userID int64, viewer Viewer, id int64) (*Thread, error) {
	f := ThreadQuery{UserID: userID, Viewer: viewer, All: true, Done: true}
	from, args := f.from()
	t, err := scanThread(q.row(ctx, `SELECT `+threadCols+from+` AND t.id = ?`, append(args, id)...))
	return t, notFound(err)
}

// MarkThreadsRead marks at most limit of userID's unread threads updated
// at or before at read (of repoID, when not 0) and reports how many.
func (q Q) MarkThreadsRead(ctx context.Context, userID, repoID int64, at time.Time, limit int) (int64, error) {
	sel := `SELECT id FROM notification_threads WHERE user_id = ? AND unread = ? AND updated_at <= ?`
	args := []any{false, unix(at), userID, true, unix(at)}
	if repoID != 0 {
		sel, args = sel+` AND repo_id = ?`, append(args, repoID)
	}
	res, err := q.exec(ctx, `UPDATE notification_threads SET unread = ?, last_read_at = ? WHERE id IN (`+sel+` ORDER BY id LIMIT ?)`,
		append(args, limit)...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// MarkThreadRead marks thread id read (done: done too, out of the inbox
// until new activity).
func (q Q) MarkThreadRead(ctx context.Context, id int64, done bool, at time.Time) error {
	query := `UPDATE notification_threads SET unread = ?, last_read_at = ? WHERE id = ?`
	args := []any{false, unix(at), id}
	if done {
		query = `UPDATE notification_threads SET unread = ?, last_read_at = ?, done = ? WHERE id = ?`
		args = []any{false, unix(at), true, id}
	}
	_, err := q.exec(ctx, query, args...)
	return err
}

// SetThreadSub sets thread id's subscription ("" removes it).
func (q Q) SetThreadSub(ctx context.Context, id int64, sub string, at *time.Time) error {
	_, err := q.exec(ctx, `UPDATE notification_threads SET sub = ?, sub_at = ? WHERE id = ?`, sub, nullUnix(at), id)
	return err
}
