package model

import "time"

// AutoMerge is a pull request's auto-merge request: once the base
// branch's requirements pass, a job merges it as EnabledByID with these
// choices.
type AutoMerge struct {
	PullID, RepoID  int64
	EnabledByID     int64
	Method          string  // merge, squash, rebase
	CommitTitle     *string // nil: the default title
	CommitMessage   *string // nil: the default message
	AuthorEmail     *string
	ExpectedHeadSHA string // "": any head
	EnabledAt       time.Time

	EnabledBy *Account // loaded for responses
}
