package insights_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// world: mona owns the organization acme with the public acme/app and has
// her own mona/own; lim is a member who runs into the rate limit; an app
// installed on acme may read its insights. Counters are written only when
// the test flushes them.
type world struct {
	e               *apitest.Env
	mona, lim, inst string // tokens
	monaID, limID   int64
	instID, appID   int64
	since           string // min_timestamp covering the test
}

func newWorld(t *testing.T) *world {
	t.Helper()
	lim := ratelimit.DefaultLimits()
	lim.Authenticated = 40
	e := apitest.New(t, apitest.Options{Limits: &lim})
	e.Deps.Insights.SetFlushEvery(time.Hour) // the test flushes
	w := &world{e: e, since: e.Store.Now().Add(-time.Hour).UTC().Format(time.RFC3339)}
	mona, tok := e.NewUser("mona", false)
	w.mona, w.monaID = tok, mona.ID
	l, ltok := e.NewUser("lim", false)
	w.lim, w.limID = ltok, l.ID
	e.Must(http.StatusCreated, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	e.Must(http.StatusCreated, "POST", "/orgs/acme/repos", w.mona, map[string]any{"name": "app"})
	e.Must(http.StatusCreated, "POST", "/user/repos", w.mona, map[string]any{"name": "own"})
	var app struct {
		ID   int64  `json:"id"`
		Slug string `json:"slug"`
	}
	e.Must(http.StatusCreated, "POST", "/admin/apps", e.AdminToken, map[string]any{"owner": "acme", "name": "Insight Reader",
		"default_permissions": map[string]string{"metadata": "read", "organization_api_insights": "read"}}).JSON(t, &app)
	w.appID = app.ID
	var in struct {
		ID int64 `json:"id"`
	}
	e.Must(http.StatusCreated, "POST", "/admin/apps/"+app.Slug+"/installations", e.AdminToken, map[string]any{"account": "acme", "repository_selection": "all"}).JSON(t, &in)
	w.instID = in.ID
	inst, err := e.Store.R().InstallationByID(ctx, in.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		w.inst, _, err = tx.CreateInstallationToken(ctx, inst, inst.Permissions, nil, e.Store.Now().Add(time.Hour))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) flush(t *testing.T) {
	t.Helper()
	if err := w.e.Deps.Insights.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// get is a stats request by mona, with the test's period added.
func (w *world) get(t *testing.T, want int, path string, query ...string) *apitest.Response {
	t.Helper()
	q := url.Values{"min_timestamp": {w.since}}
	for _, kv := range query {
		k, v, _ := strings.Cut(kv, "=")
		q.Add(k, v)
	}
	return w.e.Must(want, "GET", "/orgs/acme/insights/api/"+path+"?"+q.Encode(), w.mona, nil)
}

func num(v any) int64 { return int64(v.(float64)) }

// TestInsightsCountRequests: requests naming acme (its {org} or a
// repository it owns) are counted by actor and route, those naming a
// user's repository are not, refused ones count as rate limited; every
// stats operation answers them after a flush.
func TestInsightsCountRequests(t *testing.T) {
	w := newWorld(t)
	e := w.e
	for range 3 {
		e.Must(http.StatusOK, "GET", "/repos/acme/app", w.mona, nil)
	}
	e.Must(http.StatusOK, "GET", "/repos/mona/own", w.mona, nil) // not acme's
	for range 2 {
		e.Must(http.StatusOK, "GET", "/repos/acme/app", w.inst, nil)
	}
	for range 40 {
		e.Must(http.StatusOK, "GET", "/orgs/acme", w.lim, nil)
	}
	for range 2 {
		e.Must(http.StatusForbidden, "GET", "/orgs/acme", w.lim, nil)
	}
	w.flush(t)

	// mona: POST /orgs/acme/repos and 3 GETs; the app: 2; lim: 42, 2 refused.
	s := w.get(t, 200, "summary-stats").Map(t)
	if num(s["total_request_count"]) != 48 || num(s["rate_limited_request_count"]) != 2 {
		t.Fatalf("summary: %v", s)
	}
	s = w.get(t, 200, fmt.Sprintf("summary-stats/users/%d", w.limID)).Map(t)
	if num(s["total_request_count"]) != 42 || num(s["rate_limited_request_count"]) != 2 {
		t.Fatalf("summary of lim: %v", s)
	}
	s = w.get(t, 200, fmt.Sprintf("summary-stats/installation/%d", w.instID)).Map(t)
	if num(s["total_request_count"]) != 2 {
		t.Fatalf("summary of the installation: %v", s)
	}

	// Subjects: lim, mona, the app (by total, descending).
	var subjects []map[string]any
	w.get(t, 200, "subject-stats").JSON(t, &subjects)
	if len(subjects) != 3 || subjects[0]["subject_name"] != "lim" || subjects[1]["subject_name"] != "mona" ||
		subjects[2]["subject_type"] != "integration" || num(subjects[2]["subject_id"]) != w.appID || subjects[2]["subject_name"] != "insight-reader" {
		t.Fatalf("subjects: %v", subjects)
	}
	if subjects[0]["last_rate_limited_timestamp"] == nil || subjects[1]["last_rate_limited_timestamp"] != nil {
		t.Errorf("last_rate_limited_timestamp: %v", subjects)
	}
	w.get(t, 200, "subject-stats", "subject_name_substring=READER").JSON(t, &subjects)
	if len(subjects) != 1 || subjects[0]["subject_type"] != "integration" {
		t.Errorf("subjects named like reader: %v", subjects)
	}
	w.get(t, 200, "subject-stats", "sort=subject_name", "direction=asc").JSON(t, &subjects)
	if len(subjects) != 3 || subjects[0]["subject_name"] != "insight-reader" || subjects[2]["subject_name"] != "mona" {
		t.Errorf("subjects by name: %v", subjects)
	}
	// Paging: one per page, with a Link header.
	r := w.get(t, 200, "subject-stats", "per_page=1", "page=2")
	r.JSON(t, &subjects)
	if len(subjects) != 1 || subjects[0]["subject_name"] != "mona" || !strings.Contains(r.Header.Get("Link"), `rel="last"`) ||
		!strings.Contains(r.Header.Get("Link"), "page=3") {
		t.Errorf("page 2: %v, Link %q", subjects, r.Header.Get("Link"))
	}

	// mona's actors: her classic token.
	var actors []map[string]any
	w.get(t, 200, fmt.Sprintf("user-stats/%d", w.monaID)).JSON(t, &actors)
	if len(actors) != 1 || actors[0]["actor_type"] != "classic_pat" || num(actors[0]["total_request_count"]) != 4 || actors[0]["integration_id"] != nil {
		t.Fatalf("mona's actors: %v", actors)
	}
	tokenID := num(actors[0]["actor_id"])
	w.get(t, 200, fmt.Sprintf("user-stats/%d", w.monaID), "actor_name_substring=nobody").JSON(t, &actors)
	if len(actors) != 0 {
		t.Errorf("filtered actors: %v", actors)
	}

	// Her token's routes.
	var routes []map[string]any
	w.get(t, 200, fmt.Sprintf("route-stats/classic_pat/%d", tokenID)).JSON(t, &routes)
	if len(routes) != 2 || routes[0]["api_route"] != "/repos/{owner}/{repo}" || routes[0]["http_method"] != "GET" || num(routes[0]["total_request_count"]) != 3 ||
		routes[1]["api_route"] != "/orgs/{org}/repos" || routes[1]["http_method"] != "POST" {
		t.Fatalf("routes: %v", routes)
	}
	w.get(t, 200, fmt.Sprintf("route-stats/classic_pat/%d", tokenID), "sort=api_route", "direction=asc").JSON(t, &routes)
	if len(routes) != 2 || routes[0]["api_route"] != "/orgs/{org}/repos" {
		t.Errorf("routes by route: %v", routes)
	}
	w.get(t, 200, fmt.Sprintf("route-stats/classic_pat/%d", tokenID), "api_route_substring=ORGS").JSON(t, &routes)
	if len(routes) != 1 || routes[0]["api_route"] != "/orgs/{org}/repos" {
		t.Errorf("routes like orgs: %v", routes)
	}

	// Time stats: 5-minute buckets across the hour, counts in them.
	var times []map[string]any
	w.get(t, 200, "time-stats", "timestamp_increment=5m").JSON(t, &times)
	var total int64
	for _, b := range times {
		total += num(b["total_request_count"])
	}
	if len(times) < 12 || len(times) > 13 || total != 48 {
		t.Fatalf("time stats: %d buckets, %d requests: %v", len(times), total, times)
	}
	w.get(t, 200, fmt.Sprintf("time-stats/users/%d", w.monaID), "timestamp_increment=1h").JSON(t, &times)
	total = 0
	for _, b := range times {
		total += num(b["total_request_count"])
	}
	if len(times) != 2 || total != 4 {
		t.Errorf("mona's time stats: %v", times)
	}
	w.get(t, 200, fmt.Sprintf("time-stats/installation/%d", w.instID), "timestamp_increment=1d").JSON(t, &times)
	if len(times) != 1 || num(times[0]["total_request_count"]) != 2 {
		t.Errorf("the installation's time stats: %v", times)
	}

	// The installation reads its organization's insights.
	s = e.Must(200, "GET", "/orgs/acme/insights/api/summary-stats?min_timestamp="+url.QueryEscape(w.since), w.inst, nil).Map(t)
	if num(s["total_request_count"]) < 48 {
		t.Errorf("summary for the app: %v", s)
	}
}

// TestInsightsAccess: only owners (and apps with the permission on the
// organization) read insights; members get a 403, others a 404; bad
// periods and parameters are 422s.
func TestInsightsAccess(t *testing.T) {
	w := newWorld(t)
	e := w.e
	q := "?min_timestamp=" + url.QueryEscape(w.since)
	_, eveTok := e.NewUser("eve", false)
	e.Must(http.StatusNotFound, "GET", "/orgs/acme/insights/api/summary-stats"+q, eveTok, nil)
	e.Must(http.StatusUnauthorized, "GET", "/orgs/acme/insights/api/summary-stats"+q, "", nil)
	org, err := e.Store.R().OrgByLogin(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error {
		return tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: w.limID, Role: model.RoleMember, State: store.StateActive})
	}); err != nil {
		t.Fatal(err)
	}
	e.Must(http.StatusForbidden, "GET", "/orgs/acme/insights/api/summary-stats"+q, w.lim, nil)
	e.Must(http.StatusNotFound, "GET", "/orgs/nope/insights/api/summary-stats"+q, w.mona, nil)
	e.Must(http.StatusNotFound, "GET", "/orgs/mona/insights/api/summary-stats"+q, w.mona, nil)
	// A classic token without read:org.
	mona, _ := e.Store.R().AccountByLogin(ctx, "mona")
	e.Must(http.StatusForbidden, "GET", "/orgs/acme/insights/api/summary-stats"+q, e.Token(mona, "repo"), nil)

	for _, c := range []struct{ path, query string }{
		{"summary-stats", ""},
		{"summary-stats", "?min_timestamp=yesterday"},
		{"summary-stats", q + "&max_timestamp=2001-01-01T00:00:00Z"},
		{"time-stats", q},
		{"time-stats", q + "&timestamp_increment=5s"},
		{"time-stats", "?min_timestamp=2000-01-01T00:00:00Z&timestamp_increment=1m"},
		{"subject-stats", q + "&sort=api_route"},
		{"subject-stats", q + "&direction=up"},
		{"summary-stats/robot/1", q},
	} {
		r := e.Do("GET", "/orgs/acme/insights/api/"+c.path+c.query, w.mona, nil)
		if r.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%s%s: %d %s, want 422", c.path, c.query, r.StatusCode, r.Body)
		}
	}
}
