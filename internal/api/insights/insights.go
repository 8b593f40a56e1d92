// Package insights is the REST adapter of API insights
// (/orgs/{org}/insights/api/...): it parses the period, filters, sorting
// and paging, calls the insights service and writes GitHub's shapes.
package insights

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/api"
	svc "github.com/hubd/hubd/internal/insights"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

// API is the package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, svc: &svc.Service{Store: d.Store}} }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	scopes := []string{"read:org", "admin:org"}
	note := "Counts the core REST requests that name the organization (its {org}, or a repository it owns) made with user, installation, OAuth app and user access tokens; counters reach the database within a second."
	route := func(pattern, op string, h rest.Handler) rest.Route {
		return rest.Route{Method: "GET", Pattern: "/orgs/{org}/insights/api/" + pattern, OperationID: "api-insights/" + op, Handler: h, Scopes: scopes, Note: note}
	}
	return []rest.Route{
		route("route-stats/{actor_type}/{actor_id}", "get-route-stats-by-actor", a.routeStats),
		route("subject-stats", "get-subject-stats", a.subjectStats),
		route("summary-stats", "get-summary-stats", a.summary),
		route("summary-stats/users/{user_id}", "get-summary-stats-by-user", a.summary),
		route("summary-stats/{actor_type}/{actor_id}", "get-summary-stats-by-actor", a.summary),
		route("time-stats", "get-time-stats", a.timeStats),
		route("time-stats/users/{user_id}", "get-time-stats-by-user", a.timeStats),
		route("time-stats/{actor_type}/{actor_id}", "get-time-stats-by-actor", a.timeStats),
		route("user-stats/{user_id}", "get-user-stats", a.userStats),
	}
}

var actorTypes = map[string]bool{"installation": true, "classic_pat": true, "fine_grained_pat": true, "oauth_app": true, "github_app_user_to_server": true}

// query is what every operation reads: the organization the caller may
// read insights of, the period, and the user or actor of the path.
func (a *API) query(r *http.Request) (*model.Account, svc.Window, svc.Subject, error) {
	var w svc.Window
	var sub svc.Subject
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, w, sub, err
	}
	org, err := a.svc.Org(r.Context(), c, r.PathValue("org"))
	if err != nil {
		return nil, w, sub, err
	}
	if s := r.PathValue("user_id"); s != "" {
		if sub.UserID, err = strconv.ParseInt(s, 10, 64); err != nil || sub.UserID <= 0 {
			return nil, w, sub, model.ErrNotFound
		}
	}
	if t := r.PathValue("actor_type"); t != "" {
		if !actorTypes[t] {
			return nil, w, sub, model.Unprocessable("Invalid actor_type '" + t + "': expected one of installation, classic_pat, fine_grained_pat, oauth_app, github_app_user_to_server.")
		}
		sub.ActorType = t
		if sub.ActorID, err = strconv.ParseInt(r.PathValue("actor_id"), 10, 64); err != nil || sub.ActorID <= 0 {
			return nil, w, sub, model.ErrNotFound
		}
	}
	q := r.URL.Query()
	w, err = svc.ParseWindow(q.Get("min_timestamp"), q.Get("max_timestamp"), a.d.Store.Now())
	return org, w, sub, err
}

// list reads sorting, its direction, the substring filter and the page.
func list(r *http.Request, by store.InsightBy, filter string, sorts ...string) (svc.List, rest.Page, error) {
	q := r.URL.Query()
	p := rest.ParsePage(r)
	l := svc.List{By: by, Substring: q.Get(filter), Desc: true, Limit: p.Limit(), Offset: p.Offset()}
	switch d := q.Get("direction"); d {
	case "", "desc":
	case "asc":
		l.Desc = false
	default:
		return l, p, model.Unprocessable("Invalid direction '" + d + "': expected asc or desc.")
	}
	allowed := append([]string{"last_rate_limited_timestamp", "last_request_timestamp", "rate_limited_request_count", "total_request_count"}, sorts...)
	for _, v := range q["sort"] {
		for _, k := range strings.Split(v, ",") {
			k = strings.TrimSpace(k)
			if k == "" {
				continue
			}
			ok := false
			for _, s := range allowed {
				ok = ok || s == k
			}
			if !ok {
				return l, p, model.Unprocessable("Invalid sort '" + k + "': expected one of " + strings.Join(allowed, ", ") + ".")
			}
			l.Sort = append(l.Sort, k)
		}
	}
	return l, p, nil
}

func stamp(sec int64) string { return time.Unix(sec, 0).UTC().Format(time.RFC3339) }

func stampOrNull(sec int64) *string {
	if sec == 0 {
		return nil
	}
	s := stamp(sec)
	return &s
}

// GET /orgs/{org}/insights/api/summary-stats (and .../users/{user_id},
// .../{actor_type}/{actor_id})
func (a *API) summary(w http.ResponseWriter, r *http.Request) error {
	org, win, sub, err := a.query(r)
	if err != nil {
		return err
	}
	t, err := a.svc.Summary(r.Context(), org, win, sub)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, summaryStats{Total: t.Total, Limited: t.Limited})
}

type summaryStats struct {
	Total   int64 `json:"total_request_count"`
	Limited int64 `json:"rate_limited_request_count"`
}

type timeStat struct {
	Timestamp string `json:"timestamp"`
	summaryStats
}

// GET /orgs/{org}/insights/api/time-stats (and .../users/{user_id},
// .../{actor_type}/{actor_id})
func (a *API) timeStats(w http.ResponseWriter, r *http.Request) error {
	org, win, sub, err := a.query(r)
	if err != nil {
		return err
	}
	step, err := svc.ParseIncrement(r.URL.Query().Get("timestamp_increment"))
	if err != nil {
		return err
	}
	got, err := a.svc.Times(r.Context(), org, win, sub, step)
	if err != nil {
		return err
	}
	out := make([]timeStat, len(got))
	for i, t := range got {
		out[i] = timeStat{stamp(t.Start), summaryStats{t.Total, t.Limited}}
	}
	return rest.JSON(w, http.StatusOK, out)
}

type lastTimes struct {
	Total         int64   `json:"total_request_count"`
	Limited       int64   `json:"rate_limited_request_count"`
	LastLimited   *string `json:"last_rate_limited_timestamp"`
	LastRequested string  `json:"last_request_timestamp"`
}

func lasts(g store.InsightGroup) lastTimes {
	return lastTimes{g.Total, g.Limited, stampOrNull(g.LastLimited), stamp(g.LastRequest)}
}

type routeStat struct {
	Method string `json:"http_method"`
	Route  string `json:"api_route"`
	lastTimes
}

// groups answers a page of grouped statistics, each converted by conv.
func groups[T any](a *API, w http.ResponseWriter, r *http.Request, by store.InsightBy, filter string, sorts []string, conv func(store.InsightGroup) T) error {
	org, win, sub, err := a.query(r)
	if err != nil {
		return err
	}
	l, p, err := list(r, by, filter, sorts...)
	if err != nil {
		return err
	}
	got, total, err := a.svc.Groups(r.Context(), org, win, sub, l)
	if err != nil {
		return err
	}
	out := make([]T, len(got))
	for i, g := range got {
		out[i] = conv(g)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /orgs/{org}/insights/api/route-stats/{actor_type}/{actor_id}
func (a *API) routeStats(w http.ResponseWriter, r *http.Request) error {
	return groups(a, w, r, store.ByRoute, "api_route_substring", []string{"http_method", "api_route"}, func(g store.InsightGroup) routeStat {
		return routeStat{g.Method, g.Route, lasts(g)}
	})
}

type subjectStat struct {
	Type string `json:"subject_type"`
	Name string `json:"subject_name"`
	ID   int64  `json:"subject_id"`
	lastTimes
}

// GET /orgs/{org}/insights/api/subject-stats
func (a *API) subjectStats(w http.ResponseWriter, r *http.Request) error {
	return groups(a, w, r, store.BySubject, "subject_name_substring", []string{"subject_name"}, func(g store.InsightGroup) subjectStat {
		return subjectStat{g.SubjectType, g.SubjectName, g.SubjectID, lasts(g)}
	})
}

type userStat struct {
	ActorType   string `json:"actor_type"`
	ActorName   string `json:"actor_name"`
	ActorID     int64  `json:"actor_id"`
	Integration *int64 `json:"integration_id"`
	OAuthApp    *int64 `json:"oauth_application_id"`
	lastTimes
}

// GET /orgs/{org}/insights/api/user-stats/{user_id}
func (a *API) userStats(w http.ResponseWriter, r *http.Request) error {
	return groups(a, w, r, store.ByActor, "actor_name_substring", []string{"subject_name"}, func(g store.InsightGroup) userStat {
		return userStat{g.ActorType, g.ActorName, g.ActorID, g.IntegrationID, g.OAuthAppID, lasts(g)}
	})
}
