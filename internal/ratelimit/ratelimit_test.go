package ratelimit

import (
	"testing"
	"time"
)

func TestTakeAndReset(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := New(Limits{Anonymous: 2, Authenticated: 3, Window: time.Hour})
	l.SetClock(func() time.Time { return now })
	for i := 0; i < 2; i++ {
		if _, ok := l.Take("1.2.3.4", "anonymous", "core"); !ok {
			t.Fatalf("request %d refused", i)
		}
	}
	st, ok := l.Take("1.2.3.4", "anonymous", "core")
	if ok || st.Remaining != 0 || st.Used != 2 || st.Limit != 2 {
		t.Fatalf("third request: ok=%v state=%+v", ok, st)
	}
	if st, ok := l.Take("user:1", "user", "core"); !ok || st.Remaining != 2 {
		t.Fatalf("other key shares the window: %+v", st)
	}
	now = now.Add(time.Hour)
	if st, ok := l.Take("1.2.3.4", "anonymous", "core"); !ok || st.Used != 1 {
		t.Fatalf("window did not reset: %+v", st)
	}
}

// An installation's limit scales with its repositories and its
// organization's users past 20, 50 for each, up to 12,500.
func TestInstallationScale(t *testing.T) {
	l := New(DefaultLimits())
	for _, c := range []struct{ repos, users, want int }{
		{0, 0, 5000}, {20, 20, 5000}, {21, 0, 5050}, {30, 25, 5750}, {500, 0, 12500},
	} {
		if got := l.LimitFor(InstallationClass(c.repos, c.users), "core"); got != c.want {
			t.Errorf("%d repositories, %d users: %d, want %d", c.repos, c.users, got, c.want)
		}
	}
}
