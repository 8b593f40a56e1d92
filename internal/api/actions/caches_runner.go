package actions

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
)

// serveCacheAPI is the cache service of ACTIONS_CACHE_URL (the protocol of
// @actions/cache's "v1" service, the one GitHub Enterprise Server runs):
//
//	GET   _apis/artifactcache/cache?keys=k1,k2&version=v  the cache a restore gets (204: none)
//	POST  _apis/artifactcache/caches                      reserve {key, version, cacheSize} → {cacheId}
//	PATCH _apis/artifactcache/caches/{id}                 a chunk (Content-Range: bytes a-b/*)
//	POST  _apis/artifactcache/caches/{id}                 commit {size}
func (a *API) serveCacheAPI(w http.ResponseWriter, r *http.Request, path string) error {
	ctx := r.Context()
	rt, err := a.storage.Authenticate(ctx, r.Header.Get("Authorization"))
	if err != nil {
		return err
	}
	rest, ok := strings.CutPrefix(path, "_apis/artifactcache/")
	if !ok {
		return model.ErrNotFound
	}
	switch {
	case rest == "cache" && r.Method == http.MethodGet:
		q := r.URL.Query()
		var keys []string
		for _, k := range strings.Split(q.Get("keys"), ",") {
			if k = strings.TrimSpace(k); k != "" {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 || len(keys) > 10 {
			return model.BadRequest("keys must hold 1 to 10 keys.")
		}
		c, err := a.storage.LookupCache(ctx, rt, keys, q.Get("version"))
		if errors.Is(err, model.ErrNotFound) {
			w.WriteHeader(http.StatusNoContent)
			return nil
		}
		if err != nil {
			return err
		}
		loc := fmt.Sprintf("%s%s/cachefile/%d/%d?token=%s", a.d.URLs.Web, runnerPrefix, c.RepoID, c.ID,
			a.sign.Token("cache", c.RepoID, "cache/"+strconv.FormatInt(c.ID, 10), time.Now()))
		return writeJSON(w, http.StatusOK, map[string]any{"scope": c.Ref, "cacheKey": c.Key, "cacheVersion": c.Version,
			"creationTime": c.CreatedAt.Format(time.RFC3339), "archiveLocation": loc})
	case rest == "caches" && r.Method == http.MethodPost:
		var req struct {
			Key       string `json:"key"`
			Version   string `json:"version"`
			CacheSize int64  `json:"cacheSize"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
			return model.BadRequest("Problems parsing JSON")
		}
		c, err := a.storage.ReserveCache(ctx, rt, req.Key, req.Version, req.CacheSize)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusCreated, map[string]any{"cacheId": c.ID})
	case strings.HasPrefix(rest, "caches/"):
		cid, err := strconv.ParseInt(strings.TrimPrefix(rest, "caches/"), 10, 64)
		if err != nil {
			return model.ErrNotFound
		}
		switch r.Method {
		case http.MethodPatch:
			var start, end int64
			if _, err := fmt.Sscanf(r.Header.Get("Content-Range"), "bytes %d-%d/", &start, &end); err != nil || end < start {
				return model.BadRequest("Content-Range is missing or not valid.")
			}
			if err := a.storage.UploadCacheChunk(ctx, rt, cid, start, io.LimitReader(r.Body, end-start+1)); err != nil {
				return err
			}
		case http.MethodPost:
			var req struct {
				Size int64 `json:"size"`
			}
			if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
				return model.BadRequest("Problems parsing JSON")
			}
			if err := a.storage.CommitCache(ctx, rt, cid, req.Size); err != nil {
				return err
			}
		default:
			return model.ErrNotFound
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	return model.ErrNotFound
}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(v)
}

// serveCacheFile answers a cache's signed archiveLocation.
func (a *API) serveCacheFile(w http.ResponseWriter, r *http.Request, repoID, cacheID int64) error {
	if !a.sign.Valid(r.URL.Query().Get("token"), "cache", repoID, "cache/"+strconv.FormatInt(cacheID, 10), time.Now()) {
		return model.ErrNotFound
	}
	c, err := a.d.Store.R().CacheByID(r.Context(), repoID, cacheID)
	if err != nil || !c.Committed {
		return model.ErrNotFound
	}
	f, err := os.Open(a.storage.CachePath(c.ID))
	if err != nil {
		return model.ErrNotFound
	}
	defer f.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(w, r, "cache.tzst", c.CreatedAt, f)
	return nil
}
