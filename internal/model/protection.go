package model

import "time"

// BranchProtection is the protection of one branch (exact name, no
// patterns): the parts hubd enforces on pull request merges, and the few
// settings it stores because hubd already behaves as they say.
type BranchProtection struct {
	RepoID int64
	Branch string
	// StatusChecks says required_status_checks is set (the contexts may
	// still be empty); Strict asks the head to contain the base.
	StatusChecks     bool
	Strict           bool
	RequiredContexts []string
	EnforceAdmins    bool
	// Reviews says required_pull_request_reviews is set; RequiredApprovals
	// is how many approvals a merge needs (0: none).
	Reviews             bool
	RequiredApprovals   int
	DismissStaleReviews bool
	// hubd never blocks force pushes or deletions, so only true is stored
	// as asked; false is answered but not enforced (see the route notes).
	AllowForcePushes bool
	AllowDeletions   bool
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// ReviewVerdict is a user's latest deciding review of a pull request
// (APPROVED, CHANGES_REQUESTED or DISMISSED; comments decide nothing).
type ReviewVerdict struct {
	ReviewID int64
	UserID   int64
	State    string
	CommitID string
}
