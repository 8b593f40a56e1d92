package ratelimit

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/store"
)

// Logins counts failed authentications per client address, GitHub's
// "failed login limit": after several requests with invalid credentials in a
// short period, invalid credentials from there answer 403 instead of 401
// for a while. Valid ones are not refused (the server decides; see
// server.authenticate). Made by NewStoredLogins, the counts live in the
// store, each failure written at once (failures are rare, and a lockout
// must hold across a restart and across hubd processes); memory keeps the
// lockouts already seen, for at most maxAddrs addresses at once.
type Logins struct {
	mu     sync.Mutex
	limit  int
	window time.Duration
	now    func() time.Time
	addrs  map[string]*bucket
	sweep  time.Time
	store  *store.Store
}

// maxAddrs bounds the addresses counted at once.
const maxAddrs = 100_000

// NewLogins allows limit failures per address in each window (0: no limit),
// counted in memory only.
func NewLogins(limit int, window time.Duration) *Logins {
	if window <= 0 {
		window = 5 * time.Minute
	}
	return &Logins{limit: limit, window: window, now: time.Now, addrs: map[string]*bucket{}}
}

// NewStoredLogins is NewLogins with the counts kept in st.
func NewStoredLogins(limit int, window time.Duration, st *store.Store) *Logins {
	l := NewLogins(limit, window)
	l.store = st
	return l
}

// SetClock replaces the clock (tests).
func (l *Logins) SetClock(now func() time.Time) { l.now = now }

func loginBucket(addr string) string { return "login|" + addr }

// Locked reports whether addr is locked out, and until when.
func (l *Logins) Locked(addr string) (time.Time, bool) {
	if l == nil || l.limit <= 0 {
		return time.Time{}, false
	}
	l.mu.Lock()
	now := l.now()
	var seen bucket
	if b := l.addrs[addr]; b != nil {
		seen = *b
	}
	l.mu.Unlock()
	if now.Before(seen.reset) && seen.used >= l.limit {
		return seen.reset, true
	}
	if l.store == nil {
		return time.Time{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := l.store.RateCounts(ctx, []string{loginBucket(addr)}, now)
	if err != nil {
		slog.Warn("failed logins: read counts", "addr", addr, "err", err)
		return time.Time{}, false
	}
	c, ok := got[loginBucket(addr)]
	if !ok || c.Used < l.limit {
		return time.Time{}, false
	}
	l.remember(addr, now, c.Used, c.Reset)
	return c.Reset, true
}

// Fail counts a failed authentication from addr. The window starts at the
// first failure; failures during a lockout do not extend it.
func (l *Logins) Fail(addr string) {
	if l == nil || l.limit <= 0 {
		return
	}
	if l.store != nil {
		now := l.now()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		got, err := l.store.AddRateCounts(ctx, []store.RateCount{{Bucket: loginBucket(addr), Used: 1, Reset: now.Add(l.window)}}, now)
		if err == nil {
			l.remember(addr, now, got[0].Used, got[0].Reset)
			return
		}
		slog.Warn("failed logins: write count", "addr", addr, "err", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.addrs[addr]
	if b == nil || !now.Before(b.reset) {
		if b = l.add(addr, now); b == nil {
			return
		}
		b.reset = now.Add(l.window)
	}
	b.used++
}

// remember records addr's window as the store has it.
func (l *Logins) remember(addr string, now time.Time, used int, reset time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.addrs[addr]; b != nil {
		b.used, b.reset = used, reset
	} else if b = l.add(addr, now); b != nil {
		b.used, b.reset = used, reset
	}
}

// add makes addr's bucket (l.mu held), forgetting windows that ended; nil
// when memory is full of live windows (under a flood from many addresses
// memory stays bounded: the store, when there is one, still counts).
func (l *Logins) add(addr string, now time.Time) *bucket {
	if now.After(l.sweep) {
		for k, b := range l.addrs {
			if !now.Before(b.reset) {
				delete(l.addrs, k)
			}
		}
		l.sweep = now.Add(l.window)
	}
	if len(l.addrs) >= maxAddrs {
		return nil
	}
	b := &bucket{}
	l.addrs[addr] = b
	return b
}
