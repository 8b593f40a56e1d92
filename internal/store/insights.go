package store

import (
	"context"
	"strconv"
	"strings"
)

// InsightKey is one per-minute counter of API insights: the requests one
// actor made to one route concerning one organization. Org is the
// organization's login as the request named it (lower case); AddInsights
// resolves it, and drops counters of logins that are no organization.
type InsightKey struct {
	Org       string
	Minute    int64 // unix seconds, a multiple of 60
	Method    string
	Route     string
	ActorType string // installation, classic_pat, fine_grained_pat, oauth_app, github_app_user_to_server
	ActorID   int64  // 0 for oauth_app until resolved from OAuthClient
	UserID    int64  // the acting user (0 for installations)
}

// InsightCount is what a counter adds, with the names it shows.
type InsightCount struct {
	Total, Limited           int64
	LastRequest, LastLimited int64 // unix seconds; LastLimited 0 when none was refused
	ActorName                string
	SubjectType              string // "user" or "integration"
	SubjectID                int64
	SubjectName              string
	IntegrationID            int64  // the GitHub App (installations, user access tokens)
	OAuthClient              string // the OAuth app's client id (oauth_app)
}

// AddInsights adds counters, one upsert each: the organizations are
// resolved from their logins and the OAuth apps from their client ids in
// one query each; counters of logins that name no organization (a user's
// repositories) are dropped.
func (q Q) AddInsights(ctx context.Context, counts map[InsightKey]InsightCount) error {
	if len(counts) == 0 {
		return nil
	}
	logins, clients, integrations := map[any]bool{}, map[any]bool{}, map[any]bool{}
	for k, c := range counts {
		logins[k.Org] = true
		if c.OAuthClient != "" {
			clients[c.OAuthClient] = true
		}
		if c.IntegrationID != 0 && c.ActorName == "" {
			integrations[c.IntegrationID] = true
		}
	}
	orgs, err := q.idsBy(ctx, `SELECT lower_login, id, login FROM accounts WHERE type = 'Organization' AND lower_login IN `, logins)
	if err != nil {
		return err
	}
	apps, err := q.idsBy(ctx, `SELECT client_id, id, name FROM oauth_apps WHERE client_id IN `, clients)
	if err != nil {
		return err
	}
	// A user access token's actor is its GitHub App, named by its slug.
	slugs, err := q.idsBy(ctx, `SELECT CAST(id AS TEXT), id, slug FROM apps WHERE id IN `, integrations)
	if err != nil {
		return err
	}
	for k, c := range counts {
		org, ok := orgs[k.Org]
		if !ok {
			continue
		}
		var integration, oauthApp any
		if c.IntegrationID != 0 {
			integration = c.IntegrationID
		}
		if c.ActorName == "" && c.IntegrationID != 0 {
			c.ActorName = slugs[strconv.FormatInt(c.IntegrationID, 10)].name
		}
		if c.OAuthClient != "" {
			app, ok := apps[c.OAuthClient]
			if !ok {
				continue // the app is gone
			}
			oauthApp, k.ActorID, c.ActorName = app.id, app.id, app.name
		}
		_, err := q.exec(ctx, `INSERT INTO api_insights (org_id, minute, method, route, actor_type, actor_id, user_id, actor_name,
 subject_type, subject_id, subject_name, integration_id, oauth_app_id, total, limited, last_request, last_limited)
 VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
 ON CONFLICT (org_id, minute, method, route, actor_type, actor_id, user_id) DO UPDATE SET
 total = api_insights.total + excluded.total, limited = api_insights.limited + excluded.limited,
 last_request = CASE WHEN excluded.last_request > api_insights.last_request THEN excluded.last_request ELSE api_insights.last_request END,
 last_limited = CASE WHEN excluded.last_limited > api_insights.last_limited THEN excluded.last_limited ELSE api_insights.last_limited END,
 actor_name = excluded.actor_name, subject_name = excluded.subject_name`,
			org.id, k.Minute, k.Method, k.Route, k.ActorType, k.ActorID, k.UserID, c.ActorName,
			c.SubjectType, c.SubjectID, c.SubjectName, integration, oauthApp, c.Total, c.Limited, c.LastRequest, c.LastLimited)
		if err != nil {
			return err
		}
	}
	return nil
}

type idName struct {
	id   int64
	name string
}

// idsBy runs query (which selects key, id, name and ends in "IN ") for the
// keys, 32 at a time (fixed-size lists, padded with a repeated key, keep
// one prepared statement).
func (q Q) idsBy(ctx context.Context, query string, keys map[any]bool) (map[string]idName, error) {
	out := map[string]idName{}
	list := make([]any, 0, len(keys))
	for k := range keys {
		list = append(list, k)
	}
	const chunk = 32
	for i := 0; i < len(list); i += chunk {
		part := append([]any(nil), list[i:min(i+chunk, len(list))]...)
		for len(part) < chunk {
			part = append(part, part[0])
		}
		rows, err := q.query(ctx, query+`(?`+strings.Repeat(",?", chunk-1)+`)`, part...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var k string
			var v idName
			if err := rows.Scan(&k, &v.id, &v.name); err != nil {
				rows.Close()
				return nil, err
			}
			out[k] = v
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// PruneInsights deletes the counters of minutes before the given one.
func (q Q) PruneInsights(ctx context.Context, before int64) (int64, error) {
	res, err := q.exec(ctx, `DELETE FROM api_insights WHERE minute < ?`, before)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// InsightFilter selects an organization's counters of a time window
// [From, To) (unix seconds) and, when set, of one user or one actor, and
// whose grouping name holds Substring (case-insensitive).
type InsightFilter struct {
	OrgID     int64
	From, To  int64
	UserID    int64
	ActorType string
	ActorID   int64
	Substring string
}

func (f InsightFilter) where(b *strings.Builder, args *[]any) {
	b.WriteString(` WHERE org_id = ? AND minute >= ? AND minute < ?`)
	*args = append(*args, f.OrgID, f.From, f.To)
	if f.UserID != 0 {
		b.WriteString(` AND user_id = ?`)
		*args = append(*args, f.UserID)
	}
	if f.ActorType != "" {
		b.WriteString(` AND actor_type = ? AND actor_id = ?`)
		*args = append(*args, f.ActorType, f.ActorID)
	}
}

// InsightTotals are the counts of a window or of one of its buckets.
type InsightTotals struct {
	Start          int64 // the bucket's start (time stats)
	Total, Limited int64
}

// InsightSummary counts the requests the filter selects.
func (q Q) InsightSummary(ctx context.Context, f InsightFilter) (InsightTotals, error) {
	var b strings.Builder
	var args []any
	b.WriteString(`SELECT COALESCE(SUM(total), 0), COALESCE(SUM(limited), 0) FROM api_insights`)
	f.where(&b, &args)
	var t InsightTotals
	err := q.row(ctx, b.String(), args...).Scan(&t.Total, &t.Limited)
	return t, err
}

// InsightTimes counts the requests the filter selects in buckets of step
// seconds aligned on From; buckets without requests are left out.
func (q Q) InsightTimes(ctx context.Context, f InsightFilter, step int64) ([]InsightTotals, error) {
	var b strings.Builder
	args := []any{f.From, f.From, step, step}
	b.WriteString(`SELECT ? + ((minute - ?) / ?) * ? AS bucket, SUM(total), SUM(limited) FROM api_insights`)
	f.where(&b, &args)
	b.WriteString(` GROUP BY bucket ORDER BY bucket`)
	rows, err := q.query(ctx, b.String(), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []InsightTotals
	for rows.Next() {
		var t InsightTotals
		if err := rows.Scan(&t.Start, &t.Total, &t.Limited); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// InsightGroup is one row of route, subject or user (actor) stats.
type InsightGroup struct {
	Method, Route             string
	SubjectType, SubjectName  string
	SubjectID                 int64
	ActorType, ActorName      string
	ActorID                   int64
	IntegrationID, OAuthAppID *int64
	Total, Limited            int64
	LastRequest, LastLimited  int64
}

// InsightBy names a grouping of InsightGroups.
type InsightBy int

const (
	ByRoute   InsightBy = iota // http_method, api_route
	BySubject                  // subject_type, subject_id
	ByActor                    // actor_type, actor_id
)

// insightSorts are the sort keys of the stats lists, by GitHub's names.
var insightSorts = map[string]string{
	"total_request_count":         "SUM(total)",
	"rate_limited_request_count":  "SUM(limited)",
	"last_request_timestamp":      "MAX(last_request)",
	"last_rate_limited_timestamp": "MAX(last_limited)",
	"http_method":                 "method",
	"api_route":                   "route",
	"subject_name":                "MAX(subject_name)",
}

// ValidInsightSort reports whether a sort key is known.
func ValidInsightSort(s string) bool { _, ok := insightSorts[s]; return ok }

// InsightGroups is a page of the filter's counters grouped by, sorted by
// the keys given (in order; then by the grouping) in the direction given,
// with the number of groups.
func (q Q) InsightGroups(ctx context.Context, f InsightFilter, by InsightBy, sorts []string, desc bool, limit, offset int) ([]InsightGroup, int, error) {
	var cols, group, name string
	switch by {
	case ByRoute:
		cols, group, name = `method, route, '', '', 0, '', '', 0, NULL, NULL`, `method, route`, `route`
	case BySubject:
		cols, group, name = `'', '', subject_type, MAX(subject_name), subject_id, '', '', 0, NULL, NULL`, `subject_type, subject_id`, `subject_name`
	default:
		cols, group, name = `'', '', '', '', 0, actor_type, MAX(actor_name), actor_id, MAX(integration_id), MAX(oauth_app_id)`, `actor_type, actor_id`, `actor_name`
	}
	var where strings.Builder
	var args []any
	f.where(&where, &args)
	if f.Substring != "" {
		where.WriteString(` AND LOWER(` + name + `) LIKE ? ESCAPE '\'`)
		args = append(args, likeArg(f.Substring))
	}
	var total int
	if err := q.row(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM api_insights`+where.String()+` GROUP BY `+group+`) g`, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	var order []string
	seen := map[string]bool{}
	for _, s := range sorts {
		expr, ok := insightSorts[s]
		if s == "subject_name" && by == ByActor {
			expr = "MAX(actor_name)" // user stats list actors
		}
		if ok && !seen[s] {
			seen[s] = true
			order = append(order, expr+dir)
		}
	}
	if len(order) == 0 {
		order = append(order, insightSorts["total_request_count"]+dir)
	}
	for _, g := range strings.Split(group, ", ") {
		order = append(order, g+dir)
	}
	query := `SELECT ` + cols + `, SUM(total), SUM(limited), MAX(last_request), MAX(last_limited) FROM api_insights` + where.String() +
		` GROUP BY ` + group + ` ORDER BY ` + strings.Join(order, ", ") + ` LIMIT ? OFFSET ?`
	rows, err := q.query(ctx, query, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []InsightGroup
	for rows.Next() {
		var g InsightGroup
		if err := rows.Scan(&g.Method, &g.Route, &g.SubjectType, &g.SubjectName, &g.SubjectID, &g.ActorType, &g.ActorName, &g.ActorID,
			&g.IntegrationID, &g.OAuthAppID, &g.Total, &g.Limited, &g.LastRequest, &g.LastLimited); err != nil {
			return nil, 0, err
		}
		out = append(out, g)
	}
	return out, total, rows.Err()
}
