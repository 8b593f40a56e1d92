package actions

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/model"
)

// What a workflow job's steps talk to, outside the REST API: the results
// ArtifactService (twirp, JSON) that @actions/artifact 2.x calls at
// ACTIONS_RESULTS_URL, the blob upload and download URLs it hands out, and
// the cache service of ACTIONS_CACHE_URL (caches_runner.go). Every call
// carries the job's ACTIONS_RUNTIME_TOKEN (or a signed URL).

const (
	runnerPrefix  = actions.RunnerPrefix
	twirpArtifact = "/twirp/github.actions.results.api.v1.ArtifactService/"
)

// jobServices is the http.Handler of the job services.
type jobServices struct{ a *API }

func (js jobServices) Serves(path string) bool {
	return strings.HasPrefix(path, twirpArtifact) || strings.HasPrefix(path, runnerPrefix+"/") || servesV3(path)
}

func (js jobServices) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a := js.a
	var err error
	path := r.URL.Path
	switch {
	case servesV3(path): // @actions/artifact 1.x (artifacts_v3.go)
		a.serveV3(w, r)
	case strings.HasPrefix(path, twirpArtifact) && r.Method == http.MethodPost:
		err = a.twirpArtifact(w, r, strings.TrimPrefix(path, twirpArtifact))
	case strings.HasPrefix(path, runnerPrefix+"/cache/"):
		err = a.serveCacheAPI(w, r, strings.TrimPrefix(path, runnerPrefix+"/cache/"))
	default:
		parts := strings.Split(strings.TrimPrefix(path, runnerPrefix+"/"), "/")
		var repoID, itemID int64
		if len(parts) == 3 {
			repoID, _ = strconv.ParseInt(parts[1], 10, 64)
			itemID, _ = strconv.ParseInt(parts[2], 10, 64)
		}
		switch {
		case repoID <= 0 || itemID <= 0:
			err = model.ErrNotFound
		case parts[0] == "upload" && r.Method == http.MethodPut:
			err = a.uploadBlob(w, r, repoID, itemID)
		case parts[0] == "download" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
			err = a.serveArtifactZip(w, r, repoID, itemID)
		case parts[0] == "cachefile" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
			err = a.serveCacheFile(w, r, repoID, itemID)
		default:
			err = model.ErrNotFound
		}
	}
	if err != nil {
		writeRunnerError(w, r, err)
	}
}

// writeRunnerError answers an error as twirp does ({"code","msg"}).
func writeRunnerError(w http.ResponseWriter, r *http.Request, err error) {
	status, code, msg := http.StatusInternalServerError, "internal", "internal error"
	var he *model.HTTPError
	switch {
	case errors.Is(err, model.ErrNotFound):
		status, code, msg = http.StatusNotFound, "not_found", "Not Found"
	case errors.As(err, &he):
		status, msg = he.Status, he.Message
		code = map[int]string{400: "invalid_argument", 401: "unauthenticated", 403: "permission_denied", 409: "already_exists", 410: "not_found"}[status]
		if code == "" {
			code = "unknown"
		}
	default:
		slog.Error("actions: job services", "path", r.URL.Path, "err", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"code": code, "msg": msg})
}

// int64s are protobuf JSON's 64-bit integers: strings or numbers.
type int64s int64

func (v *int64s) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "" || s == "null" {
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	*v = int64s(n)
	return err
}

type twirpRequest struct {
	RunBackendID string  `json:"workflow_run_backend_id"`
	JobBackendID string  `json:"workflow_job_run_backend_id"`
	Name         string  `json:"name"`
	ExpiresAt    *string `json:"expires_at"`
	Size         int64s  `json:"size"`
	NameFilter   *string `json:"name_filter"`
	IDFilter     *int64s `json:"id_filter"`
}

// twirpArtifact serves one method of the ArtifactService.
func (a *API) twirpArtifact(w http.ResponseWriter, r *http.Request, method string) error {
	ctx := r.Context()
	rt, err := a.storage.Authenticate(ctx, r.Header.Get("Authorization"))
	if err != nil {
		return err
	}
	var req twirpRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
		return model.BadRequest("Problems parsing JSON")
	}
	// The backend ids the client read from the token: the run must be the
	// token's own, and so must the job that creates or finalizes (reads
	// name the job that uploaded).
	writes := method == "CreateArtifact" || method == "FinalizeArtifact"
	if req.RunBackendID != strconv.FormatInt(rt.RunID, 10) || (writes && req.JobBackendID != strconv.FormatInt(rt.JobID, 10)) {
		return model.Forbidden("The workflow run or job is not the token's.")
	}
	var out any
	switch method {
	case "CreateArtifact":
		var exp *time.Time
		if req.ExpiresAt != nil {
			t, err := time.Parse(time.RFC3339Nano, *req.ExpiresAt)
			if err != nil {
				return model.BadRequest("expires_at is not a timestamp")
			}
			exp = &t
		}
		art, err := a.storage.CreateArtifact(ctx, rt, req.Name, exp)
		if err != nil {
			return err
		}
		url := fmt.Sprintf("%s%s/upload/%d/%d?token=%s", a.d.URLs.Web, runnerPrefix, rt.RepoID, art.ID,
			a.sign.Token("artifact-upload", rt.RepoID, "upload/"+strconv.FormatInt(art.ID, 10), time.Now()))
		out = map[string]any{"ok": true, "signed_upload_url": url}
	case "FinalizeArtifact":
		art, err := a.storage.FinalizeArtifact(ctx, rt, req.Name, int64(req.Size))
		if err != nil {
			return err
		}
		out = map[string]any{"ok": true, "artifact_id": strconv.FormatInt(art.ID, 10)}
	case "ListArtifacts":
		name, aid := "", int64(0)
		if req.NameFilter != nil {
			name = *req.NameFilter
		}
		if req.IDFilter != nil {
			aid = int64(*req.IDFilter)
		}
		list, err := a.storage.RunArtifacts(ctx, rt, name, aid)
		if err != nil {
			return err
		}
		arts := make([]map[string]any, len(list))
		for i, art := range list {
			arts[i] = map[string]any{"workflow_run_backend_id": req.RunBackendID, "workflow_job_run_backend_id": strconv.FormatInt(art.JobID, 10),
				"database_id": strconv.FormatInt(art.ID, 10), "name": art.Name, "size": strconv.FormatInt(art.Size, 10),
				"created_at": art.CreatedAt.Format(time.RFC3339)}
		}
		out = map[string]any{"artifacts": arts}
	case "GetSignedArtifactURL":
		list, err := a.storage.RunArtifacts(ctx, rt, req.Name, 0)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			return model.ErrNotFound
		}
		out = map[string]any{"signed_url": a.artifactURL(rt.RepoID, list[0].ID)}
	case "DeleteArtifact":
		list, err := a.storage.RunArtifacts(ctx, rt, req.Name, 0)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			return model.ErrNotFound
		}
		v, err := a.d.Store.R().RepoByID(ctx, rt.RepoID, 0)
		if err != nil {
			return err
		}
		if err := a.storage.DeleteArtifact(ctx, v.Repo, 0, list[0]); err != nil {
			return err
		}
		out = map[string]any{"ok": true, "artifact_id": strconv.FormatInt(list[0].ID, 10)}
	default:
		return model.ErrNotFound
	}
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(out)
}

// uploadBlob takes the Azure Blob Storage calls of an artifact upload to
// its signed URL: Put Block (comp=block), Put Block List (comp=blocklist)
// or Put Blob (the whole zip at once).
func (a *API) uploadBlob(w http.ResponseWriter, r *http.Request, repoID, artID int64) error {
	q := r.URL.Query()
	if !a.sign.Valid(q.Get("token"), "artifact-upload", repoID, "upload/"+strconv.FormatInt(artID, 10), time.Now()) {
		return model.Forbidden("The upload URL is not valid or expired.")
	}
	if _, err := a.d.Store.R().Artifact(r.Context(), repoID, artID); err == nil {
		return model.Conflict("The artifact's upload is finalized.")
	}
	dest := a.storage.ArtifactPath(artID)
	var err error
	switch q.Get("comp") {
	case "block":
		err = a.storage.PutBlock("artifact", artID, q.Get("blockid"), r.Body)
	case "blocklist":
		var list struct {
			Blocks []struct {
				XMLName xml.Name
				ID      string `xml:",chardata"`
			} `xml:",any"`
		}
		if err := xml.NewDecoder(io.LimitReader(r.Body, 16<<20)).Decode(&list); err != nil {
			return model.BadRequest("The block list is not valid XML.")
		}
		ids := make([]string, len(list.Blocks))
		for i, b := range list.Blocks {
			ids[i] = strings.TrimSpace(b.ID)
		}
		err = a.storage.CommitBlocks("artifact", artID, dest, ids, nil)
	case "":
		err = a.storage.CommitBlocks("artifact", artID, dest, nil, r.Body)
	default:
		return model.BadRequest("Unsupported comp " + q.Get("comp"))
	}
	if err != nil {
		return err
	}
	w.Header().Set("x-ms-request-id", strconv.FormatInt(time.Now().UnixNano(), 36))
	w.Header().Set("x-ms-version", "2023-11-03")
	w.Header().Set("x-ms-request-server-encrypted", "false")
	w.WriteHeader(http.StatusCreated)
	return nil
}

// Storage is the artifact and cache service behind the job services
// (tests sweep and evict through it).
func (js jobServices) Storage() *actions.Storage { return js.a.storage }
