package web

import (
	"strings"
	"testing"
	"time"
)

func TestAgo(t *testing.T) {
	base := time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
	now = func() time.Time { return base }
	defer func() { now = time.Now }()
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{10 * time.Second, "just now"},
		{time.Minute, "1 minute ago"},
		{3 * time.Minute, "3 minutes ago"},
		{time.Hour, "1 hour ago"},
		{30 * time.Hour, "yesterday"},
		{3 * 24 * time.Hour, "3 days ago"},
		{60 * 24 * time.Hour, "on Apr 16"},
		{400 * 24 * time.Hour, "on May 11, 2025"},
		{-30 * time.Minute, "in 30 minutes"},
		{-5 * time.Hour, "in 5 hours"},
		{-10 * 24 * time.Hour, "on Jun 25, 2026"},
	} {
		got := string(ago(base.Add(-tc.d)))
		if !strings.Contains(got, ">"+tc.want+"</time>") {
			t.Errorf("%v: %s, want %q", tc.d, got, tc.want)
		}
	}
	got := string(ago(time.Date(2026, 6, 12, 9, 30, 5, 0, time.FixedZone("x", 3600))))
	if !strings.Contains(got, `datetime="2026-06-12T08:30:05Z" title="2026-06-12 08:30:05 UTC"`) {
		t.Errorf("exact time: %s", got)
	}
}

func TestPluralAndSize(t *testing.T) {
	for in, want := range map[string]string{
		plural(0, "comment"): "0 comments", plural(1, "comment"): "1 comment", plural(2, "repository"): "2 repositories",
		plural(1, "repository"): "1 repository", plural(3, "entry"): "3 entries",
		size(1): "1 byte", size(900): "900 bytes", size(1536): "1.5 KB", size(3 << 20): "3.0 MB",
	} {
		if in != want {
			t.Errorf("%q, want %q", in, want)
		}
	}
}

func TestLabelStyle(t *testing.T) {
	for c, want := range map[string]string{
		"ffffff":  "background:#ffffff;color:#1f2328",
		"000000":  "background:#000000;color:#ffffff",
		"d73a4a":  "background:#d73a4a;color:#ffffff",
		"red;x:y": "background:#d1d9e0;color:#1f2328",
		"":        "background:#d1d9e0;color:#1f2328",
	} {
		if got := string(labelStyle(c)); got != want {
			t.Errorf("%q: %s, want %s", c, got, want)
		}
	}
}

func TestRelink(t *testing.T) {
	src := `<p><a href="guide.md">g</a> <a href="../x/y.md#top">up</a> <a href="https://e.com/a">abs</a> <a href="/root">r</a>` +
		`<a href="#usage">u</a><a href="#nope">n</a> <img src="img/a b.png" alt="x"> <a href="../../../../etc">out</a></p><h2 id="user-content-usage">U</h2>`
	got := relink(src, "docs", "/o/r", "feature/x", "http://h/_raw/o/r")
	for _, want := range []string{
		`href="/o/r/blob/feature/x/docs/guide.md"`, `href="/o/r/blob/feature/x/x/y.md#top"`, `href="https://e.com/a"`,
		`href="/root"`, `href="#user-content-usage"`, `href="#nope"`, `src="http://h/_raw/o/r/feature/x/docs/img/a%20b.png"`,
		`href="/o/r/blob/feature/x/etc"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s in %s", want, got)
		}
	}
}
