package catalogue

import (
	"encoding/json"
	"fmt"
	"github.com/hubd/hubd/internal/rest"
	"io"
	"sort"
	"strings"
)

// SpecPackage is the npm package (and version) the ledger is generated from;
// a test keeps it in step with node_modules.
const SpecPackage = "@octokit/openapi@23.0.2"

// Flavours are the descriptions whose union is the ledger.
var Flavours = []string{"api.github.com", "ghec", "ghes-3.19"}

// RouteInfo is what the catalogue needs to know of one registered route.
// (The server builds the route table; the catalogue only reads it, so it
// takes this copy rather than importing the server.)
type RouteInfo struct {
	Method      string
	Pattern     string
	OperationID string
	Note        string // a limitation: the operation is Partial
	Extension   bool   // hubd's own route, not an operation of the description
}

// Infos copies what the catalogue needs from a route table.
func Infos(routes []*rest.Route) []RouteInfo {
	out := make([]RouteInfo, 0, len(routes))
	for _, rt := range routes {
		out = append(out, RouteInfo{Method: rt.Method, Pattern: rt.Pattern, OperationID: rt.OperationID, Note: rt.Note, Extension: rt.Extension})
	}
	return out
}

// SpecPath is the description's path for a route pattern: a trailing
// {name...} wildcard is the spec's {name}, and {$} (an exact-match marker of
// Go's ServeMux, as in "GET /{$}") is dropped.
func SpecPath(pattern string) string {
	p := specNames.Replace(strings.ReplaceAll(pattern, "...}", "}"))
	p = strings.ReplaceAll(p, "{$}", "")
	if p == "" {
		p = "/"
	}
	return p
}

// specNames maps the path parameters the description names with a hyphen
// to the routes' spelling: Go's ServeMux takes only identifiers as wildcard
// names, so a route writes {enterprise_team} for {enterprise-team}.
var specNames = strings.NewReplacer("{enterprise_team}", "{enterprise-team}")

// Counts are the number of operations in each state.
type Counts struct {
	Supported   int `json:"supported"`
	Partial     int `json:"partial"`
	Unsupported int `json:"unsupported"`
	Never       int `json:"never"`
	Total       int `json:"total"`
}

// Add counts one operation in state s.
func (c *Counts) Add(s Status) {
	switch s.Norm() {
	case Supported:
		c.Supported++
	case Partial:
		c.Partial++
	case Never:
		c.Never++
	default:
		c.Unsupported++
	}
	c.Total++
}

// Of is the count of state s.
func (c Counts) Of(s Status) int {
	switch s.Norm() {
	case Supported:
		return c.Supported
	case Partial:
		return c.Partial
	case Never:
		return c.Never
	}
	return c.Unsupported
}

// Entry is one operation with its proven status.
type Entry struct {
	Method      string   `json:"method"`
	Path        string   `json:"path"`
	OperationID string   `json:"operationId"`
	Category    string   `json:"category"`
	Subcategory string   `json:"subcategory"`
	Title       string   `json:"title"`
	Docs        string   `json:"docs"`
	Flavours    []string `json:"flavours"`
	Tokens      []string `json:"tokens"`
	Status      Status   `json:"status"`
	Label       string   `json:"label"`
	// Note is the limitation of a Partial operation or the reason of a
	// Never one.
	Note string `json:"note,omitempty"`
}

// Key identifies an operation across versions of the report.
func (e *Entry) Key() string { return e.Method + " " + e.Path }

// HasToken reports whether the operation carries a token badge; "none"
// matches operations without any.
func (e *Entry) HasToken(kind string) bool {
	if kind == "none" {
		return len(e.Tokens) == 0
	}
	for _, t := range e.Tokens {
		if t == kind {
			return true
		}
	}
	return false
}

// InFlavour reports whether the operation is in a flavour's description.
func (e *Entry) InFlavour(f string) bool {
	for _, x := range e.Flavours {
		if x == f {
			return true
		}
	}
	return false
}

// Group is a category or subcategory with its counts.
type Group struct {
	Name          string  `json:"name"`
	Title         string  `json:"title"`
	Summary       Counts  `json:"summary"`
	Subcategories []Group `json:"subcategories,omitempty"`
}

// TokenCounts are the number of operations carrying each token badge.
type TokenCounts struct {
	UAT  int `json:"UAT"`
	IAT  int `json:"IAT"`
	None int `json:"none"`
	// UATGitHubCom counts the UAT operations of the api.github.com flavour
	// alone, the figure GitHub's own documentation quotes.
	UATGitHubCom int `json:"UAT_api_github_com"`
}

// Extension is one of hubd's own routes.
type Extension struct {
	Method string `json:"method"`
	Path   string `json:"path"`
}

// Report is the catalogue: every operation of the ledger with its status,
// grouped and counted. It is what GET /catalogue.json and `hubd catalogue
// --format json` print.
type Report struct {
	Spec       string      `json:"spec"`
	Flavours   []string    `json:"flavours"`
	Summary    Counts      `json:"summary"`
	Tokens     TokenCounts `json:"tokens"`
	Categories []Group     `json:"categories"`
	Operations []Entry     `json:"operations"`
	Extensions []Extension `json:"extensions"`
}

// NewReport computes every operation's status from the registered routes:
// Supported when a route serves it, Partial when that route declares a
// limitation note, Never when the never table gives a reason, Planned
// otherwise. Routes that are not operations of the ledger are left out
// (Check reports them).
func NewReport(routes []RouteInfo) *Report {
	registered := map[string]RouteInfo{}
	r := &Report{Spec: SpecPackage, Flavours: Flavours, Extensions: []Extension{}}
	for _, rt := range routes {
		if rt.Extension {
			r.Extensions = append(r.Extensions, Extension{Method: rt.Method, Path: SpecPath(rt.Pattern)})
			continue
		}
		registered[rt.Method+" "+SpecPath(rt.Pattern)] = rt
	}
	for _, o := range All() {
		e := Entry{Method: o.Method, Path: o.Path, OperationID: o.OperationID, Category: o.Category,
			Subcategory: o.Subcategory, Title: o.Summary, Docs: o.Docs, Flavours: o.Flavours, Tokens: o.Tokens,
			Status: Unsupported}
		if e.Subcategory == "" {
			// The description leaves a few without one; GitHub's docs file
			// them under the category's own page.
			e.Subcategory = e.Category
		}
		if e.Tokens == nil {
			e.Tokens = []string{}
		}
		if rt, ok := registered[o.Method+" "+o.Path]; ok {
			e.Status = Supported
			if rt.Note != "" {
				e.Status, e.Note = Partial, rt.Note
			}
		} else if reason, ok := never[o.OperationID]; ok {
			e.Status, e.Note = Never, reason
		}
		e.Label = e.Status.Label()
		r.Operations = append(r.Operations, e)
	}
	sort.SliceStable(r.Operations, func(i, j int) bool {
		a, b := &r.Operations[i], &r.Operations[j]
		if a.Category != b.Category {
			return CategoryTitle(a.Category) < CategoryTitle(b.Category)
		}
		if a.Subcategory != b.Subcategory {
			return CategoryTitle(a.Subcategory) < CategoryTitle(b.Subcategory)
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return methodOrder(a.Method) < methodOrder(b.Method)
	})
	sort.Slice(r.Extensions, func(i, j int) bool { return r.Extensions[i].Path < r.Extensions[j].Path })
	r.recount()
	return r
}

// recount fills the summaries from the operations (which are sorted by
// category and subcategory).
func (r *Report) recount() {
	r.Summary, r.Tokens, r.Categories = Counts{}, TokenCounts{}, []Group{}
	for i := range r.Operations {
		e := &r.Operations[i]
		r.Summary.Add(e.Status)
		if e.HasToken("UAT") {
			r.Tokens.UAT++
			if e.InFlavour("api.github.com") {
				r.Tokens.UATGitHubCom++
			}
		}
		if e.HasToken("IAT") {
			r.Tokens.IAT++
		}
		if len(e.Tokens) == 0 {
			r.Tokens.None++
		}
		n := len(r.Categories)
		if n == 0 || r.Categories[n-1].Name != e.Category {
			r.Categories = append(r.Categories, Group{Name: e.Category, Title: CategoryTitle(e.Category)})
			n++
		}
		c := &r.Categories[n-1]
		c.Summary.Add(e.Status)
		m := len(c.Subcategories)
		if m == 0 || c.Subcategories[m-1].Name != e.Subcategory {
			c.Subcategories = append(c.Subcategories, Group{Name: e.Subcategory, Title: CategoryTitle(e.Subcategory)})
			m++
		}
		c.Subcategories[m-1].Summary.Add(e.Status)
	}
}

// Filter selects operations. Empty fields select everything.
type Filter struct {
	Statuses   []Status // any of these
	Token      string   // "UAT", "IAT" or "none"
	Flavour    string   // "api.github.com", "ghec" or "ghes-3.19"
	Categories []string // any of these category names
	Query      string   // words that must all appear in the method, path, operationId, title, category or subcategory
}

// Active reports whether the filter selects anything less than everything.
func (f Filter) Active() bool {
	return len(f.Statuses) > 0 || f.Token != "" || f.Flavour != "" || len(f.Categories) > 0 || strings.TrimSpace(f.Query) != ""
}

// Match reports whether the filter selects e.
func (f Filter) Match(e *Entry) bool {
	if len(f.Statuses) > 0 {
		ok := false
		for _, s := range f.Statuses {
			ok = ok || s == e.Status
		}
		if !ok {
			return false
		}
	}
	if f.Token != "" && !e.HasToken(f.Token) {
		return false
	}
	if f.Flavour != "" && !e.InFlavour(f.Flavour) {
		return false
	}
	if len(f.Categories) > 0 {
		ok := false
		for _, c := range f.Categories {
			ok = ok || strings.EqualFold(c, e.Category)
		}
		if !ok {
			return false
		}
	}
	if q := strings.Fields(strings.ToLower(f.Query)); len(q) > 0 {
		text := e.SearchText()
		for _, w := range q {
			if !strings.Contains(text, w) {
				return false
			}
		}
	}
	return true
}

// SearchText is what the free-text filter searches, lower case.
func (e *Entry) SearchText() string {
	return strings.ToLower(strings.Join([]string{e.Method, e.Path, e.OperationID, e.Title, e.Category, e.Subcategory,
		CategoryTitle(e.Category), CategoryTitle(e.Subcategory), e.Note}, " "))
}

// Filter returns the report restricted to the operations f selects, with
// its counts recomputed.
func (r *Report) Filter(f Filter) *Report {
	out := *r
	out.Operations = nil
	for i := range r.Operations {
		if f.Match(&r.Operations[i]) {
			out.Operations = append(out.Operations, r.Operations[i])
		}
	}
	if out.Operations == nil {
		out.Operations = []Entry{}
	}
	out.recount()
	return &out
}

// ReadReport decodes a report saved as JSON.
func ReadReport(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("catalogue: read report: %w", err)
	}
	if r.Operations == nil {
		return nil, fmt.Errorf("catalogue: read report: no operations")
	}
	return &r, nil
}

// Regression is an operation whose status fell below a saved report's.
type Regression struct {
	Method, Path, OperationID string
	Was, Now                  Status // Now is "" when the operation left the ledger
}

func (g Regression) String() string {
	now := "gone from the ledger"
	if g.Now != "" {
		now = g.Now.Label()
	}
	return fmt.Sprintf("%s %s (%s): %s -> %s", g.Method, g.Path, g.OperationID, g.Was.Norm().Label(), now)
}

// Regressions lists the operations of saved whose status is lower in r.
// Operations are matched by method and path, then by operationId. An
// operation that left the ledger counts as a regression only when it was
// Supported or Partial.
func Regressions(saved, r *Report) []Regression {
	byKey := map[string]*Entry{}
	byID := map[string]*Entry{}
	for i := range r.Operations {
		e := &r.Operations[i]
		byKey[e.Key()] = e
		byID[e.OperationID] = e
	}
	var out []Regression
	for i := range saved.Operations {
		old := &saved.Operations[i]
		cur, ok := byKey[old.Key()]
		if !ok {
			cur, ok = byID[old.OperationID]
		}
		switch {
		case !ok && old.Status.Rank() >= Partial.Rank():
			out = append(out, Regression{Method: old.Method, Path: old.Path, OperationID: old.OperationID, Was: old.Status})
		case ok && cur.Status.Rank() < old.Status.Rank():
			out = append(out, Regression{Method: old.Method, Path: old.Path, OperationID: old.OperationID, Was: old.Status, Now: cur.Status})
		}
	}
	return out
}

// Check lists what is wrong with a route table: a route that is not an
// operation of the ledger (method and spec path, with the same operationId),
// an extension that shadows one, an operation registered twice, or an
// operation both registered and declared Never.
func Check(routes []RouteInfo) []string {
	var problems []string
	seenKey := map[string]string{}
	seenID := map[string]string{}
	for _, rt := range routes {
		path := SpecPath(rt.Pattern)
		key := rt.Method + " " + path
		desc := rt.Method + " " + rt.Pattern
		if prev, dup := seenKey[key]; dup {
			problems = append(problems, fmt.Sprintf("%s conflicts with %s: both serve %s", desc, prev, key))
		}
		seenKey[key] = desc
		op, inLedger := Lookup(rt.Method, path)
		if rt.Extension {
			if inLedger {
				problems = append(problems, fmt.Sprintf("%s is declared an extension but is %s of GitHub's description: register it as that operation", desc, op.OperationID))
			}
			continue
		}
		switch {
		case !inLedger:
			problems = append(problems, fmt.Sprintf("%s (%s) is not an operation of GitHub's description: use the spec path word for word, or declare the route an extension", desc, rt.OperationID))
		case op.OperationID != rt.OperationID:
			problems = append(problems, fmt.Sprintf("%s has operationId %q; the description says %q", desc, rt.OperationID, op.OperationID))
		}
		if !validPattern(rt.Pattern) {
			problems = append(problems, fmt.Sprintf("%s: only a trailing {name...} wildcard and {$} may differ from the spec path", desc))
		}
		if strings.HasSuffix(rt.Pattern, "/") {
			problems = append(problems, fmt.Sprintf("%s matches every path below it in Go's ServeMux: end it with {$}", desc))
		}
		if prev, dup := seenID[rt.OperationID]; dup {
			problems = append(problems, fmt.Sprintf("%s and %s both claim operationId %s", desc, prev, rt.OperationID))
		}
		seenID[rt.OperationID] = desc
		if reason, ok := never[rt.OperationID]; ok {
			problems = append(problems, fmt.Sprintf("%s is registered but declared Never (%s): remove it from the never table", desc, reason))
		}
	}
	return problems
}

// validPattern allows {name...} only as the last segment and {$} only at the
// end.
func validPattern(p string) bool {
	if i := strings.Index(p, "...}"); i >= 0 && i+len("...}") != len(p) {
		return false
	}
	if i := strings.Index(p, "{$}"); i >= 0 && i+len("{$}") != len(p) {
		return false
	}
	return strings.HasPrefix(p, "/")
}

func methodOrder(m string) int {
	switch m {
	case "GET":
		return 0
	case "POST":
		return 1
	case "PUT":
		return 2
	case "PATCH":
		return 3
	case "DELETE":
		return 4
	}
	return 5
}

// acronyms are written in capitals in category titles.
var acronyms = map[string]string{
	"api": "API", "oauth": "OAuth", "scim": "SCIM", "ssh": "SSH", "gpg": "GPG", "oidc": "OIDC", "ldap": "LDAP",
	"saml": "SAML", "sso": "SSO", "ghes": "GHES", "sbom": "SBOM", "cve": "CVE", "ip": "IP", "url": "URL",
	"pr": "PR", "rest": "REST", "github": "GitHub", "jit": "JIT", "id": "ID", "sboms": "SBOMs", "lfs": "LFS",
}

// CategoryTitle is the display title of a category or subcategory name:
// "secret-scanning" is "Secret scanning", "oauth-authorizations" is "OAuth
// authorizations".
func CategoryTitle(name string) string {
	if name == "" {
		return "General"
	}
	// "pre-receive" is one word.
	words := strings.Split(strings.ReplaceAll(name, "pre-receive", "pre\x00receive"), "-")
	for i, w := range words {
		if a, ok := acronyms[w]; ok {
			words[i] = a
			continue
		}
		if i == 0 && w != "" {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.ReplaceAll(strings.Join(words, " "), "\x00", "-")
}
