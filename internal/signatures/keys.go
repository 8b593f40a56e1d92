package signatures

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"golang.org/x/crypto/ssh"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// errKeyInvalid is GitHub's refusal of an armored key it cannot read.
func errKeyInvalid() error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: gpgFamily.resource, Code: "custom", Message: "We got an error doing that."}}}
}

// ListGPGKeys is a page of c's GPG keys and how many there are.
func (s *Service) ListGPGKeys(ctx context.Context, c *authz.Caller, limit, offset int) ([]*model.GPGKey, int, error) {
	if err := actor(c, gpgFamily.read); err != nil {
		return nil, 0, err
	}
	return s.gpgKeysOf(ctx, c.User, limit, offset)
}

// ListUserGPGKeys is a page of a user's GPG keys (public).
func (s *Service) ListUserGPGKeys(ctx context.Context, login string, limit, offset int) ([]*model.GPGKey, int, error) {
	u, err := s.Store.R().AccountByLogin(ctx, login)
	if err != nil {
		return nil, 0, err
	}
	return s.gpgKeysOf(ctx, u, limit, offset)
}

func (s *Service) gpgKeysOf(ctx context.Context, u *model.Account, limit, offset int) ([]*model.GPGKey, int, error) {
	list, total, err := s.Store.R().GPGKeys(ctx, u.ID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	return list, total, s.markVerified(ctx, u.ID, list...)
}

// GetGPGKey is one of c's GPG keys.
func (s *Service) GetGPGKey(ctx context.Context, c *authz.Caller, id int64) (*model.GPGKey, error) {
	if err := actor(c, gpgFamily.read); err != nil {
		return nil, err
	}
	k, err := s.Store.R().GPGKey(ctx, c.User.ID, id)
	if err != nil {
		return nil, err
	}
	return k, s.markVerified(ctx, c.User.ID, k)
}

// markVerified sets Verified on the keys' emails that are addresses of
// their owner (one lookup for all of them).
func (s *Service) markVerified(ctx context.Context, ownerID int64, keys ...*model.GPGKey) error {
	var emails []string
	for _, k := range keys {
		for _, e := range k.Emails {
			emails = append(emails, strings.ToLower(e.Email))
		}
	}
	if len(emails) == 0 || s.Users == nil {
		return nil
	}
	users, err := s.Users(ctx, emails)
	if err != nil {
		return err
	}
	for _, k := range keys {
		for i, e := range k.Emails {
			u := users[strings.ToLower(e.Email)]
			k.Emails[i].Verified = u != nil && u.ID == ownerID
		}
	}
	return nil
}

// CreateGPGKey adds an armored public key (with its subkeys) to c's keys.
func (s *Service) CreateGPGKey(ctx context.Context, c *authz.Caller, name, armored string) (*model.GPGKey, error) {
	if err := actor(c, gpgFamily.write); err != nil {
		return nil, err
	}
	k, err := ParseGPGKey(armored, time.Now())
	if err != nil {
		return nil, err
	}
	k.UserID, k.Name = c.User.ID, strings.TrimSpace(name)
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		ids := []string{k.KeyID}
		for _, sk := range k.Subkeys {
			ids = append(ids, sk.KeyID)
		}
		taken, err := tx.GPGKeyIDsTaken(ctx, ids)
		if err != nil {
			return err
		}
		if len(taken) > 0 {
			return errTaken(k.KeyID, taken)
		}
		if err := tx.CreateGPGKey(ctx, k); errors.Is(err, store.ErrDuplicate) {
			return errTaken(k.KeyID, []string{k.KeyID})
		} else if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "gpg_key.created", c.User.ID, 0, 0,
			map[string]any{"action": "created", "gpg_key_id": k.ID, "key_id": k.KeyID})
	})
	if err != nil {
		return nil, err
	}
	s.Invalidate()
	return k, s.markVerified(ctx, c.User.ID, k)
}

// errTaken is GitHub's refusal of a key whose primary key or subkeys an
// account already holds.
func errTaken(primary string, taken []string) error {
	for _, id := range taken {
		if id == primary {
			return &model.ValidationError{Errors: []model.FieldError{{Resource: gpgFamily.resource, Field: "key_id", Code: "custom",
				Message: "key_id already exists"}}}
		}
	}
	return &model.ValidationError{Errors: []model.FieldError{{Resource: gpgFamily.resource, Code: "custom",
		Message: "The key was not added because one or more subkeys already exist: " + strings.Join(taken, ", ")}}}
}

// DeleteGPGKey removes one of c's GPG keys.
func (s *Service) DeleteGPGKey(ctx context.Context, c *authz.Caller, id int64) error {
	if err := actor(c, gpgFamily.admin); err != nil {
		return err
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		k, err := tx.GPGKey(ctx, c.User.ID, id)
		if err != nil {
			return err
		}
		if _, err := tx.DeleteGPGKey(ctx, c.User.ID, id); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "gpg_key.deleted", c.User.ID, 0, 0,
			map[string]any{"action": "deleted", "gpg_key_id": id, "key_id": k.KeyID})
	})
	if err == nil {
		s.Invalidate()
	}
	return err
}

// ParseGPGKey reads an armored OpenPGP public key: its key ids, packets,
// capabilities, expiry and user ids' emails. A private key, several keys
// or anything unreadable is GitHub's 422.
func ParseGPGKey(armored string, now time.Time) (*model.GPGKey, error) {
	if !strings.HasPrefix(strings.TrimSpace(armored), "-----BEGIN PGP PUBLIC KEY BLOCK-----") {
		return nil, errKeyInvalid()
	}
	el, err := openpgp.ReadArmoredKeyRing(strings.NewReader(armored))
	if err != nil || len(el) != 1 || el[0].PrivateKey != nil {
		return nil, errKeyInvalid()
	}
	e := el[0]
	selfSig, _ := e.PrimarySelfSignature()
	k, err := keyOf(e.PrimaryKey, selfSig, e.Revoked(now), true)
	if err != nil {
		return nil, errKeyInvalid()
	}
	k.RawKey = armored
	// The primary user id's email first, then the others by name.
	seen := map[string]bool{}
	names := make([]string, 0, len(e.Identities))
	for n := range e.Identities {
		names = append(names, n)
	}
	sort.Strings(names)
	ids := make([]*openpgp.Identity, 0, len(names)+1)
	if p := e.PrimaryIdentity(); p != nil {
		ids = append(ids, p)
	}
	for _, n := range names {
		ids = append(ids, e.Identities[n])
	}
	for _, id := range ids {
		if id.UserId == nil || id.UserId.Email == "" || seen[strings.ToLower(id.UserId.Email)] {
			continue
		}
		seen[strings.ToLower(id.UserId.Email)] = true
		k.Emails = append(k.Emails, model.GPGKeyEmail{Email: id.UserId.Email})
	}
	k.Subkeys = []*model.GPGKey{}
	for _, sk := range e.Subkeys {
		sub, err := keyOf(sk.PublicKey, sk.Sig, sk.Revoked(now), false)
		if err != nil {
			return nil, errKeyInvalid()
		}
		k.Subkeys = append(k.Subkeys, sub)
	}
	return k, nil
}

// keyOf describes one key packet with the flags and lifetime of its
// binding signature (none: what the algorithm can do).
func keyOf(pk *packet.PublicKey, sig *packet.Signature, revoked, primary bool) (*model.GPGKey, error) {
	var buf bytes.Buffer
	if err := pk.Serialize(&buf); err != nil {
		return nil, err
	}
	k := &model.GPGKey{
		KeyID:     fmt.Sprintf("%016X", pk.KeyId),
		PublicKey: base64.StdEncoding.EncodeToString(buf.Bytes()),
		Revoked:   revoked,
	}
	if sig != nil && sig.FlagsValid {
		k.CanSign, k.CanCertify = sig.FlagSign, sig.FlagCertify
		k.CanEncComms, k.CanEncStore = sig.FlagEncryptCommunications, sig.FlagEncryptStorage
	} else {
		signs := pk.CanSign()
		k.CanSign, k.CanCertify = signs, signs && primary
		k.CanEncComms, k.CanEncStore = !signs, !signs
	}
	if sig != nil && sig.KeyLifetimeSecs != nil && *sig.KeyLifetimeSecs > 0 {
		t := pk.CreationTime.Add(time.Duration(*sig.KeyLifetimeSecs) * time.Second).UTC()
		k.ExpiresAt = &t
	}
	return k, nil
}

// ListSSHSigningKeys is a page of c's SSH signing keys.
func (s *Service) ListSSHSigningKeys(ctx context.Context, c *authz.Caller, limit, offset int) ([]*model.SSHSigningKey, int, error) {
	if err := actor(c, sshFamily.read); err != nil {
		return nil, 0, err
	}
	return s.Store.R().SSHSigningKeys(ctx, c.User.ID, limit, offset)
}

// ListUserSSHSigningKeys is a page of a user's SSH signing keys (public).
func (s *Service) ListUserSSHSigningKeys(ctx context.Context, login string, limit, offset int) ([]*model.SSHSigningKey, int, error) {
	u, err := s.Store.R().AccountByLogin(ctx, login)
	if err != nil {
		return nil, 0, err
	}
	return s.Store.R().SSHSigningKeys(ctx, u.ID, limit, offset)
}

// GetSSHSigningKey is one of c's SSH signing keys.
func (s *Service) GetSSHSigningKey(ctx context.Context, c *authz.Caller, id int64) (*model.SSHSigningKey, error) {
	if err := actor(c, sshFamily.read); err != nil {
		return nil, err
	}
	return s.Store.R().SSHSigningKey(ctx, c.User.ID, id)
}

// CreateSSHSigningKey adds a public key in OpenSSH format to c's signing
// keys. A key is held by one account only.
func (s *Service) CreateSSHSigningKey(ctx context.Context, c *authz.Caller, title, key string) (*model.SSHSigningKey, error) {
	if err := actor(c, sshFamily.write); err != nil {
		return nil, err
	}
	pub, _, _, rest, err := ssh.ParseAuthorizedKey([]byte(strings.TrimSpace(key)))
	if err != nil || len(bytes.TrimSpace(rest)) > 0 {
		return nil, sshKeyError("key is invalid. You must supply a key in OpenSSH public key format")
	}
	if _, cert := pub.(*ssh.Certificate); cert {
		return nil, sshKeyError("key is invalid. You must supply a key in OpenSSH public key format")
	}
	k := &model.SSHSigningKey{UserID: c.User.ID, Title: strings.TrimSpace(title),
		Key: strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub))), Fingerprint: ssh.FingerprintSHA256(pub)}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateSSHSigningKey(ctx, k); errors.Is(err, store.ErrDuplicate) {
			return sshKeyError("key is already in use")
		} else if err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "ssh_signing_key.created", c.User.ID, 0, 0,
			map[string]any{"action": "created", "ssh_signing_key_id": k.ID, "fingerprint": k.Fingerprint})
	})
	if err != nil {
		return nil, err
	}
	s.Invalidate()
	return k, nil
}

func sshKeyError(msg string) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: sshFamily.resource, Field: "key", Code: "custom", Message: msg}}}
}

// DeleteSSHSigningKey removes one of c's SSH signing keys.
func (s *Service) DeleteSSHSigningKey(ctx context.Context, c *authz.Caller, id int64) error {
	if err := actor(c, sshFamily.admin); err != nil {
		return err
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		k, err := tx.SSHSigningKey(ctx, c.User.ID, id)
		if err != nil {
			return err
		}
		if _, err := tx.DeleteSSHSigningKey(ctx, c.User.ID, id); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "ssh_signing_key.deleted", c.User.ID, 0, 0,
			map[string]any{"action": "deleted", "ssh_signing_key_id": id, "fingerprint": k.Fingerprint})
	})
	if err == nil {
		s.Invalidate()
	}
	return err
}
