package model

import "time"

// The domain types of checks: a suite per head commit and app, check runs
// in it with their output and annotations, and per-repository preferences.
// hubd has no GitHub Apps yet, so AppID is 0 everywhere.

// Check run and suite statuses.
const (
	CheckQueued     = "queued"
	CheckInProgress = "in_progress"
	CheckCompleted  = "completed"
	CheckWaiting    = "waiting"
	CheckRequested  = "requested"
	CheckPending    = "pending"
)

// CheckSuite is the suite of checks of one head commit and app.
type CheckSuite struct {
	ID         int64
	RepoID     int64
	HeadSHA    string
	HeadBranch *string
	AppID      int64
	Status     string
	Conclusion *string
	Before     *string // the push that made the suite: old and new head
	After      *string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	// WorkflowRunID is the workflow run the suite is (a suite of the
	// GitHub Actions app: each run is its own suite); 0 for the one suite
	// of a commit and app.
	WorkflowRunID int64

	// LatestRuns counts the newest run of each name in the suite (loaded
	// for responses).
	LatestRuns int
}

// CheckImage is an image of a check run's output.
type CheckImage struct {
	Alt      string
	ImageURL string
	Caption  *string
}

// CheckAction is a button a check run offers (at most three).
type CheckAction struct {
	Label       string
	Description string
	Identifier  string
}

// CheckRun is one check of a head commit.
type CheckRun struct {
	ID          int64
	RepoID      int64
	SuiteID     int64
	HeadSHA     string
	AppID       int64
	Name        string
	Status      string
	Conclusion  *string
	ExternalID  *string
	DetailsURL  *string
	StartedAt   *time.Time
	CompletedAt *time.Time

	OutputTitle, OutputSummary, OutputText *string
	AnnotationsCount                       int
	Images                                 []CheckImage
	Actions                                []CheckAction

	CreatorID int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// CheckAnnotation is a note a check run attaches to lines of a file.
type CheckAnnotation struct {
	ID              int64
	RunID           int64
	HeadSHA         string // the run's commit, for blob_href
	Path            string
	StartLine       int
	EndLine         int
	StartColumn     *int
	EndColumn       *int
	AnnotationLevel string
	Title           *string
	Message         string
	RawDetails      *string
}

// CheckPreference is whether suites are created automatically on pushes
// for one app of a repository.
type CheckPreference struct {
	AppID   int64
	Setting bool
}

// PullRef is the minimal view of an open pull request that check runs and
// suites list (pull-request-minimal).
type PullRef struct {
	ID                      int64
	Number                  int64
	HeadRef, HeadSHA        string
	HeadRepoID              int64
	HeadRepoOwner, HeadRepo string
	BaseRef, BaseSHA        string
	BaseRepoID              int64
	BaseRepoOwner, BaseRepo string
}

// SimpleCommit is a suite's head commit (simple-commit).
type SimpleCommit struct {
	ID, TreeID, Message           string
	Timestamp                     time.Time
	AuthorName, AuthorEmail       string
	CommitterName, CommitterEmail string
}
