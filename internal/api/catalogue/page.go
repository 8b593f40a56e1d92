package catalogue

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/catalogue"
)

var (
	//go:embed page.html
	pageHTML string
	//go:embed page.css
	pageCSS string
	//go:embed page.js
	pageJS string
)

var pageTmpl = template.Must(template.New("page").Funcs(template.FuncMap{
	"statuses": func() []catalogue.Status { return catalogue.Statuses },
	"badge":    func(s catalogue.Status, n int) string { return catalogue.Badge(s, n) },
	"colour":   func(s catalogue.Status) string { return s.Colour() },
	"label":    func(s catalogue.Status) string { return s.Label() },
	"tokcol":   catalogue.TokenColour,
	"num":      catalogue.Thousands,
	"lower":    strings.ToLower,
	"join":     strings.Join,
	// segs puts each "/segment" of a path in its own inline block, so a long
	// path wraps between segments rather than at a hyphen inside one.
	"segs": func(path string) template.HTML {
		var b strings.Builder
		for _, p := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
			b.WriteString("<span>/" + template.HTMLEscapeString(p) + "</span>")
		}
		return template.HTML(b.String())
	},
	"pct": func(n, total int) string {
		if total == 0 {
			return "0"
		}
		return strconv.FormatFloat(float64(n)*100/float64(total), 'f', 2, 64)
	},
}).Parse(pageHTML))

// css is the stylesheet with the badge colours of the catalogue package as
// custom properties.
var css = func() template.CSS {
	var b strings.Builder
	b.WriteString(":root{")
	for _, name := range []string{"green", "blue", "yellow", "red", "purple"} {
		c := catalogue.Colours[name]
		fmt.Fprintf(&b, "--%s-bg:%s;--%s-bd:%s;--%s-fg:%s;", name, c.Bg, name, c.Border, name, c.Fg)
	}
	b.WriteString("}\n")
	b.WriteString(pageCSS)
	return template.CSS(b.String())
}()

type page struct {
	Report   *catalogue.Report
	Statuses []catalogue.Status
	Flavours []string
	CSS      template.CSS
	JS       template.JS

	// The filter as the form shows it.
	Status, Category, Token, Flavour, Query string
	Active                                  bool

	Shown catalogue.Counts // the operations the filter selects
	Cats  []catView
}

type catView struct {
	catalogue.Group
	Shown  catalogue.Counts
	Hidden bool
	Open   bool
	Subs   []subView
}

type subView struct {
	catalogue.Group
	Shown  catalogue.Counts
	Hidden bool
	Rows   []rowView
}

type rowView struct {
	*catalogue.Entry
	Hidden bool
}

// GET /catalogue: every operation grouped by category and subcategory. The
// filter is applied on the server (rows it does not select are rendered
// hidden), so the page works without JavaScript; the script re-applies it
// in the browser as the form changes.
func (a *API) page(w http.ResponseWriter, r *http.Request) error {
	rep := a.Report()
	f := ParseFilter(r)
	p := &page{Report: rep, Statuses: catalogue.Statuses, Flavours: catalogue.Flavours, CSS: css, JS: template.JS(pageJS),
		Token: f.Token, Flavour: f.Flavour, Query: f.Query, Active: f.Active()}
	if len(f.Statuses) == 1 {
		p.Status = string(f.Statuses[0])
	}
	if len(f.Categories) == 1 {
		p.Category = strings.ToLower(f.Categories[0])
	}
	idx := map[string]int{}
	for i := range rep.Categories {
		c := &rep.Categories[i]
		idx[c.Name] = len(p.Cats)
		cv := catView{Group: *c}
		for _, s := range c.Subcategories {
			cv.Subs = append(cv.Subs, subView{Group: s})
		}
		p.Cats = append(p.Cats, cv)
	}
	for i := range rep.Operations {
		e := &rep.Operations[i]
		c := &p.Cats[idx[e.Category]]
		sub := &c.Subs[len(c.Subs)-1]
		for j := range c.Subs {
			if c.Subs[j].Name == e.Subcategory {
				sub = &c.Subs[j]
				break
			}
		}
		match := f.Match(e)
		sub.Rows = append(sub.Rows, rowView{Entry: e, Hidden: !match})
		if match {
			p.Shown.Add(e.Status)
			c.Shown.Add(e.Status)
			sub.Shown.Add(e.Status)
		}
	}
	for i := range p.Cats {
		c := &p.Cats[i]
		c.Hidden = c.Shown.Total == 0
		c.Open = p.Active && !c.Hidden
		for j := range c.Subs {
			c.Subs[j].Hidden = c.Subs[j].Shown.Total == 0
		}
	}
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, p); err != nil {
		return err
	}
	return write(w, r, "text/html; charset=utf-8", buf.Bytes())
}

// write sends a 200 with body, gzipped when the client accepts it: the page
// and the JSON are about a megabyte of very repetitive text. The routes are
// not rate limited (a person reads them in a browser), which also keeps them
// out of the server's ETag buffering, so they answer conditional requests
// here.
func write(w http.ResponseWriter, r *http.Request, contentType string, body []byte) error {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "public, max-age=60")
	h.Set("Vary", "Accept-Encoding")
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:16])
	gz := acceptsGzip(r)
	if gz {
		etag += "-gz"
	}
	etag += `"`
	h.Set("ETag", etag)
	for _, t := range strings.Split(r.Header.Get("If-None-Match"), ",") {
		if t = strings.TrimSpace(t); t == etag || t == "W/"+etag || t == "*" {
			h.Del("Content-Type")
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
	}
	if gz {
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
		if _, err := zw.Write(body); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		h.Set("Content-Encoding", "gzip")
		body = z.Bytes()
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(body)
	return err
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(strings.TrimSpace(q), " ", "") != "q=0" {
			return true
		}
	}
	return false
}
