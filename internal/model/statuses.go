package model

import "time"

// StatusState is the state of a commit status.
type StatusState string

const (
	StatusError   StatusState = "error"
	StatusFailure StatusState = "failure"
	StatusPending StatusState = "pending"
	StatusSuccess StatusState = "success"
)

// Valid reports whether s is one of the four states GitHub accepts.
func (s StatusState) Valid() bool {
	switch s {
	case StatusError, StatusFailure, StatusPending, StatusSuccess:
		return true
	}
	return false
}

// CommitStatus is one status reported for a commit of a repository. Every
// report is a new row; the latest per context is the commit's current one.
type CommitStatus struct {
	ID          int64
	RepoID      int64
	SHA         string
	State       StatusState
	Context     string
	Description *string
	TargetURL   *string
	CreatorID   int64
	Creator     *Account // nil when the account is gone
	CreatedAt   time.Time
	UpdatedAt   time.Time
}
