// Package insights is GitHub's API insights: the requests made concerning
// an organization, counted per minute by route and actor (the token, app
// installation or OAuth app) and answered as route, subject, summary, time
// and user statistics.
//
// Counting happens in memory, a map update under a mutex: a request never
// waits for the database. A timer writes the counters in one transaction
// (a second after the first one counted, and on Close), resolving the
// organizations from the logins the requests named; a job of the durable
// queue deletes minutes older than Retention.
package insights

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/store"
)

const (
	// DefaultFlush is how long counters wait in memory at most.
	DefaultFlush = time.Second
	// flushAt is how many counters start a write at once.
	flushAt = 10_000
	// maxFailures is how many writes of the same counters are tried before
	// they are given up (the database is gone or refuses them).
	maxFailures = 3
	// Retention is how long minutes are kept: GitHub answers periods that
	// start within the last 31 days.
	Retention = 32 * 24 * time.Hour
	// pruneEvery is how often a flush queues the pruning job.
	pruneEvery = time.Hour
	// JobPrune is the pruning job's kind (and its key: one pending at most).
	JobPrune = "insights.prune"
)

// Recorder counts requests in memory and writes them in batches.
type Recorder struct {
	// FlushEvery is how long counters wait in memory at most (0:
	// DefaultFlush); set it before the first request.
	FlushEvery time.Duration

	store *store.Store
	jobs  *jobs.Queue

	mu      sync.Mutex
	pending map[store.InsightKey]store.InsightCount
	timer   *time.Timer
	closed  bool

	flushing  sync.Mutex // one write at a time, in order
	failures  int
	nextPrune time.Time
}

// NewRecorder makes a recorder writing to st; q (may be nil) runs the
// pruning job.
func NewRecorder(st *store.Store, q *jobs.Queue) *Recorder {
	r := &Recorder{store: st, jobs: q, pending: map[store.InsightKey]store.InsightCount{}}
	if q != nil {
		q.Handle(JobPrune, func(ctx context.Context, _ []byte) error {
			_, err := r.Prune(ctx)
			return err
		})
	}
	return r
}

// Actor describes the credential behind a request as API insights count
// it; ok is false for callers that are not counted (anonymous requests,
// app JWTs, deploy keys).
func Actor(c *authz.Caller) (k store.InsightKey, v store.InsightCount, ok bool) {
	if c == nil || c.User == nil {
		return k, v, false
	}
	v.SubjectType, v.SubjectID, v.SubjectName = "user", c.User.ID, c.User.Login
	k.UserID, k.ActorID = c.User.ID, c.TokenID
	v.ActorName = c.User.Login
	switch c.Kind {
	case authz.ClassicPAT:
		k.ActorType = "classic_pat"
	case authz.FineGrained:
		k.ActorType = "fine_grained_pat"
	case authz.OAuthApp:
		if c.ClientID == "" {
			return k, v, false
		}
		// The OAuth app is the actor: its id and name are read when the
		// counters are written (store.AddInsights).
		k.ActorType, k.ActorID, v.OAuthClient = "oauth_app", 0, c.ClientID
	case authz.UserToServer:
		k.ActorType, k.ActorID, v.IntegrationID = "github_app_user_to_server", c.AppID, c.AppID
		v.ActorName = ""
	case authz.Installation:
		// The app's bot acts; the app is the subject.
		slug := strings.TrimSuffix(c.User.Login, "[bot]")
		k.ActorType, k.ActorID, k.UserID = "installation", c.InstallationID, 0
		v.ActorName, v.IntegrationID = slug, c.AppID
		v.SubjectType, v.SubjectID, v.SubjectName = "integration", c.AppID, slug
	default:
		return k, v, false
	}
	return k, v, true
}

// Record counts one request of method to route (the route table's
// pattern) concerning the account named org, made by c at now; limited
// is whether the primary rate limit refused it.
func (r *Recorder) Record(org, method, route string, c *authz.Caller, limited bool, now time.Time) {
	if r == nil || org == "" {
		return
	}
	k, v, ok := Actor(c)
	if !ok {
		return
	}
	sec := now.Unix()
	k.Org, k.Minute, k.Method, k.Route = strings.ToLower(org), sec-sec%60, method, route
	v.Total, v.LastRequest = 1, sec
	if limited {
		v.Limited, v.LastLimited = 1, sec
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.pending[k]; ok {
		p.Total += v.Total
		p.Limited += v.Limited
		p.LastRequest = max(p.LastRequest, v.LastRequest)
		p.LastLimited = max(p.LastLimited, v.LastLimited)
		r.pending[k] = p
	} else {
		r.pending[k] = v
	}
	switch {
	case r.closed:
		// Counted after shutdown began: written by nobody.
	case len(r.pending) >= flushAt:
		if r.timer != nil {
			r.timer.Stop()
			r.timer = nil
		}
		go r.tick()
	case r.timer == nil:
		r.timer = time.AfterFunc(r.every(), r.tick)
	}
}

func (r *Recorder) every() time.Duration {
	if r.FlushEvery > 0 {
		return r.FlushEvery
	}
	return DefaultFlush
}

func (r *Recorder) tick() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r.Flush(ctx)
}

// Flush writes the counters waiting in memory in one transaction (and,
// once every pruneEvery, queues the pruning job in it). A batch that fails
// is kept for the next write, up to maxFailures times.
func (r *Recorder) Flush(ctx context.Context) error {
	if r == nil {
		return nil
	}
	r.flushing.Lock()
	defer r.flushing.Unlock()
	r.mu.Lock()
	batch := r.pending
	r.pending = map[store.InsightKey]store.InsightCount{}
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	r.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	prune := r.jobs != nil && time.Now().After(r.nextPrune)
	err := r.store.Tx(ctx, func(tx store.Q) error {
		if err := tx.AddInsights(ctx, batch); err != nil {
			return err
		}
		if prune {
			return jobs.Enqueue(ctx, tx, jobs.Job{Kind: JobPrune, Key: JobPrune, MaxAttempts: 3})
		}
		return nil
	})
	if err == nil {
		r.failures = 0
		if prune {
			r.nextPrune = time.Now().Add(pruneEvery)
			r.jobs.Notify()
		}
		return nil
	}
	r.failures++
	slog.Error("insights: write counters", "counters", len(batch), "attempt", r.failures, "err", err)
	if r.failures >= maxFailures {
		r.failures = 0
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, c := range batch {
		if p, ok := r.pending[k]; ok {
			c.Total += p.Total
			c.Limited += p.Limited
			c.LastRequest = max(p.LastRequest, c.LastRequest)
			c.LastLimited = max(p.LastLimited, c.LastLimited)
		}
		r.pending[k] = c
	}
	if r.timer == nil && !r.closed {
		r.timer = time.AfterFunc(r.every(), r.tick)
	}
	return err
}

// Close writes what is left; later requests are not counted. hubd calls
// it on shutdown, after the last request.
func (r *Recorder) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return r.Flush(ctx)
}

// Prune deletes the minutes older than Retention.
func (r *Recorder) Prune(ctx context.Context) (int64, error) {
	var n int64
	err := r.store.Tx(ctx, func(tx store.Q) error {
		var err error
		n, err = tx.PruneInsights(ctx, tx.Now().Add(-Retention).Unix())
		return err
	})
	return n, err
}
