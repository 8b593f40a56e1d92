// Package web serves hubd's HTML pages: a minimal, read-only page at every
// html_url the API hands out (accounts, repositories, files and
// directories, commits, issues and pull requests with their comments,
// issue lists, milestones and labels, releases), so that the links of API responses
// lead somewhere a person can read. Pages under a repository are counted
// for its traffic (views, popular paths, referrers). The pages live outside
// the API's route table: the server hands them the GET requests no API route
// matched, and they decide visibility with the API's own checks (deps.Deps).
package web

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/websession"
)

// Handler serves the pages.
type Handler struct {
	d   *deps.Deps
	svc Services
}

// New makes the handler.
func New(d *deps.Deps) *Handler { return &Handler{d: d} }

// page is what a request names: /{owner}, /{owner}/{repo} or
// /{owner}/{repo}/{kind}/{rest...}.
type page struct {
	owner, repo string
	kind        string   // "" (the repository), "git" (its clone URL) or a kind below
	rest        []string // the unescaped segments after kind
	number      int64    // issues/{n}, pull/{n}, milestone/{n}
	format      string   // pull/{n}.diff or .patch: "diff" or "patch"
	tab         string   // pull/{n}/{tab}: files, commits, or a form's action
}

// forms are the kinds of page that take a POSTed form.
var forms = map[string]bool{"pull": true, "compare": true, "issues": true, "actions": true, "settings": true}

// wantsForm reports whether a POST is a browser's form.
func wantsForm(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	return strings.HasPrefix(ct, "application/x-www-form-urlencoded") || strings.HasPrefix(ct, "multipart/form-data")
}

// kinds are the pages under a repository and how many segments follow
// them (max < 0: any number).
var kinds = map[string]struct{ min, max int }{
	"issues":     {0, 2}, // the list, issues/{number}, or a form's issues/{number}/{action}
	"pull":       {1, 2}, // pull/{n}, pull/{n}/files, pull/{n}/commits
	"pulls":      {0, 0},
	"milestone":  {1, 1},
	"milestones": {0, 0},
	"labels":     {0, 1},  // the list, or labels/{name}
	"commit":     {1, -1}, // a sha, or a ref name with slashes
	"commits":    {0, -1}, // commits/{ref...}
	"tree":       {1, -1}, // tree/{ref...}/{path...}
	"blob":       {2, -1},
	"raw":        {2, -1},
	"compare":    {1, -1}, // compare/{base}...{head} (refs may hold slashes)
	"releases":   {0, -1}, // the list, or releases/tag/{tag...}
	"tags":       {0, 0},
	"branches":   {0, 0},
	"settings":   {0, 5}, // settings/{section}[/...]: the settings pages and their forms (settings.go)
	"actions":    {0, 5}, // the runs, runs/{id}, runs/{id}/job/{job}[/logs], runs/{id}/{form}, runs/{id}/artifacts/{id}
	"runs":       {1, 1}, // a check run
}

// maxSegments bounds the path a page request may have.
const maxSegments = 64

// parse recognises the page paths. Segments are split on the escaped path,
// so %2F inside a label name or a ref stays inside its segment.
func parse(escaped string) (page, bool) {
	p := strings.TrimSuffix(strings.TrimPrefix(escaped, "/"), "/")
	raw := strings.Split(p, "/")
	if len(raw) > maxSegments {
		return page{}, false
	}
	segs := make([]string, len(raw))
	for i, s := range raw {
		u, err := url.PathUnescape(s)
		if err != nil || u == "" || u == "." || u == ".." || strings.ContainsAny(u, "\x00\n\r") {
			return page{}, false
		}
		segs[i] = u
	}
	switch len(segs) {
	case 1:
		return page{owner: segs[0], kind: "account"}, true
	case 2:
		if name, ok := strings.CutSuffix(segs[1], ".git"); ok && name != "" {
			return page{owner: segs[0], repo: name, kind: "git"}, true
		}
		return page{owner: segs[0], repo: segs[1]}, true
	}
	pg := page{owner: segs[0], repo: segs[1], kind: segs[2], rest: segs[3:]}
	k, ok := kinds[pg.kind]
	if !ok || len(pg.rest) < k.min || (k.max >= 0 && len(pg.rest) > k.max) {
		return page{}, false
	}
	switch pg.kind {
	case "issues", "pull", "milestone":
		if pg.kind == "issues" && len(pg.rest) == 2 {
			switch pg.rest[1] {
			case "comments", "close", "reopen":
				pg.tab = pg.rest[1]
			default:
				return page{}, false
			}
			pg.rest = pg.rest[:1]
		}
		if pg.kind == "pull" && len(pg.rest) == 2 {
			switch pg.rest[1] {
			case "files", "commits", "checks", "merge", "review", "comments", "delete-branch":
				pg.tab = pg.rest[1]
			default:
				return page{}, false
			}
			pg.rest = pg.rest[:1]
		}
		if len(pg.rest) == 1 {
			num := pg.rest[0]
			if pg.kind == "pull" {
				for _, f := range []string{"diff", "patch"} {
					if v, ok := strings.CutSuffix(num, "."+f); ok {
						num, pg.format = v, f
					}
				}
			}
			n, err := strconv.ParseInt(num, 10, 64)
			if err != nil || n <= 0 {
				return page{}, false
			}
			pg.number = n
		}
	}
	return pg, true
}

// ServePage serves a GET or HEAD of a page path and reports whether it did.
// A page that does not exist (or that the caller may not see: private
// repositories need an authenticated caller with access) is an HTML 404 for
// clients that ask for HTML; for others it reports false and leaves the
// answer to the API's JSON 404.
func (h *Handler) ServePage(w http.ResponseWriter, r *http.Request) bool {
	post := r.Method == http.MethodPost
	if r.Method != http.MethodGet && r.Method != http.MethodHead && !post {
		return false
	}
	if r.URL.Path == liveJSPath && !post {
		return serveLiveJS(w, r)
	}
	if r.URL.Path == "/search" && !post {
		if err := h.signIn(r); err != nil {
			return h.fail(w, r, err)
		}
		return h.search(w, r)
	}
	pg, ok := parse(r.URL.EscapedPath())
	if !ok || (post && !forms[pg.kind]) {
		return false
	}
	if post && !wantsForm(r) {
		return false // an API client's unknown POST: the API's JSON 404
	}
	if err := h.signIn(r); err != nil {
		return h.fail(w, r, err)
	}
	if post {
		if !h.form(w, r) {
			return true
		}
		if user(r) == nil {
			return h.signInFirst(w, r)
		}
	}
	if pg.kind == "account" {
		if post {
			return false
		}
		return h.accountPage(w, r, pg.owner)
	}
	r.SetPathValue("owner", pg.owner)
	r.SetPathValue("repo", pg.repo)
	repo, perm, err := h.d.Repo(r, authz.Read)
	var mv *model.Moved
	switch {
	case errors.As(err, &mv):
		if loc, ok := h.movedTo(mv, r); ok {
			http.Redirect(w, r, loc, http.StatusMovedPermanently)
			return true
		}
		return h.notFound(w, r)
	case errors.Is(err, model.ErrNotFound):
		return h.notFound(w, r)
	case err != nil:
		return h.fail(w, r, err)
	}
	base := "/" + repo.FullName()
	if pg.kind == "git" {
		http.Redirect(w, r, h.d.URLs.Web+base, http.StatusMovedPermanently)
		return true
	}
	if pg.owner+"/"+pg.repo != repo.FullName() {
		// Canonical letter case, so that traffic counts one path.
		http.Redirect(w, r, h.d.URLs.Web+base+below(r.URL.EscapedPath())+query(r), http.StatusMovedPermanently)
		return true
	}
	x := &req{h: h, w: w, r: r, repo: repo, perm: perm, pg: pg, base: base}
	if post {
		return x.submit()
	}
	switch pg.kind {
	case "":
		return x.repoPage()
	case "issues":
		if pg.tab != "" {
			return x.notFound() // a form's address takes POSTs only
		}
		if pg.number != 0 {
			return x.issuePage()
		}
		return x.issueList()
	case "pull":
		if pg.format != "" {
			return x.pullText()
		}
		return x.pullPage()
	case "pulls":
		return x.pullList()
	case "milestone":
		return x.milestonePage()
	case "milestones":
		return x.milestoneList()
	case "labels":
		if len(pg.rest) == 1 {
			return x.labelPage()
		}
		return x.labelList()
	case "commit":
		return x.commitPage()
	case "commits":
		return x.commitList()
	case "tree", "blob":
		return x.codePage()
	case "raw":
		return x.rawRedirect()
	case "compare":
		return x.comparePage()
	case "releases":
		if len(pg.rest) == 0 {
			return x.releaseList()
		}
		if len(pg.rest) == 1 && pg.rest[0] == "latest" {
			return x.latestRelease()
		}
		return x.releasePage()
	case "tags":
		return x.tagList()
	case "branches":
		return x.branchList()
	case "settings":
		return x.settingsPage()
	case "actions":
		return x.actionsPage()
	case "runs":
		return x.checkRunPage()
	}
	return false
}

// req is one request for a page under a visible repository.
type req struct {
	h    *Handler
	w    http.ResponseWriter
	r    *http.Request
	repo *model.Repo
	perm authz.Permission
	pg   page
	base string // "/owner/repo"
}

func (x *req) notFound() bool            { return x.h.notFound(x.w, x.r) }
func (x *req) fail(err error) bool       { return x.h.fail(x.w, x.r, err) }
func (x *req) redirect(path string) bool { return x.h.redirect(x.w, x.r, path) }
func (x *req) caller() *authz.Caller     { return rest.Caller(x.r) }
func (x *req) query(name string) string  { return x.r.URL.Query().Get(name) }

// ok renders a page of the repository. Every such page counts as a view
// of its path, as GitHub's traffic counts every page of a repository.
func (x *req) ok(title, name string, data any) bool {
	path := strings.TrimSuffix(x.r.URL.EscapedPath(), "/")
	return x.h.render(x.w, x.r, http.StatusOK, title, name, data, x.repo.ID, path)
}

// pageNumber reads ?page= (1 when absent or invalid).
func pageNumber(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || n < 1 || n > 1<<20 {
		return 1
	}
	return n
}

// below is the escaped path after /{owner}/{repo}.
func below(escaped string) string {
	parts := strings.SplitN(strings.TrimPrefix(escaped, "/"), "/", 3)
	if len(parts) < 3 {
		return ""
	}
	return "/" + strings.TrimSuffix(parts[2], "/")
}

func query(r *http.Request) string {
	if r.URL.RawQuery == "" {
		return ""
	}
	return "?" + r.URL.RawQuery
}

// movedTo is the page's address under a renamed repository's new name.
func (h *Handler) movedTo(mv *model.Moved, r *http.Request) (string, bool) {
	u, err := url.Parse(mv.Location)
	if err != nil {
		return "", false
	}
	_, rest, ok := strings.Cut(u.Path, "/repos/")
	if !ok {
		return "", false
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 2 {
		return "", false
	}
	return h.d.URLs.Web + "/" + url.PathEscape(parts[0]) + "/" + url.PathEscape(parts[1]) + below(r.URL.EscapedPath()) + query(r), true
}

func (h *Handler) redirect(w http.ResponseWriter, r *http.Request, path string) bool {
	http.Redirect(w, r, h.d.URLs.Web+path, http.StatusMovedPermanently)
	return true
}

// notFound answers an HTML 404 to clients that ask for HTML.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) bool {
	if !strings.Contains(r.Header.Get("Accept"), "text/html") {
		return false
	}
	return h.render(w, r, http.StatusNotFound, "Page not found", "notfound", nil, 0, "")
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) bool {
	slog.Error("web: page", "request_id", rest.From(r).RequestID, "path", r.URL.Path, "err", err)
	return h.render(w, r, http.StatusInternalServerError, "Server error", "error", nil, 0, "")
}

// render writes a page; a successful GET of a repository's page is counted
// as a view of path.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, title, name string, data any, repoID int64, path string) bool {
	var buf bytes.Buffer
	t := pages[name]
	var err error
	if t == nil {
		err = errors.New("web: no template " + name)
	} else {
		ld := layoutData{Title: title, Data: data, User: user(r), Site: h.siteName(), Return: r.URL.RequestURI()}
		if ld.User != nil {
			ld.CSRF, ld.Avatar = websession.CSRF(w, r, h.d.URLs.Web), h.d.URLs.AvatarURL(ld.User)
		}
		err = t.ExecuteTemplate(&buf, "layout", ld)
	}
	if err != nil {
		slog.Error("web: render", "page", name, "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString("Server error\n")
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(buf.Len()))
	if v, ok := data.(interface{ noStore() bool }); ok && v.noStore() {
		hd.Set("Cache-Control", "no-store")
	} else {
		hd.Set("Cache-Control", "max-age=0, private, must-revalidate")
	}
	if v, ok := data.(scripted); ok && v.script() {
		hd.Set("Content-Security-Policy", csp+"; script-src 'self'; connect-src 'self'")
	} else {
		hd.Set("Content-Security-Policy", csp)
	}
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "deny")
	hd.Set("Referrer-Policy", "origin-when-cross-origin, strict-origin-when-cross-origin")
	// The view counts before the page goes out: a client that has read
	// the page finds it counted.
	if status == http.StatusOK && r.Method != http.MethodHead && repoID != 0 && h.d.Metrics != nil {
		h.d.Metrics.Viewed(r, repoID, path, title)
	}
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return true
	}
	w.Write(buf.Bytes())
	return true
}

// csp is the pages' Content-Security-Policy: no script, inline styles,
// forms only to this site.
const csp = "default-src 'none'; style-src 'unsafe-inline'; img-src * data:; base-uri 'none'; form-action 'self'"

type layoutData struct {
	Title string
	Data  any
	// The site header: the signed-in user (nil: a sign-in link back to
	// Return), the CSRF token of its sign-out form, the site's name.
	User               *model.Account
	CSRF, Site, Return string
	Avatar             string
}
