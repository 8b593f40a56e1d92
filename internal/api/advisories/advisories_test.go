package advisories_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

var ghsaRE = regexp.MustCompile(`^GHSA-[23456789cfghjmpqrvwx]{4}-[23456789cfghjmpqrvwx]{4}-[23456789cfghjmpqrvwx]{4}$`)

type advisory struct {
	GHSAID      string  `json:"ghsa_id"`
	CVEID       *string `json:"cve_id"`
	URL         string  `json:"url"`
	State       string  `json:"state"`
	Summary     string  `json:"summary"`
	Severity    *string `json:"severity"`
	PublishedAt *string `json:"published_at"`
	Author      *struct{ Login string }
	Publisher   *struct{ Login string }
	Identifiers []struct{ Type, Value string }
	Submission  *struct{ Accepted bool }
	CVSS        struct {
		VectorString *string  `json:"vector_string"`
		Score        *float64 `json:"score"`
	} `json:"cvss"`
	CVSSSeverities struct {
		V4 struct {
			VectorString *string  `json:"vector_string"`
			Score        *float64 `json:"score"`
		} `json:"cvss_v4"`
	} `json:"cvss_severities"`
	CWEs            []struct{ CWEID, Name string } `json:"cwes"`
	CreditsDetailed []struct {
		User  struct{ Login string }
		Type  string
		State string
	} `json:"credits_detailed"`
	CollaboratingUsers []struct{ Login string } `json:"collaborating_users"`
	CollaboratingTeams []struct{ Slug string }  `json:"collaborating_teams"`
	PrivateFork        *struct {
		FullName string `json:"full_name"`
		Private  bool
	} `json:"private_fork"`
}

// manyCWEs is one more CWE id than an advisory may list.
var manyCWEs = func() []string {
	out := make([]string, 101)
	for i := range out {
		out[i] = "CWE-" + strconv.Itoa(i+1)
	}
	return out
}()

func vuln(name string) []map[string]any {
	return []map[string]any{{"package": map[string]any{"ecosystem": "npm", "name": name}, "vulnerable_version_range": "< 1.2.3", "patched_versions": "1.2.3"}}
}

// The life of an advisory on a public repository of a user: drafted by the
// owner with a CVSS v3.1 vector (scored), a CWE and a credit; hidden from
// everyone else (404) until the owner adds a collaborator, who may edit
// but not publish; a CVE request recorded once; a temporary private fork
// the collaborator can reach; published, it is public and final.
func TestAdvisoryLifecycle(t *testing.T) {
	e := apitest.New(t)
	_, monaT := e.NewUser("mona", false)
	hubot, hubotT := e.NewUser("hubot", false)
	_, eveT := e.NewUser("eve", false)
	mg := e.GitHub(monaT)
	if _, _, err := mg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("lib"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	repo, _, _ := mg.Repositories.Get(ctx, "mona", "lib")
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, repo.GetID(), hubot.ID, authz.Write) }); err != nil {
		t.Fatal(err)
	}
	var a advisory
	e.Must(201, "POST", "/repos/mona/lib/security-advisories", monaT, map[string]any{
		"summary": "XSS in render", "description": "Rendering user input runs scripts.", "vulnerabilities": vuln("lib"),
		"cvss_vector_string": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "cwe_ids": []string{"CWE-79"},
		"credits": []map[string]string{{"login": "hubot", "type": "finder"}, {"login": "mona", "type": "remediation_developer"}},
	}).JSON(t, &a)
	if !ghsaRE.MatchString(a.GHSAID) || a.State != "draft" || a.Severity == nil || *a.Severity != "critical" ||
		a.CVSS.Score == nil || *a.CVSS.Score != 9.8 || len(a.CWEs) != 1 || !strings.Contains(a.CWEs[0].Name, "Cross-site Scripting") ||
		a.URL != e.API+"/repos/mona/lib/security-advisories/"+a.GHSAID || a.Author == nil || a.Author.Login != "mona" ||
		len(a.Identifiers) != 1 || a.Identifiers[0].Value != a.GHSAID || a.Submission != nil || a.PrivateFork != nil {
		t.Fatalf("created %+v", a)
	}
	credits := map[string]string{}
	for _, c := range a.CreditsDetailed {
		credits[c.User.Login] = c.Type + "/" + c.State
	}
	if credits["hubot"] != "finder/pending" || credits["mona"] != "remediation_developer/accepted" {
		t.Errorf("credits %v", credits)
	}
	path := "/repos/mona/lib/security-advisories/" + a.GHSAID

	// Nobody but the managers sees a draft; a writer may not create one.
	e.Must(404, "GET", path, hubotT, nil)
	e.Must(404, "GET", path, eveT, nil)
	e.Must(404, "GET", path, "", nil)
	e.Must(404, "GET", "/repos/mona/lib/security-advisories/GHSA-nope", monaT, nil)
	if list, _, err := e.GitHub(eveT).SecurityAdvisories.ListRepositorySecurityAdvisories(ctx, "mona", "lib", nil); err != nil || len(list) != 0 {
		t.Fatalf("stranger lists %d, %v", len(list), err)
	}
	e.Must(403, "POST", "/repos/mona/lib/security-advisories", hubotT, map[string]any{"summary": "s", "description": "d", "vulnerabilities": vuln("lib")})
	e.Must(401, "POST", "/repos/mona/lib/security-advisories", "", map[string]any{"summary": "s", "description": "d", "vulnerabilities": vuln("lib")})
	e.Must(404, "PATCH", path, eveT, map[string]any{"summary": "mine now"})

	// Bad input: GitHub's 422s, nothing written.
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"cvss_vector_string": "CVSS:3.1/AV:N/AC:L"}, "cvss_vector_string"},
		{map[string]any{"cvss_vector_string": "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N"}, "cvss_vector_string"},
		{map[string]any{"cvss_vector_string": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "severity": "low"}, "cvss_vector_string"},
		{map[string]any{"cwe_ids": []string{"79"}}, "cwe_ids"},
		{map[string]any{"cve_id": "CVE-12"}, "cve_id"},
		{map[string]any{"credits": []map[string]string{{"login": "nobody-here", "type": "finder"}}}, "credits"},
		{map[string]any{"collaborating_users": []string{"nobody-here"}}, "collaborating_users"},
		{map[string]any{"collaborating_teams": []string{"devs"}}, "collaborating_teams"},
		{map[string]any{"summary": "  "}, "summary"},
		{map[string]any{"cwe_ids": manyCWEs}, "cwe_ids"},
	} {
		var er struct {
			Message string
			Errors  []struct{ Resource, Field, Code string }
		}
		e.Must(422, "PATCH", path, monaT, c.body).JSON(t, &er)
		if er.Message != "Validation Failed" || len(er.Errors) != 1 || er.Errors[0].Field != c.field || er.Errors[0].Resource != "RepositoryAdvisory" {
			t.Errorf("%v: %+v", c.body, er)
		}
	}
	e.Must(422, "PATCH", path, monaT, map[string]any{"severity": "extreme"}) // the schema's enum
	e.Must(422, "PATCH", path, monaT, map[string]any{"unknown_field": true}) // additionalProperties
	var got advisory
	e.Must(200, "GET", path, monaT, nil).JSON(t, &got)
	if got.Summary != "XSS in render" || *got.Severity != "critical" || len(got.CollaboratingUsers) != 0 {
		t.Fatalf("refused updates changed %+v", got)
	}

	// A CVSS v4 vector is kept with no score; a severity by hand replaces
	// the v3 vector's.
	e.Must(200, "PATCH", path, monaT, map[string]any{"cvss_vector_string": "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"}).JSON(t, &got)
	if got.CVSSSeverities.V4.VectorString == nil || got.CVSSSeverities.V4.Score != nil || *got.CVSS.Score != 9.8 {
		t.Errorf("v4: %+v", got)
	}
	e.Must(200, "PATCH", path, monaT, map[string]any{"severity": "high"}).JSON(t, &got)
	if *got.Severity != "high" || got.CVSS.VectorString != nil {
		t.Errorf("severity by hand: %+v", got)
	}

	// A collaborator sees and edits it, but may not publish it.
	e.Must(200, "PATCH", path, monaT, map[string]any{"collaborating_users": []string{"hubot"}}).JSON(t, &got)
	if len(got.CollaboratingUsers) != 1 || got.CollaboratingUsers[0].Login != "hubot" {
		t.Fatalf("collaborators %+v", got.CollaboratingUsers)
	}
	e.Must(200, "GET", path, hubotT, nil)
	e.Must(200, "PATCH", path, hubotT, map[string]any{"summary": "XSS in render()"})
	e.Must(403, "PATCH", path, hubotT, map[string]any{"state": "published"})
	e.Must(403, "PATCH", path, hubotT, map[string]any{"collaborating_users": []string{}})
	if list, _, err := e.GitHub(hubotT).SecurityAdvisories.ListRepositorySecurityAdvisories(ctx, "mona", "lib", nil); err != nil || len(list) != 1 {
		t.Fatalf("collaborator lists %d, %v", len(list), err)
	}

	// CVE request: recorded once (hubd is no CNA); not by a collaborator.
	hg := e.GitHub(hubotT)
	if _, err := hg.SecurityAdvisories.RequestCVE(ctx, "mona", "lib", a.GHSAID); apitest.Status(err) != 403 {
		t.Errorf("collaborator requests a CVE: %v", err)
	}
	if resp, err := mg.SecurityAdvisories.RequestCVE(ctx, "mona", "lib", a.GHSAID); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("request CVE: %v", err)
	}
	if _, err := mg.SecurityAdvisories.RequestCVE(ctx, "mona", "lib", a.GHSAID); apitest.Status(err) != 422 {
		t.Errorf("second CVE request: %v", err)
	}

	// The temporary private fork: the owner's, private, named after the
	// advisory, reachable by its collaborators only; one per advisory.
	// go-github hands a 202's repository back in its AcceptedError.
	_, resp, err := hg.SecurityAdvisories.CreateTemporaryPrivateFork(ctx, "mona", "lib", a.GHSAID)
	var accepted *github.AcceptedError
	if !errors.As(err, &accepted) || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("fork: %v", err)
	}
	fork := new(github.Repository)
	if err := json.Unmarshal(accepted.Raw, fork); err != nil {
		t.Fatal(err)
	}
	forkName := "lib-" + strings.ToLower(a.GHSAID)
	if fork.GetFullName() != "mona/"+forkName || !fork.GetPrivate() || !fork.GetFork() {
		t.Fatalf("fork %s private=%v fork=%v", fork.GetFullName(), fork.GetPrivate(), fork.GetFork())
	}
	if _, _, err := mg.SecurityAdvisories.CreateTemporaryPrivateFork(ctx, "mona", "lib", a.GHSAID); apitest.Status(err) != 422 {
		t.Errorf("second fork: %v", err)
	}
	e.RunJobs()
	e.Must(200, "GET", "/repos/mona/"+forkName, hubotT, nil)
	e.Must(404, "GET", "/repos/mona/"+forkName, eveT, nil)
	if br, _, err := hg.Repositories.GetBranch(ctx, "mona", forkName, "main", 0); err != nil || br.GetCommit().GetSHA() == "" {
		t.Errorf("fork's git copy: %v", err)
	}
	e.Must(200, "GET", path, monaT, nil).JSON(t, &got)
	if got.PrivateFork == nil || got.PrivateFork.FullName != "mona/"+forkName || !got.PrivateFork.Private {
		t.Errorf("private_fork %+v", got.PrivateFork)
	}

	// Published: public, and final.
	e.Must(422, "PATCH", path, monaT, map[string]any{"state": "published", "vulnerabilities": []map[string]any{{"package": map[string]any{"ecosystem": "npm"}}}})
	e.Must(200, "PATCH", path, monaT, map[string]any{"state": "published", "cve_id": "CVE-2026-12345"}).JSON(t, &got)
	if got.State != "published" || got.PublishedAt == nil || got.Publisher == nil || got.Publisher.Login != "mona" ||
		len(got.Identifiers) != 2 || got.Identifiers[1].Value != "CVE-2026-12345" {
		t.Fatalf("published %+v", got)
	}
	e.Must(200, "GET", path, eveT, nil)
	e.Must(200, "GET", path, "", nil)
	e.Must(422, "PATCH", path, monaT, map[string]any{"state": "draft"})
	e.Must(403, "PATCH", path, eveT, map[string]any{"summary": "defaced"})
}

// Private vulnerability reporting: only administrators turn it on, for
// public repositories; then anyone signed in reports, sees their own report
// and no one else's; the managers accept (draft) or reject (closed) it.
func TestPrivateVulnerabilityReports(t *testing.T) {
	e := apitest.New(t)
	_, monaT := e.NewUser("mona", false)
	hubot, hubotT := e.NewUser("hubot", false)
	_, ritaT := e.NewUser("rita", false)
	_, eveT := e.NewUser("eve", false)
	mg := e.GitHub(monaT)
	repo, _, err := mg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("lib")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := mg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, repo.GetID(), hubot.ID, authz.Write) }); err != nil {
		t.Fatal(err)
	}
	report := map[string]any{"summary": "Path traversal in serve", "description": "../ escapes the root.", "vulnerabilities": vuln("lib"),
		"cvss_vector_string": "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N"}
	var on struct{ Enabled bool }
	e.Must(200, "GET", "/repos/mona/lib/private-vulnerability-reporting", monaT, nil).JSON(t, &on)
	if on.Enabled {
		t.Fatal("enabled by default")
	}
	e.Must(403, "POST", "/repos/mona/lib/security-advisories/reports", ritaT, report)
	e.Must(403, "PUT", "/repos/mona/lib/private-vulnerability-reporting", hubotT, nil)
	e.Must(403, "GET", "/repos/mona/lib/private-vulnerability-reporting", hubotT, nil)
	e.Must(422, "PUT", "/repos/mona/secret/private-vulnerability-reporting", monaT, nil)
	e.Must(204, "PUT", "/repos/mona/lib/private-vulnerability-reporting", monaT, nil)
	e.Must(200, "GET", "/repos/mona/lib/private-vulnerability-reporting", monaT, nil).JSON(t, &on)
	if !on.Enabled {
		t.Fatal("not enabled")
	}
	e.Must(401, "POST", "/repos/mona/lib/security-advisories/reports", "", report)
	var r advisory
	e.Must(201, "POST", "/repos/mona/lib/security-advisories/reports", ritaT, report).JSON(t, &r)
	if r.State != "triage" || r.Submission == nil || r.Submission.Accepted || *r.Severity != "medium" || *r.CVSS.Score != 6.1 ||
		len(r.CreditsDetailed) != 1 || r.CreditsDetailed[0].User.Login != "rita" || r.CreditsDetailed[0].Type != "reporter" {
		t.Fatalf("report %+v", r)
	}
	path := "/repos/mona/lib/security-advisories/" + r.GHSAID
	e.Must(200, "GET", path, ritaT, nil)
	e.Must(200, "PATCH", path, ritaT, map[string]any{"description": "../ escapes the root (and ..\\ on Windows)."})
	e.Must(403, "PATCH", path, ritaT, map[string]any{"state": "draft"})
	e.Must(404, "GET", path, eveT, nil)
	e.Must(404, "GET", path, hubotT, nil)
	if list, _, err := e.GitHub(ritaT).SecurityAdvisories.ListRepositorySecurityAdvisories(ctx, "mona", "lib", nil); err != nil || len(list) != 1 {
		t.Fatalf("reporter lists %d, %v", len(list), err)
	}
	list, _, err := mg.SecurityAdvisories.ListRepositorySecurityAdvisories(ctx, "mona", "lib", &github.ListRepositorySecurityAdvisoriesOptions{State: "triage"})
	if err != nil || len(list) != 1 || list[0].GetGHSAID() != r.GHSAID {
		t.Fatalf("triage list %d, %v", len(list), err)
	}
	e.Must(422, "PATCH", path, monaT, map[string]any{"state": "published"}) // accept it first
	var got advisory
	e.Must(200, "PATCH", path, monaT, map[string]any{"state": "draft"}).JSON(t, &got)
	if got.State != "draft" || got.Submission == nil || !got.Submission.Accepted {
		t.Fatalf("accepted %+v", got)
	}
	// Reports go nowhere once reporting is off, nor to a private repository.
	e.Must(204, "DELETE", "/repos/mona/lib/private-vulnerability-reporting", monaT, nil)
	e.Must(403, "POST", "/repos/mona/lib/security-advisories/reports", ritaT, report)
	e.Must(404, "POST", "/repos/mona/secret/security-advisories/reports", ritaT, report)
	// A second report, rejected.
	e.Must(204, "PUT", "/repos/mona/lib/private-vulnerability-reporting", monaT, nil)
	e.Must(201, "POST", "/repos/mona/lib/security-advisories/reports", eveT, report).JSON(t, &r)
	e.Must(200, "PATCH", "/repos/mona/lib/security-advisories/"+r.GHSAID, monaT, map[string]any{"state": "closed"}).JSON(t, &got)
	if got.State != "closed" {
		t.Fatalf("rejected %+v", got)
	}
}

// Lists page by cursor (per_page, after, before and the Link header),
// sort by created, updated or published in either direction, and filter
// by state.
func TestListAdvisories(t *testing.T) {
	e := apitest.New(t)
	_, monaT := e.NewUser("mona", false)
	mg := e.GitHub(monaT)
	if _, _, err := mg.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("lib")}); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range []string{"one", "two", "three", "four", "five"} {
		var a advisory
		e.Must(201, "POST", "/repos/mona/lib/security-advisories", monaT, map[string]any{"summary": s, "description": s, "vulnerabilities": vuln("lib")}).JSON(t, &a)
		ids = append(ids, a.GHSAID)
	}
	// Created in the same second: the id breaks ties, newest first.
	var all []advisory
	e.Must(200, "GET", "/repos/mona/lib/security-advisories", monaT, nil).JSON(t, &all)
	if len(all) != 5 || all[0].Summary != "five" || all[4].Summary != "one" {
		t.Fatalf("default order %v", all)
	}
	var seen []string
	opts := &github.ListRepositorySecurityAdvisoriesOptions{ListCursorOptions: github.ListCursorOptions{PerPage: 2}}
	for pages := 0; ; pages++ {
		list, resp, err := mg.SecurityAdvisories.ListRepositorySecurityAdvisories(ctx, "mona", "lib", opts)
		if err != nil || pages > 5 {
			t.Fatalf("page %d: %v", pages, err)
		}
		for _, a := range list {
			seen = append(seen, a.GetSummary())
		}
		if resp.After == "" {
			break
		}
		opts.After = resp.After
	}
	if strings.Join(seen, ",") != "five,four,three,two,one" {
		t.Fatalf("paged %v", seen)
	}
	// Back again: the last page's prev link reads the page before it.
	r := e.Must(200, "GET", "/repos/mona/lib/security-advisories?per_page=2&sort=created&direction=asc", monaT, nil)
	var page []advisory
	r.JSON(t, &page)
	next := r.Header.Get("Link")
	if len(page) != 2 || page[0].Summary != "one" || !strings.Contains(next, `rel="next"`) || strings.Contains(next, `rel="prev"`) {
		t.Fatalf("asc page %v, Link %q", page, next)
	}
	u := regexp.MustCompile(`<([^>]+)>; rel="next"`).FindStringSubmatch(next)[1]
	r = e.Must(200, "GET", u, monaT, nil)
	r.JSON(t, &page)
	if len(page) != 2 || page[0].Summary != "three" || !strings.Contains(u, "direction=asc") {
		t.Fatalf("second page %v", page)
	}
	prev := regexp.MustCompile(`<([^>]+)>; rel="prev"`).FindStringSubmatch(r.Header.Get("Link"))
	if prev == nil {
		t.Fatalf("no prev link: %q", r.Header.Get("Link"))
	}
	e.Must(200, "GET", prev[1], monaT, nil).JSON(t, &page)
	if len(page) != 2 || page[0].Summary != "one" || page[1].Summary != "two" {
		t.Fatalf("prev page %v", page)
	}
	e.Must(400, "GET", "/repos/mona/lib/security-advisories?after=bogus!", monaT, nil)
	e.Must(422, "GET", "/repos/mona/lib/security-advisories?sort=stars", monaT, nil)

	// state and sort=published.
	e.Must(200, "PATCH", "/repos/mona/lib/security-advisories/"+ids[1], monaT, map[string]any{"state": "published"})
	e.Must(200, "PATCH", "/repos/mona/lib/security-advisories/"+ids[3], monaT, map[string]any{"state": "closed"})
	e.Must(200, "GET", "/repos/mona/lib/security-advisories?state=published", monaT, nil).JSON(t, &page)
	if len(page) != 1 || page[0].GHSAID != ids[1] {
		t.Fatalf("published %v", page)
	}
	e.Must(200, "GET", "/repos/mona/lib/security-advisories?state=closed", monaT, nil).JSON(t, &page)
	if len(page) != 1 || page[0].GHSAID != ids[3] {
		t.Fatalf("closed %v", page)
	}
	e.Must(200, "GET", "/repos/mona/lib/security-advisories?sort=published&per_page=1", monaT, nil).JSON(t, &page)
	if len(page) != 1 || page[0].GHSAID != ids[1] {
		t.Fatalf("by published %v", page)
	}
	e.Must(200, "GET", "/repos/mona/lib/security-advisories?sort=updated&direction=desc&per_page=1", monaT, nil)
	// Anonymous readers of a public repository list its published ones.
	e.Must(200, "GET", "/repos/mona/lib/security-advisories", "", nil).JSON(t, &page)
	if len(page) != 1 || page[0].GHSAID != ids[1] {
		t.Fatalf("anonymous %v", page)
	}
}
