// Package web serves hubd's few HTML pages: a minimal, read-only page at
// each repository's html_url and each issue's, so that the links of API
// responses lead somewhere. Their visits are counted for repository
// traffic (views, popular paths, referrers). The pages live outside the
// API's route table: the server hands them the GET requests no API route
// matched.
package web

import (
	"bytes"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/markdown"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

// maxReadme is the largest README rendered on a repository's page.
const maxReadme = 512 << 10

// Handler serves the pages.
type Handler struct{ d *api.Deps }

// New makes the handler.
func New(d *api.Deps) *Handler { return &Handler{d: d} }

// page is what a request names.
type page struct {
	owner, repo string
	kind        string // "repo", "git" (the clone URL), "issues" or "pull"
	number      int64
}

// parse recognises the page paths: /{owner}/{repo}, /{owner}/{repo}.git,
// /{owner}/{repo}/issues/{number} and /{owner}/{repo}/pull/{number}.
func parse(path string) (page, bool) {
	p := strings.TrimSuffix(strings.TrimPrefix(path, "/"), "/")
	segs := strings.Split(p, "/")
	for _, s := range segs {
		if s == "" || s == "." || s == ".." {
			return page{}, false
		}
	}
	switch {
	case len(segs) == 2:
		if name, ok := strings.CutSuffix(segs[1], ".git"); ok && name != "" {
			return page{owner: segs[0], repo: name, kind: "git"}, true
		}
		return page{owner: segs[0], repo: segs[1], kind: "repo"}, true
	case len(segs) == 4 && (segs[2] == "issues" || segs[2] == "pull"):
		n, err := strconv.ParseInt(segs[3], 10, 64)
		if err != nil || n <= 0 {
			return page{}, false
		}
		return page{owner: segs[0], repo: segs[1], kind: segs[2], number: n}, true
	}
	return page{}, false
}

// ServePage serves a GET or HEAD of a page path and reports whether it did.
// A page that does not exist (or that the caller may not see: private
// repositories need an authenticated caller with access) is an HTML 404 for
// clients that ask for HTML; for others it reports false and leaves the
// answer to the API's JSON 404.
func (h *Handler) ServePage(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	pg, ok := parse(r.URL.Path)
	if !ok {
		return false
	}
	r.SetPathValue("owner", pg.owner)
	r.SetPathValue("repo", pg.repo)
	repo, _, err := h.d.Repo(r, authz.Read)
	var mv *model.Moved
	switch {
	case errors.As(err, &mv):
		if loc, ok := h.movedTo(mv, r, pg); ok {
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
	switch pg.kind {
	case "git":
		http.Redirect(w, r, h.d.URLs.Web+base, http.StatusMovedPermanently)
		return true
	case "repo":
		if pg.owner+"/"+pg.repo != repo.FullName() {
			// Canonical letter case, so that traffic counts one path.
			http.Redirect(w, r, h.d.URLs.Web+base, http.StatusMovedPermanently)
			return true
		}
		return h.repoPage(w, r, repo)
	default:
		return h.issuePage(w, r, repo, pg)
	}
}

// movedTo is the page's address under a renamed repository's new name.
func (h *Handler) movedTo(mv *model.Moved, r *http.Request, pg page) (string, bool) {
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
	loc := h.d.URLs.Web + "/" + parts[0] + "/" + parts[1]
	if pg.kind == "issues" || pg.kind == "pull" {
		loc += "/" + pg.kind + "/" + strconv.FormatInt(pg.number, 10)
	}
	return loc, true
}

type repoView struct {
	Repo      *model.Repo
	CloneURL  string
	Private   bool
	Commit    *gitrepo.Commit
	Entries   []gitrepo.TreeEntry
	Readme    template.HTML
	ReadmeRaw string
	Empty     bool
}

func (h *Handler) repoPage(w http.ResponseWriter, r *http.Request, repo *model.Repo) bool {
	ctx := r.Context()
	v := repoView{Repo: repo, CloneURL: h.d.URLs.CloneURL(repo), Private: repo.Private(), Empty: true}
	g := h.d.Git.Open(repo.ID)
	if g.Exists() {
		info, data, err := g.Read(ctx, "refs/heads/"+repo.DefaultBranch, 0)
		switch {
		case errors.Is(err, gitrepo.ErrNotFound):
		case err != nil:
			return h.fail(w, r, err)
		default:
			c, err := gitrepo.ParseCommit(info.OID, data)
			if err != nil {
				return h.fail(w, r, err)
			}
			v.Commit, v.Empty = c, false
			_, tree, err := g.Read(ctx, c.Tree, 0)
			if err != nil {
				return h.fail(w, r, err)
			}
			if v.Entries, err = gitrepo.ParseTree(tree); err != nil {
				return h.fail(w, r, err)
			}
			sortEntries(v.Entries)
			if err := h.readme(r, g, &v); err != nil {
				return h.fail(w, r, err)
			}
		}
	}
	title := repo.FullName()
	if repo.Description != "" {
		title += ": " + repo.Description
	}
	return h.render(w, r, http.StatusOK, title, "repo", v, repo.ID, "/"+repo.FullName())
}

// readme renders the root's README (Markdown, or plain text otherwise).
func (h *Handler) readme(r *http.Request, g *gitrepo.Repo, v *repoView) error {
	for _, e := range v.Entries {
		name := strings.ToLower(e.Name)
		if e.Type() != "blob" || (name != "readme" && !strings.HasPrefix(name, "readme.")) {
			continue
		}
		_, data, err := g.Read(r.Context(), e.OID, maxReadme)
		if errors.Is(err, gitrepo.ErrTooLarge) {
			return nil
		}
		if err != nil {
			return err
		}
		if strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".markdown") {
			v.Readme = template.HTML(markdown.HTML(string(data))) // goldmark escapes raw HTML
		} else {
			v.ReadmeRaw = string(data)
		}
		return nil
	}
	return nil
}

// sortEntries puts directories first, as GitHub lists a tree.
func sortEntries(list []gitrepo.TreeEntry) {
	dirFirst := func(e gitrepo.TreeEntry) int {
		if e.Type() == "tree" {
			return 0
		}
		return 1
	}
	for i := 1; i < len(list); i++ {
		for j := i; j > 0 && dirFirst(list[j]) < dirFirst(list[j-1]); j-- {
			list[j], list[j-1] = list[j-1], list[j]
		}
	}
}

type issueView struct {
	Repo   *model.Repo
	Issue  *store.Issue
	Kind   string // "Issue" or "Pull request"
	Body   template.HTML
	Author string
}

func (h *Handler) issuePage(w http.ResponseWriter, r *http.Request, repo *model.Repo, pg page) bool {
	is, err := h.d.Store.R().IssueByNumber(r.Context(), repo.ID, pg.number)
	if errors.Is(err, model.ErrNotFound) {
		return h.notFound(w, r)
	}
	if err != nil {
		return h.fail(w, r, err)
	}
	kind := "issues"
	if is.IsPull {
		kind = "pull"
	}
	canonical := "/" + repo.FullName() + "/" + kind + "/" + strconv.FormatInt(is.Number, 10)
	if r.URL.Path != canonical {
		// A pull request's page is under /pull, an issue's under /issues (and
		// names in their canonical case), as on GitHub.
		http.Redirect(w, r, h.d.URLs.Web+canonical, http.StatusMovedPermanently)
		return true
	}
	v := issueView{Repo: repo, Issue: is, Kind: "Issue"}
	if is.IsPull {
		v.Kind = "Pull request"
	}
	if is.Body != nil {
		v.Body = template.HTML(markdown.HTML(*is.Body))
	}
	if is.User != nil {
		v.Author = is.User.Login
	} else {
		v.Author = "ghost"
	}
	title := is.Title + " · " + v.Kind + " #" + strconv.FormatInt(is.Number, 10) + " · " + repo.FullName()
	return h.render(w, r, http.StatusOK, title, "issue", v, repo.ID, canonical)
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
	err := pages.ExecuteTemplate(&buf, "layout", struct {
		Title, Page string
		Data        any
	}{title, name, data})
	if err != nil {
		slog.Error("web: render", "page", name, "err", err)
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString("Server error\n")
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(buf.Len()))
	hd.Set("Cache-Control", "max-age=0, private, must-revalidate")
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src * data:")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "deny")
	hd.Set("Referrer-Policy", "origin-when-cross-origin, strict-origin-when-cross-origin")
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return true
	}
	w.Write(buf.Bytes())
	if status == http.StatusOK && repoID != 0 && h.d.Metrics != nil {
		h.d.Metrics.Viewed(r, repoID, path, title)
	}
	return true
}
