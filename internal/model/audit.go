package model

import "time"

// AuditEntry is one entry of the audit log: a security- or
// administration-relevant action, recorded in the transaction of the
// change it describes. The names (actor, user, org, repo) are kept as they
// were when the action happened.
type AuditEntry struct {
	ID      int64
	Action  string // category.operation, as GitHub names it: repo.create, org.add_member
	ActorID int64
	Actor   string
	UserID  int64 // the account the action affected, when there is one
	User    string
	OrgID   int64
	Org     string
	RepoID  int64
	Repo    string // owner/name
	Data    []byte // JSON object: the action's details
	// CreatedAt has millisecond precision (the entries' @timestamp).
	CreatedAt time.Time
}

// AuditQuery is a search of the audit log. Zero fields do not filter.
type AuditQuery struct {
	OrgID int64 // an organization's log; 0: the whole enterprise's

	Actions        []string // exact actions (any of them)
	ActionPrefixes []string // categories: "repo" matches repo.* (any of them)
	NotActions     []string // exact actions or categories excluded
	Actors         []string // logins (any of them)
	Users          []string
	Repos          []string // owner/name
	Orgs           []string // logins
	// Since and Until bound created_at: Since inclusive, Until exclusive.
	Since, Until time.Time
	// Git: "web" (default) leaves out git events, "git" keeps only them,
	// "all" both.
	Include string
	Asc     bool
	// After and Before are cursors (AuditCursor of an entry): the entries
	// past it in the order, or before it.
	After, Before *AuditCursor
	Limit         int
}

// AuditCursor is an entry's place in the log's order.
type AuditCursor struct {
	CreatedMS, ID int64
}

// AuditStream sends the audit log to an HTTPS endpoint (GitHub's "HTTPS
// Event Collector" and Splunk streams): its token is a secret of the
// secrets store (internal/secrets), CursorID the last entry it delivered.
type AuditStream struct {
	ID        int64
	Type      string // "HTTPS Event Collector" or "Splunk"
	Enabled   bool
	Domain    string
	Port      int
	Path      string
	SSLVerify bool
	KeyID     string
	TokenName string // the token's name in the secrets store
	CursorID  int64
	CreatedAt time.Time
	UpdatedAt time.Time
	PausedAt  *time.Time
}

// SecretEnterprise is the enterprise's own secrets (OwnerID 0): the audit
// log streams' tokens.
const SecretEnterprise = "enterprise"
