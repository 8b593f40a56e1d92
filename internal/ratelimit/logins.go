package ratelimit

import (
	"sync"
	"time"
)

// Logins counts failed authentications per client address, GitHub's
// "failed login limit": after several requests with invalid credentials in a
// short period, invalid credentials from there answer 403 instead of 401
// for a while. Valid ones are not refused (the server decides; see
// server.authenticate). Counters live in memory, for at most maxAddrs
// addresses at once.
type Logins struct {
	mu     sync.Mutex
	limit  int
	window time.Duration
	now    func() time.Time
	addrs  map[string]*bucket
	sweep  time.Time
}

// maxAddrs bounds the addresses counted at once.
const maxAddrs = 100_000

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
	if b == nil && len(l.addrs) >= maxAddrs {
		return // under a flood from many addresses: memory stays bounded
	}
	if b == nil || !now.Before(b.reset) {
		b = &bucket{reset: now.Add(l.window)}
		l.addrs[addr] = b
	}
	b.used++
}
