package store

import (
	"context"
	"strings"
	"time"
)

// Activity events (owned by internal/activity): GitHub's events rendered
// once from the domain events log; a page is one indexed query.

// ActivityEvent is one rendered event; Body is its JSON object without
// the id (the row's).
type ActivityEvent struct {
	ID, EventID            int64
	Type                   string
	ActorID, RepoID, OrgID int64
	Public                 bool
	Body                   []byte
	CreatedAt              time.Time
}

// InsertActivityEvents stores rendered events.
func (q Q) InsertActivityEvents(ctx context.Context, list []*ActivityEvent) error {
	for _, e := range list {
		var err error
		e.ID, err = q.insert(ctx, `INSERT INTO activity_events (event_id, type, actor_id, repo_id, org_id, public, body, created_at)
 VALUES (?,?,?,?,?,?,?,?)`, e.EventID, e.Type, e.ActorID, e.RepoID, e.OrgID, e.Public, string(e.Body), unix(e.CreatedAt))
		if err != nil {
			return err
		}
	}
	return nil
}

// ActivityQuery selects events; every set field must hold.
type ActivityQuery struct {
	RepoIDs []int64 // of these repositories
	// NetworkOf: of the repositories of this fork network's root.
	NetworkOf int64
	ActorID   int64 // by this user
	OrgID     int64 // in this organization's repositories
	// ReceivedBy: in the repositories this user watches.
	ReceivedBy int64
	PublicOnly bool
	// Viewer, when set, limits private events to the repositories it
	// can read.
	Viewer *RepoQuery
	Since  time.Time // created at or after
}

func (f ActivityQuery) where() (string, []any) {
	conds, args := []string{"created_at >= ?"}, []any{unix(f.Since)}
	if len(f.RepoIDs) == 1 {
		conds, args = append(conds, "repo_id = ?"), append(args, f.RepoIDs[0])
	} else if f.RepoIDs != nil {
		in := strings.TrimSuffix(strings.Repeat("?,", len(f.RepoIDs)), ",")
		if in == "" {
			in = "NULL"
		}
		conds = append(conds, "repo_id IN ("+in+")")
		for _, id := range f.RepoIDs {
			args = append(args, id)
		}
	}
	if f.NetworkOf != 0 {
		conds = append(conds, "repo_id IN (SELECT n.id FROM repos n WHERE n.id = ? OR n.source_id = ?)")
		args = append(args, f.NetworkOf, f.NetworkOf)
	}
	if f.ActorID != 0 {
		conds, args = append(conds, "actor_id = ?"), append(args, f.ActorID)
	}
	if f.OrgID != 0 {
		conds, args = append(conds, "org_id = ?"), append(args, f.OrgID)
	}
	if f.ReceivedBy != 0 {
		conds = append(conds, "repo_id IN (SELECT s.repo_id FROM repo_subscriptions s WHERE s.user_id = ? AND s.subscribed = TRUE)")
		args = append(args, f.ReceivedBy)
	}
	switch {
	case f.PublicOnly:
		conds = append(conds, "public = TRUE")
	case f.Viewer != nil:
		sub, a := f.Viewer.Subquery()
		conds = append(conds, "(public = TRUE OR repo_id IN ("+sub+"))")
		args = append(args, a...)
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// activityPageKey names a page of a list without a viewer in the read
// cache (the hot lists: a repository's events, public events).
type activityPageKey struct {
	repo, network, actor, org, received int64
	public                              bool
	since                               int64
	limit, offset, limitTotal           int
}

type activityPage struct {
	rows  []ActivityEvent
	total int
}

// ListActivityEvents is a page of f's events, newest first, and how many
// there are (counted up to limitTotal). Pages of lists without a viewer
// go through the read cache (the rows are shared: read only).
func (q Q) ListActivityEvents(ctx context.Context, f ActivityQuery, limit, offset, limitTotal int) ([]ActivityEvent, int, error) {
	if q.tx != nil || f.Viewer != nil || len(f.RepoIDs) > 1 {
		return q.listActivityEvents(ctx, f, limit, offset, limitTotal)
	}
	k := activityPageKey{network: f.NetworkOf, actor: f.ActorID, org: f.OrgID, received: f.ReceivedBy, public: f.PublicOnly,
		since: unix(f.Since), limit: limit, offset: offset, limitTotal: limitTotal}
	if len(f.RepoIDs) == 1 {
		k.repo = f.RepoIDs[0]
	}
	if v, _, ok := q.s.cache.get(k); ok {
		p := v.(activityPage)
		return p.rows, p.total, nil
	}
	got, err := sharedLoad(q, k, func() (map[activityPageKey]activityPage, error) {
		return cachedBatch(q, []activityPageKey{k}, func([]activityPageKey) (map[activityPageKey]activityPage, error) {
			rows, total, err := q.listActivityEvents(ctx, f, limit, offset, limitTotal)
			if err != nil {
				return nil, err
			}
			return map[activityPageKey]activityPage{k: {rows, total}}, nil
		})
	})
	if err != nil {
		return nil, 0, err
	}
	return got[k].rows, got[k].total, nil
}

func (q Q) listActivityEvents(ctx context.Context, f ActivityQuery, limit, offset, limitTotal int) ([]ActivityEvent, int, error) {
	where, args := f.where()
	rows, err := q.query(ctx, `SELECT id, body, created_at FROM activity_events`+where+` ORDER BY id DESC LIMIT ? OFFSET ?`,
		append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []ActivityEvent
	for rows.Next() {
		var e ActivityEvent
		var created int64
		if err := rows.Scan(&e.ID, &e.Body, &created); err != nil {
			return nil, 0, err
		}
		e.CreatedAt = fromUnix(created)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if offset == 0 && len(out) < limit {
		return out, len(out), nil // the whole list: no count needed
	}
	var total int
	err = q.row(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM activity_events`+where+` LIMIT ?) t`, append(args, limitTotal)...).Scan(&total)
	return out, total, err
}

// PruneActivityEvents deletes up to limit of the oldest events created
// before before and reports how many it deleted. Rows are numbered in
// the order their domain events happened, so it reads the oldest limit
// rows by id (an index scan of a bounded length, however large the table)
// and deletes those that are old enough.
func (q Q) PruneActivityEvents(ctx context.Context, before time.Time, limit int) (int, error) {
	rows, err := q.query(ctx, `SELECT id, created_at FROM activity_events ORDER BY id LIMIT ?`, limit)
	if err != nil {
		return 0, err
	}
	var ids []int64
	cut := unix(before)
	for rows.Next() {
		var id, at int64
		if err := rows.Scan(&id, &at); err != nil {
			rows.Close()
			return 0, err
		}
		if at < cut {
			ids = append(ids, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	return len(ids), q.deleteIDs(ctx, "activity_events", ids)
}
