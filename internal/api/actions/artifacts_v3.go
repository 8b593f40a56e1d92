package actions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// The pipelines artifact protocol of @actions/artifact 1.x
// (upload-artifact@v3, download-artifact@v3), under ACTIONS_RUNTIME_URL:
//
//	POST  _apis/pipelines/workflows/{run}/artifacts             create (answers fileContainerResourceUrl)
//	PUT   {container}?itemPath=NAME/path                         a Content-Range chunk of a file (gzip allowed)
//	PATCH _apis/pipelines/workflows/{run}/artifacts?artifactName finalize
//	GET   _apis/pipelines/workflows/{run}/artifacts             list the run's artifacts
//	GET   {container}?itemPath=NAME                              the artifact's items
//	GET   {container}?itemPath=NAME/path                         one file
//
// Every call carries the job's ACTIONS_RUNTIME_TOKEN; the artifacts are the
// results service's (internal/actions/artifacts_v3.go).

const (
	pipelinesPrefix  = "/_apis/pipelines/workflows/"
	containersPrefix = runnerPrefix + "/containers/"
)

// servesV3 reports whether a job-services path is the 1.x protocol's.
func servesV3(p string) bool {
	return strings.HasPrefix(p, pipelinesPrefix) || strings.HasPrefix(p, containersPrefix)
}

// serveV3 serves one call of the protocol, answering errors as the
// service does ({"message","typeKey"}; the client reads the status).
func (a *API) serveV3(w http.ResponseWriter, r *http.Request) {
	err := a.v3(w, r)
	if err == nil {
		return
	}
	status, msg := http.StatusInternalServerError, "internal error"
	var he *model.HTTPError
	switch {
	case errors.Is(err, model.ErrNotFound):
		status, msg = http.StatusNotFound, "Not Found"
	case errors.As(err, &he):
		status, msg = he.Status, he.Message
	default:
		slog.Error("actions: artifact containers", "path", r.URL.Path, "err", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"message": msg, "typeKey": http.StatusText(status), "errorCode": 0})
}

func (a *API) v3(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	rt, err := a.storage.Authenticate(ctx, r.Header.Get("Authorization"))
	if err != nil {
		return err
	}
	if rest, ok := strings.CutPrefix(r.URL.Path, containersPrefix); ok {
		id, err := strconv.ParseInt(rest, 10, 64)
		if err != nil || id <= 0 {
			return model.ErrNotFound
		}
		switch r.Method {
		case http.MethodPut:
			return a.v3PutItem(w, r, rt, id)
		case http.MethodGet, http.MethodHead:
			return a.v3GetItems(w, r, rt, id)
		}
		return model.ErrNotFound
	}
	run, tail, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, pipelinesPrefix), "/")
	if tail != "artifacts" {
		return model.ErrNotFound
	}
	if run != strconv.FormatInt(rt.RunID, 10) {
		return model.Forbidden("The workflow run is not the token's.")
	}
	q := r.URL.Query()
	switch r.Method {
	case http.MethodPost:
		var req struct {
			Type          string
			Name          string
			RetentionDays *int
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
			return model.BadRequest("Problems parsing JSON")
		}
		var exp *time.Time
		if req.RetentionDays != nil && *req.RetentionDays > 0 {
			t := time.Now().Add(time.Duration(*req.RetentionDays) * 24 * time.Hour)
			exp = &t
		}
		art, err := a.storage.CreateArtifact(ctx, rt, req.Name, exp)
		if err != nil {
			return err
		}
		return writeV3(w, http.StatusCreated, a.v3Artifact(art, -1))
	case http.MethodPatch:
		var req struct{ Size int64 }
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
			return model.BadRequest("Problems parsing JSON")
		}
		art, size, err := a.storage.FinalizeContainer(ctx, rt, q.Get("artifactName"))
		if err != nil {
			return err
		}
		if req.Size != size {
			slog.Info("actions: artifact size differs from the client's", "artifact", art.ID, "client", req.Size, "received", size)
		}
		out := a.v3Artifact(art, size)
		out["uploadUrl"] = out["fileContainerResourceUrl"]
		return writeV3(w, http.StatusOK, out)
	case http.MethodGet:
		list, err := a.storage.RunArtifacts(ctx, rt, q.Get("artifactName"), 0)
		if err != nil {
			return err
		}
		value := make([]map[string]any, len(list))
		for i, art := range list {
			value[i] = a.v3Artifact(art, art.Size)
		}
		return writeV3(w, http.StatusOK, map[string]any{"count": len(value), "value": value})
	}
	return model.ErrNotFound
}

func writeV3(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(v)
}

// containerURL is an artifact's fileContainerResourceUrl.
func (a *API) containerURL(id int64) string {
	return a.d.URLs.Web + containersPrefix + strconv.FormatInt(id, 10)
}

func (a *API) v3Artifact(art *model.Artifact, size int64) map[string]any {
	c := a.containerURL(art.ID)
	return map[string]any{"containerId": art.ID, "size": size, "signedContent": nil, "fileContainerResourceUrl": c,
		"type": "actions_storage", "name": art.Name, "url": c}
}

// v3PutItem takes one chunk of a file: Content-Range "bytes a-b/total" (a
// whole file without it), Content-Encoding gzip for a gzipped file.
func (a *API) v3PutItem(w http.ResponseWriter, r *http.Request, rt *model.RuntimeToken, id int64) error {
	item := r.URL.Query().Get("itemPath")
	if r.ContentLength < 0 {
		return model.BadRequest("Content-Length is required.")
	}
	start, end, total := int64(0), r.ContentLength-1, r.ContentLength
	if cr := r.Header.Get("Content-Range"); cr != "" {
		if _, err := fmt.Sscanf(cr, "bytes %d-%d/%d", &start, &end, &total); err != nil || end-start+1 != r.ContentLength {
			return model.BadRequest("The Content-Range is not valid.")
		}
	}
	gz := strings.EqualFold(r.Header.Get("Content-Encoding"), "gzip")
	if err := a.storage.PutContainerItem(r.Context(), rt, id, item, start, end, total, gz, r.Body); err != nil {
		return err
	}
	return writeV3(w, http.StatusCreated, map[string]any{"containerId": id, "path": item, "itemType": "file", "status": "created", "fileLength": total})
}

// v3GetItems answers the items of an artifact (itemPath its name, or a
// folder of it) or one file's bytes.
func (a *API) v3GetItems(w http.ResponseWriter, r *http.Request, rt *model.RuntimeToken, id int64) error {
	art, err := a.storage.RunArtifact(r.Context(), rt, id)
	if err != nil {
		return err
	}
	item := strings.TrimSuffix(strings.ReplaceAll(r.URL.Query().Get("itemPath"), "\\", "/"), "/")
	if item != art.Name && !strings.HasPrefix(item, art.Name+"/") {
		return model.ErrNotFound
	}
	if rc, n, err := a.storage.OpenContainerFile(art, item); err == nil {
		defer rc.Close()
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.FormatInt(n, 10))
		if r.Method == http.MethodHead {
			return nil
		}
		_, err = io.Copy(w, rc)
		return err
	}
	files, err := a.storage.ContainerFiles(art)
	if err != nil {
		return err
	}
	when := art.UpdatedAt.UTC().Format(time.RFC3339)
	entry := func(p, kind string) map[string]any {
		return map[string]any{"containerId": art.ID, "scopeIdentifier": "00000000-0000-0000-0000-000000000000", "path": p, "itemType": kind,
			"status": "created", "dateCreated": when, "dateLastModified": when, "createdBy": "hubd", "lastModifiedBy": "hubd",
			"itemLocation": a.containerURL(art.ID) + "?itemPath=" + url.QueryEscape(p) + "&metadata=True", "contentId": ""}
	}
	value := []map[string]any{}
	folders := map[string]bool{}
	for _, f := range files {
		if !strings.HasPrefix(f.Path, item+"/") {
			continue
		}
		for d := path.Dir(f.Path); d != "." && !folders[d] && (d == item || strings.HasPrefix(d, item+"/")); d = path.Dir(d) {
			folders[d] = true
			value = append(value, entry(d, "folder"))
		}
		e := entry(f.Path, "file")
		e["fileLength"] = f.Size
		e["contentLocation"] = a.containerURL(art.ID) + "?itemPath=" + url.QueryEscape(f.Path)
		value = append(value, e)
	}
	if len(value) == 0 && len(files) > 0 {
		return model.ErrNotFound
	}
	return writeV3(w, http.StatusOK, map[string]any{"count": len(value), "value": value})
}
