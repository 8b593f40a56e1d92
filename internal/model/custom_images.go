package model

import "time"

// CustomImage is a custom image of an organization's (or, OrgID 0, the
// enterprise's) hosted runners: a name whose versions snapshot jobs of
// image-generation runners capture (internal/runners/images.go).
type CustomImage struct {
	ID        int64
	OrgID     int64
	Name      string
	Platform  string
	CreatedAt time.Time
	// Of its versions: how many, their total size, the latest.
	VersionsCount int
	TotalBytes    int64
	LatestVersion string
}

// CustomImageVersion is one captured version of a custom image: a tar.gz
// of the snapshot job's tool cache and home under hubd's data directory.
type CustomImageVersion struct {
	ID        int64
	ImageID   int64
	Version   string // major.minor.patch
	State     string // Ready
	SizeBytes int64
	Path      string // the archive
	CreatedAt time.Time
}
