package model

import "time"

// GPGKey is a user's OpenPGP public key: the primary key with its subkeys
// (a subkey has PrimaryKeyID set, no raw key and no emails).
type GPGKey struct {
	ID           int64
	UserID       int64
	PrimaryKeyID *int64
	Name         string
	KeyID        string // 16 upper-case hex digits
	PublicKey    string // base64 of the key packet
	RawKey       string // the armored key as uploaded (primary keys)
	Emails       []GPGKeyEmail
	CanSign      bool
	CanCertify   bool
	CanEncComms  bool
	CanEncStore  bool
	Revoked      bool
	CreatedAt    time.Time
	ExpiresAt    *time.Time
	Subkeys      []*GPGKey
}

// GPGKeyEmail is an address of a key's user ids; Verified when it is an
// address of the key's owner.
type GPGKeyEmail struct {
	Email    string
	Verified bool
}

// SSHSigningKey is a user's SSH key for signing commits and tags.
type SSHSigningKey struct {
	ID          int64
	UserID      int64
	Title       string
	Key         string // "type base64", without comment
	Fingerprint string // SHA256:...
	CreatedAt   time.Time
}

// Verification is what is known of a commit's or tag's signature: whether
// it verifies, and GitHub's reason (valid, unsigned, unknown_key, ...).
type Verification struct {
	Verified   bool
	Reason     string
	Signature  string // "" when unsigned
	Payload    string
	VerifiedAt *time.Time
}
