package model

import "time"

// Pull request review states, as GitHub names them.
const (
	ReviewPending          = "PENDING"
	ReviewApproved         = "APPROVED"
	ReviewChangesRequested = "CHANGES_REQUESTED"
	ReviewCommented        = "COMMENTED"
	ReviewDismissed        = "DISMISSED"
)

// PullReview is a review of a pull request: a state, an optional body and
// the review comments it groups. A PENDING review is seen only by its
// author until it is submitted.
type PullReview struct {
	ID       int64
	RepoID   int64
	PullID   int64 // the pull request's issue id
	UserID   int64
	User     *Account // slim; nil once the author's account is gone
	Body     string
	State    string
	CommitID string
	// DismissalMessage is why a DISMISSED review was dismissed.
	DismissalMessage string
	SubmittedAt      *time.Time
	CreatedAt        time.Time
	UpdatedAt        time.Time
	Association      string

	PullNumber int64 // loaded for URLs
}

// PullReviewComment is a comment on a line (or a file) of a pull request's
// diff. Position, Line and StartLine are nil once the commented lines left
// the diff (an outdated comment); the Original* fields keep where it was
// made.
type PullReviewComment struct {
	ID                           int64
	RepoID                       int64
	PullID                       int64 // the pull request's issue id
	ReviewID                     int64
	InReplyToID                  int64 // the thread's first comment, 0 for that one
	UserID                       int64
	User                         *Account
	Body                         string
	Path                         string
	CommitID                     string
	OriginalCommitID             string
	DiffHunk                     string
	Position, OriginalPosition   *int64
	Line, OriginalLine           *int64
	StartLine, OriginalStartLine *int64
	Side, StartSide              *string // LEFT or RIGHT
	SubjectType                  string  // line or file
	Reactions                    int
	CreatedAt                    time.Time
	UpdatedAt                    time.Time
	Association                  string
	Rollup                       ReactionRollup

	PullNumber  int64  // loaded for URLs
	ReviewState string // the state of its review (pending comments are private)
}
