package wire

import (
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// Migration is components/schemas/migration.
type Migration struct {
	ID     int64       `json:"id"`
	NodeID string      `json:"node_id"`
	Owner  *SimpleUser `json:"owner"`
	GUID   string      `json:"guid"`
	State  string      `json:"state"`
	MigrationOptions
	Repositories []Repository `json:"repositories"`
	URL          string       `json:"url"`
	CreatedAt    string       `json:"created_at"`
	UpdatedAt    string       `json:"updated_at"`
	ArchiveURL   string       `json:"archive_url,omitempty"`
	Exclude      []string     `json:"exclude,omitempty"`
}

// MigrationOptions are a migration's flags, in its object and in the body
// that starts one (the fields of model.MigrationOptions, which converts to
// it).
type MigrationOptions struct {
	LockRepositories     bool `json:"lock_repositories"`
	ExcludeMetadata      bool `json:"exclude_metadata"`
	ExcludeGitData       bool `json:"exclude_git_data"`
	ExcludeAttachments   bool `json:"exclude_attachments"`
	ExcludeReleases      bool `json:"exclude_releases"`
	ExcludeOwnerProjects bool `json:"exclude_owner_projects"`
	OrgMetadataOnly      bool `json:"org_metadata_only"`
}

// ToMigration converts a migration with its rendered repositories; base
// is the migration's collection (/orgs/{org}/migrations or
// /user/migrations).
func (u URLs) ToMigration(m *model.Migration, base string, repos []Repository) Migration {
	var owner *SimpleUser
	if m.Owner != nil {
		o := u.ToSimpleUser(m.Owner)
		owner = &o
	}
	if repos == nil {
		repos = []Repository{}
	}
	url := u.API + base + "/" + strconv.FormatInt(m.ID, 10)
	out := Migration{ID: m.ID, NodeID: NodeID("MI", m.ID), Owner: owner, GUID: m.GUID, State: m.State,
		MigrationOptions: MigrationOptions(m.MigrationOptions), Repositories: repos, URL: url, CreatedAt: Time(m.CreatedAt), UpdatedAt: Time(m.UpdatedAt)}
	if m.State == model.MigrationExported && !m.ArchiveDeleted {
		out.ArchiveURL = url + "/archive"
	}
	return out
}
