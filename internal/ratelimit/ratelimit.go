// Package ratelimit counts requests per caller in hourly windows, like
// GitHub's primary rate limit, and failed authentications per client
// address. Counting happens in memory: a request never waits for a
// database write. The counts are written to the store in batches (and
// failed logins at once), so they outlive a restart and are shared by the
// hubd processes of one database.
package ratelimit

import (
	"context"
	"log/slog"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

// Limits are requests per hour by kind of caller and resource.
type Limits struct {
	Anonymous     int // per client address
	Authenticated int // per user
	Installation  int // per installation, before it scales (InstallationClass)
	// InstallationMax caps an installation's scaled limit.
	InstallationMax int
	Search          int // search resource, authenticated
	SearchAnon      int
	Window          time.Duration
	// LoginFailures failed authentications from one client address within
	// LoginWindow lock that address out of authentication until the window
	// ends (see Logins); 0 disables the lockout.
	LoginFailures int
	LoginWindow   time.Duration
}

// DefaultLimits are GitHub's published defaults.
func DefaultLimits() Limits {
	return Limits{Anonymous: 60, Authenticated: 5000, Installation: 5000, InstallationMax: 12500, Search: 30, SearchAnon: 10, Window: time.Hour,
		LoginFailures: 20, LoginWindow: 5 * time.Minute}
}

// State is a key's window after a request was counted (or refused).
type State struct {
	Limit     int
	Remaining int
	Used      int
	Reset     time.Time
	Resource  string
}

type bucket struct {
	used  int
	reset time.Time
	// pending is what this process counted and has not written to the
	// store yet; synced is when the bucket was last merged with the store.
	pending int
	synced  time.Time
}

// Limiter holds the counters. Counting happens in memory; a limiter made
// by NewStored writes what it counted to the store in one transaction
// every FlushEvery (and on Close), reads a bucket's stored window the first
// time it sees it (and again after resync), and so goes on counting across
// a restart and shares counts with other hubd processes on the database. A
// crash loses at most the last FlushEvery of counts.
type Limiter struct {
	mu      sync.Mutex
	limits  Limits
	now     func() time.Time
	buckets map[string]*bucket
	sweep   time.Time

	// FlushEvery is how often counts go to the store (0: DefaultFlush);
	// set it before the first request.
	FlushEvery time.Duration
	store      *store.Store
	dirty      map[string]struct{} // buckets with pending counts
	timer      *time.Timer         // the next flush, when one is due
	closed     bool
	expired    time.Time  // when ended windows were last deleted from the store
	flushMu    sync.Mutex // one flush at a time
}

const (
	// DefaultFlush is how often a stored limiter writes its counts.
	DefaultFlush = time.Second
	// resync is how long a bucket goes without being read again from the
	// store: other processes' counts reach this one within it (or at
	// this process's next flush of the bucket).
	resync = 10 * time.Second
	// maxBuckets bounds the buckets held in memory; past it, windows that
	// ended are dropped first, then windows already written to the store
	// (read again when next seen).
	maxBuckets = 100_000
)

// New makes a limiter that counts in memory only.
func New(l Limits) *Limiter {
	if l.Window == 0 {
		l.Window = time.Hour
	}
	return &Limiter{limits: l, now: time.Now, buckets: map[string]*bucket{}, dirty: map[string]struct{}{}}
}

// NewStored makes a limiter whose counts are kept in st (see Limiter);
// Close writes what is left.
func NewStored(l Limits, st *store.Store) *Limiter {
	lim := New(l)
	lim.store = st
	return lim
}

// SetClock replaces the clock (tests).
func (l *Limiter) SetClock(now func() time.Time) { l.now = now }

// Limits returns the configured limits.
func (l *Limiter) Limits() Limits { return l.limits }

// LimitFor is the limit of a caller class ("anonymous", "user",
// "installation") for a resource.
func (l *Limiter) LimitFor(class, resource string) int {
	switch {
	case resource == "search" && class == "anonymous":
		return l.limits.SearchAnon
	case resource == "search":
		return l.limits.Search
	case class == "anonymous":
		return l.limits.Anonymous
	case class == "installation":
		return l.limits.Installation
	case strings.HasPrefix(class, "installation+"):
		extra, _ := strconv.Atoi(class[len("installation+"):])
		return max(min(l.limits.Installation+extra, l.limits.InstallationMax), l.limits.Installation)
	}
	return l.limits.Authenticated
}

// acquire locks the limiter and returns key's live bucket: the one in
// memory, or, for a stored limiter, the stored window merged in when the
// bucket is new here or was last merged more than resync ago. The store is
// read without the lock held; nothing is written.
func (l *Limiter) acquire(key string) *bucket {
	l.mu.Lock()
	now := l.now()
	b := l.buckets[key]
	live := b != nil && now.Before(b.reset)
	if live && (l.store == nil || now.Sub(b.synced) < resync) {
		return b
	}
	if l.store == nil {
		return l.fresh(key, now)
	}
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	got, err := l.store.RateCounts(ctx, []string{key}, now)
	cancel()
	l.mu.Lock()
	if err != nil {
		slog.Warn("rate limit: read counts", "bucket", key, "err", err)
	}
	b = l.buckets[key]
	if b == nil || !now.Before(b.reset) {
		b = l.fresh(key, now)
	}
	if c, ok := got[key]; ok {
		l.merge(b, c, now)
	}
	b.synced = now
	return b
}

// fresh starts a window for key at now (l.mu held).
func (l *Limiter) fresh(key string, now time.Time) *bucket {
	if now.After(l.sweep) || len(l.buckets) >= maxBuckets {
		l.evict(now)
	}
	b := &bucket{reset: now.Add(l.limits.Window).Truncate(time.Second)}
	l.buckets[key] = b
	delete(l.dirty, key) // counts of a window that ended are not written
	return b
}

// evict drops the windows that ended and, while memory is full, windows
// the store holds (or, without a store, any).
func (l *Limiter) evict(now time.Time) {
	for k, b := range l.buckets {
		if !now.Before(b.reset) {
			delete(l.buckets, k)
			delete(l.dirty, k)
		}
	}
	l.sweep = now.Add(l.limits.Window)
	for k, b := range l.buckets {
		if len(l.buckets) < maxBuckets*9/10 {
			break
		}
		if b.pending == 0 || l.store == nil {
			delete(l.buckets, k)
			delete(l.dirty, k)
		}
	}
}

// merge takes in a bucket's stored window c (l.mu held): counts only grow
// within a window, and the store's window wins over one this process
// started on its own.
func (l *Limiter) merge(b *bucket, c store.RateCount, now time.Time) {
	switch {
	case c.Reset.Equal(b.reset):
		b.used = max(b.used, c.Used+b.pending)
	case now.Before(c.Reset):
		b.reset, b.used = c.Reset, c.Used+b.pending
	}
	b.synced = now
}

// Peek reports the window without counting.
func (l *Limiter) Peek(key, class, resource string) State {
	b := l.acquire(resource + "|" + key)
	defer l.mu.Unlock()
	return l.state(b, class, resource)
}

// Take counts one request unless the window is used up; ok is false when it
// was refused.
func (l *Limiter) Take(key, class, resource string) (State, bool) {
	return l.TakeN(key, class, resource, 1)
}

// TakeN counts n more requests at once (a GraphQL document's points beyond
// the one its request took) unless they do not fit in what is left; ok is
// false, and nothing counted, when they do not.
func (l *Limiter) TakeN(key, class, resource string, n int) (State, bool) {
	k := resource + "|" + key
	b := l.acquire(k)
	defer l.mu.Unlock()
	if b.used+n > l.LimitFor(class, resource) {
		return l.state(b, class, resource), false
	}
	b.used += n
	if l.store != nil {
		b.pending += n
		l.dirty[k] = struct{}{}
		if l.timer == nil && !l.closed {
			l.timer = time.AfterFunc(l.flushEvery(), l.tick)
		}
	}
	return l.state(b, class, resource), true
}

func (l *Limiter) flushEvery() time.Duration {
	if l.FlushEvery > 0 {
		return l.FlushEvery
	}
	return DefaultFlush
}

// tick is the timer's flush; it arms the next one if counts came in
// meanwhile.
func (l *Limiter) tick() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.Flush(ctx); err != nil {
		slog.Warn("rate limit: write counts", "err", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.timer = nil
	if len(l.dirty) > 0 && !l.closed {
		l.timer = time.AfterFunc(l.flushEvery(), l.tick)
	}
}

// Flush writes the counts not written yet in one transaction and merges
// the stored windows it gets back (other processes' counts); once a
// minute it also deletes the windows that ended from the store. Counts
// whose write failed are kept for the next flush.
func (l *Limiter) Flush(ctx context.Context) error {
	if l.store == nil {
		return nil
	}
	l.flushMu.Lock()
	defer l.flushMu.Unlock()
	l.mu.Lock()
	now := l.now()
	adds := make([]store.RateCount, 0, len(l.dirty))
	for k := range l.dirty {
		if b := l.buckets[k]; b != nil && b.pending > 0 && now.Before(b.reset) {
			adds = append(adds, store.RateCount{Bucket: k, Used: b.pending, Reset: b.reset})
			b.pending = 0
		}
	}
	clear(l.dirty)
	expire := now.Sub(l.expired) >= time.Minute
	if expire {
		l.expired = now
	}
	l.mu.Unlock()
	var err error
	if len(adds) > 0 {
		// Buckets in a fixed order: two processes flushing at once lock
		// rows in the same order (PostgreSQL).
		sort.Slice(adds, func(i, j int) bool { return adds[i].Bucket < adds[j].Bucket })
		var got []store.RateCount
		got, err = l.store.AddRateCounts(ctx, adds, now)
		l.mu.Lock()
		if err != nil {
			for _, a := range adds {
				if b := l.buckets[a.Bucket]; b != nil && b.reset.Equal(a.Reset) {
					b.pending += a.Used
					l.dirty[a.Bucket] = struct{}{}
				}
			}
		} else {
			for _, c := range got {
				if b := l.buckets[c.Bucket]; b != nil {
					l.merge(b, c, now)
				}
			}
		}
		l.mu.Unlock()
	}
	if expire && err == nil {
		_, err = l.store.ExpireRateCounts(ctx, now)
	}
	return err
}

// Close writes the counts not written yet; counting goes on in memory
// only. hubd calls it on shutdown, after the last request.
func (l *Limiter) Close() error {
	if l == nil || l.store == nil {
		return nil
	}
	l.mu.Lock()
	l.closed = true
	if l.timer != nil {
		l.timer.Stop()
	}
	l.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return l.Flush(ctx)
}

func (l *Limiter) state(b *bucket, class, resource string) State {
	limit := l.LimitFor(class, resource)
	return State{Limit: limit, Remaining: max(limit-b.used, 0), Used: b.used, Reset: b.reset, Resource: resource}
}

// KeyFor names a caller's bucket and class: per installation for
// installation tokens, per user for user tokens, per client address for
// anonymous requests (remoteAddr is http.Request.RemoteAddr).
func KeyFor(c *authz.Caller, remoteAddr string) (key, class string) {
	switch {
	case c != nil && c.Kind == authz.Installation:
		return "inst:" + strconv.FormatInt(c.InstallationID, 10), InstallationClass(c.InstallationRepos, c.InstallationUsers)
	case c != nil && c.User != nil:
		return "user:" + strconv.FormatInt(c.User.ID, 10), "user"
	}
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	return "ip:" + host, "anonymous"
}

// InstallationClass is the class of an installation token's requests:
// GitHub's 5,000 an hour, 50 more for each repository past 20 it reaches
// and, on an organization, 50 more for each of its users past 20, up to
// 12,500 (Limits.Installation and InstallationMax).
func InstallationClass(repos, users int) string {
	extra := 50*max(repos-20, 0) + 50*max(users-20, 0)
	if extra == 0 {
		return "installation"
	}
	return "installation+" + strconv.Itoa(extra)
}
