// Package releases is the REST adapter of releases and release assets: it
// parses requests, calls the release service (internal/releases) and
// writes GitHub's shapes. Asset uploads are streamed to the service (the
// server routes GitHub Enterprise's /api/uploads prefix here); downloads
// are streamed from the asset's file, by the API with Accept:
// application/octet-stream and at browser_download_url.
package releases

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
	svc "github.com/hubd/hubd/internal/releases"
	"github.com/hubd/hubd/internal/rest"
)

// API is the releases package.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package and its service. Asset files live in the data
// directory (the parent of the git storage) under release-assets. An
// upload may send maxAsset bytes (0: GitHub's limit).
func New(d *api.Deps, maxAsset int64) *API {
	if maxAsset <= 0 || maxAsset > svc.MaxAssetSize {
		maxAsset = svc.MaxAssetSize
	}
	s := &svc.Service{Store: d.Store, Git: d.Git, Web: d.URLs.Web, MaxAssetSize: maxAsset,
		Resolve: func(ctx context.Context, repo *model.Repo, ref string) (string, error) {
			g, err := d.GitRepo(ctx, repo)
			if err != nil {
				return "", err
			}
			return d.ResolveCommit(ctx, g, repo, ref)
		},
		RecordPush: func(ctx context.Context, repo *model.Repo, actorID int64, ref, old, new string) error {
			return d.RecordPush(ctx, repo, actorID, []api.RefUpdate{{Ref: ref, Old: old, New: new}}, false)
		},
	}
	if d.Git != nil {
		s.Dir = filepath.Join(filepath.Dir(d.Git.Root), "release-assets")
	}
	// A deleted tag makes its published release a draft.
	d.PushHooks = append(d.PushHooks, func(ctx context.Context, repo *model.Repo, actorID int64, updates []api.RefUpdate) {
		for _, u := range updates {
			if tag, ok := strings.CutPrefix(u.Ref, "refs/tags/"); ok && u.New == gitrepo.ZeroOID {
				if err := s.TagDeleted(ctx, repo, actorID, tag); err != nil {
					slog.Error("releases: tag deleted", "repo", repo.ID, "tag", tag, "err", err)
				}
			}
		}
	})
	return &API{d: d, svc: s}
}

// Service is the release service.
func (a *API) Service() *svc.Service { return a.svc }

// Notes of the operations hubd serves only in part.
const (
	noteCreate = "discussion_category_name is accepted and ignored: hubd has no discussions, so no discussion is created and discussion_url is never set. " +
		"Tokens are not checked for the workflow scope when the target commit changes workflow files."
	noteUpdate = "discussion_category_name is accepted and ignored (hubd has no discussions). " +
		"Tokens are not checked for the workflow scope when the target commit changes workflow files."
	noteNotes = "Notes follow GitHub's default configuration: .github/release.yml and configuration_file_path (categories, exclusions) are not read."
	noteAsset = "With Accept: application/octet-stream the bytes are streamed directly (200), not redirected to a storage URL (GitHub answers either; go-github and gh accept both). " +
		"JSON answers of this route carry no ETag."
	noteUpload = "Asset names are rewritten as GitHub documents (special characters become periods, leading and trailing periods go); " +
		"the exact rewriting of non-ASCII names may differ from GitHub's."
)

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	read := []string{"repo"}
	write := []string{"public_repo", "repo"}
	const base = "/repos/{owner}/{repo}/releases"
	return []rest.Route{
		{Method: "GET", Pattern: base, OperationID: "repos/list-releases", Handler: a.list, Scopes: read},
		{Method: "POST", Pattern: base, OperationID: "repos/create-release", Handler: a.create, Scopes: write, Note: noteCreate},
		{Method: "POST", Pattern: base + "/generate-notes", OperationID: "repos/generate-release-notes", Handler: a.generateNotes, Scopes: write, Note: noteNotes},
		{Method: "GET", Pattern: base + "/latest", OperationID: "repos/get-latest-release", Handler: a.latest, Scopes: read},
		{Method: "GET", Pattern: base + "/tags/{tag...}", OperationID: "repos/get-release-by-tag", Handler: a.byTag, Scopes: read},
		{Method: "GET", Pattern: base + "/{release_id}", OperationID: "repos/get-release", Handler: a.get, Scopes: read},
		{Method: "PATCH", Pattern: base + "/{release_id}", OperationID: "repos/update-release", Handler: a.update, Scopes: write, Note: noteUpdate},
		{Method: "DELETE", Pattern: base + "/{release_id}", OperationID: "repos/delete-release", Handler: a.delete, Scopes: write},

		{Method: "GET", Pattern: base + "/{release_id}/reactions", OperationID: "reactions/list-for-release", Handler: a.reactions().List, Scopes: read},
		{Method: "POST", Pattern: base + "/{release_id}/reactions", OperationID: "reactions/create-for-release", Handler: a.reactions().Create, Scopes: write},
		{Method: "DELETE", Pattern: base + "/{release_id}/reactions/{reaction_id}", OperationID: "reactions/delete-for-release", Handler: a.reactions().Delete, Scopes: write},

		{Method: "GET", Pattern: base + "/{release_id}/assets", OperationID: "repos/list-release-assets", Handler: a.listAssets, Scopes: read},
		// The body is the asset, streamed to its file (Stream: no
		// buffering, and the server's body limit gives way to the
		// service's 2 GiB).
		{Method: "POST", Pattern: base + "/{release_id}/assets", OperationID: "repos/upload-release-asset", Handler: a.upload, Scopes: write,
			Stream: true, Note: noteUpload},
		// Stream: an octet-stream answer is the asset's bytes.
		{Method: "GET", Pattern: base + "/assets/{asset_id}", OperationID: "repos/get-release-asset", Handler: a.getAsset, Scopes: read,
			Stream: true, Note: noteAsset},
		{Method: "PATCH", Pattern: base + "/assets/{asset_id}", OperationID: "repos/update-release-asset", Handler: a.updateAsset, Scopes: write},
		{Method: "DELETE", Pattern: base + "/assets/{asset_id}", OperationID: "repos/delete-release-asset", Handler: a.deleteAsset, Scopes: write},

		// browser_download_url: hubd's counterpart of github.com's download
		// path (a web URL, served beside the pages like /_raw and
		// /_codeload). {path...} is the tag (tags may hold slashes) and the
		// asset's name.
		{Method: "GET", Pattern: "/{owner}/{repo}/releases/download/{path...}", OperationID: "hubd/release-download", Handler: a.download,
			Extension: true, Stream: true, NoRateLimit: true},
	}
}
