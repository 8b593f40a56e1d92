package model

import "time"

// Advisory states (GitHub's repository security advisory states).
const (
	AdvisoryTriage    = "triage"
	AdvisoryDraft     = "draft"
	AdvisoryPublished = "published"
	AdvisoryClosed    = "closed"
	AdvisoryWithdrawn = "withdrawn"
)

// Advisory is a repository security advisory (internal/advisories): a
// draft made by the repository's managers, or a private vulnerability
// report (Reported) waiting in triage.
type Advisory struct {
	ID, RepoID      int64
	GHSAID          string
	State           string
	Summary         string
	Description     *string
	Severity        *string
	CVSSv3, CVSSv4  *string // vector strings
	CVEID           *string
	CWEIDs          []string
	Vulnerabilities []AdvisoryVulnerability
	AuthorID        int64
	PublisherID     int64 // 0 until published
	Reported        bool  // made by POST .../security-advisories/reports
	Accepted        bool  // a report the managers accepted (moved to draft)
	PrivateForkID   int64 // 0: none (or deleted)
	CVERequestedAt  *time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
	PublishedAt     *time.Time
	ClosedAt        *time.Time
	WithdrawnAt     *time.Time
}

// AdvisoryVulnerability is one affected package of an advisory.
type AdvisoryVulnerability struct {
	Ecosystem       string
	Name            *string
	VulnerableRange *string
	Patched         *string
	Functions       []string
}

// AdvisoryCredit is a user credited on an advisory, with their answer
// (pending, accepted, declined).
type AdvisoryCredit struct {
	UserID int64
	Type   string
	State  string
}

// AdvisoryPeople are an advisory's collaborators and credits.
type AdvisoryPeople struct {
	Users   []int64
	Teams   []int64
	Credits []AdvisoryCredit
}
