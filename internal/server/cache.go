package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/rest"
)

// bufferedWriter holds a GET response so that the ETag can be computed and a
// 304 sent instead.
type bufferedWriter struct {
	header http.Header
	status int
	wrote  bool
	buf    *bytes.Buffer
}

func (b *bufferedWriter) Header() http.Header { return b.header }
func (b *bufferedWriter) WriteHeader(s int) {
	if !b.wrote {
		b.status, b.wrote = s, true
	}
}
func (b *bufferedWriter) Write(p []byte) (int, error) {
	b.wrote = true
	return b.buf.Write(p)
}

// fresh sets ETag (and honours Last-Modified set by the handler) and reports
// whether the client's copy is current.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func fresh(r *http.Request, b *bufferedWriter) bool {
	h := b.header
	// The body's fingerprint: two CRC-32s (Castagnoli and IEEE, both computed
	// by the CPU's instructions) and the length. An ETag only has to tell
	// versions of one resource apart, and SHA-256 over every list body was
	// half of the CPU of a busy issue list.
	body := b.buf.Bytes()
	var fp [20]byte
	binary.BigEndian.PutUint32(fp[0:], crc32.Checksum(body, castagnoli))
	binary.BigEndian.PutUint32(fp[4:], crc32.ChecksumIEEE(body))
	binary.BigEndian.PutUint64(fp[8:], uint64(len(body)))
	// The ETag varies with the caller too, like GitHub's, so a cached body is
	// never served to another user.
	c := rest.Caller(r)
	salt := sha256.Sum256(append(fp[:16], []byte(strconv.FormatInt(c.UserID(), 10)+"|"+rest.From(r).Media.Header())...))
	etag := `W/"` + hex.EncodeToString(salt[:16]) + `"`
	h.Set("ETag", etag)
	cache := "private, max-age=60, s-maxage=60"
	if !c.Authenticated() {
		cache = "public, max-age=60, s-maxage=60"
	}
	h.Set("Cache-Control", cache)
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for _, t := range strings.Split(inm, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == strings.TrimPrefix(etag, "W/") {
				return true
			}
		}
		return false
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" {
		if lm := h.Get("Last-Modified"); lm != "" {
			since, err1 := http.ParseTime(ims)
			mod, err2 := http.ParseTime(lm)
			if err1 == nil && err2 == nil && !mod.After(since) {
				return true
			}
		}
	}
	return false
}
