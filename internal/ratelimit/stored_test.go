package ratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/store/storetest"
)

// Two limiters on one database (two hubd processes, or one before and one
// after a restart) count into the same windows: a new limiter starts from
// what the other wrote, each sees the other's counts at its next flush or
// when its copy is older than the resync period, and a window that ended
// starts over in both.
func TestStoredCountsConverge(t *testing.T) {
	st := storetest.Open(t)
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	limits := Limits{Anonymous: 60, Authenticated: 100, Window: time.Hour}
	mk := func() *Limiter {
		l := NewStored(limits, st)
		l.SetClock(clock)
		l.FlushEvery = time.Hour // flushed by hand below
		t.Cleanup(func() { l.Close() })
		return l
	}
	take := func(l *Limiter, n int) State {
		t.Helper()
		var s State
		for range n {
			var ok bool
			if s, ok = l.Take("user:7", "user", "core"); !ok {
				t.Fatalf("refused at %+v", s)
			}
		}
		return s
	}
	a := mk()
	if s := take(a, 10); s.Used != 10 || s.Remaining != 90 {
		t.Fatalf("a after 10: %+v", s)
	}
	reset := a.Peek("user:7", "user", "core").Reset
	if err := a.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	b := mk() // the restart, or a second process
	if s := take(b, 1); s.Used != 11 || !s.Reset.Equal(reset) {
		t.Fatalf("b's first request: %+v, want used 11 and reset %v", s, reset)
	}
	take(b, 4)
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// a counts one more on its own copy, and gets b's counts back from its
	// flush.
	if s := take(a, 1); s.Used != 11 {
		t.Fatalf("a before its flush: %+v", s)
	}
	if err := a.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if s := a.Peek("user:7", "user", "core"); s.Used != 16 {
		t.Fatalf("a after its flush: %+v, want 16", s)
	}
	// b has not flushed since: after the resync period it reads again.
	if s := b.Peek("user:7", "user", "core"); s.Used != 15 {
		t.Fatalf("b within the resync period: %+v", s)
	}
	now = now.Add(11 * time.Second)
	if s := b.Peek("user:7", "user", "core"); s.Used != 16 {
		t.Fatalf("b after the resync period: %+v, want 16", s)
	}
	// The limit holds across both: 84 left.
	take(a, 50)
	a.Flush(ctx)
	now = now.Add(11 * time.Second)
	take(b, 34)
	if s, ok := b.Take("user:7", "user", "core"); ok || s.Remaining != 0 || s.Used != 100 {
		t.Fatalf("request 101 across two limiters: ok %v %+v", ok, s)
	}
	b.Flush(ctx)

	// The window ends: both start over, and the store forgets it.
	now = reset
	if s := take(a, 1); s.Used != 1 || !s.Reset.Equal(now.Add(time.Hour)) {
		t.Fatalf("a in a new window: %+v", s)
	}
	if s := b.Peek("user:7", "user", "core"); s.Used != 0 {
		t.Fatalf("b in a new window before a's flush: %+v", s)
	}
	if err := a.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := st.RateCounts(ctx, []string{"core|user:7"}, now); err != nil || got["core|user:7"].Used != 1 {
		t.Fatalf("stored after the new window's flush: %v %v", got, err)
	}
	if n, err := st.ExpireRateCounts(ctx, now.Add(2*time.Hour)); err != nil || n != 1 {
		t.Fatalf("expire: %d %v", n, err)
	}
}

// Failed logins are written at once: a lockout reached through one
// Logins holds in another on the same database (after a restart, or in a
// second process), until the window ends.
func TestStoredLogins(t *testing.T) {
	st := storetest.Open(t)
	now := time.Unix(1_800_000_000, 0)
	mk := func() *Logins {
		l := NewStoredLogins(3, time.Minute, st)
		l.SetClock(func() time.Time { return now })
		return l
	}
	checkLockout(t, &now, mk(), mk(), mk)
}
