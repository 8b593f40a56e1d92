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
	// RequireCodeOwnerReviews asks an approval of a code owner of each
	// owned file a pull request changes.
	RequireCodeOwnerReviews bool
	// Restricted says restrictions is set: only Push (and admins, unless
	// EnforceAdmins) may push to the branch or merge into it.
	Restricted bool
	Push       Allowed
	// DismissalRestricted lets only Dismiss (and admins) dismiss reviews.
	DismissalRestricted bool
	Dismiss             Allowed
	// Bypass may merge without the review requirement.
	Bypass    Allowed
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ReviewVerdict is a user's latest deciding review of a pull request
// (APPROVED, CHANGES_REQUESTED or DISMISSED; comments decide nothing).
type ReviewVerdict struct {
	ReviewID int64
	UserID   int64
	State    string
	CommitID string
}

// Allowed are the users, teams and apps a protection setting names, by id.
type Allowed struct {
	Users, Teams, Apps []int64
}

// Empty reports whether it names nobody.
func (a Allowed) Empty() bool { return len(a.Users)+len(a.Teams)+len(a.Apps) == 0 }

// ProtectionActors are the accounts, teams and apps a protection's lists
// name, loaded together for its answer.
type ProtectionActors struct {
	Users map[int64]*Account
	Teams map[int64]*Team
	Apps  map[int64]*App
}
