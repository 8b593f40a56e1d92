package deps

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"time"
)

// Download tokens let a URL handed out by the API fetch one file or archive
// of a private repository without credentials, for a few minutes, as the
// ?token= of GitHub's raw and codeload URLs does. A token is an expiry and an
// HMAC of (kind, repository id, resource, expiry) under the server's key:
// checking one reads nothing and writes nothing. The key is kept in the
// database (LoadDownloadSigner), so a URL handed out before a restart, or by
// another hubd serving the same database, still works until it expires.
type DownloadSigner struct{ key []byte }

// tokenWindow: tokens expire 5 to 10 minutes after they are made. Expiries
// are rounded to the window so that an API response (and its ETag) stays the
// same within a window.
const tokenWindow = 5 * 60

// NewDownloadSigner makes a signer with a fresh key of this process only
// (route tables built without a database).
func NewDownloadSigner() *DownloadSigner {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		panic("api: no randomness for the download token key: " + err.Error())
	}
	return &DownloadSigner{key: key}
}

// KeyStore keeps the server's named secrets (store.Store.ServerKey: the
// first caller's candidate is stored; every later caller reads it).
type KeyStore interface {
	ServerKey(ctx context.Context, name, candidate string) (string, error)
}

// LoadDownloadSigner makes the signer of the key kept in ks (made on first
// use).
func LoadDownloadSigner(ctx context.Context, ks KeyStore) (*DownloadSigner, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	key, err := ks.ServerKey(ctx, "download_tokens", hex.EncodeToString(b))
	if err != nil {
		return nil, err
	}
	return &DownloadSigner{key: []byte(key)}, nil
}

// Downloads is the server's download signer: the one Build loaded, or a
// fresh key when the Deps were made without a database (route tables).
func (d *Deps) Downloads() *DownloadSigner {
	if d.DownloadKeys == nil {
		return NewDownloadSigner()
	}
	return d.DownloadKeys
}

func (s *DownloadSigner) mac(kind string, repoID int64, resource string, exp uint64) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(kind + "\x00" + strconv.FormatInt(repoID, 10) + "\x00" + resource + "\x00" + strconv.FormatUint(exp, 10)))
	return m.Sum(nil)[:18]
}

// Token signs access to resource ("ref/path" of a raw file, "format/ref" of
// an archive, a job's log) of a repository.
func (s *DownloadSigner) Token(kind string, repoID int64, resource string, now time.Time) string {
	exp := uint64(now.Unix()/tokenWindow+2) * tokenWindow
	b := binary.BigEndian.AppendUint64(nil, exp)
	return base64.RawURLEncoding.EncodeToString(append(b, s.mac(kind, repoID, resource, exp)...))
}

// TokenUntil signs access to resource until exp (a session's cookie rather
// than a URL handed out): Valid checks it as any other token.
func (s *DownloadSigner) TokenUntil(kind string, id int64, resource string, exp time.Time) string {
	e := uint64(exp.Unix())
	b := binary.BigEndian.AppendUint64(nil, e)
	return base64.RawURLEncoding.EncodeToString(append(b, s.mac(kind, id, resource, e)...))
}

// Valid checks a token for the resource at now.
func (s *DownloadSigner) Valid(tok, kind string, repoID int64, resource string, now time.Time) bool {
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) != 8+18 {
		return false
	}
	exp := binary.BigEndian.Uint64(b[:8])
	if exp > uint64(1<<62) || int64(exp) <= now.Unix() {
		return false
	}
	return hmac.Equal(b[8:], s.mac(kind, repoID, resource, exp))
}
