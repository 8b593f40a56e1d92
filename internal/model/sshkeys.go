package model

import "time"

// PublicKey is an SSH public key: a user's authentication key (UserID set)
// or a repository's deploy key (RepoID set). A key (by its fingerprint)
// belongs to at most one of them across the whole server.
type PublicKey struct {
	ID          int64
	UserID      int64 // 0 for a deploy key
	RepoID      int64 // 0 for a user key
	Title       string
	Key         string // "type base64", the comment dropped
	Fingerprint string // SHA256:... of the key
	ReadOnly    bool   // deploy keys: may not push
	Verified    bool
	AddedBy     string // login of who added a deploy key ("" for none)
	CreatedAt   time.Time
	LastUsed    *time.Time
	// Disabled: a deploy key its organization's policy disables (set by
	// the reads of a repository's keys).
	Disabled bool
	// RepoFullName is "owner/name" of a deploy key's repository, loaded
	// by the site administrator's listing only.
	RepoFullName string
}
