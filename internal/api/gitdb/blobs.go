package gitdb

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// maxBlobBytes is GitHub's limit on blobs read or written through the API.
const maxBlobBytes = 100 << 20

// base64Line is the line length of GitHub's base64 content (Ruby's
// Base64.encode64: 60 characters, each line ended by a newline).
const base64Line = 60

type blobBody struct {
	Content  rest.Opt[string] `json:"content"`
	Encoding rest.Opt[string] `json:"encoding"`
}

// POST /repos/{owner}/{repo}/git/blobs
func (a *API) createBlob(w http.ResponseWriter, r *http.Request) error {
	repo, g, err := a.repoFor(r, true)
	if err != nil {
		return err
	}
	var in blobBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	content, ok := in.Content.Get()
	switch {
	case !in.Content.Set:
		return required("content")
	case !ok:
		return notString("content")
	case in.Encoding.Null:
		return notString("encoding")
	}
	data, err := decodeContent(content, in.Encoding.Value)
	if err != nil {
		return err
	}
	oid, err := g.WriteObject(r.Context(), "blob", data)
	if err != nil {
		return err
	}
	u := a.d.URLs.GitObjectURL(repo, "blob", oid)
	w.Header().Set("Location", u)
	return rest.JSON(w, http.StatusCreated, wire.ShortBlob{URL: u, SHA: oid})
}

// decodeContent turns a blob's content in its encoding ("" is utf-8) into
// bytes. Base64 may be wrapped in lines, as GitHub sends it.
func decodeContent(content, encoding string) ([]byte, error) {
	var data []byte
	switch strings.ToLower(encoding) {
	case "", "utf-8", "utf8":
		data = []byte(content)
	case "base64":
		clean := strings.Map(func(c rune) rune {
			if c == '\n' || c == '\r' || c == ' ' || c == '\t' {
				return -1
			}
			return c
		}, content)
		var err error
		if data, err = base64.StdEncoding.DecodeString(clean); err != nil {
			if data, err = base64.RawStdEncoding.DecodeString(clean); err != nil {
				return nil, model.Unprocessable("content is not valid Base64")
			}
		}
	default:
		return nil, invalid("Blob", "encoding", encoding)
	}
	if len(data) > maxBlobBytes {
		return nil, model.Unprocessable("content is too large: blobs are limited to 100 MB")
	}
	return data, nil
}

// GET /repos/{owner}/{repo}/git/blobs/{file_sha}: the JSON form (content in
// wrapped base64) or, with the raw media type, the bytes. Either is streamed
// from git, never held whole in memory; blobs are immutable, so the ETag is
// derived from the id instead of the body.
func (a *API) getBlob(w http.ResponseWriter, r *http.Request) error {
	repo, g, err := a.repoFor(r, false)
	if err != nil {
		return err
	}
	ctx := r.Context()
	info, err := object(ctx, g, r.PathValue("file_sha"), "blob")
	if err != nil {
		return err
	}
	if info.Size > maxBlobBytes {
		return model.Forbidden("This API returns blobs up to 100 MB in size. The requested blob is too large to fetch via the API, but you can always clone the repository via Git to obtain it.")
	}
	media := rest.From(r).Media
	raw := media.Param == "raw"
	h := w.Header()
	if blobNotModified(r, h, info.OID, media.Header()) {
		h.Del("Content-Type")
		w.WriteHeader(http.StatusNotModified)
		return nil
	}

	var head, tail []byte
	size := info.Size
	if raw {
		h.Set("Content-Type", "application/vnd.github.raw")
	} else {
		head, tail = blobJSON(a, repo, info)
		b64 := int64(base64.StdEncoding.EncodedLen(int(info.Size)))
		size = int64(len(head)) + b64 + 2*((b64+base64Line-1)/base64Line) + int64(len(tail))
		h.Set("Content-Type", "application/json; charset=utf-8")
	}
	h.Set("Content-Length", strconv.FormatInt(size, 10))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	err = g.CatStream(ctx, info.OID, func(_ gitrepo.ObjectInfo, rd io.Reader) error {
		bw := bufio.NewWriterSize(w, 32<<10)
		if raw {
			if _, err := io.Copy(bw, rd); err != nil {
				return err
			}
			return bw.Flush()
		}
		bw.Write(head)
		lw := &lineWriter{w: bw, nl: []byte(`\n`)}
		enc := base64.NewEncoder(base64.StdEncoding, lw)
		if _, err := io.Copy(enc, rd); err != nil {
			return err
		}
		if err := enc.Close(); err != nil {
			return err
		}
		if err := lw.end(); err != nil {
			return err
		}
		bw.Write(tail)
		return bw.Flush()
	})
	if err != nil {
		// The status is sent: cut the response short rather than append an
		// error to it.
		slog.Warn("blob stream", "request_id", rest.From(r).RequestID, "sha", info.OID, "err", err)
		panic(http.ErrAbortHandler)
	}
	return nil
}

// blobJSON is the blob object around its content: what comes before the
// content string's characters and what follows them.
func blobJSON(a *API, repo *model.Repo, info gitrepo.ObjectInfo) (head, tail []byte) {
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	head = []byte(`{"sha":` + str(info.OID) + `,"node_id":` + str(wire.GitNodeID("B", repo.ID, info.OID)) +
		`,"size":` + strconv.FormatInt(info.Size, 10) + `,"url":` + str(a.d.URLs.GitObjectURL(repo, "blob", info.OID)) +
		`,"content":"`)
	tail = []byte(`","encoding":"base64"}` + "\n")
	return head, tail
}

// blobNotModified sets the ETag and caching headers of a blob response and
// reports whether the client's copy is current. Like the server's ETags it
// varies with the caller and the media type.
func blobNotModified(r *http.Request, h http.Header, oid, media string) bool {
	c := rest.Caller(r)
	sum := sha256.Sum256([]byte(oid + "|" + strconv.FormatInt(c.UserID(), 10) + "|" + media))
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	h.Set("ETag", etag)
	if c.Authenticated() {
		h.Set("Cache-Control", "private, max-age=60, s-maxage=60")
	} else {
		h.Set("Cache-Control", "public, max-age=60, s-maxage=60")
	}
	h.Set("Vary", "Accept, Authorization, Cookie, X-GitHub-OTP, Accept-Encoding, X-Requested-With")
	for _, t := range strings.Split(r.Header.Get("If-None-Match"), ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// lineWriter breaks base64 text into lines of base64Line characters, each
// ended by nl.
type lineWriter struct {
	w   io.Writer
	nl  []byte
	col int
}

func (l *lineWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		k := min(base64Line-l.col, len(p))
		if _, err := l.w.Write(p[:k]); err != nil {
			return n, err
		}
		n, l.col, p = n+k, l.col+k, p[k:]
		if l.col == base64Line {
			if _, err := l.w.Write(l.nl); err != nil {
				return n, err
			}
			l.col = 0
		}
	}
	return n, nil
}

// end closes the last, partial line.
func (l *lineWriter) end() error {
	if l.col == 0 {
		return nil
	}
	l.col = 0
	_, err := l.w.Write(l.nl)
	return err
}
