// Package licenses serves the Licenses and Gitignore categories: the
// catalogue of licenses GitHub offers, the license detected in a
// repository (with a real text classifier), and the .gitignore templates.
// The catalogue, the classifier and the templates themselves are the
// internal/licenses domain package's.
package licenses

import (
	"encoding/base64"
	"errors"
	"html"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/licenses"
	"github.com/hubd/hubd/internal/markdown"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// API is the licenses package.
type API struct{ d *api.Deps }

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d} }

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	return []rest.Route{
		{Method: "GET", Pattern: "/licenses", OperationID: "licenses/get-all-commonly-used", Handler: a.list},
		{Method: "GET", Pattern: "/licenses/{license}", OperationID: "licenses/get", Handler: a.get},
		{Method: "GET", Pattern: "/repos/{owner}/{repo}/license", OperationID: "licenses/get-for-repo", Handler: a.forRepo, Scopes: []string{"repo"}},
		{Method: "GET", Pattern: "/gitignore/templates", OperationID: "gitignore/get-all-templates", Handler: a.gitignoreList},
		{Method: "GET", Pattern: "/gitignore/templates/{name}", OperationID: "gitignore/get-template", Handler: a.gitignoreGet},
	}
}

// GET /licenses: the commonly used licenses (featured=true: only the
// featured ones, featured=false: the others).
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	var featured *bool
	if v, err := strconv.ParseBool(r.URL.Query().Get("featured")); err == nil {
		featured = &v
	}
	var all []*licenses.License
	for _, l := range licenses.Catalogue() {
		if l.Common && (featured == nil || l.Featured == *featured) {
			all = append(all, l)
		}
	}
	p := rest.ParsePage(r)
	rest.SetLink(w, r, a.d.URLs.API, p, len(all))
	out := []*wire.LicenseSimple{}
	for i := p.Offset(); i < len(all) && i < p.Offset()+p.Limit(); i++ {
		out = append(out, all[i].Simple(a.d.URLs))
	}
	return rest.JSON(w, http.StatusOK, out)
}

// GET /licenses/{license}
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	l, ok := licenses.Find(r.PathValue("license"))
	if !ok {
		return model.ErrNotFound
	}
	return rest.JSON(w, http.StatusOK, l.Full(a.d.URLs))
}

// GET /repos/{owner}/{repo}/license: the root license file of the default
// branch (or ref), base64 like the contents API, with the license its text
// matches — or "other" (NOASSERTION) for a text no license matches. The raw
// and html media types answer the file itself, or rendered.
func (a *API) forRepo(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	ctx := r.Context()
	g := a.d.Git.Open(repo.ID) // a read never creates storage
	if !g.Exists() {
		return model.ErrNotFound
	}
	ref := r.URL.Query().Get("ref")
	commit, err := a.d.ResolveCommit(ctx, g, repo, ref)
	if errors.Is(err, api.ErrEmptyRepo) {
		return model.ErrNotFound
	}
	if err != nil {
		return err
	}
	file, found, err := licenses.RootFile(ctx, g, commit)
	if err != nil {
		return err
	}
	if !found {
		return model.ErrNotFound
	}
	info, text, err := g.Read(ctx, file.OID, licenses.MaxFile)
	large := errors.Is(err, gitrepo.ErrTooLarge)
	if err != nil && !large {
		return err
	}
	if p := rest.From(r).Media.Param; p == "raw" || p == "html" {
		if large {
			return &model.HTTPError{Status: http.StatusForbidden, Message: "This API returns blobs up to 1 MB in size. The requested blob is too large to fetch via the API, but you can use the Git Data API to request blobs up to 100 MB in size."}
		}
		if p == "html" {
			text = []byte(fileHTML(file.Name, text))
		}
		w.Header().Set("Content-Type", mediaType(r, p))
		w.Header().Set("Content-Length", strconv.Itoa(len(text)))
		w.WriteHeader(http.StatusOK)
		_, err := w.Write(text)
		return err
	}
	lic := wire.OtherLicense()
	if !large {
		l, err := licenses.DetectBlob(file.OID, text)
		if err != nil {
			return err
		}
		if l != nil {
			lic = l.Simple(a.d.URLs)
		}
	}
	label := ref
	if label == "" {
		label = repo.DefaultBranch
	}
	var download *string
	if !repo.Private() {
		// Private files need a signed download token, which only the contents
		// API issues; GitHub's field is nullable.
		u := a.d.URLs.Web + "/_raw/" + repo.Owner.Login + "/" + repo.Name + "/" + wire.EscapeContentPath(label) + "/" + wire.EscapeContentPath(file.Name)
		download = &u
	}
	out := wire.LicenseContent{
		ContentItem: a.d.URLs.ToContentItem(repo, label, wire.ContentEntry{Type: "file", Path: file.Name, SHA: file.OID, Size: info.Size, DownloadURL: download}, true),
		Content:     encode64(text),
		Encoding:    "base64",
		License:     lic,
	}
	if large {
		out.Content, out.Encoding = "", "none"
	}
	return rest.JSON(w, http.StatusOK, out)
}

// mediaType is the Content-Type of the raw and html media types: the one
// asked for.
func mediaType(r *http.Request, param string) string {
	v := ""
	if strings.Contains(r.Header.Get("Accept"), "vnd.github.v3.") {
		v = ".v3"
	}
	return "application/vnd.github" + v + "." + param + "; charset=utf-8"
}

// fileHTML is the html media type of a license file: Markdown rendered,
// other text preformatted.
func fileHTML(name string, text []byte) string {
	attr := html.EscapeString(name)
	switch strings.ToLower(path.Ext(name)) {
	case ".md", ".markdown", ".mdown":
		return `<div id="file" class="md" data-path="` + attr + `"><article class="markdown-body entry-content container-lg" itemprop="text">` +
			markdown.HTML(string(text)) + "</article></div>"
	}
	return `<div id="file" class="plain" data-path="` + attr + `"><pre style="white-space: pre-wrap">` + html.EscapeString(string(text)) + "</pre></div>"
}

// encode64 is base64 in lines of 60 characters, as GitHub sends files.
func encode64(b []byte) string {
	s := base64.StdEncoding.EncodeToString(b)
	var sb strings.Builder
	sb.Grow(len(s) + len(s)/60 + 1)
	for len(s) > 60 {
		sb.WriteString(s[:60])
		sb.WriteByte('\n')
		s = s[60:]
	}
	if s != "" {
		sb.WriteString(s)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// GET /gitignore/templates
func (a *API) gitignoreList(w http.ResponseWriter, r *http.Request) error {
	return rest.JSON(w, http.StatusOK, licenses.GitignoreNames())
}

// GET /gitignore/templates/{name}: the template, or its source alone in the
// raw media type.
func (a *API) gitignoreGet(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	src, ok := licenses.Gitignore(name)
	if !ok {
		return model.ErrNotFound
	}
	if rest.From(r).Media.Param == "raw" {
		w.Header().Set("Content-Type", mediaType(r, "raw"))
		w.Header().Set("Content-Length", strconv.Itoa(len(src)))
		w.WriteHeader(http.StatusOK)
		_, err := w.Write([]byte(src))
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.GitignoreTemplate{Name: name, Source: src})
}
