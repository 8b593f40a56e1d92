package model

import "time"

// The domain types of GitHub Actions: workflows found in a repository's
// .github/workflows, their runs and the jobs of a run (one per matrix
// combination), as internal/actions keeps them.

// Workflow states, as GitHub names them.
const (
	WorkflowActive           = "active"
	WorkflowDisabledManually = "disabled_manually"
	WorkflowDeleted          = "deleted"
)

// Run and job statuses and conclusions.
const (
	ActionsQueued     = "queued"
	ActionsInProgress = "in_progress"
	ActionsCompleted  = "completed"
	ActionsWaiting    = "waiting"
	ActionsPending    = "pending" // waiting for its concurrency group

	ConclusionActionRequired = "action_required" // a fork's run awaiting approval

	ConclusionSuccess   = "success"
	ConclusionFailure   = "failure"
	ConclusionCancelled = "cancelled"
	ConclusionSkipped   = "skipped"
	ConclusionTimedOut  = "timed_out"
)

// Workflow is a workflow file of a repository.
type Workflow struct {
	ID        int64
	RepoID    int64
	Path      string // .github/workflows/ci.yml
	Name      string
	State     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// WorkflowRun is one run of a workflow (its latest attempt).
type WorkflowRun struct {
	ID                int64
	RepoID            int64
	WorkflowID        int64
	WorkflowPath      string
	Name              string
	DisplayTitle      string
	RunNumber         int64
	RunAttempt        int64
	Event             string
	Status            string
	Conclusion        *string
	HeadBranch        *string
	Ref               string // the full ref the run is for
	HeadSHA           string
	ActorID           int64
	TriggeringActorID int64
	Inputs            map[string]any // workflow_dispatch inputs
	Source            string         // the workflow file at head_sha
	CheckSuiteID      int64
	CreatedAt         time.Time
	UpdatedAt         time.Time
	RunStartedAt      time.Time
	// ConcurrencyGroup is the run's concurrency: group ("" none);
	// PullNumbers the same-repository pull requests it is for.
	ConcurrencyGroup string
	PullNumbers      []int64
	// SHA is the commit the jobs check out (GITHUB_SHA) when it is not
	// HeadSHA: a pull_request run tests the pull request's merge commit.
	SHA string
	// EventPayload is the triggering event's payload (github.event).
	EventPayload map[string]any
}

// CheckoutSHA is the commit a run's jobs check out.
func (r *WorkflowRun) CheckoutSHA() string {
	if r.SHA != "" {
		return r.SHA
	}
	return r.HeadSHA
}

// RunAttempt is an earlier attempt of a run, as it ended.
type RunAttempt struct {
	RunID             int64
	Attempt           int64
	Status            string
	Conclusion        *string
	TriggeringActorID int64
	RunStartedAt      time.Time
	UpdatedAt         time.Time
}

// WorkflowStep is a step of a job as the runner reported it.
type WorkflowStep struct {
	Name        string     `json:"name"`
	Number      int        `json:"number"`
	Status      string     `json:"status"`
	Conclusion  *string    `json:"conclusion"`
	StartedAt   *time.Time `json:"started_at"`
	CompletedAt *time.Time `json:"completed_at"`
}

// WorkflowJob is one job of a run attempt (one matrix combination).
type WorkflowJob struct {
	ID          int64
	RunID       int64
	RepoID      int64
	RunAttempt  int64
	Key         string         // the job's id in the workflow file
	Name        string         // "build (1, linux)" for a matrix combination
	Matrix      map[string]any // the combination (nil without a matrix)
	Needs       []string       // keys of the jobs it waits for
	Status      string
	Conclusion  *string
	HeadSHA     string
	HeadBranch  *string
	Outputs     map[string]string // the job's outputs once completed
	Steps       []WorkflowStep
	RunnerName  *string
	CheckRunID  int64
	CreatedAt   time.Time
	StartedAt   *time.Time
	CompletedAt *time.Time
	// ConcurrencyGroup is the job's concurrency: group ("" none).
	ConcurrencyGroup string
}
