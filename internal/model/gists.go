package model

import "time"

// Gist is a gist: a small git repository of files owned by a user. Name is
// its public id (hex, as in /gists/{gist_id}); ID is the immutable row id
// its git storage is kept under. Files are the current revision's files,
// sorted by name, as cached on the row for lists; Head is that revision.
type Gist struct {
	ID          int64
	Name        string
	OwnerID     int64
	Owner       *Account
	Public      bool
	Description *string
	Files       []GistFile
	Head        string
	ForkOf      int64 // the gist this one was forked from (0: none, or deleted)
	Comments    int
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// GistFile is one file of a gist revision: its name, size in bytes and
// blob id.
type GistFile struct {
	Name string
	Size int64
	OID  string
}

// GistComment is a comment on a gist.
type GistComment struct {
	ID        int64
	GistID    int64
	UserID    int64
	User      *Account
	Body      string
	CreatedAt time.Time
	UpdatedAt time.Time
}
