package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/curve25519"
)

// serverKey is one AES-256 key of the server: the first of a ring seals,
// every one opens (the others are the keys it replaced).
type serverKey struct {
	key []byte
	tag string // "v1:" + a fingerprint of the key + ":", the prefix of its ciphertexts
	gcm cipher.AEAD
}

func newServerKey(key []byte) (*serverKey, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("secrets key: want 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(append([]byte("hubd secrets key id\x00"), key...))
	return &serverKey{key: key, tag: "v1:" + hex.EncodeToString(sum[:6]) + ":", gcm: gcm}, nil
}

// ParseKeys reads the operator's key list (--secrets-key,
// HUBD_SECRETS_KEY): base64 encodings of 32 random bytes separated by
// commas, the first the current key and the rest former ones.
func ParseKeys(spec string) ([][]byte, error) {
	var out [][]byte
	for i, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		b, err := base64.StdEncoding.DecodeString(part)
		if err != nil || len(b) != 32 {
			return nil, fmt.Errorf("secrets key %d: want the base64 encoding of 32 bytes (openssl rand -base64 32)", i+1)
		}
		out = append(out, b)
	}
	return out, nil
}

// NewKey makes a fresh server key, base64-encoded.
func NewKey() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// seal encrypts a secret's value under k, bound to where it lives (a
// ciphertext moved to another secret's row does not open).
func (k *serverKey) seal(value []byte, bind string) string {
	nonce := make([]byte, k.gcm.NonceSize())
	rand.Read(nonce)
	ct := k.gcm.Seal(nonce, nonce, value, []byte(bind))
	return k.tag + base64.StdEncoding.EncodeToString(ct)
}

var errUndecryptable = errors.New("secrets: a value does not decrypt with any configured server key")

// open decrypts a ciphertext of one of the ring's keys.
func openValue(ring []*serverKey, stored, bind string) ([]byte, error) {
	for _, k := range ring {
		if !strings.HasPrefix(stored, k.tag) {
			continue
		}
		ct, err := base64.StdEncoding.DecodeString(stored[len(k.tag):])
		n := k.gcm.NonceSize()
		if err != nil || len(ct) < n {
			return nil, errUndecryptable
		}
		v, err := k.gcm.Open(nil, ct[:n], ct[n:], []byte(bind))
		if err != nil {
			return nil, errUndecryptable
		}
		return v, nil
	}
	return nil, errUndecryptable
}

// boxKey is a scope's X25519 key pair for libsodium sealed boxes.
type boxKey struct {
	id         string
	pub, priv  [32]byte
	encodedPub string
}

// boxKeyOf derives the key pair of a scope from a server key: nothing is
// written when a client asks for a public key, every hubd process sharing
// the database answers the same key, and the pairs of former server keys
// still open boxes sealed for them (rotation).
func (k *serverKey) boxKeyOf(scope string) (*boxKey, error) {
	mac := hmac.New(sha256.New, k.key)
	mac.Write([]byte("hubd sealed box key\x00" + scope))
	var b boxKey
	copy(b.priv[:], mac.Sum(nil))
	pub, err := curve25519.X25519(b.priv[:], curve25519.Basepoint)
	if err != nil {
		return nil, err
	}
	copy(b.pub[:], pub)
	sum := sha256.Sum256(pub)
	// GitHub's key ids are decimal numbers of up to 19 digits.
	b.id = strconv.FormatUint(binary.BigEndian.Uint64(sum[:8])>>1, 10)
	b.encodedPub = base64.StdEncoding.EncodeToString(pub)
	return &b, nil
}
