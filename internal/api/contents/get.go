package contents

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html"
	"io"
	"net/http"
	pathpkg "path"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/markdown"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// GET /repos/{owner}/{repo}/contents/{path}: a file (base64), a directory
// (an array, or an object with entries in the object media type), a symlink
// (the file it names when that is a file of the repository) or a submodule;
// the raw and html media types answer a file's bytes or rendered HTML.
func (a *API) getContent(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	ctx := r.Context()
	s, err := a.at(ctx, repo, r.URL.Query().Get("ref"))
	if err != nil {
		return err
	}
	p := strings.Trim(r.PathValue("path"), "/")
	if p != "" && !validPath(p) {
		return model.ErrNotFound
	}
	e, err := s.lookup(ctx, p)
	if err != nil {
		return err
	}
	switch e.kind() {
	case "dir":
		return a.writeDir(w, r, s, e)
	case "submodule":
		return a.writeSubmodule(w, r, s, e)
	case "symlink":
		target, ok, err := s.follow(ctx, e)
		if err != nil {
			return err
		}
		if ok {
			return a.writeFile(w, r, s, target, "file")
		}
		return a.writeSymlink(w, r, s, e)
	}
	return a.writeFile(w, r, s, e, "file")
}

// writeFile answers a file in the requested media type; htmlID is the id of
// the html form's wrapper ("file", or "readme" for the README).
func (a *API) writeFile(w http.ResponseWriter, r *http.Request, s *snapshot, e entry, htmlID string) error {
	ctx := r.Context()
	media := rest.From(r).Media.Param
	var key renderKey
	cacheable := (media == "" || media == "object") && !s.repo.Private()
	if cacheable {
		key = renderKey{repoID: s.repo.ID, fullName: s.repo.FullName(), ref: s.ref, path: e.Path, oid: e.OID}
		if body, ok := a.rendered.Get(key); ok {
			return writeJSONBytes(w, body)
		}
	}
	info, data, err := s.g.Read(ctx, e.OID, inlineMax)
	large := errors.Is(err, gitrepo.ErrTooLarge)
	if err != nil && !large {
		return err
	}
	if info.Size > serveMax {
		return errTooLarge
	}
	switch media {
	case "raw":
		w.Header().Set("Content-Type", mediaType(r, "raw"))
		w.Header().Set("Content-Length", strconv.FormatInt(info.Size, 10))
		if !large {
			_, err := w.Write(data)
			return err
		}
		return copyBlob(ctx, w, s.g, e.OID)
	case "html":
		if large {
			return errTooLarge
		}
		body := renderHTML(htmlID, e.Path, data)
		w.Header().Set("Content-Type", mediaType(r, "html"))
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, err := io.WriteString(w, body)
		return err
	}
	f := wire.ContentFile{
		ContentItem: a.d.URLs.ToContentItem(s.repo, s.ref, wire.ContentEntry{Type: "file", Path: e.Path, SHA: e.OID, Size: info.Size, DownloadURL: a.downloadURL(s, e.Path)}, true),
		Encoding:    "base64", Content: encode64(data),
	}
	if large {
		f.Encoding, f.Content = "none", ""
	}
	if !cacheable {
		return rest.JSON(w, http.StatusOK, f)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as rest.JSON encodes
	if err := enc.Encode(f); err != nil {
		return err
	}
	a.rendered.Put(key, buf.Bytes())
	return writeJSONBytes(w, buf.Bytes())
}

// writeJSONBytes answers 200 with a body rest.JSON encoded before.
func writeJSONBytes(w http.ResponseWriter, body []byte) error {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(body)
	return err
}

// copyBlob streams a big blob into w.
func copyBlob(ctx context.Context, w io.Writer, g *gitrepo.Repo, oid string) error {
	rc, err := g.OpenBlob(ctx, oid)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, rc)
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeDir answers a directory: its entries (at most 1,000, as GitHub),
// their blob sizes read in one pipelined round.
func (a *API) writeDir(w http.ResponseWriter, r *http.Request, s *snapshot, dir entry) error {
	ctx := r.Context()
	entries, err := readTree(ctx, s.g, dir.OID)
	if err != nil {
		return err
	}
	if len(entries) > maxEntries {
		entries = entries[:maxEntries]
	}
	var blobs []string
	hasSubmodule := false
	for _, e := range entries {
		switch e.Type() {
		case "blob":
			blobs = append(blobs, e.OID)
		case "commit":
			hasSubmodule = true
		}
	}
	infos, err := s.g.InfoMany(ctx, blobs)
	if err != nil {
		return err
	}
	var modules []gitmodule
	if hasSubmodule {
		if modules, err = s.gitmodules(ctx); err != nil {
			return err
		}
	}
	items := make([]wire.ContentItem, 0, len(entries))
	bi := 0
	for _, te := range entries {
		e := entry{TreeEntry: te, Path: join(dir.Path, te.Name)}
		ce := wire.ContentEntry{Type: e.kind(), Path: e.Path, SHA: e.OID}
		switch e.kind() {
		case "file", "symlink":
			ce.Size = infos[bi].Size
			bi++
			ce.DownloadURL = a.downloadURL(s, e.Path)
		case "submodule":
			// Listed as a file for backward compatibility, until the API
			// version that lists it as what it is.
			ce.Type = submoduleListType(r)
			ce.SubmoduleRepo = a.hostedRepo(s.repo, moduleURL(modules, e.Path))
		}
		items = append(items, a.d.URLs.ToContentItem(s.repo, s.ref, ce, true))
	}
	if rest.From(r).Media.Param == "object" {
		return rest.JSON(w, http.StatusOK, wire.ContentTree{
			ContentItem: a.d.URLs.ToContentItem(s.repo, s.ref, wire.ContentEntry{Type: "dir", Path: dir.Path, SHA: dir.OID}, true),
			Entries:     items,
		})
	}
	return rest.JSON(w, http.StatusOK, items)
}

// submoduleListType is the type of submodules in directory listings:
// "file" until API version 2026-03-10, "submodule" from it.
func submoduleListType(r *http.Request) string {
	if v := r.Header.Get("X-GitHub-Api-Version"); v >= "2026-03-10" {
		return "submodule"
	}
	return "file"
}

// writeSymlink describes a symlink that does not name a file of the
// repository; its raw form is the link itself.
func (a *API) writeSymlink(w http.ResponseWriter, r *http.Request, s *snapshot, e entry) error {
	info, data, err := s.g.Read(r.Context(), e.OID, inlineMax)
	if err != nil && !errors.Is(err, gitrepo.ErrTooLarge) {
		return err
	}
	if rest.From(r).Media.Param == "raw" {
		w.Header().Set("Content-Type", mediaType(r, "raw"))
		_, err := w.Write(data)
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ContentSymlink{
		ContentItem: a.d.URLs.ToContentItem(s.repo, s.ref, wire.ContentEntry{Type: "symlink", Path: e.Path, SHA: e.OID, Size: info.Size, DownloadURL: a.downloadURL(s, e.Path)}, true),
		Target:      string(data),
	})
}

// writeSubmodule describes a submodule: the commit it pins and the URL
// .gitmodules gives it.
func (a *API) writeSubmodule(w http.ResponseWriter, r *http.Request, s *snapshot, e entry) error {
	modules, err := s.gitmodules(r.Context())
	if err != nil {
		return err
	}
	u := moduleURL(modules, e.Path)
	return rest.JSON(w, http.StatusOK, wire.ContentSubmodule{
		ContentItem:     a.d.URLs.ToContentItem(s.repo, s.ref, wire.ContentEntry{Type: "submodule", Path: e.Path, SHA: e.OID, SubmoduleRepo: a.hostedRepo(s.repo, u)}, true),
		SubmoduleGitURL: u,
	})
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// encode64 is base64 in lines of 60 characters, each ended by a newline, as
// GitHub sends file contents.
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

// mediaType is the Content-Type of the raw and html forms: the media type
// the client asked for (GitHub keeps the v3 of application/vnd.github.v3.raw).
func mediaType(r *http.Request, param string) string {
	v := ""
	if strings.Contains(r.Header.Get("Accept"), "vnd.github.v3.") {
		v = ".v3"
	}
	return "application/vnd.github" + v + "." + param + "; charset=utf-8"
}

// markdownExts are the extensions GitHub renders as Markdown.
var markdownExts = map[string]bool{".md": true, ".markdown": true, ".mdown": true, ".mkdn": true, ".mkd": true, ".mdwn": true, ".mdtxt": true, ".mdtext": true}

// renderHTML is the html media type of a file: Markdown rendered (GFM)
// inside GitHub's article wrapper; other files as preformatted text.
func renderHTML(id, p string, data []byte) string {
	attr := html.EscapeString(p)
	if markdownExts[strings.ToLower(pathpkg.Ext(p))] {
		return `<div id="` + id + `" class="md" data-path="` + attr + `"><article class="markdown-body entry-content container-lg" itemprop="text">` +
			markdown.HTML(string(data)) + "</article></div>"
	}
	return `<div id="` + id + `" class="plain" data-path="` + attr + `"><pre style="white-space: pre-wrap">` + html.EscapeString(string(data)) + "</pre></div>"
}
