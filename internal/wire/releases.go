package wire

import (
	"net/url"
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// Release is components/schemas/release.
type Release struct {
	URL             string  `json:"url"`
	HTMLURL         string  `json:"html_url"`
	AssetsURL       string  `json:"assets_url"`
	UploadURL       string  `json:"upload_url"`
	TarballURL      *string `json:"tarball_url"`
	ZipballURL      *string `json:"zipball_url"`
	ID              int64   `json:"id"`
	NodeID          string  `json:"node_id"`
	TagName         string  `json:"tag_name"`
	TargetCommitish string  `json:"target_commitish"`
	Name            *string `json:"name"`
	Body
	Draft       bool           `json:"draft"`
	Prerelease  bool           `json:"prerelease"`
	Immutable   bool           `json:"immutable"`
	CreatedAt   string         `json:"created_at"`
	PublishedAt *string        `json:"published_at"`
	UpdatedAt   *string        `json:"updated_at"`
	Author      SimpleUser     `json:"author"`
	Assets      []ReleaseAsset `json:"assets"`
	// Reactions is present once the release has reactions, as on GitHub.
	Reactions *ReactionRollup `json:"reactions,omitempty"`
}

// ReleaseAsset is components/schemas/release-asset.
type ReleaseAsset struct {
	URL                string      `json:"url"`
	BrowserDownloadURL string      `json:"browser_download_url"`
	ID                 int64       `json:"id"`
	NodeID             string      `json:"node_id"`
	Name               string      `json:"name"`
	Label              *string     `json:"label"`
	State              string      `json:"state"`
	ContentType        string      `json:"content_type"`
	Size               int64       `json:"size"`
	Digest             *string     `json:"digest"`
	DownloadCount      int64       `json:"download_count"`
	CreatedAt          string      `json:"created_at"`
	UpdatedAt          string      `json:"updated_at"`
	Uploader           *SimpleUser `json:"uploader"`
}

// ReleaseNotesContent is components/schemas/release-notes-content.
type ReleaseNotesContent struct {
	Name string `json:"name"`
	Body string `json:"body"`
}

// ghostAccount stands in for a release author whose account is gone, as
// GitHub's @ghost does.
var ghostAccount = model.Account{ID: 10137, Login: "ghost", Type: model.TypeUser}

// UploadsBase is where GitHub Enterprise takes uploads: the API's host
// under /api/uploads.
func (u URLs) UploadsBase() string { return u.Web + "/api/uploads" }

// ToRelease converts a release of repo (its assets loaded), its body in
// the representations f asks for.
func (u URLs) ToRelease(repo *model.Repo, r *model.Release, f BodyFormat) Release {
	base := u.RepoAPIURL(repo) + "/releases/" + strconv.FormatInt(r.ID, 10)
	tagPath := r.TagName
	if r.Draft {
		tagPath = r.DraftKey
	}
	out := Release{
		URL: base, HTMLURL: u.RepoHTMLURL(repo) + "/releases/tag/" + escapePath(tagPath),
		AssetsURL: base + "/assets",
		UploadURL: u.UploadsBase() + "/repos/" + repo.FullName() + "/releases/" + strconv.FormatInt(r.ID, 10) + "/assets{?name,label}",
		ID:        r.ID, NodeID: NodeID("RE", r.ID), TagName: r.TagName, TargetCommitish: r.TargetCommitish,
		Name: r.Name, Body: f.body(r.Body), Draft: r.Draft, Prerelease: r.Prerelease,
		CreatedAt: Time(r.CreatedAt), PublishedAt: TimePtr(r.PublishedAt), UpdatedAt: TimePtr(&r.UpdatedAt),
		Author: u.ToSimpleUser(&ghostAccount), Assets: make([]ReleaseAsset, len(r.Assets)),
	}
	if !r.Draft {
		// A draft's tag need not exist: GitHub gives it no archive URLs.
		tar := u.RepoAPIURL(repo) + "/tarball/" + escapePath(r.TagName)
		zip := u.RepoAPIURL(repo) + "/zipball/" + escapePath(r.TagName)
		out.TarballURL, out.ZipballURL = &tar, &zip
	}
	if r.Author != nil {
		out.Author = u.ToSimpleUser(r.Author)
	}
	for i, a := range r.Assets {
		out.Assets[i] = u.ToReleaseAsset(repo, a)
	}
	if rollup := ToRollup(base+"/reactions", r.Rollup); rollup.TotalCount > 0 {
		out.Reactions = &rollup
	}
	return out
}

// ToReleaseAsset converts an asset of repo.
func (u URLs) ToReleaseAsset(repo *model.Repo, a *model.ReleaseAsset) ReleaseAsset {
	out := ReleaseAsset{
		URL:                u.RepoAPIURL(repo) + "/releases/assets/" + strconv.FormatInt(a.ID, 10),
		BrowserDownloadURL: u.RepoHTMLURL(repo) + "/releases/download/" + escapePath(a.TagPath) + "/" + url.PathEscape(a.Name),
		ID:                 a.ID, NodeID: NodeID("RA", a.ID), Name: a.Name, Label: a.Label, State: a.State,
		ContentType: a.ContentType, Size: a.Size, Digest: a.Digest, DownloadCount: a.DownloadCount,
		CreatedAt: Time(a.CreatedAt), UpdatedAt: Time(a.UpdatedAt),
	}
	if a.Uploader != nil {
		s := u.ToSimpleUser(a.Uploader)
		out.Uploader = &s
	}
	return out
}
