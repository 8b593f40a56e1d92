package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// Stars and repository subscriptions (watching), owned by internal/stars.
// repos.stargazers_count and repos.subscribers_count count them; every
// write here moves the counter in the same statement sequence, with
// increments rather than recounts so that concurrent transactions on
// PostgreSQL cannot lose each other's change, and only when the row
// statement reports that it changed something.

// StarRepo records userID's star on repoID. created is false when the star
// existed already (nothing changes then). A new star moves the
// repository's updated_at, as on GitHub.
func (q Q) StarRepo(ctx context.Context, userID, repoID int64) (star model.Star, created bool, err error) {
	now := q.Now()
	res, err := q.exec(ctx, `INSERT INTO repo_stars (user_id, repo_id, created_at) VALUES (?,?,?)
 ON CONFLICT (user_id, repo_id) DO NOTHING`, userID, repoID, unix(now))
	if err != nil {
		return star, false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var at int64
		err := q.row(ctx, `SELECT created_at FROM repo_stars WHERE user_id = ? AND repo_id = ?`, userID, repoID).Scan(&at)
		return model.Star{UserID: userID, RepoID: repoID, CreatedAt: fromUnix(at)}, false, notFound(err)
	}
	_, err = q.exec(ctx, `UPDATE repos SET stargazers_count = stargazers_count + 1, updated_at = ? WHERE id = ?`, unix(now), repoID)
	return model.Star{UserID: userID, RepoID: repoID, CreatedAt: fromUnix(unix(now))}, true, err
}

// UnstarRepo removes userID's star on repoID; removed is false when there
// was none.
func (q Q) UnstarRepo(ctx context.Context, userID, repoID int64) (removed bool, err error) {
	res, err := q.exec(ctx, `DELETE FROM repo_stars WHERE user_id = ? AND repo_id = ?`, userID, repoID)
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	_, err = q.exec(ctx, `UPDATE repos SET stargazers_count = stargazers_count - 1, updated_at = ? WHERE id = ?`, unix(q.Now()), repoID)
	return true, err
}

// HasStarred reports whether userID starred repoID.
func (q Q) HasStarred(ctx context.Context, userID, repoID int64) (bool, error) {
	var one int
	err := q.row(ctx, `SELECT 1 FROM repo_stars WHERE user_id = ? AND repo_id = ?`, userID, repoID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// StarredBy reports which of repoIDs userID starred, in one query (GraphQL's
// viewerHasStarred over a page of repositories). Absent ids are false;
// userID 0 (anonymous) starred nothing.
func (q Q) StarredBy(ctx context.Context, userID int64, repoIDs []int64) (map[int64]bool, error) {
	out := make(map[int64]bool, len(repoIDs))
	if userID == 0 || len(repoIDs) == 0 {
		return out, nil
	}
	for start := 0; start < len(repoIDs); start += 100 {
		in, args := inList(repoIDs[start:min(start+100, len(repoIDs))])
		rows, err := q.query(ctx, `SELECT repo_id FROM repo_stars WHERE user_id = ? AND repo_id IN (`+in+`)`, append([]any{userID}, args...)...)
		if err := addIDs(rows, err, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// addIDs sets out[id] for the ids of a one-column query's rows (and
// closes them); err is the query's error.
func addIDs(rows *sql.Rows, err error, out map[int64]bool) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		out[id] = true
	}
	return rows.Err()
}

// Stargazer is a user who starred a repository, and when.
type Stargazer struct {
	User      *model.Account
	StarredAt time.Time
}

// Stargazers is one page of a repository's stargazers, oldest star first,
// and their total (the repository's counter).
func (q Q) Stargazers(ctx context.Context, repoID int64, limit, offset int) ([]Stargazer, int, error) {
	var total int
	if err := q.row(ctx, `SELECT stargazers_count FROM repos WHERE id = ?`, repoID).Scan(&total); err != nil {
		return nil, 0, notFound(err)
	}
	rows, err := q.query(ctx, `SELECT s.created_at, `+accountCols+` FROM repo_stars s JOIN accounts a ON a.id = s.user_id
 WHERE s.repo_id = ? ORDER BY s.id LIMIT ? OFFSET ?`, repoID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	out := []Stargazer{}
	for rows.Next() {
		var at int64
		a := &model.Account{}
		if err := scanAccount(expand{sc: rows, pre: []any{&at}}, a); err != nil {
			return nil, 0, err
		}
		out = append(out, Stargazer{User: a, StarredAt: fromUnix(at)})
	}
	return out, total, rows.Err()
}

// Watchers is one page of the users watching a repository (subscribed, not
// ignoring), oldest subscription first, and their total (the counter).
func (q Q) Watchers(ctx context.Context, repoID int64, limit, offset int) ([]*model.Account, int, error) {
	var total int
	if err := q.row(ctx, `SELECT subscribers_count FROM repos WHERE id = ?`, repoID).Scan(&total); err != nil {
		return nil, 0, notFound(err)
	}
	out, err := q.accounts(ctx, `SELECT `+accountCols+` FROM repo_subscriptions s JOIN accounts a ON a.id = s.user_id
 WHERE s.repo_id = ? AND s.subscribed = ? ORDER BY s.id LIMIT ? OFFSET ?`, repoID, true, limit, offset)
	if out == nil {
		out = []*model.Account{}
	}
	return out, total, err
}

// StarredRepo is a repository a user starred, as the viewer sees it.
type StarredRepo struct {
	View      *RepoView
	StarredAt time.Time
}

// StarQuery selects a page of the repositories a user starred.
type StarQuery struct {
	UserID int64  // whose stars
	Viewer Viewer // who asks: only repositories they may see are listed
	// Sort is "created" (when starred, the default) or "updated" (when the
	// repository was last pushed to, as GitHub documents it).
	Sort          string
	Desc          bool
	Limit, Offset int
}

// StarredRepos is one page of the repositories f.UserID starred that the
// viewer may see, with the viewer's facts, and their total.
func (q Q) StarredRepos(ctx context.Context, f StarQuery) ([]StarredRepo, int, error) {
	dir := " ASC"
	if f.Desc {
		dir = " DESC"
	}
	order := " ORDER BY s.id" + dir
	if f.Sort == "updated" {
		order = " ORDER BY COALESCE(r.pushed_at, r.created_at)" + dir + ", s.id" + dir
	}
	ids, at, total, err := q.userRepoPage(ctx, "repo_stars", "", f.UserID, f.Viewer, order, f.Limit, f.Offset)
	if err != nil {
		return nil, 0, err
	}
	views, err := q.ReposByID(ctx, ids, f.Viewer.UserID)
	if err != nil {
		return nil, 0, err
	}
	out := make([]StarredRepo, 0, len(ids))
	for i, id := range ids {
		if v := views[id]; v != nil { // deleted meanwhile: left out
			out = append(out, StarredRepo{View: v, StarredAt: at[i]})
		}
	}
	return out, total, nil
}

// WatchedRepos is one page of the repositories userID watches (subscribed)
// that the viewer may see, oldest subscription first, and their total.
func (q Q) WatchedRepos(ctx context.Context, userID int64, viewer Viewer, limit, offset int) ([]*RepoView, int, error) {
	ids, _, total, err := q.userRepoPage(ctx, "repo_subscriptions", " AND s.subscribed = ?", userID, viewer, " ORDER BY s.id", limit, offset)
	if err != nil {
		return nil, 0, err
	}
	views, err := q.ReposByID(ctx, ids, viewer.UserID)
	if err != nil {
		return nil, 0, err
	}
	out := make([]*RepoView, 0, len(ids))
	for _, id := range ids {
		if v := views[id]; v != nil {
			out = append(out, v)
		}
	}
	return out, total, nil
}

// userRepoPage pages through the rows of table (repo_stars or
// repo_subscriptions, aliased s) of userID whose repository the viewer may
// see: the repository ids and the rows' created_at in order, and the total.
// cond is an extra condition on s (its only argument is true).
func (q Q) userRepoPage(ctx context.Context, table, cond string, userID int64, viewer Viewer, order string, limit, offset int) ([]int64, []time.Time, int, error) {
	vis, visArgs := (&RepoQuery{Viewer: viewer}).where()
	from := ` FROM ` + table + ` s JOIN repos r ON r.id = s.repo_id JOIN accounts a ON a.id = r.owner_id
 LEFT JOIN org_members m ON m.org_id = r.owner_id AND m.user_id = ? AND m.state = 'active'
 LEFT JOIN repo_collaborators c ON c.repo_id = r.id AND c.user_id = ?` + vis + ` AND s.user_id = ?` + cond
	args := append(append([]any{viewer.UserID, viewer.UserID}, visArgs...), userID)
	if cond != "" {
		args = append(args, true)
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*)`+from, args...).Scan(&total); err != nil {
		return nil, nil, 0, err
	}
	if limit <= 0 {
		limit = 30
	}
	if total == 0 || offset >= total {
		return nil, nil, total, nil
	}
	rows, err := q.query(ctx, `SELECT s.repo_id, s.created_at`+from+order+` LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, nil, 0, err
	}
	defer rows.Close()
	var ids []int64
	var at []time.Time
	for rows.Next() {
		var id, created int64
		if err := rows.Scan(&id, &created); err != nil {
			return nil, nil, 0, err
		}
		ids, at = append(ids, id), append(at, fromUnix(created))
	}
	return ids, at, total, rows.Err()
}

// SubscriptionOf is userID's subscription to repoID (model.ErrNotFound when
// they have none).
func (q Q) SubscriptionOf(ctx context.Context, userID, repoID int64) (*model.Subscription, error) {
	s := &model.Subscription{UserID: userID, RepoID: repoID}
	var at int64
	err := q.row(ctx, `SELECT subscribed, ignored, created_at FROM repo_subscriptions WHERE user_id = ? AND repo_id = ?`,
		userID, repoID).Scan(&s.Subscribed, &s.Ignored, &at)
	if err != nil {
		return nil, notFound(err)
	}
	s.CreatedAt = fromUnix(at)
	return s, nil
}

// SetSubscription makes userID watch repoID (ignored false) or ignore it
// (ignored true), keeping the subscription's created_at when it existed,
// and returns it; changed is false when it was so already. A row is
// either watching or ignoring (subscribed = NOT ignored), and
// subscribers_count counts the watching ones.
func (q Q) SetSubscription(ctx context.Context, userID, repoID int64, ignored bool) (sub *model.Subscription, changed bool, err error) {
	watch := !ignored
	res, err := q.exec(ctx, `INSERT INTO repo_subscriptions (user_id, repo_id, subscribed, ignored, created_at) VALUES (?,?,?,?,?)
 ON CONFLICT (user_id, repo_id) DO NOTHING`, userID, repoID, watch, ignored, unix(q.Now()))
	if err != nil {
		return nil, false, err
	}
	inserted, flipped := false, false
	if n, _ := res.RowsAffected(); n == 1 {
		inserted = true
	} else {
		// An existing row: the update that flips it tells by its row
		// count whether anything (and the counter) moves; the row lock
		// orders concurrent flips.
		res, err := q.exec(ctx, `UPDATE repo_subscriptions SET subscribed = ?, ignored = ? WHERE user_id = ? AND repo_id = ? AND subscribed = ?`,
			watch, ignored, userID, repoID, !watch)
		if err != nil {
			return nil, false, err
		}
		n, _ := res.RowsAffected()
		flipped = n == 1
	}
	// A new watcher counts one more, a watcher who now ignores one less; a
	// new ignoring row counts nothing.
	delta := 0
	switch {
	case watch && (inserted || flipped):
		delta = 1
	case ignored && flipped:
		delta = -1
	}
	if delta != 0 {
		if _, err := q.exec(ctx, `UPDATE repos SET subscribers_count = subscribers_count + ? WHERE id = ?`, delta, repoID); err != nil {
			return nil, false, err
		}
	}
	sub, err = q.SubscriptionOf(ctx, userID, repoID)
	return sub, inserted || flipped, err
}

// WatchRepo makes userID watch repoID: the creator of a new repository
// watches it from the transaction that creates it, as on GitHub (a fork
// included).
func (q Q) WatchRepo(ctx context.Context, userID, repoID int64) error {
	_, _, err := q.SetSubscription(ctx, userID, repoID, false)
	return err
}

// DeleteSubscription removes userID's subscription to repoID; removed is
// false when there was none.
func (q Q) DeleteSubscription(ctx context.Context, userID, repoID int64) (removed bool, err error) {
	var watched bool
	err = q.row(ctx, `DELETE FROM repo_subscriptions WHERE user_id = ? AND repo_id = ? RETURNING subscribed`, userID, repoID).Scan(&watched)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil || !watched {
		return err == nil, err
	}
	_, err = q.exec(ctx, `UPDATE repos SET subscribers_count = subscribers_count - 1 WHERE id = ?`, repoID)
	return true, err
}

// ForgetStarsAndSubscriptions removes a user's stars and subscriptions and
// takes them off the repositories' counters (before the account is
// deleted: the foreign keys' cascade would leave the counters behind).
func (q Q) ForgetStarsAndSubscriptions(ctx context.Context, userID int64) error {
	for _, stmt := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE repos SET stargazers_count = stargazers_count - 1 WHERE id IN (SELECT repo_id FROM repo_stars WHERE user_id = ?)`, []any{userID}},
		{`UPDATE repos SET subscribers_count = subscribers_count - 1 WHERE id IN (SELECT repo_id FROM repo_subscriptions WHERE user_id = ? AND subscribed = ?)`, []any{userID, true}},
		{`DELETE FROM repo_stars WHERE user_id = ?`, []any{userID}},
		{`DELETE FROM repo_subscriptions WHERE user_id = ?`, []any{userID}},
	} {
		if _, err := q.exec(ctx, stmt.sql, stmt.args...); err != nil {
			return err
		}
	}
	return nil
}

// EraseStarsAndWatchers removes every star and subscription of a
// repository and zeroes its counters: GitHub erases them when a
// repository's visibility changes between public and private.
func (q Q) EraseStarsAndWatchers(ctx context.Context, repoID int64) error {
	for _, stmt := range []string{
		`DELETE FROM repo_stars WHERE repo_id = ?`,
		`DELETE FROM repo_subscriptions WHERE repo_id = ?`,
		`UPDATE repos SET stargazers_count = 0, subscribers_count = 0 WHERE id = ?`,
	} {
		if _, err := q.exec(ctx, stmt, repoID); err != nil {
			return err
		}
	}
	return nil
}
