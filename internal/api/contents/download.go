package contents

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// GET /repos/{owner}/{repo}/tarball/{ref}
func (a *API) tarball(w http.ResponseWriter, r *http.Request) error {
	return a.archiveLink(w, r, "legacy.tar.gz")
}

// GET /repos/{owner}/{repo}/zipball/{ref}
func (a *API) zipball(w http.ResponseWriter, r *http.Request) error {
	return a.archiveLink(w, r, "legacy.zip")
}

// archiveLink answers GitHub's 302 to the archive download, on hubd's
// codeload route; for a private repository the URL carries a token.
func (a *API) archiveLink(w http.ResponseWriter, r *http.Request, format string) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	s, err := a.at(r.Context(), repo, r.PathValue("ref"))
	if err != nil {
		return err
	}
	loc := a.d.URLs.Web + "/_codeload/" + repo.Owner.Login + "/" + repo.Name + "/" + format + "/" + wire.EscapeContentPath(s.ref)
	if repo.Private() {
		loc += "?token=" + a.sign.Token("archive", repo.ID, format+"/"+s.ref, time.Now())
	}
	w.Header().Set("Location", loc)
	w.WriteHeader(http.StatusFound)
	return nil
}

// archiveFormats are the formats of the codeload route.
var archiveFormats = map[string]struct{ git, ext, ctype string }{
	"legacy.tar.gz": {gitrepo.ArchiveTarGz, ".tar.gz", "application/x-gzip"},
	"legacy.zip":    {gitrepo.ArchiveZip, ".zip", "application/zip"},
}

// GET /_codeload/{owner}/{repo}/{format}/{ref...}: the archive of a commit,
// every file under GitHub's {owner}-{repo}-{short sha}/ directory, streamed
// from git archive as it is made.
func (a *API) codeload(w http.ResponseWriter, r *http.Request) error {
	f, ok := archiveFormats[r.PathValue("format")]
	if !ok {
		return model.ErrNotFound
	}
	ref := r.PathValue("ref")
	repo, err := a.downloadRepo(r, "archive", r.PathValue("format")+"/"+ref)
	if err != nil {
		return err
	}
	ctx := r.Context()
	s, err := a.at(ctx, repo, ref)
	if err != nil {
		return err
	}
	name := repo.Owner.Login + "-" + repo.Name + "-" + s.commit[:7]
	etag := `"` + s.commit + `"`
	h := w.Header()
	h.Set("ETag", etag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Contains(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	if r.Method == http.MethodHead {
		setArchiveHeaders(h, f.ctype, name+f.ext)
		w.WriteHeader(http.StatusOK)
		return nil
	}
	started := false
	err = s.g.Archive(ctx, w, f.git, name+"/", s.commit, func() {
		started = true
		setArchiveHeaders(h, f.ctype, name+f.ext)
		w.WriteHeader(http.StatusOK)
	})
	switch {
	case err == nil:
		return nil
	case !started:
		// Nothing was sent: the error is an answer of its own (git
		// refuses to archive a tree that names .git or ..).
		h.Del("ETag")
		if ctx.Err() == nil {
			slog.Error("archive failed", "request_id", rest.From(r).RequestID, "repo", repo.ID, "commit", s.commit, "err", err)
		}
		return errArchive
	}
	// The status is sent: cut the connection so that the client sees a
	// broken transfer rather than a short archive.
	if ctx.Err() == nil {
		slog.Error("archive failed", "request_id", rest.From(r).RequestID, "repo", repo.ID, "commit", s.commit, "err", err)
	}
	panic(http.ErrAbortHandler)
}

// errArchive answers an archive git could not make.
var errArchive = &model.HTTPError{Status: http.StatusInternalServerError, Message: "The archive of this commit could not be created."}

func setArchiveHeaders(h http.Header, ctype, filename string) {
	h.Set("Content-Type", ctype)
	h.Set("Content-Disposition", "attachment; filename="+filename)
	h.Set("X-Content-Type-Options", "nosniff")
}

// downloadRepo finds the repository of a download route: the caller may
// read it, or the request carries a valid token for this resource.
func (a *API) downloadRepo(r *http.Request, kind, resource string) (*model.Repo, error) {
	c := rest.Caller(r)
	v, err := a.d.Store.R().RepoByName(r.Context(), r.PathValue("owner"), r.PathValue("repo"), c.UserID())
	if err != nil {
		return nil, err
	}
	if authz.CanSee(authz.RepoPermission(c, v.Repo, v.Facts)) {
		return v.Repo, nil
	}
	if tok := r.URL.Query().Get("token"); tok != "" && a.sign.Valid(tok, kind, v.Repo.ID, resource, time.Now()) {
		return v.Repo, nil
	}
	return nil, model.ErrNotFound
}

// GET /_raw/{owner}/{repo}/{ref}/{path...}: a file's bytes, the
// download_url of the contents API. The ref is one segment (slashes escaped,
// as hubd writes them); for URLs written by hand, longer prefixes of the
// path are tried as refs too, as GitHub does.
func (a *API) raw(w http.ResponseWriter, r *http.Request) error {
	repo, err := a.downloadRepo(r, "raw", r.PathValue("rest"))
	if err != nil {
		return err
	}
	ctx := r.Context()
	segs := strings.Split(r.URL.EscapedPath(), "/")
	if len(segs) < 6 { // "", "_raw", owner, repo, ref, path...
		return model.ErrNotFound
	}
	segs = segs[4:]
	for i := 1; i < len(segs); i++ {
		ref, err1 := url.PathUnescape(strings.Join(segs[:i], "/"))
		p, err2 := url.PathUnescape(strings.Join(segs[i:], "/"))
		if err1 != nil || err2 != nil || !validPath(p) {
			continue
		}
		s, err := a.at(ctx, repo, ref)
		if errors.Is(err, errEmptyRepo) {
			return model.ErrNotFound
		}
		var he *model.HTTPError
		if errors.As(err, &he) && he.Status == http.StatusNotFound {
			continue
		}
		if err != nil {
			return err
		}
		e, err := s.lookup(ctx, p)
		if err != nil {
			return err
		}
		if k := e.kind(); k != "file" && k != "symlink" {
			return model.ErrNotFound
		}
		return serveRaw(ctx, w, r, s.g, e.OID)
	}
	return model.ErrNotFound
}

// serveRaw streams a blob as raw.githubusercontent.com does: text/plain or
// application/octet-stream (never a type a browser would run), the blob id
// as ETag.
func serveRaw(ctx context.Context, w http.ResponseWriter, r *http.Request, g *gitrepo.Repo, oid string) error {
	h := w.Header()
	etag := `"` + oid + `"`
	h.Set("ETag", etag)
	h.Set("Cache-Control", "max-age=300")
	if inm := r.Header.Get("If-None-Match"); inm != "" && strings.Contains(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	info, data, err := g.Read(ctx, oid, inlineMax)
	var body io.Reader = bytes.NewReader(data)
	if errors.Is(err, gitrepo.ErrTooLarge) {
		rc, err := g.OpenBlob(ctx, oid)
		if err != nil {
			return err
		}
		defer rc.Close()
		body = bufio.NewReaderSize(rc, 8192)
	} else if err != nil {
		return err
	}
	head := data
	if br, ok := body.(*bufio.Reader); ok {
		head, _ = br.Peek(8000)
	}
	ctype := "text/plain; charset=utf-8"
	if bytes.IndexByte(head[:min(len(head), 8000)], 0) >= 0 {
		ctype = "application/octet-stream"
	}
	h.Set("Content-Type", ctype)
	h.Set("Content-Length", strconv.FormatInt(info.Size, 10))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	if _, err := io.Copy(w, body); err != nil {
		panic(http.ErrAbortHandler)
	}
	return nil
}
