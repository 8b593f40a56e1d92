package model

import "time"

// Autolink is a repository's autolink reference: KeyPrefix followed by a
// reference number links to URLTemplate with <num> replaced by it.
type Autolink struct {
	ID           int64
	RepoID       int64
	KeyPrefix    string
	URLTemplate  string
	Alphanumeric bool
	CreatedAt    time.Time
	UpdatedAt    time.Time
}
