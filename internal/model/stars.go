package model

import "time"

// Star is a user's star on a repository.
type Star struct {
	UserID, RepoID int64
	CreatedAt      time.Time
}

// Subscription is a user's watch setting for a repository: watching
// (Subscribed) or ignoring (Ignored) its notifications. A user without one
// gets notifications only for what they take part in.
type Subscription struct {
	UserID, RepoID      int64
	Subscribed, Ignored bool
	CreatedAt           time.Time
}
