package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// TestPullChecksLive: an open pull request's page loads live.js under a
// CSP that allows this site's script, and its checks document lists the
// head's check runs and statuses with the merge box's summary, a workflow
// job's log only while it runs; a closed pull request's page is not live;
// the document is the page's: 404 to those who may not see the
// repository, and no form.
func TestPullChecksLive(t *testing.T) {
	l := newLoop(t)
	e := l.e
	e.Must(201, "POST", "/repos/mona/app/pulls", l.monaTok, map[string]any{"title": "Shout", "head": "feature", "base": "main"})
	page := l.mona.Get("/mona/app/pull/2")
	must(t, page, 200, `data-live-checks="/mona/app/pull/2/checks"`, `<script src="/-/live.js" defer></script>`)
	if c := page.Header.Get("Content-Security-Policy"); !strings.Contains(c, "script-src 'self'") || !strings.Contains(c, "connect-src 'self'") {
		t.Fatalf("live pull request page CSP: %q", c)
	}
	type doc struct {
		Open    bool   `json:"open"`
		Summary string `json:"summary"`
		Checks  []struct {
			Name, State, Href, Log string
		} `json:"checks"`
	}
	read := func() doc {
		t.Helper()
		p := l.rita.Get("/mona/app/pull/2/checks")
		if p.Status != 200 || !strings.HasPrefix(p.Header.Get("Content-Type"), "application/json") || p.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("checks: %d %q %q", p.Status, p.Header.Get("Content-Type"), p.Header.Get("Cache-Control"))
		}
		var d doc
		if err := json.Unmarshal([]byte(p.Body), &d); err != nil {
			t.Fatalf("checks: %v: %s", err, p.Body)
		}
		return d
	}
	if d := read(); !d.Open || len(d.Checks) != 0 || d.Summary != "" {
		t.Fatalf("no checks yet: %+v", d)
	}
	var cr struct {
		ID int64 `json:"id"`
	}
	e.Must(201, "POST", "/repos/mona/app/check-runs", l.monaTok, map[string]any{"name": "lint", "head_sha": "feature", "status": "in_progress"}).JSON(t, &cr)
	e.Must(201, "POST", "/repos/mona/app/statuses/feature", l.monaTok, map[string]any{"state": "success", "context": "ci/other"})
	d := read()
	if len(d.Checks) != 2 || d.Checks[0].Name != "lint" || d.Checks[0].State != "in_progress" || d.Checks[0].Log != "" ||
		d.Checks[1].Name != "ci/other" || d.Checks[1].State != "success" || d.Summary != "1 pending check" {
		t.Fatalf("checks: %+v", d)
	}
	e.Must(200, "PATCH", "/repos/mona/app/check-runs/"+strconv.FormatInt(cr.ID, 10), l.monaTok, map[string]any{"status": "completed", "conclusion": "success"})
	if d := read(); d.Checks[0].State != "success" || d.Summary != "All checks have passed" {
		t.Fatalf("after completion: %+v", d)
	}
	if p := l.mona.Post("/mona/app/pull/2/checks", url.Values{}); p.Status != http.StatusNotFound && p.Status != http.StatusForbidden {
		t.Fatalf("POST checks: %d", p.Status)
	}
	must(t, l.rita.Get("/mona/app/pull/99/checks"), 404)

	e.Must(200, "PATCH", "/repos/mona/app/pulls/2", l.monaTok, map[string]any{"state": "closed"})
	if d := read(); d.Open {
		t.Fatalf("closed: %+v", d)
	}
	closed := l.mona.Get("/mona/app/pull/2")
	must(t, closed, 200, "lint")
	if strings.Contains(closed.Body, "live.js") || strings.Contains(closed.Header.Get("Content-Security-Policy"), "script-src") {
		t.Fatal("a closed pull request's page is live")
	}

	e.Must(200, "PATCH", "/repos/mona/app", l.monaTok, map[string]any{"private": true})
	anon := e.Browser()
	must(t, l.rita.Get("/mona/app/pull/2/checks"), 404)
	must(t, anon.Get("/mona/app/pull/2/checks"), 404)
	must(t, l.mona.Get("/mona/app/pull/2/checks"), 200, `"name":"lint"`)
}
