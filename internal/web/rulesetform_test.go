package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestRulesetEditor: an admin creates a branch ruleset from the editor
// (targets, bypass list, rules with parameters, enforcement) and edits
// it, through the rulesets service; the API reads back exactly what the
// forms said; the service's refusals come back to the page; writers who
// are no admins get 404, and a form without its CSRF token does nothing.
func TestRulesetEditor(t *testing.T) {
	l := newLoop(t)
	e := l.e
	l.collaborator(t)
	const rules = "/mona/app/settings/rules"
	must(t, l.mona.Get(rules), 200, `href="`+rules+`/new"`)
	page := l.mona.Get(rules + "/new")
	must(t, page, 200, "New branch ruleset", `value="~DEFAULT_BRANCH"`, `name="rule_pull_request"`, `name="bypass_5"`)
	p := post(t, l.mona, page, rules, "name", "Protect releases", "enforcement", "active", "include", "refs/heads/release/*, refs/heads/main",
		"exclude", "refs/heads/release/old", "rule_deletion", "1", "rule_pull_request", "1", "required_approvals", "2", "code_owners", "1",
		"rule_required_status_checks", "1", "checks", "ci/test, lint", "strict", "1", "bypass_5", "1")
	noFlash(t, p)
	id := p.Location[strings.LastIndex(p.Location, "/")+1:]
	type ruleset struct {
		Name        string `json:"name"`
		Enforcement string `json:"enforcement"`
		Bypass      []struct {
			ActorID   int64  `json:"actor_id"`
			ActorType string `json:"actor_type"`
			Mode      string `json:"bypass_mode"`
		} `json:"bypass_actors"`
		Conditions struct {
			RefName struct {
				Include []string `json:"include"`
				Exclude []string `json:"exclude"`
			} `json:"ref_name"`
		} `json:"conditions"`
		Rules []struct {
			Type       string          `json:"type"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"rules"`
	}
	read := func() ruleset {
		t.Helper()
		var r ruleset
		e.Must(200, "GET", "/repos/mona/app/rulesets/"+id, l.monaTok, nil).JSON(t, &r)
		return r
	}
	r := read()
	var types []string
	params := ""
	for _, x := range r.Rules {
		types = append(types, x.Type)
		params += string(x.Parameters)
	}
	if r.Name != "Protect releases" || r.Enforcement != "active" || len(r.Bypass) != 1 || r.Bypass[0].ActorID != 5 || r.Bypass[0].ActorType != "RepositoryRole" ||
		strings.Join(r.Conditions.RefName.Include, " ") != "refs/heads/release/* refs/heads/main" || strings.Join(r.Conditions.RefName.Exclude, " ") != "refs/heads/release/old" ||
		strings.Join(types, " ") != "deletion pull_request required_status_checks" ||
		!strings.Contains(params, `"required_approving_review_count":2`) || !strings.Contains(params, `"require_code_owner_review":true`) ||
		!strings.Contains(params, `"context":"ci/test"`) || !strings.Contains(params, `"strict_required_status_checks_policy":true`) {
		t.Fatalf("created: %+v %s", r, params)
	}

	// The edit page shows the ruleset in the editor; a save replaces it.
	edit := l.mona.Get(rules + "/" + id)
	must(t, edit, 200, `value="Protect releases"`, `name="rule_deletion" value="1" checked`, `name="bypass_5" value="1" checked`, `value="ci/test, lint"`)
	noFlash(t, post(t, l.mona, edit, rules+"/"+id, "name", "Protect main", "enforcement", "evaluate", "include", "~DEFAULT_BRANCH",
		"rule_non_fast_forward", "1"))
	r = read()
	if r.Name != "Protect main" || r.Enforcement != "evaluate" || len(r.Bypass) != 0 || len(r.Rules) != 1 || r.Rules[0].Type != "non_fast_forward" ||
		strings.Join(r.Conditions.RefName.Include, " ") != "~DEFAULT_BRANCH" {
		t.Fatalf("edited: %+v", r)
	}

	// The service's refusals come back as the page's message.
	if p := post(t, l.mona, edit, rules+"/"+id, "name", "Protect main", "enforcement", "sometimes", "include", "~DEFAULT_BRANCH"); !strings.Contains(p.Location, "flash=") {
		t.Fatalf("bad enforcement: %d %s", p.Status, p.Location)
	}
	if read().Enforcement != "evaluate" {
		t.Fatal("a refused edit changed the ruleset")
	}

	// rita may write but not administer: no editor, no form; no CSRF, no change.
	must(t, l.rita.Get(rules+"/new"), 404)
	tok := page.FormFor(rules).Get("authenticity_token")
	if p := l.rita.Post(rules, url.Values{"authenticity_token": {tok}, "name": {"Rita's"}, "enforcement": {"active"}}); p.Status != http.StatusNotFound && p.Status != http.StatusForbidden {
		t.Fatalf("rita creates a ruleset: %d", p.Status)
	}
	if p := l.mona.Post(rules, url.Values{"name": {"Forged"}, "enforcement": {"active"}}); p.Status != http.StatusForbidden {
		t.Fatalf("without CSRF: %d", p.Status)
	}
	list := e.Must(200, "GET", "/repos/mona/app/rulesets", l.monaTok, nil)
	if strings.Contains(string(list.Body), "Forged") || strings.Contains(string(list.Body), "Rita's") {
		t.Fatalf("a refused form created a ruleset: %s", list.Body)
	}
}
