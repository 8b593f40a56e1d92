// Package catalogue serves hubd's compatibility catalogue: GET /catalogue
// (an HTML page, server-rendered, filterable without JavaScript) and GET
// /catalogue.json. Both read the final route table lazily, so they show
// every route set registered alongside them.
package catalogue

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/hubd/hubd/internal/catalogue"
	"github.com/hubd/hubd/internal/rest"
)

// API is the catalogue package.
type API struct {
	routes func() []*rest.Route
	once   sync.Once
	report *catalogue.Report
}

// New makes the package. routes returns the server's final route table; it
// is first called on the first request.
func New(routes func() []*rest.Route) *API { return &API{routes: routes} }

// Routes is the package's route table: hubd's own extensions.
func (a *API) Routes() []rest.Route {
	return []rest.Route{
		{Method: "GET", Pattern: "/catalogue", OperationID: "hubd/catalogue", Handler: a.page, Extension: true, NoRateLimit: true, Stream: true},
		{Method: "GET", Pattern: "/catalogue.json", OperationID: "hubd/catalogue-json", Handler: a.json, Extension: true, NoRateLimit: true, Stream: true},
	}
}

// Report is the catalogue of the route table (computed once: the table does
// not change after the server is built).
func (a *API) Report() *catalogue.Report {
	a.once.Do(func() { a.report = catalogue.NewReport(catalogue.Infos(a.routes())) })
	return a.report
}

// GET /catalogue.json: the report, restricted by the same query parameters
// as the page.
func (a *API) json(w http.ResponseWriter, r *http.Request) error {
	f := ParseFilter(r)
	rep := a.Report()
	if f.Active() {
		rep = rep.Filter(f)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rep); err != nil {
		return err
	}
	return write(w, r, "application/json; charset=utf-8", buf.Bytes())
}

// ParseFilter reads status, token, flavour, category and q from the query.
// status and category may repeat or hold comma separated values; values
// that mean nothing are ignored.
func ParseFilter(r *http.Request) catalogue.Filter {
	q := r.URL.Query()
	var f catalogue.Filter
	for _, v := range list(q["status"]) {
		if s, ok := catalogue.ParseStatus(v); ok {
			f.Statuses = append(f.Statuses, s)
		}
	}
	switch t := strings.ToLower(strings.TrimSpace(q.Get("token"))); t {
	case "uat", "iat":
		f.Token = strings.ToUpper(t)
	case "none":
		f.Token = t
	}
	for _, fl := range catalogue.Flavours {
		if q.Get("flavour") == fl {
			f.Flavour = fl
		}
	}
	f.Categories = list(q["category"])
	f.Query = strings.TrimSpace(q.Get("q"))
	return f
}

func list(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}
