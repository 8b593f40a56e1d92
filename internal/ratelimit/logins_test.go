package ratelimit

import (
	"testing"
	"time"
)

func TestLogins(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := NewLogins(3, time.Minute)
	l.SetClock(func() time.Time { return now })
	checkLockout(t, &now, l, l, nil)

	// 0 disables the lockout; a nil Logins is a disabled one.
	off := NewLogins(0, time.Minute)
	for i := 0; i < 100; i++ {
		off.Fail("x")
	}
	var none *Logins
	none.Fail("x")
	if _, locked := off.Locked("x"); locked {
		t.Fatal("disabled lockout locked")
	}
	if _, locked := none.Locked("x"); locked {
		t.Fatal("nil lockout locked")
	}
}

// checkLockout runs the lockout through a and b (the same Logins, or two
// on one store: failures through either count for both) with a limit of 3
// in a minute on the clock *now; again, when set, makes another Logins on
// the store (a restart), which must see the lockout too.
func checkLockout(t *testing.T, now *time.Time, a, b *Logins, again func() *Logins) {
	t.Helper()
	for i, l := range []*Logins{a, b, a} {
		if _, locked := b.Locked("10.0.0.1"); locked {
			t.Fatalf("locked after %d failures", i)
		}
		l.Fail("10.0.0.1")
	}
	until, locked := b.Locked("10.0.0.1")
	if !locked || !until.Equal(now.Add(time.Minute)) {
		t.Fatalf("after 3 failures: locked %v until %v", locked, until)
	}
	if again != nil {
		if _, locked := again().Locked("10.0.0.1"); !locked {
			t.Fatal("a new Logins on the store (a restart) forgot the lockout")
		}
	}
	if _, locked := a.Locked("10.0.0.2"); locked {
		t.Fatal("another address is locked")
	}
	// Failures during the lockout do not extend it.
	*now = now.Add(50 * time.Second)
	b.Fail("10.0.0.1")
	if u, _ := a.Locked("10.0.0.1"); !u.Equal(until) {
		t.Fatalf("lockout moved to %v", u)
	}
	*now = now.Add(10 * time.Second)
	if _, locked := a.Locked("10.0.0.1"); locked {
		t.Fatal("still locked when the window ended")
	}
	// A new window starts at the next failure.
	a.Fail("10.0.0.1")
	if _, locked := b.Locked("10.0.0.1"); locked {
		t.Fatal("locked after one failure of a new window")
	}
}
