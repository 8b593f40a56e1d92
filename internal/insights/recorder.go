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
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/batch"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/store"
)

const (
	// DefaultFlush is how long counters wait in memory at most.
	DefaultFlush = time.Second
	// flushAt is how many counters start a write at once.
	flushAt = 10_000
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
	store     *store.Store
	jobs      *jobs.Queue
	buf       batch.Buffer[store.InsightKey, store.InsightCount]
	nextPrune time.Time // written by the buffer's writes only (one at a time)
}

// NewRecorder makes a recorder writing to st; q (may be nil) runs the
// pruning job.
func NewRecorder(st *store.Store, q *jobs.Queue) *Recorder {
	r := &Recorder{store: st, jobs: q}
	r.buf = batch.Buffer[store.InsightKey, store.InsightCount]{Name: "insights", Every: DefaultFlush, At: flushAt, Merge: merge, Write: r.write}
	if q != nil {
		q.Handle(JobPrune, func(ctx context.Context, _ []byte) error {
			_, err := r.Prune(ctx)
			return err
		})
	}
	return r
}

// SetFlushEvery changes how long counters wait in memory (tests); call it
// before the first request.
func (r *Recorder) SetFlushEvery(d time.Duration) { r.buf.Every = d }

func merge(a, b store.InsightCount) store.InsightCount {
	b.Total += a.Total
	b.Limited += a.Limited
	b.LastRequest = max(a.LastRequest, b.LastRequest)
	b.LastLimited = max(a.LastLimited, b.LastLimited)
	return b
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
	r.buf.Add(k, v)
}

// write writes a batch in one transaction (and, once every pruneEvery,
// queues the pruning job in it).
func (r *Recorder) write(ctx context.Context, counts map[store.InsightKey]store.InsightCount) error {
	prune := r.jobs != nil && time.Now().After(r.nextPrune)
	err := r.store.Tx(ctx, func(tx store.Q) error {
		if err := tx.AddInsights(ctx, counts); err != nil {
			return err
		}
		if prune {
			return jobs.Enqueue(ctx, tx, jobs.Job{Kind: JobPrune, Key: JobPrune, MaxAttempts: 3})
		}
		return nil
	})
	if err == nil && prune {
		r.nextPrune = time.Now().Add(pruneEvery)
		r.jobs.Notify()
	}
	return err
}

// Flush writes the counters waiting in memory (tests and shutdown).
func (r *Recorder) Flush(ctx context.Context) error {
	if r == nil {
		return nil
	}
	return r.buf.Flush(ctx)
}

// Close writes what is left; later requests are not counted. hubd calls
// it on shutdown, after the last request.
func (r *Recorder) Close() error {
	if r == nil {
		return nil
	}
	return r.buf.Close()
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
