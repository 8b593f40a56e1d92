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
