package model

import "time"

// CommitComment is a comment on a commit, or on a line of its diff when
// Path is set.
type CommitComment struct {
	ID          int64
	RepoID      int64
	CommitID    string // the commit's full object id
	UserID      int64
	User        *Account // slim; nil once the author's account is gone
	Body        string
	Path        *string
	Position    *int64 // line index in the commit's diff
	Line        *int64 // line in the file (GitHub's deprecated parameter)
	Reactions   int
	CreatedAt   time.Time
	UpdatedAt   time.Time
	Association string
	Rollup      ReactionRollup
}
