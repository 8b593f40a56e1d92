package model

import "time"

// The domain types of the Issues category: plain data (no JSON tags, no
// SQL); internal/store stores them and internal/wire converts them.

// Issue is an issue or, when IsPull, the issue half of a pull request: both
// share one number sequence per repository and one row.
type Issue struct {
	ID, RepoID   int64
	Number       int64
	IsPull       bool
	Title        string
	Body         *string
	UserID       int64    // 0 when the author's account is gone
	User         *Account // slim: id, login, type, site_admin
	State        string   // open, closed
	StateReason  *string  // completed, not_planned, duplicate, reopened
	DuplicateOf  int64
	Locked       bool
	LockReason   *string
	MilestoneID  int64
	Comments     int
	Reactions    int // total, so lists know when to load the rollup
	ClosedByID   int64
	ClosedAt     *time.Time
	PinnedID     int64 // the pinned comment
	ParentID     int64
	SubPriority  int64
	SubIssues    int // children
	Dependencies int // blocked-by plus blocking relations
	CreatedAt    time.Time
	UpdatedAt    time.Time

	// Association is the author's relation to the repository (OWNER,
	// MEMBER, COLLABORATOR, CONTRIBUTOR, NONE).
	Association string

	// Loaded by IssueDetails for the issues of a response.
	Labels        []*Label
	Assignees     []*Account
	Milestone     *Milestone
	ClosedBy      *Account
	Rollup        ReactionRollup
	SubSummary    SubIssuesSummary
	DepSummary    DependencySummary
	Parent        *IssueRef // the parent's repository and number
	PinnedComment *IssueComment
	Type          *IssueType // its organization's issue type, if any (IssueDetails)
	// ViaApp is the GitHub App that wrote it: with an installation token
	// (its author is the app's bot) or with a user access token (ViaAppID
	// records the app); nil otherwise.
	ViaApp   *App
	ViaAppID int64
	MergedAt *time.Time // a merged pull request's merge time
}

// IssueRef names an issue by repository and number (URLs of related issues).
type IssueRef struct {
	ID          int64
	RepoID      int64
	Owner, Repo string
	Number      int64
}

// Label is a repository's label.
type Label struct {
	ID          int64
	RepoID      int64
	Name        string
	Color       string
	Description *string
	Default     bool
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Milestone is a repository's milestone with its issue counts.
type Milestone struct {
	ID           int64
	RepoID       int64
	Number       int64
	Title        string
	Description  *string
	State        string
	DueOn        *time.Time
	CreatorID    int64
	Creator      *Account // slim
	OpenIssues   int
	ClosedIssues int
	CreatedAt    time.Time
	UpdatedAt    time.Time
	ClosedAt     *time.Time
}

// IssueComment is a comment on an issue or pull request.
type IssueComment struct {
	ID          int64
	RepoID      int64
	IssueID     int64
	IssueNumber int64
	UserID      int64
	User        *Account // slim
	Body        string
	Reactions   int
	PinnedAt    *time.Time
	PinnedBy    *Account // slim
	CreatedAt   time.Time
	UpdatedAt   time.Time
	Association string
	ViaApp      *App // the GitHub App that wrote it (see Issue.ViaApp)
	ViaAppID    int64
	Rollup      ReactionRollup
}

// ReactionContents are GitHub's reaction types, in rollup order.
var ReactionContents = []string{"+1", "-1", "laugh", "confused", "heart", "hooray", "eyes", "rocket"}

// ReactionRollup counts reactions by content.
type ReactionRollup map[string]int

// Reaction is one user's reaction to an issue or comment.
type Reaction struct {
	ID        int64
	User      *Account // slim
	Content   string
	CreatedAt time.Time
}

// SubIssuesSummary is a parent's count of sub-issues.
type SubIssuesSummary struct {
	Total, Completed int
}

// DependencySummary counts an issue's dependencies; BlockedBy and Blocking
// count the open ones.
type DependencySummary struct {
	BlockedBy, Blocking, TotalBlockedBy, TotalBlocking int
}

// IssueEvent is one entry of an issue's event log.
type IssueEvent struct {
	ID          int64
	RepoID      int64
	IssueID     int64
	ActorID     int64
	Actor       *Account // slim
	ViaApp      *App     // the GitHub App that acted (see Issue.ViaApp)
	ViaAppID    int64
	Event       string
	CommitID    *string
	LabelName   string
	LabelColor  string
	AssigneeID  int64
	Assignee    *Account // slim
	AssignerID  int64
	Assigner    *Account // slim
	Milestone   string
	RenameFrom  string
	RenameTo    string
	LockReason  *string
	StateReason *string
	SubjectID   int64 // the other issue of sub-issue, dependency and reference events; the team of a team review request; the repository a transferred issue came from
	Team        *Team // a team review request's team, when the viewer may see it (loaded for responses)
	CreatedAt   time.Time
}

// IssueField is an organization's custom issue field.
type IssueField struct {
	ID          int64
	OrgID       int64
	Name        string
	Description *string
	DataType    string // text, number, date, single_select
	Visibility  string // organization_members_only, all
	Options     []*IssueFieldOption
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// IssueFieldOption is an option of a single-select field.
type IssueFieldOption struct {
	ID          int64
	FieldID     int64
	Name        string
	Description *string
	Color       string
	Priority    int
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// IssueFieldValue is an issue's value for one field.
type IssueFieldValue struct {
	IssueID int64
	Field   *IssueField
	Text    *string  // text and date fields
	Number  *float64 // number fields
	Option  *IssueFieldOption
}

// IssueType is an organization's issue type (Bug, Feature, Task, ...).
type IssueType struct {
	ID          int64
	OrgID       int64
	Name        string
	Description *string
	Color       *string // gray, blue, green, yellow, orange, red, pink, purple
	Enabled     bool
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// PinnedIssue is an issue pinned to its repository.
type PinnedIssue struct {
	IssueID, RepoID int64
	PinnedBy        int64
	CreatedAt       time.Time
}

// LinkedBranch is a branch linked to an issue (GitHub's "Development"
// section, gh issue develop): the branch Ref (a full ref name) of RepoID,
// which may be another repository than the issue's.
type LinkedBranch struct {
	ID, IssueID, RepoID int64
	Ref                 string
	CreatedBy           int64
	CreatedAt           time.Time
}
