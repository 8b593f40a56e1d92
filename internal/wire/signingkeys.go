package wire

import "github.com/hubd/hubd/internal/model"

// GPGKeyEmail is one address of a gpg-key.
type GPGKeyEmail struct {
	Email    string `json:"email"`
	Verified bool   `json:"verified"`
}

// GPGSubkey is a subkey of a gpg-key: its shape without a name, with no
// subkeys of its own and raw_key null.
type GPGSubkey struct {
	ID                int64         `json:"id"`
	PrimaryKeyID      *int64        `json:"primary_key_id"`
	KeyID             string        `json:"key_id"`
	PublicKey         string        `json:"public_key"`
	Emails            []GPGKeyEmail `json:"emails"`
	Subkeys           []GPGSubkey   `json:"subkeys"`
	CanSign           bool          `json:"can_sign"`
	CanEncryptComms   bool          `json:"can_encrypt_comms"`
	CanEncryptStorage bool          `json:"can_encrypt_storage"`
	CanCertify        bool          `json:"can_certify"`
	CreatedAt         string        `json:"created_at"`
	ExpiresAt         *string       `json:"expires_at"`
	Revoked           bool          `json:"revoked"`
	RawKey            *string       `json:"raw_key"`
}

// GPGKey is components/schemas/gpg-key.
type GPGKey struct {
	Name *string `json:"name"`
	GPGSubkey
}

// ToGPGKey converts a primary key and its subkeys; name is null when the
// key was added without one.
func ToGPGKey(k *model.GPGKey) GPGKey {
	out := GPGKey{GPGSubkey: toGPGSubkey(k)}
	if k.Name != "" {
		name := k.Name
		out.Name = &name
	}
	raw := k.RawKey
	out.RawKey = &raw
	for _, sk := range k.Subkeys {
		out.Subkeys = append(out.Subkeys, toGPGSubkey(sk))
	}
	return out
}

func toGPGSubkey(k *model.GPGKey) GPGSubkey {
	out := GPGSubkey{
		ID: k.ID, PrimaryKeyID: k.PrimaryKeyID, KeyID: k.KeyID, PublicKey: k.PublicKey,
		Emails: make([]GPGKeyEmail, 0, len(k.Emails)), Subkeys: []GPGSubkey{},
		CanSign: k.CanSign, CanEncryptComms: k.CanEncComms, CanEncryptStorage: k.CanEncStore, CanCertify: k.CanCertify,
		CreatedAt: Time(k.CreatedAt), ExpiresAt: TimePtr(k.ExpiresAt), Revoked: k.Revoked,
	}
	for _, e := range k.Emails {
		out.Emails = append(out.Emails, GPGKeyEmail{Email: e.Email, Verified: e.Verified})
	}
	return out
}

// ToGPGKeys converts a list.
func ToGPGKeys(list []*model.GPGKey) []GPGKey {
	out := make([]GPGKey, 0, len(list))
	for _, k := range list {
		out = append(out, ToGPGKey(k))
	}
	return out
}

// SSHSigningKey is components/schemas/ssh-signing-key.
type SSHSigningKey struct {
	Key       string `json:"key"`
	ID        int64  `json:"id"`
	Title     string `json:"title"`
	CreatedAt string `json:"created_at"`
}

// ToSSHSigningKey converts a signing key.
func ToSSHSigningKey(k *model.SSHSigningKey) SSHSigningKey {
	return SSHSigningKey{Key: k.Key, ID: k.ID, Title: k.Title, CreatedAt: Time(k.CreatedAt)}
}

// ToSSHSigningKeys converts a list.
func ToSSHSigningKeys(list []*model.SSHSigningKey) []SSHSigningKey {
	out := make([]SSHSigningKey, 0, len(list))
	for _, k := range list {
		out = append(out, ToSSHSigningKey(k))
	}
	return out
}

// ToVerification converts what the signatures service found out about an
// object's signature.
func ToVerification(v model.Verification) GitVerification {
	out := GitVerification{Verified: v.Verified, Reason: v.Reason, VerifiedAt: TimePtr(v.VerifiedAt)}
	if v.Signature != "" {
		sig, payload := v.Signature, v.Payload
		out.Signature, out.Payload = &sig, &payload
	}
	return out
}
