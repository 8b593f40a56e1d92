package actions

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// The artifact operations of the REST API. Jobs upload artifacts through
// the results service (runner.go); the zips are in hubd's data directory.

const noteArtifacts = "Artifacts come from hubd's own job services: the results service of @actions/artifact 2.x (upload-artifact@v4) and the pipelines artifact protocol of @actions/artifact 1.x (upload-artifact@v3 / download-artifact@v3, GitHub Enterprise Server's), one record per name per run for both. The 2.x client refuses hosts other than github.com, *.ghe.com and *.localhost, so on another host name it needs GITHUB_SERVER_URL on such a name; the 1.x client needs nothing. Retention: the retention-days input up to 90 days (the repository default; not settable yet)."

func (a *API) artifactRoutes() []rest.Route {
	repo := "/repos/{owner}/{repo}/actions"
	rd, wr := []string{"repo"}, []string{"repo"}
	return []rest.Route{
		{Method: "GET", Pattern: repo + "/artifacts", OperationID: "actions/list-artifacts-for-repo", Handler: a.listArtifacts, Scopes: rd, Note: noteArtifacts},
		{Method: "GET", Pattern: repo + "/artifacts/{artifact_id}", OperationID: "actions/get-artifact", Handler: a.getArtifact, Scopes: rd, Note: noteArtifacts},
		{Method: "DELETE", Pattern: repo + "/artifacts/{artifact_id}", OperationID: "actions/delete-artifact", Handler: a.deleteArtifact, Scopes: wr},
		{Method: "GET", Pattern: repo + "/artifacts/{artifact_id}/{archive_format}", OperationID: "actions/download-artifact", Handler: a.downloadArtifact, Scopes: rd, Note: noteArtifacts},
		{Method: "GET", Pattern: repo + "/runs/{run_id}/artifacts", OperationID: "actions/list-workflow-run-artifacts", Handler: a.listRunArtifacts, Scopes: rd, Note: noteArtifacts},
	}
}

// artifact finds {artifact_id} of a repository the caller may access at need.
func (a *API) artifact(r *http.Request, need authz.Permission) (*model.Repo, *model.Artifact, error) {
	repo, _, err := a.d.Repo(r, need)
	if err != nil {
		return nil, nil, err
	}
	aid, err := id(r, "artifact_id")
	if err != nil {
		return nil, nil, err
	}
	art, err := a.d.Store.R().Artifact(r.Context(), repo.ID, aid)
	return repo, art, err
}

func (a *API) writeArtifacts(w http.ResponseWriter, r *http.Request, repo *model.Repo, f store.ArtifactFilter) error {
	f.Name = r.URL.Query().Get("name")
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().Artifacts(r.Context(), f, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := struct {
		TotalCount int             `json:"total_count"`
		Artifacts  []wire.Artifact `json:"artifacts"`
	}{TotalCount: total, Artifacts: make([]wire.Artifact, len(list))}
	now := time.Now()
	for i, art := range list {
		out.Artifacts[i] = a.d.URLs.ToArtifact(repo, art, now)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/actions/artifacts
func (a *API) listArtifacts(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	return a.writeArtifacts(w, r, repo, store.ArtifactFilter{RepoID: repo.ID})
}

// GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts
func (a *API) listRunArtifacts(w http.ResponseWriter, r *http.Request) error {
	repo, run, err := a.run(r, authz.Read)
	if err != nil {
		return err
	}
	return a.writeArtifacts(w, r, repo, store.ArtifactFilter{RepoID: repo.ID, RunID: run.ID})
}

// GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}
func (a *API) getArtifact(w http.ResponseWriter, r *http.Request) error {
	repo, art, err := a.artifact(r, authz.Read)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToArtifact(repo, art, time.Now()))
}

// DELETE /repos/{owner}/{repo}/actions/artifacts/{artifact_id}
func (a *API) deleteArtifact(w http.ResponseWriter, r *http.Request) error {
	repo, art, err := a.artifact(r, authz.Write)
	if err != nil {
		return err
	}
	if err := a.storage.DeleteArtifact(r.Context(), repo, rest.Caller(r).UserID(), art); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}:
// a redirect to the zip, downloadable without credentials for a few
// minutes.
func (a *API) downloadArtifact(w http.ResponseWriter, r *http.Request) error {
	repo, art, err := a.artifact(r, authz.Read)
	if err != nil {
		return err
	}
	if r.PathValue("archive_format") != "zip" {
		return model.ErrNotFound
	}
	if art.Expired(time.Now()) {
		return model.Gone("Artifact has expired")
	}
	http.Redirect(w, r, a.artifactURL(repo.ID, art.ID), http.StatusFound)
	return nil
}

// artifactURL is the signed download URL of an artifact's zip.
func (a *API) artifactURL(repoID, artID int64) string {
	return fmt.Sprintf("%s%s/download/%d/%d?token=%s", a.d.URLs.Web, runnerPrefix, repoID, artID,
		a.sign.Token("artifact", repoID, "artifact/"+strconv.FormatInt(artID, 10), time.Now()))
}

// serveArtifactZip answers a signed download URL with the zip.
func (a *API) serveArtifactZip(w http.ResponseWriter, r *http.Request, repoID, artID int64) error {
	if !a.sign.Valid(r.URL.Query().Get("token"), "artifact", repoID, "artifact/"+strconv.FormatInt(artID, 10), time.Now()) {
		return model.ErrNotFound
	}
	art, err := a.d.Store.R().Artifact(r.Context(), repoID, artID)
	if err != nil {
		return err
	}
	f, err := os.Open(a.storage.ArtifactPath(art.ID))
	if err != nil {
		return model.ErrNotFound
	}
	defer f.Close()
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%s.zip", art.Name))
	http.ServeContent(w, r, art.Name+".zip", art.UpdatedAt, f)
	return nil
}

// storageDir is where artifacts and caches are kept: beside the git
// repositories, in hubd's data directory.
func storageDir(gitRoot string) string {
	if gitRoot == "" {
		return filepath.Join(os.TempDir(), "hubd-actions-storage")
	}
	return filepath.Join(filepath.Dir(gitRoot), "actions-storage")
}
