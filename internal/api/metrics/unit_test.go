package metrics

import (
	"context"
	"net/http"
	"testing"
	"time"
)

func TestWeekOf(t *testing.T) {
	for _, tc := range []struct{ at, week string }{
		{"2024-06-09T00:00:00Z", "2024-06-09"}, // a Sunday starts its week
		{"2024-06-15T23:59:59Z", "2024-06-09"},
		{"2024-06-16T00:00:00Z", "2024-06-16"},
		{"1970-01-01T00:00:00Z", "1969-12-28"},
		{"1969-12-31T12:00:00Z", "1969-12-28"},
	} {
		at, _ := time.Parse(time.RFC3339, tc.at)
		if got := time.Unix(weekOf(at.Unix()), 0).UTC().Format("2006-01-02"); got != tc.week {
			t.Errorf("weekOf(%s) = %s, want %s", tc.at, got, tc.week)
		}
	}
	if floorDiv(-1, 86400) != -1 || floorDiv(86399, 86400) != 0 {
		t.Fatal("floorDiv")
	}
}

func TestReferrer(t *testing.T) {
	for ref, want := range map[string]string{
		"":                                 "",
		"https://www.google.com/search?q=": "Google",
		"https://google.co.uk/":            "Google",
		"https://www.bing.com/":            "Bing",
		"https://Example.ORG:8443/a/b":     "example.org",
		"not a url":                        "",
	} {
		r, _ := http.NewRequest("GET", "/", nil)
		r.Header.Set("Referer", ref)
		if got := referrer(r); got != want {
			t.Errorf("referrer(%q) = %q, want %q", ref, got, want)
		}
	}
}

func TestStatsCacheDropAndEvict(t *testing.T) {
	h := &Hub{}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	defer h.cancel()
	h.stats.init()
	c := &h.stats
	// Entries made by hand: finished ones with their use times.
	now := time.Now()
	add := func(id int64, used time.Time, finished bool) *statsEntry {
		_, cancel := context.WithCancel(h.ctx)
		e := &statsEntry{head: "h", done: make(chan struct{}), cancel: cancel, used: used}
		if finished {
			close(e.done)
		}
		c.entries[id] = e
		return e
	}
	running := add(1, now.Add(-time.Hour), false)
	add(2, now.Add(-time.Minute), true)
	add(3, now, true)
	c.evict()
	if _, ok := c.entries[2]; ok || c.entries[1] != running || c.entries[3] == nil {
		t.Fatalf("evict left %v", c.entries)
	}
	h.Pushed(1)
	if _, ok := c.entries[1]; ok {
		t.Fatal("a push must drop the statistics")
	}
}
