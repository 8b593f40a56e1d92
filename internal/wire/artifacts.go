package wire

import (
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// Artifact is components/schemas/artifact.
type Artifact struct {
	ID                 int64               `json:"id"`
	NodeID             string              `json:"node_id"`
	Name               string              `json:"name"`
	SizeInBytes        int64               `json:"size_in_bytes"`
	URL                string              `json:"url"`
	ArchiveDownloadURL string              `json:"archive_download_url"`
	Expired            bool                `json:"expired"`
	CreatedAt          *string             `json:"created_at"`
	ExpiresAt          *string             `json:"expires_at"`
	UpdatedAt          *string             `json:"updated_at"`
	Digest             *string             `json:"digest"`
	WorkflowRun        ArtifactWorkflowRun `json:"workflow_run"`
}

// ArtifactWorkflowRun is the artifact's workflow_run.
type ArtifactWorkflowRun struct {
	ID               int64  `json:"id"`
	RepositoryID     int64  `json:"repository_id"`
	HeadRepositoryID int64  `json:"head_repository_id"`
	HeadBranch       string `json:"head_branch"`
	HeadSHA          string `json:"head_sha"`
}

// ToArtifact converts an artifact of r (expired as of now).
func (u URLs) ToArtifact(r *model.Repo, a *model.Artifact, now time.Time) Artifact {
	api := u.RepoAPI(r.Owner.Login, r.Name) + "/actions/artifacts/" + strconv.FormatInt(a.ID, 10)
	out := Artifact{ID: a.ID, NodeID: NodeID("MDg6QXJ0aWZhY3Q", a.ID), Name: a.Name, SizeInBytes: a.Size, URL: api,
		ArchiveDownloadURL: api + "/zip", Expired: a.Expired(now),
		CreatedAt: ptr(Time(a.CreatedAt)), ExpiresAt: ptr(Time(a.ExpiresAt)), UpdatedAt: ptr(Time(a.UpdatedAt)),
		WorkflowRun: ArtifactWorkflowRun{ID: a.RunID, RepositoryID: a.RepoID, HeadRepositoryID: a.RepoID, HeadBranch: a.HeadBranch, HeadSHA: a.HeadSHA}}
	if a.Digest != "" {
		out.Digest = ptr(a.Digest)
	}
	return out
}

// ActionsCache is an entry of components/schemas/actions-cache-list.
type ActionsCache struct {
	ID             int64  `json:"id"`
	Ref            string `json:"ref"`
	Key            string `json:"key"`
	Version        string `json:"version"`
	LastAccessedAt string `json:"last_accessed_at"`
	CreatedAt      string `json:"created_at"`
	SizeInBytes    int64  `json:"size_in_bytes"`
}

// ToActionsCache converts a cache.
func ToActionsCache(c *model.ActionsCache) ActionsCache {
	return ActionsCache{ID: c.ID, Ref: c.Ref, Key: c.Key, Version: c.Version, LastAccessedAt: Time(c.LastAccessedAt),
		CreatedAt: Time(c.CreatedAt), SizeInBytes: c.Size}
}

// ActionsCacheList is components/schemas/actions-cache-list.
type ActionsCacheList struct {
	TotalCount    int            `json:"total_count"`
	ActionsCaches []ActionsCache `json:"actions_caches"`
}
