// Package tempclone makes and checks temp_clone_token: the short-lived
// credential a repository's GET gives a caller who may clone it while it
// is private. The token names the repository, the user and when it
// expires, signed with a server key, so that making one writes nothing
// (a read stays a read) and checking one needs no lookup. It lets git over
// HTTP fetch that one repository, with no more than the user's own read
// access, until it expires.
package tempclone

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"encoding/hex"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

// Lifetime is how long a token lives at least: tokens are made for
// windows of this length and expire one window after theirs ends, so that
// repeated reads give the same token.
const Lifetime = time.Hour

// Issuer makes and checks tokens with one key.
type Issuer struct {
	key []byte
	Now func() time.Time
}

// KeyStore keeps the server's key (store.Store.ServerKey).
type KeyStore interface {
	ServerKey(ctx context.Context, name, candidate string) (string, error)
}

// New makes an issuer with the key kept in ks (made on first use).
func New(ctx context.Context, ks KeyStore) (*Issuer, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	key, err := ks.ServerKey(ctx, "temp_clone_token", hex.EncodeToString(b[:]))
	if err != nil {
		return nil, err
	}
	return &Issuer{key: []byte(key), Now: time.Now}, nil
}

var enc = base32.StdEncoding.WithPadding(base32.NoPadding)

const macSize = 15

func (i *Issuer) sign(payload []byte) []byte {
	m := hmac.New(sha256.New, i.key)
	m.Write(payload)
	return m.Sum(nil)[:macSize]
}

// Token is the token of user on repository repoID.
func (i *Issuer) Token(repoID, userID int64) string {
	exp := i.Now().Truncate(Lifetime).Add(2 * Lifetime).Unix()
	var b []byte
	b = binary.AppendUvarint(b, uint64(repoID))
	b = binary.AppendUvarint(b, uint64(userID))
	b = binary.AppendUvarint(b, uint64(exp))
	return enc.EncodeToString(append(b, i.sign(b)...))
}

// Looks reports whether tok is shaped like a token (upper-case base32,
// which no other hubd credential is).
func Looks(tok string) bool {
	if len(tok) < 30 || len(tok) > 64 {
		return false
	}
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; !(c >= 'A' && c <= 'Z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// Check reads a token: its repository, user and expiry, when it is one
// this issuer made and it has not expired.
func (i *Issuer) Check(tok string) (repoID, userID int64, exp time.Time, ok bool) {
	b, err := enc.DecodeString(tok)
	if err != nil || len(b) <= macSize {
		return 0, 0, time.Time{}, false
	}
	payload, mac := b[:len(b)-macSize], b[len(b)-macSize:]
	if !hmac.Equal(mac, i.sign(payload)) {
		return 0, 0, time.Time{}, false
	}
	var v [3]uint64
	rest := payload
	for k := range v {
		n, size := binary.Uvarint(rest)
		if size <= 0 {
			return 0, 0, time.Time{}, false
		}
		v[k], rest = n, rest[size:]
	}
	exp = time.Unix(int64(v[2]), 0)
	if len(rest) != 0 || !i.Now().Before(exp) {
		return 0, 0, time.Time{}, false
	}
	return int64(v[0]), int64(v[1]), exp, true
}

// Caller is who a token authenticates: its user, narrowed like a
// fine-grained token to reading that one repository's contents.
func Caller(u *model.Account, repo *model.Repo, exp time.Time) *authz.Caller {
	return &authz.Caller{Kind: authz.FineGrained, User: u, ExpiresAt: exp,
		Permissions:     map[string]string{"contents": "read", "metadata": "read"},
		RepoIDs:         map[int64]bool{repo.ID: true},
		ResourceOwnerID: repo.OwnerID, OwnerAccess: true}
}
