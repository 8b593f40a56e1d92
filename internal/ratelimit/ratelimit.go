// Package ratelimit counts requests per caller in hourly windows, like
// GitHub's primary rate limit. Counters live in memory: counting must never
// write to the database on a read.
package ratelimit

import (
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/authz"
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
}

// Limiter holds the counters.
type Limiter struct {
	mu      sync.Mutex
	limits  Limits
	now     func() time.Time
	buckets map[string]*bucket
	sweep   time.Time
}

// New makes a limiter.
func New(l Limits) *Limiter {
	if l.Window == 0 {
		l.Window = time.Hour
	}
	return &Limiter{limits: l, now: time.Now, buckets: map[string]*bucket{}}
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

func (l *Limiter) get(key string, now time.Time) *bucket {
	if now.After(l.sweep) {
		for k, b := range l.buckets {
			if !now.Before(b.reset) {
				delete(l.buckets, k)
			}
		}
		l.sweep = now.Add(l.limits.Window)
	}
	b := l.buckets[key]
	if b == nil || !now.Before(b.reset) {
		b = &bucket{reset: now.Add(l.limits.Window).Truncate(time.Second)}
		l.buckets[key] = b
	}
	return b
}

// Peek reports the window without counting.
func (l *Limiter) Peek(key, class, resource string) State {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.get(resource+"|"+key, l.now())
	return l.state(b, class, resource)
}

// Take counts one request unless the window is used up; ok is false when it
// was refused.
func (l *Limiter) Take(key, class, resource string) (State, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.get(resource+"|"+key, l.now())
	limit := l.LimitFor(class, resource)
	if b.used >= limit {
		return l.state(b, class, resource), false
	}
	b.used++
	return l.state(b, class, resource), true
}

// TakeN counts n more requests at once (a GraphQL document's points beyond
// the one its request took) unless they do not fit in what is left; ok is
// false, and nothing counted, when they do not.
func (l *Limiter) TakeN(key, class, resource string, n int) (State, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.get(resource+"|"+key, l.now())
	if b.used+n > l.LimitFor(class, resource) {
		return l.state(b, class, resource), false
	}
	b.used += n
	return l.state(b, class, resource), true
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
