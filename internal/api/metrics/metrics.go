// Package metrics serves the Metrics category: the community profile (read
// from the default branch's tree), the statistics GitHub computes from git
// history (computed in the background from one `git log` pass, cached per
// repository and head commit, answered 202 until ready), and traffic
// (clones counted from smart-HTTP fetches, views and referrers from visits
// to hubd's web pages; counted in memory and written in batches).
package metrics

import (
	"context"
	"net/http"
	"sync"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/rest"
)

// API is the metrics package.
type API struct {
	d   *api.Deps
	hub *Hub
}

// New makes the package. It installs the package's Hub as d.Metrics (when
// none is there yet), through which pushes invalidate statistics and git
// fetches and page views are counted.
func New(d *api.Deps) *API {
	h, _ := d.Metrics.(*Hub)
	if h == nil {
		h = NewHub(d)
		d.Metrics = h
	}
	return &API{d: d, hub: h}
}

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	read := []string{"repo"}
	return []rest.Route{
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/community/profile", OperationID: "repos/get-community-profile-metrics", Handler: a.communityProfile, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/stats/code_frequency", OperationID: "repos/get-code-frequency-stats", Handler: a.codeFrequency, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/stats/commit_activity", OperationID: "repos/get-commit-activity-stats", Handler: a.commitActivity, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/stats/contributors", OperationID: "repos/get-contributors-stats", Handler: a.contributors, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/stats/participation", OperationID: "repos/get-participation-stats", Handler: a.participation, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/stats/punch_card", OperationID: "repos/get-punch-card-stats", Handler: a.punchCard, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/traffic/clones", OperationID: "repos/get-clones", Handler: a.clones, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/traffic/views", OperationID: "repos/get-views", Handler: a.views, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/traffic/popular/paths", OperationID: "repos/get-top-paths", Handler: a.topPaths, Scopes: read},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/traffic/popular/referrers", OperationID: "repos/get-top-referrers", Handler: a.topReferrers, Scopes: read},
	}
}

// Hub is the state the package shares with the rest of hubd through
// api.Deps.Metrics: the statistics cache with its background jobs, and the
// traffic counted since the last write.
type Hub struct {
	d       *api.Deps
	stats   statsCache
	traffic trafficBuffer

	ctx    context.Context // ends on Close: stops statistics jobs
	cancel context.CancelFunc
	once   sync.Once
}

// NewHub makes a hub for d.
func NewHub(d *api.Deps) *Hub {
	h := &Hub{d: d}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	h.stats.init()
	h.traffic.init(h)
	return h
}

// Pushed drops the statistics of a repository whose history changed (and
// stops their computation if one is running).
func (h *Hub) Pushed(repoID int64) { h.stats.drop(repoID) }

// Fetched counts a clone or fetch of a repository over smart HTTP.
func (h *Hub) Fetched(r *http.Request, repoID int64) {
	h.traffic.add(repoID, kindClone, visitor(r), "", "", "")
}

// Viewed counts a visit to one of a repository's web pages (path is the
// page's canonical path, title its title).
func (h *Hub) Viewed(r *http.Request, repoID int64, path, title string) {
	h.traffic.add(repoID, kindView, visitor(r), path, title, referrer(r))
}

// Close stops statistics jobs and writes the traffic counted so far; hubd
// calls it on shutdown.
func (h *Hub) Close() {
	h.once.Do(func() {
		h.cancel()
		h.traffic.close()
	})
}
