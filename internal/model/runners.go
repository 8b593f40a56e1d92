package model

import "time"

// Runner scopes: where a self-hosted runner is registered.
const (
	RunnerRepo       = "repo"
	RunnerOrg        = "org"
	RunnerEnterprise = "enterprise"
)

// DefaultRunnerGroupID is the id of every owner's default runner group
// (GitHub's is 1 in every organization and enterprise).
const DefaultRunnerGroupID = 1

// Runner is a self-hosted runner. Worker runners are hubd's own workflow
// job workers (one per worker slot of a hubd process), registered at the
// enterprise; the others are registered through the API.
type Runner struct {
	ID        int64
	Scope     string // RunnerRepo, RunnerOrg, RunnerEnterprise
	OwnerID   int64  // the repository or organization; 0 for the enterprise
	GroupID   int64  // its runner group (repository runners: 0)
	Name      string
	OS, Arch  string
	Worker    bool
	Ephemeral bool
	LastSeen  time.Time // a worker's last heartbeat
	Busy      bool      // running a job now (read from the jobs)
	Labels    []RunnerLabel
	CreatedAt time.Time
}

// RunnerLabel is one label of a runner; the default ones (self-hosted,
// the OS and the architecture) are read-only.
type RunnerLabel struct {
	ID       int64
	Name     string
	ReadOnly bool
}

// RunnerGroup is an organization's (OwnerID) or the enterprise's (OwnerID
// 0) runner group. Targets are the repositories (organization groups) or
// organizations (enterprise groups) a "selected" group admits.
type RunnerGroup struct {
	ID                    int64
	OwnerID               int64
	Name                  string
	Visibility            string // all, selected, private (organization groups)
	Default               bool
	AllowsPublic          bool
	RestrictedToWorkflows bool
	SelectedWorkflows     []string
}

// HostedRunner is an organization's "GitHub-hosted" runner: in hubd, a
// pool of up to MaximumRunners of hubd's own workers that take the jobs
// asking for it by name, admitted by its runner group.
type HostedRunner struct {
	ID             int64
	OrgID          int64
	Name           string
	GroupID        int64
	ImageID        string
	ImageSource    string // github, partner, custom
	ImageVersion   string
	SizeID         string
	Platform       string
	MaximumRunners int
	ImageGen       bool       // its snapshot jobs capture custom image versions
	LastActive     *time.Time // the last job it started
	CreatedAt      time.Time
}
