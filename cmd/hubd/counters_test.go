package main

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServeCountersRestart: the rate limit and the failed-login limit go
// on counting across restarts of `hubd serve` on the same database. After
// SIGTERM the count is exact (written on the way out); after SIGKILL at
// most the counts of the last flush interval (one second) are lost; failed
// logins are written at once, so a lockout survives even SIGKILL.
func TestServeCountersRestart(t *testing.T) {
	c := newCLI(t)
	c.ok("user", "create", "--login", "mona")
	tok := strings.TrimSpace(c.ok("token", "create", "--user", "mona", "--scopes", "repo"))
	flags := []string{"--login-failures", "3"}
	used := func(s *running) int {
		t.Helper()
		st, h, _ := s.get(t, "/api/v3/user", tok)
		n, err := strconv.Atoi(h.Get("X-RateLimit-Used"))
		if st != 200 || err != nil || h.Get("X-RateLimit-Resource") != "core" {
			t.Fatalf("GET /user: %d, X-RateLimit-Used %q, resource %q", st, h.Get("X-RateLimit-Used"), h.Get("X-RateLimit-Resource"))
		}
		if rem, _ := strconv.Atoi(h.Get("X-RateLimit-Remaining")); rem != 5000-n {
			t.Fatalf("X-RateLimit-Remaining %d with X-RateLimit-Used %d", rem, n)
		}
		return n
	}
	s := c.serve(flags...)
	for i := 1; i <= 10; i++ {
		if n := used(s); n != i {
			t.Fatalf("request %d: X-RateLimit-Used %d", i, n)
		}
	}
	// Three bad tokens from this address lock it out.
	for range 3 {
		if st, _, _ := s.get(t, "/api/v3/user", "ghp_bad"); st != 401 {
			t.Fatalf("bad token: %d", st)
		}
	}
	s.stop(t) // SIGINT: the counts are written on the way out

	s = c.serve(flags...)
	if n := used(s); n != 11 {
		t.Fatalf("after a restart X-RateLimit-Used is %d, want 11", n)
	}
	if st, _, m := s.get(t, "/api/v3/user", "ghp_bad"); st != 403 || !strings.Contains(m["message"].(string), "login attempts") {
		t.Fatalf("bad token after a restart during the lockout: %d %v", st, m)
	}

	// SIGKILL: what was flushed before it is kept, what came in the last
	// flush interval may be lost.
	time.Sleep(2500 * time.Millisecond) // two flush intervals and a half: request 11 is written
	for range 5 {
		used(s) // 12..16, possibly lost with the kill
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s = c.serve(flags...)
	if n := used(s); n < 12 || n > 17 {
		t.Fatalf("after SIGKILL X-RateLimit-Used is %d, want 12 (the last flush interval lost) to 17", n)
	} else {
		t.Logf("after SIGKILL: X-RateLimit-Used %d (17: nothing lost)", n)
	}
	if st, _, _ := s.get(t, "/api/v3/user", "ghp_bad"); st != 403 {
		t.Fatalf("bad token after SIGKILL during the lockout: %d", st)
	}
}
