package model

import "time"

// Codespace states (GitHub's names).
const (
	CodespaceQueued       = "Queued"
	CodespaceProvisioning = "Provisioning"
	CodespaceAvailable    = "Available"
	CodespaceStarting     = "Starting"
	CodespaceShuttingDown = "ShuttingDown"
	CodespaceShutdown     = "Shutdown"
	CodespaceExporting    = "Exporting"
	CodespaceFailed       = "Failed"
	CodespaceDeleted      = "Deleted"
)

// Codespace is a user's development environment: a workspace directory
// holding a clone of a repository (internal/codespaces).
type Codespace struct {
	ID               int64
	Name             string
	DisplayName      string
	EnvironmentID    string
	OwnerID          int64
	RepoID           int64
	Ref              string
	PullNumber       int64
	Machine          string
	DevcontainerPath string
	Location         string
	State            string
	TokenID          int64
	IdleTimeout      int64 // minutes
	Retention        int64 // minutes
	RecentFolders    []string
	Notes            string
	CreatedOnce      bool // onCreate/updateContent/postCreate commands ran
	Ahead, Behind    int64
	Uncommitted      bool
	Unpushed         bool
	HeadSHA          string
	PublishedRepoID  int64
	CreatedAt        time.Time
	UpdatedAt        time.Time
	LastUsedAt       time.Time
	StoppedAt        time.Time // zero unless stopped
}

// CodespaceExport is one export of a codespace's changes to a branch.
type CodespaceExport struct {
	ID          int64
	CodespaceID int64
	State       string // in_progress, succeeded, failed
	Branch      string
	SHA         string
	RepoID      int64 // where the branch was pushed (a fork when the user could not push)
	Message     string
	CreatedAt   time.Time
	CompletedAt time.Time
}
