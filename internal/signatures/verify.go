package signatures

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"golang.org/x/crypto/ssh"

	"github.com/hubd/hubd/internal/model"
)

// Object is a signed (or unsigned) commit or tag: its id (the cache key;
// "" is not cached), signature, the bytes it signs, and the committer's
// (tagger's) email and date.
type Object struct {
	OID       string
	Signature string
	Payload   string
	Email     string
	When      time.Time
}

// GitHub's verification reasons.
const (
	Valid           = "valid"
	Unsigned        = "unsigned"
	UnknownSigType  = "unknown_signature_type"
	Malformed       = "malformed_signature"
	UnknownKey      = "unknown_key"
	Invalid         = "invalid"
	ExpiredKey      = "expired_key"
	NotSigningKey   = "not_signing_key"
	NoUser          = "no_user"
	UnverifiedEmail = "unverified_email"
	BadEmail        = "bad_email"
	pgpArmor        = "-----BEGIN PGP SIGNATURE-----"
	sshArmor        = "-----BEGIN SSH SIGNATURE-----"
	sshSigNamespace = "git"
)

// Verify is the verification of one object.
func (s *Service) Verify(ctx context.Context, o Object) (model.Verification, error) {
	vs, err := s.VerifyAll(ctx, []Object{o})
	if err != nil {
		return model.Verification{}, err
	}
	return vs[0], nil
}

// pending is an object being verified: what its signature names.
type pending struct {
	i      int
	pgp    *packet.Signature
	keyID  string // upper-case hex
	ssh    *sshSignature
	sshFP  string
	reason string // decided before any key is looked up
}

// VerifyAll verifies objects in order, with one query for the GPG keys,
// one for the SSH keys and one for the committers' accounts, whatever
// their number (results seen lately are reused).
func (s *Service) VerifyAll(ctx context.Context, objs []Object) ([]model.Verification, error) {
	now := time.Now()
	out := make([]model.Verification, len(objs))
	var todo []*pending
	var keyIDs, fps []string
	for i, o := range objs {
		if o.Signature == "" {
			out[i] = model.Verification{Reason: Unsigned}
			continue
		}
		if v, ok := s.cached(o.OID, now); ok {
			out[i] = v
			continue
		}
		p := &pending{i: i}
		todo = append(todo, p)
		switch {
		case strings.HasPrefix(o.Signature, pgpArmor):
			sig, keyID, err := parsePGPSignature(o.Signature)
			if err != nil {
				p.reason = Malformed
				continue
			}
			p.pgp, p.keyID = sig, keyID
			keyIDs = append(keyIDs, keyID)
		case strings.HasPrefix(o.Signature, sshArmor):
			sig, err := parseSSHSignature(o.Signature)
			if err != nil {
				p.reason = Malformed
				continue
			}
			p.ssh, p.sshFP = sig, ssh.FingerprintSHA256(sig.pub)
			fps = append(fps, p.sshFP)
		default:
			p.reason = UnknownSigType
		}
	}
	if len(todo) == 0 {
		return out, nil
	}
	q := s.Store.R()
	gpgKeys, err := q.GPGKeysByKeyID(ctx, keyIDs)
	if err != nil {
		return nil, err
	}
	sshKeys, err := q.SSHSigningKeysByFingerprint(ctx, fps)
	if err != nil {
		return nil, err
	}
	var emails []string
	for _, p := range todo {
		emails = append(emails, strings.ToLower(objs[p.i].Email))
	}
	users := map[string]*model.Account{}
	if s.Users != nil {
		if users, err = s.Users(ctx, emails); err != nil {
			return nil, err
		}
	}
	rings := map[int64]openpgp.EntityList{} // parsed once a batch
	for _, p := range todo {
		o := objs[p.i]
		v := model.Verification{Signature: o.Signature, Payload: o.Payload, Reason: p.reason}
		if v.Reason == "" {
			committer := users[strings.ToLower(o.Email)]
			var registered time.Time
			switch {
			case p.pgp != nil:
				v.Reason, registered = verifyPGP(p, gpgKeys[p.keyID], rings, o, committer)
			default:
				v.Reason, registered = verifySSH(p, sshKeys[p.sshFP], o, committer)
			}
			if v.Reason == Valid {
				// The earliest moment the signature could be verified:
				// when it was made, or when its key was registered.
				at := o.When.UTC()
				if p.pgp != nil && !p.pgp.CreationTime.IsZero() {
					at = p.pgp.CreationTime.UTC()
				}
				if registered.After(at) {
					at = registered
				}
				v.Verified, v.VerifiedAt = true, &at
			}
		}
		out[p.i] = v
		s.remember(o.OID, v, now)
	}
	return out, nil
}

// parsePGPSignature reads an armored OpenPGP signature and the key id of
// its issuer.
func parsePGPSignature(armored string) (*packet.Signature, string, error) {
	block, err := armor.Decode(strings.NewReader(armored))
	if err != nil {
		return nil, "", err
	}
	if block.Type != "PGP SIGNATURE" {
		return nil, "", fmt.Errorf("armor type %q", block.Type)
	}
	p, err := packet.Read(block.Body)
	if err != nil {
		return nil, "", err
	}
	sig, ok := p.(*packet.Signature)
	if !ok {
		return nil, "", fmt.Errorf("not a signature packet")
	}
	switch fp := sig.IssuerFingerprint; {
	case sig.IssuerKeyId != nil:
		return sig, fmt.Sprintf("%016X", *sig.IssuerKeyId), nil
	case len(fp) == 20: // v4: the low 64 bits
		return sig, fmt.Sprintf("%016X", binary.BigEndian.Uint64(fp[12:])), nil
	case len(fp) >= 8: // v5, v6: the high 64 bits
		return sig, fmt.Sprintf("%016X", binary.BigEndian.Uint64(fp[:8])), nil
	}
	return nil, "", fmt.Errorf("signature names no issuer")
}

// verifyPGP checks an OpenPGP signature against the stored key that holds
// its issuer, then the committer's email against the key's owner and user
// ids; it also gives when the key was registered.
func verifyPGP(p *pending, stored *model.GPGKey, rings map[int64]openpgp.EntityList, o Object, committer *model.Account) (string, time.Time) {
	if stored == nil {
		return UnknownKey, time.Time{}
	}
	el, ok := rings[stored.ID]
	if !ok {
		el, _ = openpgp.ReadArmoredKeyRing(strings.NewReader(stored.RawKey))
		rings[stored.ID] = el
	}
	if len(el) == 0 {
		return UnknownKey, stored.CreatedAt
	}
	var keyID uint64
	fmt.Sscanf(p.keyID, "%016X", &keyID)
	keys := el.KeysById(keyID)
	if len(keys) == 0 {
		return UnknownKey, stored.CreatedAt
	}
	key, sig := keys[0], p.pgp
	h, err := sig.PrepareVerify()
	if err != nil {
		return Invalid, stored.CreatedAt
	}
	w := h
	if sig.SigType == packet.SigTypeText {
		w = openpgp.NewCanonicalTextHash(h)
	} else if sig.SigType != packet.SigTypeBinary {
		return Invalid, stored.CreatedAt
	}
	w.Write([]byte(o.Payload))
	if key.PublicKey.VerifySignature(h, sig) != nil {
		return Invalid, stored.CreatedAt
	}
	at := sig.CreationTime
	subkey := key.PublicKey != key.Entity.PrimaryKey
	if key.Entity.Revoked(at) || subkey && key.Revoked(at) {
		return Invalid, stored.CreatedAt
	}
	if key.SelfSignature != nil && key.SelfSignature.FlagsValid && !key.SelfSignature.FlagSign {
		return NotSigningKey, stored.CreatedAt
	}
	primarySig, _ := key.Entity.PrimarySelfSignature()
	if key.Entity.PrimaryKey.KeyExpired(primarySig, at) || subkey && key.PublicKey.KeyExpired(key.SelfSignature, at) {
		return ExpiredKey, stored.CreatedAt
	}
	inKey := false
	for _, e := range stored.Emails {
		inKey = inKey || strings.EqualFold(e.Email, o.Email)
	}
	switch {
	case committer != nil && committer.ID == stored.UserID && inKey:
		return Valid, stored.CreatedAt
	case committer != nil:
		return BadEmail, stored.CreatedAt // not among the key's identities, or someone else's
	case inKey:
		return UnverifiedEmail, stored.CreatedAt // the key claims it; its owner has not verified it
	}
	return NoUser, stored.CreatedAt
}

// verifySSH checks an SSH signature (namespace git) made by a stored
// signing key, then that the committer's email is its owner's.
func verifySSH(p *pending, stored *model.SSHSigningKey, o Object, committer *model.Account) (string, time.Time) {
	if stored == nil {
		return UnknownKey, time.Time{}
	}
	if p.ssh.namespace != sshSigNamespace || p.ssh.verify([]byte(o.Payload)) != nil {
		return Invalid, stored.CreatedAt
	}
	switch {
	case committer == nil:
		return NoUser, stored.CreatedAt
	case committer.ID != stored.UserID:
		return BadEmail, stored.CreatedAt
	}
	return Valid, stored.CreatedAt
}
