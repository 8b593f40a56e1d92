package catalogue

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStatusDisplay(t *testing.T) {
	for _, tc := range []struct {
		s             Status
		label, colour string
	}{
		{Supported, "Supported", "green"},
		{Partial, "Partial", "blue"},
		{Unsupported, "Planned", "yellow"},
		{Never, "Never", "red"},
		{"bogus", "Planned", "yellow"}, // an unknown key displays as Planned
		{"", "Planned", "yellow"},
	} {
		if got := tc.s.Label(); got != tc.label {
			t.Errorf("%q.Label() = %q, want %q", tc.s, got, tc.label)
		}
		if got := tc.s.Colour(); got != tc.colour {
			t.Errorf("%q.Colour() = %q, want %q", tc.s, got, tc.colour)
		}
	}
	if got := Badge(Supported); got != "Supported" {
		t.Errorf("Badge(Supported) = %q", got)
	}
	if got := Badge(Unsupported, 12); got != "Planned: 12" {
		t.Errorf("Badge(Unsupported, 12) = %q", got)
	}
	if got := Badge("weird", 3); got != "Planned: 3" {
		t.Errorf("Badge(weird, 3) = %q", got)
	}
	if s, ok := ParseStatus(" planned "); !ok || s != Unsupported {
		t.Errorf("ParseStatus(planned) = %q %v", s, ok)
	}
	if _, ok := ParseStatus("done"); ok {
		t.Error("ParseStatus(done) ok")
	}
	if !(Supported.Rank() > Partial.Rank() && Partial.Rank() > Unsupported.Rank() && Unsupported.Rank() > Never.Rank()) {
		t.Error("ranks out of order")
	}
	if TokenColour("UAT") != "blue" || TokenColour("IAT") != "purple" {
		t.Error("token colours: UAT is blue, IAT purple")
	}
}

func TestNeverTable(t *testing.T) {
	for id, reason := range never {
		if _, ok := ByID(id); !ok {
			t.Errorf("never: %s is not an operation of the ledger", id)
		}
		if strings.TrimSpace(reason) == "" {
			t.Errorf("never: %s has no reason", id)
		}
	}
}

func TestLedger(t *testing.T) {
	ops := All()
	if len(ops) < 1500 {
		t.Fatalf("ledger has %d operations", len(ops))
	}
	seen := map[string]bool{}
	for _, o := range ops {
		if o.OperationID == "" || o.Category == "" || o.Summary == "" || len(o.Flavours) == 0 {
			t.Errorf("incomplete entry %+v", o)
		}
		if seen[o.Method+" "+o.Path] {
			t.Errorf("%s %s twice", o.Method, o.Path)
		}
		seen[o.Method+" "+o.Path] = true
	}
}

// TestSpecPackage keeps SpecPackage in step with the installed description.
func TestSpecPackage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "node_modules", "@octokit", "openapi", "package.json"))
	if err != nil {
		t.Fatalf("%v (run `make deps`)", err)
	}
	var pkg struct{ Name, Version string }
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	if got := pkg.Name + "@" + pkg.Version; got != SpecPackage {
		t.Errorf("node_modules has %s, SpecPackage says %s: regenerate the ledger and update it", got, SpecPackage)
	}
}

func TestReport(t *testing.T) {
	routes := []RouteInfo{
		{Method: "GET", Pattern: "/user", OperationID: "users/get-authenticated"},
		{Method: "GET", Pattern: "/{$}", OperationID: "meta/root"},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/git/trees/{tree_sha}", OperationID: "git/get-tree", Note: "recursive is not supported"},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/git/ref/{ref...}", OperationID: "git/get-ref"},
		{Method: "GET", Pattern: "/catalogue", OperationID: "hubd/catalogue", Extension: true},
	}
	r := NewReport(routes)
	want := map[string]Status{
		"users/get-authenticated":             Supported,
		"meta/root":                           Supported,
		"git/get-ref":                         Supported,
		"git/get-tree":                        Partial,
		"enterprise-admin/get-cluster-status": Never,
		"repos/get":                           Unsupported,
	}
	var sum Counts
	for _, e := range r.Operations {
		sum.Add(e.Status)
		if w, ok := want[e.OperationID]; ok && e.Status != w {
			t.Errorf("%s: %s, want %s", e.OperationID, e.Status, w)
		}
		if e.Label != e.Status.Label() {
			t.Errorf("%s: label %q", e.OperationID, e.Label)
		}
		if e.OperationID == "git/get-tree" && e.Note != "recursive is not supported" {
			t.Errorf("partial note = %q", e.Note)
		}
		if e.Subcategory == "" {
			t.Errorf("%s has no subcategory", e.OperationID)
		}
	}
	if sum != r.Summary || r.Summary.Total != len(All()) {
		t.Errorf("summary %+v, counted %+v, ledger %d", r.Summary, sum, len(All()))
	}
	if r.Summary.Supported != 3 || r.Summary.Partial != 1 || r.Summary.Never != len(never) {
		t.Errorf("summary %+v", r.Summary)
	}
	var cats Counts
	for _, c := range r.Categories {
		var subs Counts
		for _, s := range c.Subcategories {
			for _, st := range Statuses {
				for i := 0; i < s.Summary.Of(st); i++ {
					subs.Add(st)
				}
			}
		}
		if subs != c.Summary {
			t.Errorf("%s: subcategories add up to %+v, category says %+v", c.Name, subs, c.Summary)
		}
		for _, st := range Statuses {
			for i := 0; i < c.Summary.Of(st); i++ {
				cats.Add(st)
			}
		}
	}
	if cats != r.Summary {
		t.Errorf("categories add up to %+v, summary %+v", cats, r.Summary)
	}
	if len(r.Extensions) != 1 || r.Extensions[0].Path != "/catalogue" {
		t.Errorf("extensions %+v", r.Extensions)
	}
	if r.Tokens.UAT == 0 || r.Tokens.IAT == 0 || r.Tokens.UATGitHubCom == 0 || r.Tokens.UATGitHubCom > r.Tokens.UAT {
		t.Errorf("tokens %+v", r.Tokens)
	}

	f := r.Filter(Filter{Statuses: []Status{Supported, Partial}})
	if f.Summary.Total != 4 || f.Summary.Supported != 3 || f.Summary.Partial != 1 || len(f.Operations) != 4 {
		t.Errorf("filtered summary %+v", f.Summary)
	}
	if r.Summary.Supported != 3 || len(r.Operations) != len(All()) {
		t.Error("Filter changed the report")
	}
	for _, tc := range []struct {
		f    Filter
		want string // an operationId that must match
		not  string // one that must not
	}{
		{Filter{Query: "authenticated user GET"}, "users/get-authenticated", "users/update-authenticated"},
		{Filter{Token: "none"}, "enterprise-admin/get-cluster-status", "users/get-authenticated"},
		{Filter{Token: "IAT"}, "meta/root", "users/get-authenticated"},
		{Filter{Flavour: "ghes-3.19"}, "enterprise-admin/get-cluster-status", "copilot/list-copilot-seats"},
		{Filter{Categories: []string{"git"}}, "git/get-tree", "meta/root"},
		{Filter{Query: "recursive"}, "git/get-tree", "git/get-ref"},
	} {
		got := map[string]bool{}
		for _, e := range r.Filter(tc.f).Operations {
			got[e.OperationID] = true
		}
		if !got[tc.want] || got[tc.not] {
			t.Errorf("%+v: %s matched=%v, %s matched=%v", tc.f, tc.want, got[tc.want], tc.not, got[tc.not])
		}
	}
}

func TestRegressions(t *testing.T) {
	before := NewReport([]RouteInfo{
		{Method: "GET", Pattern: "/user", OperationID: "users/get-authenticated"},
		{Method: "GET", Pattern: "/users/{username}", OperationID: "users/get-by-username"},
	})
	var buf bytes.Buffer
	if err := WriteJSON(&buf, before); err != nil {
		t.Fatal(err)
	}
	saved, err := ReadReport(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// Same table: no regression. More routes: none either.
	if g := Regressions(saved, before); len(g) != 0 {
		t.Errorf("same report: %v", g)
	}
	more := NewReport([]RouteInfo{
		{Method: "GET", Pattern: "/user", OperationID: "users/get-authenticated"},
		{Method: "GET", Pattern: "/users/{username}", OperationID: "users/get-by-username"},
		{Method: "GET", Pattern: "/users", OperationID: "users/list"},
	})
	if g := Regressions(saved, more); len(g) != 0 {
		t.Errorf("improvement: %v", g)
	}
	// One dropped, one Partial now.
	after := NewReport([]RouteInfo{
		{Method: "GET", Pattern: "/user", OperationID: "users/get-authenticated", Note: "no plan field"},
	})
	g := Regressions(saved, after)
	if len(g) != 2 {
		t.Fatalf("regressions %v", g)
	}
	got := g[0].String() + "\n" + g[1].String()
	for _, w := range []string{"GET /user (users/get-authenticated): Supported -> Partial", "GET /users/{username} (users/get-by-username): Supported -> Planned"} {
		if !strings.Contains(got, w) {
			t.Errorf("regressions %q lack %q", got, w)
		}
	}
	// An unknown status key in a saved report counts as Planned: Planned
	// now is no regression, Never is.
	odd := &Report{Operations: []Entry{
		{Method: "GET", Path: "/users", OperationID: "users/list", Status: "mystery"},
		{Method: "GET", Path: "/manage/v1/cluster/status", OperationID: "enterprise-admin/get-cluster-status", Status: "mystery"},
	}}
	g = Regressions(odd, NewReport(nil))
	if len(g) != 1 || g[0].OperationID != "enterprise-admin/get-cluster-status" || !strings.Contains(g[0].String(), "Planned -> Never") {
		t.Errorf("regressions from unknown keys: %v", g)
	}
}

func TestReadmeSection(t *testing.T) {
	doc := "# x\n\n" + ReadmeBegin + "\nold\n" + ReadmeEnd + "\ntail\n"
	out, err := ReplaceReadmeSection(doc, "\nnew\n")
	if err != nil {
		t.Fatal(err)
	}
	if out != "# x\n\n"+ReadmeBegin+"\n\nnew\n"+ReadmeEnd+"\ntail\n" {
		t.Errorf("got %q", out)
	}
	if _, err := ReplaceReadmeSection("no markers", "x"); err == nil {
		t.Error("no error without markers")
	}
	if Thousands(1591) != "1,591" || Thousands(12) != "12" || Thousands(1234567) != "1,234,567" {
		t.Error("Thousands")
	}
}

func TestCategoryTitle(t *testing.T) {
	for in, want := range map[string]string{
		"secret-scanning":       "Secret scanning",
		"oauth-authorizations":  "OAuth authorizations",
		"api-insights":          "API insights",
		"org-pre-receive-hooks": "Org pre-receive hooks",
		"manage-ghes":           "Manage GHES",
		"":                      "General",
	} {
		if got := CategoryTitle(in); got != want {
			t.Errorf("CategoryTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFormats(t *testing.T) {
	r := NewReport([]RouteInfo{{Method: "GET", Pattern: "/user", OperationID: "users/get-authenticated"}}).Filter(Filter{Categories: []string{"users", "meta"}})
	var tb, md bytes.Buffer
	if err := WriteTable(&tb, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tb.String(), "Supported  GET     /user ") || !strings.Contains(tb.String(), "Supported: 1 · Partial: 0 · Planned: ") {
		t.Errorf("table:\n%s", tb.String())
	}
	for _, w := range []string{"## Users\n", "## Meta\n", "| Supported | GET | `/user` | Get the authenticated user (`users/get-authenticated`) | UAT |  |", "| **Total** |"} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("markdown lacks %q:\n%s", w, md.String())
		}
	}
}
