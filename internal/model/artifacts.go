package model

import "time"

// RuntimeToken is what a job's ACTIONS_RUNTIME_TOKEN stands for: the job
// the artifact and cache services act for (and its run, repository and
// ref, the scope of its caches).
type RuntimeToken struct {
	JobID, RunID, RepoID int64
	Ref                  string
}

// Artifact is a file set a job uploaded (stored as one zip).
type Artifact struct {
	ID         int64
	RepoID     int64
	RunID      int64
	JobID      int64
	Name       string
	Size       int64
	Digest     string // "sha256:<hex>" of the zip
	Finalized  bool   // the upload completed
	HeadBranch string
	HeadSHA    string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	ExpiresAt  time.Time
}

// Expired reports whether the artifact's retention ran out at now.
func (a *Artifact) Expired(now time.Time) bool { return !now.Before(a.ExpiresAt) }

// ActionsCache is one entry of a repository's Actions cache.
type ActionsCache struct {
	ID             int64
	RepoID         int64
	Key            string
	Version        string
	Ref            string
	Size           int64
	Committed      bool
	CreatedAt      time.Time
	LastAccessedAt time.Time
}

// Cache limit scopes.
const (
	CacheScopeRepo       = "repo"
	CacheScopeOrg        = "org"
	CacheScopeEnterprise = "enterprise"
)

// CacheLimits are the cache settings of one scope; nil is not set.
type CacheLimits struct {
	RetentionDays *int64 // repository: its retention; org/enterprise: the maximum
	SizeGB        *int64 // repository: its storage limit; org/enterprise: the maximum
	DefaultSizeGB *int64 // enterprise: the default of its repositories
}

// CacheUsage is the active caches' count and size of a repository.
type CacheUsage struct {
	RepoID int64
	Count  int64
	Size   int64
}
