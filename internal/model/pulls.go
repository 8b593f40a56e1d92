package model

import "time"

// The domain types of pull requests. A pull request is an issue (IsPull)
// plus the pull half: head and base, mergeability and the merge.

// Pull is a pull request.
type Pull struct {
	Issue *Issue // the issue half: number, title, body, state, author, labels...

	IssueID, RepoID int64
	Number          int64
	BaseRef         string // branch name, without refs/heads/
	BaseSHA         string // the base branch's commit when last synchronised
	HeadRepoID      int64  // 0 when the head repository was deleted
	HeadOwnerID     int64
	HeadRef         string
	HeadSHA         string

	Draft               bool
	MaintainerCanModify bool

	MergedAt       *time.Time
	MergedByID     int64
	MergeCommitSHA *string // the test merge while open; the merge result once merged

	// Mergeable and Rebaseable are nil until the background check for
	// CheckedBaseSHA/CheckedHeadSHA finished; MergeableState is GitHub's
	// clean, dirty, blocked, behind, unstable, draft or unknown.
	Mergeable, Rebaseable          *bool
	MergeableState                 string
	CheckedBaseSHA, CheckedHeadSHA string

	Commits, Additions, Deletions, ChangedFiles int
	ReviewComments                              int

	// Loaded for responses.
	MergedBy           *Account
	HeadRepo           *Repo // nil when deleted
	HeadOwner          *Account
	RequestedReviewers []*Account
	RequestedTeams     []*Team       // those the viewer may see
	Stack              *PullStackRef // nil when in no stack
	AutoMerge          *AutoMerge    // nil when auto-merge is off
}

// Merged reports whether the pull request was merged.
func (p *Pull) Merged() bool { return p.MergedAt != nil }

// Pull request merge methods.
const (
	MergeMerge  = "merge"
	MergeSquash = "squash"
	MergeRebase = "rebase"
)

// Mergeable states, as GitHub names them.
const (
	StateClean    = "clean"
	StateDirty    = "dirty"
	StateBlocked  = "blocked"
	StateBehind   = "behind"
	StateUnstable = "unstable"
	StateDraft    = "draft"
	StateUnknown  = "unknown"
	StateHasHooks = "has_hooks"
)

// MergeRequest is an asynchronous merge request and its outcome.
type MergeRequest struct {
	UUID            string
	PullID, RepoID  int64
	ActorID         int64
	Method, Action  string
	ExpectedHeadSHA string
	CommitTitle     *string
	CommitMessage   *string
	Status          string // pending, merged, failed
	Message         string
	SHA             *string
	CreatedAt       time.Time
	UpdatedAt       time.Time
}
