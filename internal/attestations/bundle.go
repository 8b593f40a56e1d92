package attestations

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sigstore/sigstore-go/pkg/bundle"

	"github.com/hubd/hubd/internal/model"
)

// Parsed is what an uploaded bundle says.
type Parsed struct {
	Digests       []string // "alg:hex" of every subject
	PredicateType string
	// Verified: a signature of the envelope checks out with the bundle's
	// certificate. A bundle that names its key only by hint is stored
	// unverified: the key is not in the bundle.
	Verified bool
}

func invalid(msg string) error { return model.Custom(resource, "bundle", msg) }

// Parse validates a Sigstore bundle (its JSON as uploaded) with
// sigstore-go: the media type and version, the verification material, a
// DSSE envelope holding an in-toto statement with subjects and a predicate
// type; and checks the envelope's signature with the bundle's certificate.
func Parse(raw []byte) (*Parsed, error) {
	var b bundle.Bundle
	if err := b.UnmarshalJSON(raw); err != nil {
		return nil, invalid("Invalid bundle: " + err.Error())
	}
	env, err := b.Envelope()
	if err != nil {
		return nil, invalid("The bundle must hold a DSSE envelope")
	}
	st, err := env.Statement()
	if err != nil {
		return nil, invalid("The bundle's envelope must hold an in-toto statement: " + err.Error())
	}
	p := &Parsed{PredicateType: st.GetPredicateType()}
	if p.PredicateType == "" {
		return nil, invalid("The in-toto statement has no predicate type")
	}
	for _, s := range st.GetSubject() {
		for alg, h := range s.GetDigest() {
			alg, h = strings.ToLower(alg), strings.ToLower(h)
			if _, err := hex.DecodeString(h); err != nil || h == "" || alg == "" {
				return nil, invalid("Invalid subject digest " + alg + ":" + h)
			}
			p.Digests = append(p.Digests, alg+":"+h)
		}
	}
	if len(p.Digests) == 0 {
		return nil, invalid("The in-toto statement has no subject digest")
	}
	slices.Sort(p.Digests)
	p.Digests = slices.Compact(p.Digests)
	vc, err := b.VerificationContent()
	if err != nil {
		return nil, invalid("Invalid verification material: " + err.Error())
	}
	cert := vc.Certificate()
	if cert == nil {
		return p, nil
	}
	payload, err := env.DecodeB64Payload()
	if err != nil {
		return nil, invalid("Invalid envelope payload")
	}
	pae := PAE(env.PayloadType, payload)
	for _, sig := range env.Signatures {
		raw, err := base64.StdEncoding.DecodeString(sig.Sig)
		if err == nil && verifySignature(cert, pae, raw) {
			p.Verified = true
			return p, nil
		}
	}
	return nil, invalid("The envelope's signature does not verify with the bundle's certificate")
}

// PAE is DSSE's pre-authentication encoding of a payload, what is signed.
func PAE(payloadType string, payload []byte) []byte {
	return fmt.Appendf(nil, "DSSEv1 %s %s %s %s", strconv.Itoa(len(payloadType)), payloadType, strconv.Itoa(len(payload)), payload)
}

// verifySignature checks sig over msg with the certificate's key: ECDSA
// (hashed by its curve's size), RSA (PKCS#1 v1.5 or PSS with SHA-256) or
// Ed25519.
func verifySignature(cert *x509.Certificate, msg, sig []byte) bool {
	switch k := cert.PublicKey.(type) {
	case *ecdsa.PublicKey:
		var d []byte
		switch k.Curve {
		case elliptic.P384():
			h := sha512.Sum384(msg)
			d = h[:]
		case elliptic.P521():
			h := sha512.Sum512(msg)
			d = h[:]
		default:
			h := sha256.Sum256(msg)
			d = h[:]
		}
		return ecdsa.VerifyASN1(k, d, sig)
	case *rsa.PublicKey:
		h := sha256.Sum256(msg)
		return rsa.VerifyPKCS1v15(k, crypto.SHA256, h[:], sig) == nil || rsa.VerifyPSS(k, crypto.SHA256, h[:], sig, nil) == nil
	case ed25519.PublicKey:
		return ed25519.Verify(k, msg, sig)
	}
	return false
}

// kindOf is the short predicate name GitHub filters by.
func kindOf(predicateType string) string {
	switch {
	case strings.HasPrefix(predicateType, "https://slsa.dev/provenance/"):
		return "provenance"
	case strings.HasPrefix(predicateType, "https://spdx.dev/Document"), strings.HasPrefix(predicateType, "https://cyclonedx.org/bom"):
		return "sbom"
	case strings.HasPrefix(predicateType, "https://in-toto.io/attestation/release/"):
		return "release"
	}
	return ""
}
