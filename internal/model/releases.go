package model

import "time"

// Release is a named, published (or draft) version of a repository at a
// git tag. A draft's tag need not exist yet: it is created when the draft
// is published. Several drafts may name the same tag; published releases
// name distinct tags.
type Release struct {
	ID              int64
	RepoID          int64
	TagName         string
	TargetCommitish string  // branch or commit the tag is (or was to be) made from
	Name, Body      *string // nil: never given
	Draft           bool
	Prerelease      bool
	// NotLatest: make_latest was "false" when the release was last made or
	// edited, so the legacy rule does not choose it.
	NotLatest bool
	// DraftKey names a draft in its html_url ("untagged-..."), as GitHub
	// does while the draft has no tag.
	DraftKey    string
	AuthorID    int64
	CreatedAt   time.Time // the date of the tagged commit, as GitHub documents
	PublishedAt *time.Time
	UpdatedAt   time.Time

	// Loaded for responses.
	Author *Account // nil when the account is gone
	Assets []*ReleaseAsset
	// Rollup counts the release's reactions by content.
	Rollup ReactionRollup
}

// make_latest values.
const (
	LatestTrue   = "true"
	LatestFalse  = "false"
	LatestLegacy = "legacy"
)

// Release asset states.
const (
	AssetUploaded = "uploaded"
	AssetOpen     = "open"
)

// ReleaseAsset is a file attached to a release; its bytes are stored under
// the data directory by StorageKey, never in the database.
type ReleaseAsset struct {
	ID            int64
	ReleaseID     int64
	RepoID        int64
	Name          string
	Label         *string
	State         string
	ContentType   string
	Size          int64
	Digest        *string // "sha256:<hex>"
	DownloadCount int64
	UploaderID    int64
	StorageKey    string
	CreatedAt     time.Time
	UpdatedAt     time.Time

	// Loaded for responses.
	Uploader *Account // nil when the account is gone
	Draft    bool     // the release is a draft
	// TagPath is the path segment of the release in browser_download_url:
	// its tag, or its DraftKey while it is a draft.
	TagPath string
}
