package metrics

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/batch"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

const (
	kindClone = "clone"
	kindView  = "view"

	// flushEvery is how long counts wait in memory before they are written
	// (in one transaction); flushAt writes sooner when many are waiting.
	flushEvery = 10 * time.Second
	flushAt    = 20000
	// trafficDays is GitHub's window: the last 14 days (and today).
	trafficDays = 14
	// keepDays is how long counters are kept.
	keepDays = trafficDays + 2
)

// trafficBuffer holds the counts since the last write (internal/batch):
// neither page views nor fetches wait for the database.
type trafficBuffer struct {
	h         *Hub
	buf       batch.Buffer[store.TrafficKey, store.TrafficCount]
	lastPrune int64 // written by the buffer's writes only (one at a time)
}

func (b *trafficBuffer) init(h *Hub) {
	b.h = h
	b.buf = batch.Buffer[store.TrafficKey, store.TrafficCount]{Name: "metrics: traffic", Every: flushEvery, At: flushAt,
		Merge: func(a, c store.TrafficCount) store.TrafficCount {
			c.Count += a.Count
			if c.Title == "" {
				c.Title = a.Title
			}
			return c
		},
		Write: b.write}
}

func (b *trafficBuffer) add(repoID int64, kind, visitor, path, title, referrer string) {
	now := b.h.d.Store.Now().Unix()
	k := store.TrafficKey{RepoID: repoID, Kind: kind, Day: floorDiv(now, day) * day, Visitor: visitor, Path: path, Referrer: referrer}
	b.buf.Add(k, store.TrafficCount{Count: 1, Title: title})
}

// write writes a batch in one transaction, pruning old days once a day.
func (b *trafficBuffer) write(ctx context.Context, counts map[store.TrafficKey]store.TrafficCount) error {
	today := floorDiv(b.h.d.Store.Now().Unix(), day) * day
	prune := today != b.lastPrune
	err := b.h.d.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.AddTraffic(ctx, counts); err != nil {
			return err
		}
		if prune {
			return tx.PruneTraffic(ctx, today-keepDays*day)
		}
		return nil
	})
	if err == nil && prune {
		b.lastPrune = today
	}
	return err
}

func (b *trafficBuffer) close() { b.buf.Close() }

// Flush writes the traffic counted so far (tests and shutdown).
func (h *Hub) Flush(ctx context.Context) error { return h.traffic.buf.Flush(ctx) }

// visitor identifies who made a request for unique counts: the user, or a
// hash of the address for anonymous requests (addresses are not stored).
func visitor(r *http.Request) string {
	if id := rest.Caller(r).UserID(); id != 0 {
		return "u" + strconv.FormatInt(id, 10)
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	sum := sha256.Sum256([]byte("hubd-traffic\x00" + host))
	return "a" + hex.EncodeToString(sum[:12])
}

// referrer names the site a visit came from, as GitHub lists referrers:
// the host without "www.", and the big search engines by name.
func referrer(r *http.Request) string {
	ref := r.Header.Get("Referer")
	if ref == "" {
		return ""
	}
	u, err := url.Parse(ref)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	for _, se := range []struct{ prefix, name string }{
		{"google.", "Google"}, {"bing.com", "Bing"}, {"duckduckgo.com", "DuckDuckGo"}, {"search.yahoo.", "Yahoo"}, {"yandex.", "Yandex"},
	} {
		if strings.HasPrefix(host, se.prefix) {
			return se.name
		}
	}
	if len(host) > 255 {
		host = host[:255]
	}
	return host
}

type trafficPoint struct {
	Timestamp string `json:"timestamp"`
	Uniques   int64  `json:"uniques"`
	Count     int64  `json:"count"`
}

type cloneTraffic struct {
	Count   int64          `json:"count"`
	Uniques int64          `json:"uniques"`
	Clones  []trafficPoint `json:"clones"`
}

type viewTraffic struct {
	Count   int64          `json:"count"`
	Uniques int64          `json:"uniques"`
	Views   []trafficPoint `json:"views"`
}

// series reads the traffic of a kind over GitHub's window, for callers with
// push access (as GitHub requires).
func (a *API) series(r *http.Request, kind string) ([]trafficPoint, store.TrafficBucket, error) {
	repo, _, err := a.d.Repo(r, authz.Write)
	if err != nil {
		return nil, store.TrafficBucket{}, err
	}
	// per=week groups by week; anything else is the default, per day.
	weekly := r.URL.Query().Get("per") == "week"
	list, total, err := a.d.Store.R().TrafficSeries(r.Context(), repo.ID, kind, a.since(), weekly)
	if err != nil {
		return nil, total, err
	}
	out := make([]trafficPoint, 0, len(list))
	for _, b := range list {
		out = append(out, trafficPoint{Timestamp: wire.Time(time.Unix(b.Start, 0)), Uniques: b.Uniques, Count: b.Count})
	}
	return out, total, nil
}

// since is the first day of GitHub's 14-day window.
func (a *API) since() int64 {
	return (floorDiv(a.d.Store.Now().Unix(), day) - trafficDays) * day
}

// GET /repos/{owner}/{repo}/traffic/clones
func (a *API) clones(w http.ResponseWriter, r *http.Request) error {
	list, total, err := a.series(r, kindClone)
	if err != nil {
		return err
	}
	return rest.JSON(w, 200, cloneTraffic{Count: total.Count, Uniques: total.Uniques, Clones: list})
}

// GET /repos/{owner}/{repo}/traffic/views
func (a *API) views(w http.ResponseWriter, r *http.Request) error {
	list, total, err := a.series(r, kindView)
	if err != nil {
		return err
	}
	return rest.JSON(w, 200, viewTraffic{Count: total.Count, Uniques: total.Uniques, Views: list})
}

type contentTraffic struct {
	Path    string `json:"path"`
	Title   string `json:"title"`
	Count   int64  `json:"count"`
	Uniques int64  `json:"uniques"`
}

type referrerTraffic struct {
	Referrer string `json:"referrer"`
	Count    int64  `json:"count"`
	Uniques  int64  `json:"uniques"`
}

// GET /repos/{owner}/{repo}/traffic/popular/paths
func (a *API) topPaths(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Write)
	if err != nil {
		return err
	}
	list, err := a.d.Store.R().TrafficPaths(r.Context(), repo.ID, a.since())
	if err != nil {
		return err
	}
	out := make([]contentTraffic, 0, len(list))
	for _, t := range list {
		out = append(out, contentTraffic{Path: t.Key, Title: t.Title, Count: t.Count, Uniques: t.Uniques})
	}
	return rest.JSON(w, 200, out)
}

// GET /repos/{owner}/{repo}/traffic/popular/referrers
func (a *API) topReferrers(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Write)
	if err != nil {
		return err
	}
	list, err := a.d.Store.R().TrafficReferrers(r.Context(), repo.ID, a.since())
	if err != nil {
		return err
	}
	out := make([]referrerTraffic, 0, len(list))
	for _, t := range list {
		out = append(out, referrerTraffic{Referrer: t.Key, Count: t.Count, Uniques: t.Uniques})
	}
	return rest.JSON(w, 200, out)
}
