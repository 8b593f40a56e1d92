package model

import "time"

// Environment is a repository's deployment environment with its
// protection rules.
type Environment struct {
	ID                int64
	RepoID            int64
	Name              string
	WaitTimer         int // minutes (0: none)
	PreventSelfReview bool
	Reviewers         []EnvironmentReviewer
	// BranchPolicy is "" (every branch may deploy), "protected" (only
	// protected branches) or "custom" (the environment's name patterns).
	BranchPolicy string
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// EnvironmentReviewer is a user or a team who may approve jobs.
type EnvironmentReviewer struct {
	Type string // User or Team
	ID   int64
}

// The deployment branch policy kinds.
const (
	BranchPolicyProtected = "protected"
	BranchPolicyCustom    = "custom"
)

// DeploymentBranchPolicy is a name pattern a branch or tag must match to
// deploy to an environment with custom branch policies.
type DeploymentBranchPolicy struct {
	ID            int64
	EnvironmentID int64
	Name          string
	Type          string // branch or tag
}

// Variable is a configuration variable of GitHub Actions (or of coding
// agents): an organization's (OrgID), a repository's (RepoID) or an
// environment's (EnvironmentID and its RepoID).
type Variable struct {
	ID            int64
	Kind          string // actions or agents
	OrgID         int64
	RepoID        int64
	EnvironmentID int64
	Name          string // upper case
	Value         string
	Visibility    string // organization variables: all, private or selected
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// The kinds of variables.
const (
	VariablesActions = "actions"
	VariablesAgents  = "agents"
)
