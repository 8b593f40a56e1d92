package model

import "time"

// Migration is an export of repositories (and their owner's metadata) into
// GitHub's migration archive, started by an organization owner for the
// organization's repositories or by a user for their own.
type Migration struct {
	ID      int64
	OwnerID int64 // the organization or the user whose migration it is
	Owner   *Account
	UserID  int64 // who started it
	GUID    string
	State   string // pending, exporting, exported, failed
	MigrationOptions

	// ArchiveSize is the archive's size once exported; ArchiveDeleted says
	// it was deleted (GET .../archive is then gone).
	ArchiveSize    int64
	ArchiveDeleted bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// MigrationOptions are what a migration was asked to lock and leave out.
type MigrationOptions struct {
	LockRepositories     bool
	ExcludeMetadata      bool
	ExcludeGitData       bool
	ExcludeAttachments   bool
	ExcludeReleases      bool
	ExcludeOwnerProjects bool
	OrgMetadataOnly      bool
}

// Migration states.
const (
	MigrationPending   = "pending"
	MigrationExporting = "exporting"
	MigrationExported  = "exported"
	MigrationFailed    = "failed"
)

// ErrLockedForMigration is GitHub's 403 for a change to a repository that a
// migration locked.
var ErrLockedForMigration = Forbidden("Repository was locked for migration")

// WriteRefusal is why a repository refuses changes to what it holds
// (content, refs, issues, pull requests, comments): it is archived, or a
// migration locked it; nil when it accepts them.
func (r *Repo) WriteRefusal() error {
	switch {
	case r.Archived:
		return ErrArchived
	case r.LockedForMigration:
		return ErrLockedForMigration
	}
	return nil
}
