package attestations_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/attestations"
)

var ctx = context.Background()

// signer makes Sigstore bundles the way a keyless signer would: a
// short-lived certificate for a fresh P-256 key signs the DSSE envelope of
// an in-toto statement.
type signer struct {
	key  *ecdsa.PrivateKey
	cert []byte
}

func newSigner(t *testing.T) *signer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hubd test signer"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &signer{key: key, cert: der}
}

// digest is the sha256 subject digest of content.
func digest(content string) string {
	h := sha256.Sum256([]byte(content))
	return "sha256:" + hex.EncodeToString(h[:])
}

// statement is an in-toto statement about the artifacts named by digests.
func statement(predicateType string, digests ...string) []byte {
	subjects := []map[string]any{}
	for i, d := range digests {
		subjects = append(subjects, map[string]any{"name": "artifact" + string(rune('a'+i)), "digest": map[string]string{"sha256": d[len("sha256:"):]}})
	}
	b, _ := json.Marshal(map[string]any{"_type": "https://in-toto.io/Statement/v1", "subject": subjects,
		"predicateType": predicateType, "predicate": map[string]any{"buildDefinition": map[string]any{"buildType": "https://example.com/build"}}})
	return b
}

// bundle signs payload into a v0.3 bundle.
func (s *signer) bundle(t *testing.T, payload []byte) map[string]any {
	return s.forged(t, payload, payload)
}

// forged is a bundle whose envelope carries payload under the signature
// of signed.
func (s *signer) forged(t *testing.T, signed, payload []byte) map[string]any {
	t.Helper()
	const typ = "application/vnd.in-toto+json"
	h := sha256.Sum256(attestations.PAE(typ, signed))
	sig, err := ecdsa.SignASN1(rand.Reader, s.key, h[:])
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
		"verificationMaterial": map[string]any{
			"certificate": map[string]any{"rawBytes": base64.StdEncoding.EncodeToString(s.cert)},
			"tlogEntries": []any{},
		},
		"dsseEnvelope": map[string]any{
			"payload":     base64.StdEncoding.EncodeToString(payload),
			"payloadType": typ,
			"signatures":  []any{map[string]any{"sig": base64.StdEncoding.EncodeToString(sig)}},
		},
	}
}
