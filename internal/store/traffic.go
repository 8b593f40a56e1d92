package store

import (
	"context"
	"strconv"
)

// TrafficKey is one counter of repository traffic: the visits (or clones)
// of one visitor on one UTC day, per page and referrer for views.
type TrafficKey struct {
	RepoID   int64
	Kind     string // "clone" or "view"
	Day      int64  // unix seconds of the day's UTC midnight
	Visitor  string // who, anonymised: a user id or a hashed address
	Path     string // views: the page's path
	Referrer string // views: the referring site ("" for none)
}

// TrafficCount is what a counter adds.
type TrafficCount struct {
	Count int64
	Title string // views: the page's title
}

// AddTraffic adds counters, one upsert each. Counters of repositories that
// no longer exist are dropped.
func (q Q) AddTraffic(ctx context.Context, counts map[TrafficKey]TrafficCount) error {
	if len(counts) == 0 {
		return nil
	}
	ids := map[any]bool{}
	for k := range counts {
		ids[k.RepoID] = true
	}
	exists, err := q.idsBy(ctx, `SELECT CAST(id AS TEXT), id, '' FROM repos WHERE id IN `, ids)
	if err != nil {
		return err
	}
	for k, c := range counts {
		if _, ok := exists[strconv.FormatInt(k.RepoID, 10)]; !ok {
			continue
		}
		_, err := q.exec(ctx, `INSERT INTO traffic (repo_id, kind, day, visitor, path, referrer, title, count) VALUES (?,?,?,?,?,?,?,?)
 ON CONFLICT (repo_id, kind, day, visitor, path, referrer) DO UPDATE SET count = traffic.count + excluded.count, title = excluded.title`,
			k.RepoID, k.Kind, k.Day, k.Visitor, k.Path, k.Referrer, c.Title, c.Count)
		if err != nil {
			return err
		}
	}
	return nil
}

// PruneTraffic deletes the counters of days before the given one.
func (q Q) PruneTraffic(ctx context.Context, before int64) error {
	_, err := q.exec(ctx, `DELETE FROM traffic WHERE day < ?`, before)
	return err
}

// TrafficBucket is the count and unique visitors of a period.
type TrafficBucket struct {
	Start   int64 // unix seconds
	Count   int64
	Uniques int64
}

// TrafficSeries sums a repository's counters of one kind from since on:
// per day, or per week (weeks start on Monday, as GitHub's), and in total.
// Periods without any count are left out.
func (q Q) TrafficSeries(ctx context.Context, repoID int64, kind string, since int64, weekly bool) ([]TrafficBucket, TrafficBucket, error) {
	period := `day`
	if weekly {
		// Unix day 0 was a Thursday: (day number + 3) % 7 days after Monday.
		period = `day - ((day / 86400 + 3) % 7) * 86400`
	}
	rows, err := q.query(ctx, `SELECT `+period+`, CAST(SUM(count) AS BIGINT), COUNT(DISTINCT visitor) FROM traffic
 WHERE repo_id = ? AND kind = ? AND day >= ? GROUP BY 1 ORDER BY 1`, repoID, kind, since)
	if err != nil {
		return nil, TrafficBucket{}, err
	}
	defer rows.Close()
	var list []TrafficBucket
	for rows.Next() {
		var b TrafficBucket
		if err := rows.Scan(&b.Start, &b.Count, &b.Uniques); err != nil {
			return nil, TrafficBucket{}, err
		}
		list = append(list, b)
	}
	if err := rows.Err(); err != nil {
		return nil, TrafficBucket{}, err
	}
	var total TrafficBucket
	err = q.row(ctx, `SELECT CAST(COALESCE(SUM(count), 0) AS BIGINT), COUNT(DISTINCT visitor) FROM traffic WHERE repo_id = ? AND kind = ? AND day >= ?`,
		repoID, kind, since).Scan(&total.Count, &total.Uniques)
	return list, total, err
}

// TrafficTop is one of the most visited paths or referrers.
type TrafficTop struct {
	Key     string // the path or the referrer
	Title   string // paths: the page's title
	Count   int64
	Uniques int64
}

// TrafficPaths lists the ten most viewed pages of a repository since a day.
func (q Q) TrafficPaths(ctx context.Context, repoID, since int64) ([]TrafficTop, error) {
	return q.trafficTop(ctx, `SELECT path, MAX(title), CAST(SUM(count) AS BIGINT) AS n, COUNT(DISTINCT visitor) AS u FROM traffic
 WHERE repo_id = ? AND kind = 'view' AND day >= ? GROUP BY path ORDER BY n DESC, u DESC, path LIMIT 10`, repoID, since)
}

// TrafficReferrers lists the ten sites that referred most views since a day.
func (q Q) TrafficReferrers(ctx context.Context, repoID, since int64) ([]TrafficTop, error) {
	return q.trafficTop(ctx, `SELECT referrer, '', CAST(SUM(count) AS BIGINT) AS n, COUNT(DISTINCT visitor) AS u FROM traffic
 WHERE repo_id = ? AND kind = 'view' AND day >= ? AND referrer <> '' GROUP BY referrer ORDER BY n DESC, u DESC, referrer LIMIT 10`, repoID, since)
}

func (q Q) trafficTop(ctx context.Context, query string, args ...any) ([]TrafficTop, error) {
	rows, err := q.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TrafficTop
	for rows.Next() {
		var t TrafficTop
		if err := rows.Scan(&t.Key, &t.Title, &t.Count, &t.Uniques); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
