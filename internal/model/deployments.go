package model

import "time"

// Deployment is a request to deploy a ref to an environment: hubd records
// one for each job of a workflow run that names a protected environment.
type Deployment struct {
	ID          int64
	RepoID      int64
	SHA, Ref    string
	Task        string
	Environment string
	Description *string
	CreatorID   int64
	RunID       int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Deployment gate states.
const (
	GateWaiting  = "waiting"
	GateApproved = "approved"
	GateRejected = "rejected"
)

// DeploymentGate holds one job of a run back until its environment's
// protection rules pass: a reviewer's approval (NeedsReview) and the
// wait timer (minutes, counted from WaitStartedAt).
type DeploymentGate struct {
	JobID, RunID, RepoID int64
	EnvironmentID        int64
	DeploymentID         int64
	State                string
	NeedsReview          bool
	Approved             bool
	WaitTimer            int
	TimerDone            bool
	WaitStartedAt        time.Time
}

// DeploymentReview is a reviewer's approval or rejection of a run's
// pending deployments to some environments.
type DeploymentReview struct {
	ID, RunID, RepoID int64
	UserID            int64
	State             string // approved or rejected
	Comment           string
	EnvironmentIDs    []int64
	CreatedAt         time.Time
}
