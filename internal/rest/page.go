package rest

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Page is a request's page and per_page (1-based; per_page 1..100, 30 by
// default). Malformed values fall back to the defaults, as on GitHub.
type Page struct {
	Page, PerPage int
}

// Limit and Offset for SQL.
func (p Page) Limit() int  { return p.PerPage }
func (p Page) Offset() int { return (p.Page - 1) * p.PerPage }

// ParsePage reads page and per_page.
func ParsePage(r *http.Request) Page {
	q := r.URL.Query()
	p := Page{Page: 1, PerPage: 30}
	if v, err := strconv.Atoi(q.Get("page")); err == nil && v > 0 {
		p.Page = v
	}
	if v, err := strconv.Atoi(q.Get("per_page")); err == nil && v > 0 {
		p.PerPage = min(v, 100)
	}
	return p
}

// SetLink writes the Link header for a page of a list with total items:
// next and last when there are more pages, first and prev when this is not
// the first. Other query parameters are kept.
func SetLink(w http.ResponseWriter, r *http.Request, base string, p Page, total int) {
	last := (total + p.PerPage - 1) / p.PerPage
	if last < 1 {
		last = 1
	}
	var links []string
	if p.Page < last {
		links = append(links, link(r, base, "page", strconv.Itoa(p.Page+1), "next"), link(r, base, "page", strconv.Itoa(last), "last"))
	}
	if p.Page > 1 {
		prev := min(p.Page-1, last)
		links = append(links, link(r, base, "page", strconv.Itoa(prev), "prev"), link(r, base, "page", "1", "first"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
}

// SetSinceLink writes the Link header of since-paginated lists (GET /users,
// /organizations, /repositories): only next, when the page was full.
func SetSinceLink(w http.ResponseWriter, r *http.Request, base string, full bool, nextSince int64) {
	if full {
		w.Header().Set("Link", link(r, base, "since", strconv.FormatInt(nextSince, 10), "next")+`, <`+base+r.URL.Path+`{?since}>; rel="first"`)
	}
}

func link(r *http.Request, base, key, val, rel string) string {
	q := r.URL.Query()
	q.Set(key, val)
	u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	return "<" + base + u.String() + `>; rel="` + rel + `"`
}

// SetCursorLink writes the Link header of cursor-paginated lists (before
// and after): next reads after the cursor next, prev before prev; either
// may be empty. Other query parameters are kept.
func SetCursorLink(w http.ResponseWriter, r *http.Request, base, next, prev string) {
	var links []string
	for _, l := range []struct{ key, cur, rel string }{{"after", next, "next"}, {"before", prev, "prev"}} {
		if l.cur == "" {
			continue
		}
		q := r.URL.Query()
		q.Del("before")
		q.Del("after")
		q.Del("page")
		q.Set(l.key, l.cur)
		u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
		links = append(links, "<"+base+u.String()+`>; rel="`+l.rel+`"`)
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
}
