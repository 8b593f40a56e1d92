package web_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

var newTokenRE = regexp.MustCompile(`id="new-token-value"[^>]*value="([^"]+)"`)

// TestTokenCreationForms: the tokens page creates a classic token (note,
// expiration, scopes) and a fine-grained one (name, repositories,
// permissions) through the personal access token service; each value is
// shown once, on the form's answer (never stored by a cache), and works
// against the API with exactly what was asked; invalid input answers
// GitHub's validation message; the form needs the CSRF token and a
// session; the creation is in the audit log.
func TestTokenCreationForms(t *testing.T) {
	l := newLoop(t)
	e := l.e
	page := l.mona.Get("/settings/tokens")
	must(t, page, 200, "Generate new token (classic)", "Generate new token (fine-grained)", `name="scopes" value="repo"`, `name="permission_issues"`)
	form := page.FormFor("/settings/tokens")
	if form == nil || form.Get("authenticity_token") == "" {
		t.Fatalf("no creation form with its CSRF token")
	}
	create := func(fields url.Values) *apitest.Page {
		t.Helper()
		v := url.Values{"authenticity_token": {form.Get("authenticity_token")}}
		for k, vs := range fields {
			v[k] = vs
		}
		return l.mona.Post("/settings/tokens", v)
	}
	shown := func(p *apitest.Page) string {
		t.Helper()
		m := newTokenRE.FindStringSubmatch(p.Body)
		if p.Status != 200 || m == nil {
			t.Fatalf("no new token shown: %d %s\n%.2000s", p.Status, p.Location, p.Body)
		}
		if c := p.Header.Get("Cache-Control"); c != "no-store" {
			t.Fatalf("the new token's page may be stored: %q", c)
		}
		return html.UnescapeString(m[1])
	}

	// Classic: repo and read:org scopes, 7 days.
	p := create(url.Values{"kind": {"classic"}, "note": {"deploy script"}, "expires_in_days": {"7"}, "scopes": {"repo", "read:org"}})
	classic := shown(p)
	if !strings.HasPrefix(classic, "ghp_") || !strings.Contains(p.Body, "deploy script") {
		t.Fatalf("classic token %q", classic)
	}
	r := e.Must(200, "GET", "/user", classic, nil)
	if s := r.Header.Get("X-OAuth-Scopes"); !strings.Contains(s, "repo") || !strings.Contains(s, "read:org") {
		t.Fatalf("classic token scopes: %q", s)
	}
	again := l.mona.Get("/settings/tokens")
	must(t, again, 200, "deploy script", "…"+classic[len(classic)-8:])
	if strings.Contains(again.Body, classic) {
		t.Fatal("the token's value is shown a second time")
	}

	// Fine-grained: mona's app with issues:write (metadata read is implied).
	fine := shown(create(url.Values{"kind": {"fine_grained"}, "name": {"triage bot"}, "expires_in_days": {"30"},
		"repository_selection": {"selected"}, "repositories": {"app"}, "permission_issues": {"write"}}))
	if !strings.HasPrefix(fine, "github_pat_") {
		t.Fatalf("fine-grained token %q", fine)
	}
	e.Must(201, "POST", "/repos/mona/app/issues", fine, map[string]any{"title": "Filed by the triage bot"})
	e.Must(403, "POST", "/repos/mona/app/pulls", fine, map[string]any{"title": "x", "head": "feature", "base": "main"})

	// Refusals carry GitHub's validation messages back to the page.
	for _, bad := range []url.Values{
		{"kind": {"classic"}, "note": {""}, "expires_in_days": {"7"}},
		{"kind": {"classic"}, "note": {"x"}, "expires_in_days": {"7"}, "scopes": {"root"}},
		{"kind": {"fine_grained"}, "name": {"triage bot"}, "expires_in_days": {"30"}}, // the name is taken
		{"kind": {"fine_grained"}, "name": {"y"}, "expires_in_days": {"30"}, "repository_selection": {"selected"}, "repositories": {"nope"}, "permission_issues": {"read"}},
	} {
		if p := create(bad); p.Status != http.StatusSeeOther || !strings.Contains(p.Location, "flash=Validation+Failed") {
			t.Fatalf("%v: %d %s", bad, p.Status, p.Location)
		}
	}
	// Without the CSRF token, or without a session, nothing is created.
	if p := l.mona.Post("/settings/tokens", url.Values{"kind": {"classic"}, "note": {"forged"}, "expires_in_days": {"0"}}); p.Status != http.StatusForbidden {
		t.Fatalf("without CSRF: %d", p.Status)
	}
	anon := e.Browser()
	if p := anon.Post("/settings/tokens", url.Values{"kind": {"classic"}, "note": {"anon"}, "expires_in_days": {"0"}}); p.Status == 200 {
		t.Fatalf("anonymous creation: %d", p.Status)
	}
	if strings.Contains(l.mona.Get("/settings/tokens").Body, "forged") {
		t.Fatal("a forged form created a token")
	}
	r = e.Must(200, "GET", "/enterprises/hubd/audit-log?phrase=action:personal_access_token.create+actor:mona", e.AdminToken, nil)
	if strings.Count(string(r.Body), `"personal_access_token.create"`) != 2 {
		t.Fatalf("audit entries for the creations: %s", r.Body)
	}
}
