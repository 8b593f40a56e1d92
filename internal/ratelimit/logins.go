package ratelimit

import (
	"sync"
	"time"
)

// Logins counts failed authentications per client address, GitHub's
// "failed login limit": after several requests with invalid credentials in a
// short period, every authentication attempt from there is refused for a
// while, valid credentials included. Refusing the valid ones too is the
// point: if a good token still worked during the lockout, a guesser would
// keep guessing and simply watch for the answer that is not a 403.
// Requests without credentials are not affected. Counters live in memory.
type Logins struct {
	mu     sync.Mutex
	limit  int
	window time.Duration
	now    func() time.Time
	addrs  map[string]*bucket
	sweep  time.Time
}

// NewLogins allows limit failures per address in each window (0: no limit).
func NewLogins(limit int, window time.Duration) *Logins {
	if window <= 0 {
		window = 5 * time.Minute
	}
	return &Logins{limit: limit, window: window, now: time.Now, addrs: map[string]*bucket{}}
}

// SetClock replaces the clock (tests).
func (l *Logins) SetClock(now func() time.Time) { l.now = now }

// Locked reports whether addr is locked out, and until when.
func (l *Logins) Locked(addr string) (time.Time, bool) {
	if l == nil || l.limit <= 0 {
		return time.Time{}, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.addrs[addr]
	if b == nil || !l.now().Before(b.reset) || b.used < l.limit {
		return time.Time{}, false
	}
	return b.reset, true
}

// Fail counts a failed authentication from addr. The window starts at the
// first failure; failures during a lockout do not extend it.
func (l *Logins) Fail(addr string) {
	if l == nil || l.limit <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if now.After(l.sweep) {
		for k, b := range l.addrs {
			if !now.Before(b.reset) {
				delete(l.addrs, k)
			}
		}
		l.sweep = now.Add(l.window)
	}
	b := l.addrs[addr]
	if b == nil || !now.Before(b.reset) {
		b = &bucket{reset: now.Add(l.window)}
		l.addrs[addr] = b
	}
	b.used++
}
