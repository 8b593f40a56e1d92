package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestSecretAndVariableForms: an admin adds a repository secret (sealed
// with the repository's public key on the server, through the secrets
// service) and a variable from the settings pages and deletes them; the
// API lists what the forms did; names are checked with GitHub's wording;
// the values never appear on a page; a writer who is no admin gets 404
// and a form without its CSRF token does nothing.
func TestSecretAndVariableForms(t *testing.T) {
	l := newLoop(t)
	e := l.e
	l.collaborator(t) // rita may write, not administer
	const secrets, vars = "/mona/app/settings/secrets/actions", "/mona/app/settings/variables/actions"

	page := l.mona.Get(secrets)
	must(t, page, 200, "New or updated repository secret", `action="`+secrets+`"`)
	noFlash(t, post(t, l.mona, page, secrets, "name", "deploy_key", "value", "s3cr3t-value"))
	r := e.Must(200, "GET", "/repos/mona/app/actions/secrets", l.monaTok, nil)
	if !strings.Contains(string(r.Body), `"name":"DEPLOY_KEY"`) {
		t.Fatalf("secrets: %s", r.Body)
	}
	after := l.mona.Get(secrets)
	must(t, after, 200, "DEPLOY_KEY")
	if strings.Contains(after.Body, "s3cr3t-value") {
		t.Fatal("a secret's value is shown")
	}
	// The same name again updates it; GitHub's name rules are the service's.
	noFlash(t, post(t, l.mona, after, secrets, "name", "DEPLOY_KEY", "value", "rotated"))
	if p := post(t, l.mona, after, secrets, "name", "GITHUB_X", "value", "v"); !strings.Contains(p.Location, "flash=Secret+names+must+not+start+with+GITHUB_") {
		t.Fatalf("GITHUB_ name: %s", p.Location)
	}
	if p := post(t, l.mona, after, secrets, "name", "EMPTY", "value", ""); !strings.Contains(p.Location, "flash=Validation+Failed") {
		t.Fatalf("empty value: %s", p.Location)
	}

	vp := l.mona.Get(vars)
	must(t, vp, 200, "New repository variable")
	noFlash(t, post(t, l.mona, vp, vars, "name", "region", "value", "eu-north-hidden"))
	r = e.Must(200, "GET", "/repos/mona/app/actions/variables/REGION", l.monaTok, nil)
	if !strings.Contains(string(r.Body), `"value":"eu-north-hidden"`) {
		t.Fatalf("variable: %s", r.Body)
	}
	if p := post(t, l.mona, vp, vars, "name", "REGION", "value", "again"); !strings.Contains(p.Location, "flash=") {
		t.Fatalf("a second variable of the same name: %s", p.Location)
	}

	// rita (write) neither sees nor posts; no CSRF, no change.
	must(t, l.rita.Get(secrets), 404)
	token := page.FormFor(secrets).Get("authenticity_token")
	if p := l.rita.Post(secrets, url.Values{"authenticity_token": {token}, "name": {"RITA"}, "value": {"x"}}); p.Status != http.StatusNotFound && p.Status != http.StatusForbidden {
		t.Fatalf("rita's secret: %d %s", p.Status, p.Location)
	}
	if p := l.mona.Post(vars, url.Values{"name": {"FORGED"}, "value": {"x"}}); p.Status != http.StatusForbidden {
		t.Fatalf("without CSRF: %d", p.Status)
	}
	e.Must(404, "GET", "/repos/mona/app/actions/secrets/RITA", l.monaTok, nil)
	e.Must(404, "GET", "/repos/mona/app/actions/variables/FORGED", l.monaTok, nil)

	// Delete both from their pages.
	noFlash(t, post(t, l.mona, l.mona.Get(secrets), secrets+"/DEPLOY_KEY/delete"))
	noFlash(t, post(t, l.mona, l.mona.Get(vars), vars+"/REGION/delete"))
	e.Must(404, "GET", "/repos/mona/app/actions/secrets/DEPLOY_KEY", l.monaTok, nil)
	e.Must(404, "GET", "/repos/mona/app/actions/variables/REGION", l.monaTok, nil)
	must(t, l.mona.Get(secrets), 200, "This repository has no secrets.")
}
