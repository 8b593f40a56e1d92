package catalogue_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	cataloguepage "github.com/hubd/hubd/internal/api/catalogue"
	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/catalogue"
)

// expected is the catalogue of the test server's own route table.
func expected(e *apitest.Env) *catalogue.Report {
	return catalogue.NewReport(catalogue.Infos(e.Server.Routes()))
}

func TestCatalogueJSON(t *testing.T) {
	e := apitest.New(t)
	want := expected(e)
	var got catalogue.Report
	// Served at the root and under /api/v3, to anyone.
	for _, u := range []string{e.URL + "/catalogue.json", e.API + "/catalogue.json"} {
		r := e.Must(200, "GET", u, "", nil)
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s: Content-Type %q", u, ct)
		}
		if !r.Uncompressed {
			t.Errorf("%s: not gzipped for a client that accepts it", u)
		}
		got = catalogue.Report{}
		r.JSON(t, &got)
	}
	if got.Summary != want.Summary || got.Summary.Total != len(catalogue.All()) {
		t.Errorf("summary %+v, want %+v", got.Summary, want.Summary)
	}
	if got.Spec != catalogue.SpecPackage || len(got.Categories) != len(want.Categories) || got.Tokens != want.Tokens {
		t.Errorf("spec %q, %d categories, tokens %+v", got.Spec, len(got.Categories), got.Tokens)
	}
	byID := map[string]catalogue.Entry{}
	for _, op := range got.Operations {
		byID[op.OperationID] = op
	}
	// A Planned example: the first operation the route table leaves
	// Planned (a fixed one became wrong each time it was built).
	planned := ""
	for _, op := range want.Operations {
		if op.Status == catalogue.Unsupported {
			planned = op.OperationID
			break
		}
	}
	if planned == "" {
		t.Fatal("no Planned operation left to check the label of")
	}
	for id, st := range map[string]catalogue.Status{
		"users/get-authenticated":             catalogue.Supported,
		"enterprise-admin/get-cluster-status": catalogue.Never,
		planned:                               catalogue.Unsupported,
	} {
		if op := byID[id]; op.Status != st || op.Label != st.Label() {
			t.Errorf("%s: %s (%s), want %s", id, op.Status, op.Label, st)
		}
	}
	exts := map[string]bool{}
	for _, x := range got.Extensions {
		exts[x.Method+" "+x.Path] = true
	}
	if !exts["GET /catalogue"] || !exts["GET /catalogue.json"] {
		t.Errorf("extensions %+v", got.Extensions)
	}
	// Every registered route shows as Supported or Partial.
	for _, rt := range e.Server.Routes() {
		if rt.Extension {
			continue
		}
		if op := byID[rt.OperationID]; op.Status != catalogue.Supported && op.Status != catalogue.Partial {
			t.Errorf("registered %s shows %s", rt.OperationID, op.Status)
		}
	}

	// The page's filters work on the JSON too; the summary then counts the
	// selection.
	for _, tc := range []struct {
		query string
		n     int
		check func(catalogue.Entry) bool
	}{
		{"status=supported", want.Summary.Supported, func(o catalogue.Entry) bool { return o.Status == catalogue.Supported }},
		{"status=Planned,never", want.Summary.Unsupported + want.Summary.Never, func(o catalogue.Entry) bool {
			return o.Status == catalogue.Unsupported || o.Status == catalogue.Never
		}},
		{"token=none", want.Tokens.None, func(o catalogue.Entry) bool { return len(o.Tokens) == 0 }},
		{"category=users&q=authenticated+get", -1, func(o catalogue.Entry) bool { return o.Category == "users" }},
		{"flavour=ghes-3.19&status=never", want.Summary.Never, func(o catalogue.Entry) bool { return o.Status == catalogue.Never }},
	} {
		var sel catalogue.Report
		e.Must(200, "GET", e.URL+"/catalogue.json?"+tc.query, "", nil).JSON(t, &sel)
		if tc.n >= 0 && (sel.Summary.Total != tc.n || len(sel.Operations) != tc.n) {
			t.Errorf("%s: %d operations (summary %d), want %d", tc.query, len(sel.Operations), sel.Summary.Total, tc.n)
		}
		if len(sel.Operations) == 0 {
			t.Errorf("%s: nothing selected", tc.query)
		}
		for _, o := range sel.Operations {
			if !tc.check(o) {
				t.Errorf("%s selected %s %s", tc.query, o.OperationID, o.Status)
			}
		}
	}
}

var (
	rowRE   = regexp.MustCompile(`<tr class="op" id="op-([^"]+)" data-status="([a-z]+)"[^>]*>`)
	badgeRE = regexp.MustCompile(`<div class="badges" id="summary-badges">(.*?)</div>`)
	tagRE   = regexp.MustCompile(`<[^>]+>`)
)

// TestCataloguePageWithoutJavaScript reads the page as a browser without
// JavaScript would: the filter of the URL is applied by the server.
func TestCataloguePageWithoutJavaScript(t *testing.T) {
	e := apitest.New(t)
	want := expected(e)
	r := e.Must(200, "GET", e.URL+"/catalogue", "", nil, "Accept: text/html")
	page := string(r.Body)
	if ct := r.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	rows := rowRE.FindAllStringSubmatch(page, -1)
	if len(rows) != want.Summary.Total {
		t.Fatalf("%d rows, want %d", len(rows), want.Summary.Total)
	}
	if strings.Count(page, "<details class=\"cat\"") != len(want.Categories) {
		t.Errorf("%d categories, want %d", strings.Count(page, "<details class=\"cat\""), len(want.Categories))
	}
	if strings.Contains(page, "<details class=\"cat\" id=\"cat-users\" data-cat=\"users\" open") {
		t.Error("categories are open without a filter")
	}
	summary := func(page string) string {
		m := badgeRE.FindStringSubmatch(page)
		if m == nil {
			t.Fatal("no summary badges")
		}
		return tagRE.ReplaceAllString(strings.ReplaceAll(m[1], "</span>", " | "), "")
	}
	wantBadges := func(c catalogue.Counts) string {
		var b strings.Builder
		for _, s := range catalogue.Statuses {
			b.WriteString(catalogue.Badge(s, c.Of(s)) + " | ")
		}
		return b.String()
	}
	if got := summary(page); got != wantBadges(want.Summary) {
		t.Errorf("summary badges %q, want %q", got, wantBadges(want.Summary))
	}
	for _, s := range catalogue.Statuses {
		if !strings.Contains(page, `<span class="b `+s.Colour()+`" data-status="`+string(s)+`">`) {
			t.Errorf("no %s badge in %s", s, s.Colour())
		}
	}

	r = e.Must(200, "GET", e.URL+"/catalogue?status=never&token=&flavour=&q=", "", nil)
	page = string(r.Body)
	shown := 0
	for _, m := range rowRE.FindAllStringSubmatch(page, -1) {
		hidden := strings.HasSuffix(m[0], " hidden>")
		if !hidden {
			shown++
			if m[2] != "never" {
				t.Errorf("status=never shows %s (%s)", m[1], m[2])
			}
		} else if m[2] == "never" {
			t.Errorf("status=never hides %s", m[1])
		}
	}
	if shown != want.Summary.Never {
		t.Errorf("status=never shows %d rows, want %d", shown, want.Summary.Never)
	}
	if got, w := summary(page), wantBadges(catalogue.Counts{Never: want.Summary.Never, Total: want.Summary.Never}); got != w {
		t.Errorf("filtered summary %q, want %q", got, w)
	}
	if !strings.Contains(page, `<option value="never" selected>Never</option>`) {
		t.Error("the form does not show the filter")
	}
	if !strings.Contains(page, `<option value="users">Users</option>`) {
		t.Error("no category filter")
	}
	if !strings.Contains(page, `id="cat-enterprise-admin" data-cat="enterprise-admin" open>`) {
		t.Error("the category with matches is not open")
	}

	// HEAD and conditional requests work like everywhere else.
	r = e.Do("GET", e.URL+"/catalogue", "", nil)
	etag := r.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	e.Must(http.StatusNotModified, "GET", e.URL+"/catalogue", "", nil, "If-None-Match: "+etag)
}

func TestParseFilter(t *testing.T) {
	req, _ := http.NewRequest("GET", "/catalogue?status=planned,bogus&status=Supported&token=uat&flavour=nope&category=repos,+users&q=+list+", nil)
	f := cataloguepage.ParseFilter(req)
	b, _ := json.Marshal(f)
	if want := `{"Statuses":["unsupported","supported"],"Token":"UAT","Flavour":"","Categories":["repos","users"],"Query":"list"}`; string(b) != want {
		t.Errorf("ParseFilter = %s, want %s", b, want)
	}
}
