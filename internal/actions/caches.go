package actions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// The cache service of jobs (the protocol @actions/cache speaks to
// ACTIONS_CACHE_URL) and the cache limits of repositories, organizations
// and the enterprise.

// GitHub's defaults: a repository keeps 10 GB of caches, each unused for at
// most 7 days; the enterprise allows up to 10 GB and 90 days unless its
// administrators set more.
const (
	DefaultCacheSizeGB        = 10
	DefaultCacheRetentionDays = 7
	DefaultMaxCacheRetention  = 90
	gb                        = 1 << 30
	maxCacheKey               = 512
)

// CachePath is where a committed cache's archive is kept.
func (st *Storage) CachePath(id int64) string {
	return filepath.Join(st.Dir, "caches", strconv.FormatInt(id, 10))
}

// cacheScopes are the refs whose caches a job sees: its own and the
// default branch's (GitHub's rule).
func (st *Storage) cacheScopes(ctx context.Context, rt *model.RuntimeToken) ([]string, error) {
	v, err := st.svc.Store.R().RepoByID(ctx, rt.RepoID, 0)
	if err != nil {
		return nil, err
	}
	refs := []string{rt.Ref}
	if def := "refs/heads/" + v.Repo.DefaultBranch; def != rt.Ref {
		refs = append(refs, def)
	}
	return refs, nil
}

// LookupCache finds the cache a restore gets: in the job's ref, then the
// default branch's, the first key (in order) matching exactly, then as a
// prefix (the newest such). A hit counts as an access.
func (st *Storage) LookupCache(ctx context.Context, rt *model.RuntimeToken, keys []string, version string) (*model.ActionsCache, error) {
	refs, err := st.cacheScopes(ctx, rt)
	if err != nil {
		return nil, err
	}
	q := st.svc.Store.R()
	for _, ref := range refs {
		for _, k := range keys {
			for _, prefix := range []bool{false, true} {
				c, err := q.MatchCache(ctx, rt.RepoID, ref, k, version, prefix)
				if errors.Is(err, model.ErrNotFound) {
					continue
				}
				if err != nil {
					return nil, err
				}
				if err := st.svc.Store.Tx(ctx, func(tx store.Q) error { return tx.TouchCache(ctx, c.ID) }); err != nil {
					return nil, err
				}
				return c, nil
			}
		}
	}
	return nil, model.ErrNotFound
}

// ReserveCache starts the upload of a cache in the job's ref; a key and
// version the ref has (or is uploading) is a conflict.
func (st *Storage) ReserveCache(ctx context.Context, rt *model.RuntimeToken, key, version string, size int64) (*model.ActionsCache, error) {
	if key == "" || len(key) > maxCacheKey || strings.Contains(key, ",") {
		return nil, model.BadRequest(fmt.Sprintf("Key Validation Error: %s cannot be empty, contain commas or be longer than %d characters.", key, maxCacheKey))
	}
	if version == "" {
		return nil, model.BadRequest("The cache version is missing.")
	}
	lim, err := st.RepoCacheLimits(ctx, rt.RepoID)
	if err != nil {
		return nil, err
	}
	if size > lim.SizeGB*gb {
		return nil, model.BadRequest(fmt.Sprintf("Cache size of ~%d MB (%d B) is over the %dGB limit, not saving cache.", size>>20, size, lim.SizeGB))
	}
	c := &model.ActionsCache{RepoID: rt.RepoID, Key: key, Version: version, Ref: rt.Ref, Size: size}
	err = st.svc.Store.Tx(ctx, func(tx store.Q) error { return tx.ReserveCache(ctx, c) })
	if errors.Is(err, store.ErrDuplicate) {
		return nil, model.Conflict(fmt.Sprintf("Cache already exists. Scope: %s, Key: %s, Version: %s", rt.Ref, key, version))
	}
	return c, err
}

// pendingCache is a cache of the job's repository and ref being uploaded.
func (st *Storage) pendingCache(ctx context.Context, rt *model.RuntimeToken, id int64) (*model.ActionsCache, error) {
	c, err := st.svc.Store.R().CacheByID(ctx, rt.RepoID, id)
	if err != nil {
		return nil, err
	}
	if c.Ref != rt.Ref || c.Committed {
		return nil, model.ErrNotFound
	}
	return c, nil
}

// UploadCacheChunk writes a chunk of a reserved cache at offset start.
func (st *Storage) UploadCacheChunk(ctx context.Context, rt *model.RuntimeToken, id, start int64, body io.Reader) error {
	if _, err := st.pendingCache(ctx, rt, id); err != nil {
		return err
	}
	lim, err := st.RepoCacheLimits(ctx, rt.RepoID)
	if err != nil {
		return err
	}
	if start < 0 || start >= lim.SizeGB*gb {
		return model.BadRequest("The chunk's range is not valid.")
	}
	dir := st.uploadDir("cache", id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, "data"), os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.NewOffsetWriter(f, start), io.LimitReader(body, lim.SizeGB*gb-start))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// CommitCache completes an upload of size bytes, then evicts the least
// recently used caches of the repository while it is over its limit.
func (st *Storage) CommitCache(ctx context.Context, rt *model.RuntimeToken, id, size int64) error {
	c, err := st.pendingCache(ctx, rt, id)
	if err != nil {
		return err
	}
	data := filepath.Join(st.uploadDir("cache", id), "data")
	fi, err := os.Stat(data)
	if err != nil || fi.Size() != size {
		got := int64(0)
		if fi != nil {
			got = fi.Size()
		}
		return model.BadRequest(fmt.Sprintf("Uploaded cache size of %d bytes does not match the expected size of %d bytes.", got, size))
	}
	if err := os.MkdirAll(filepath.Dir(st.CachePath(id)), 0o700); err != nil {
		return err
	}
	if err := os.Rename(data, st.CachePath(id)); err != nil {
		return err
	}
	os.RemoveAll(st.uploadDir("cache", id))
	err = st.svc.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CommitCache(ctx, id, size); err != nil {
			return err
		}
		if err := st.scheduleSweep(ctx, tx); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "actions_cache.created", 0, c.RepoID, 0, map[string]any{"cache_id": id, "key": c.Key, "ref": c.Ref})
	})
	if err != nil {
		return err
	}
	st.svc.Queue.Notify()
	return st.Evict(ctx, c.RepoID)
}

// Evict deletes a repository's least recently used caches while their
// total is over its storage limit.
func (st *Storage) Evict(ctx context.Context, repoID int64) error {
	lim, err := st.RepoCacheLimits(ctx, repoID)
	if err != nil {
		return err
	}
	list, err := st.svc.Store.R().CachesByAge(ctx, repoID)
	if err != nil {
		return err
	}
	var total int64
	for _, c := range list {
		if c.Committed {
			total += c.Size
		}
	}
	var drop []*model.ActionsCache
	for _, c := range list {
		if total <= lim.SizeGB*gb {
			break
		}
		if c.Committed {
			drop = append(drop, c)
			total -= c.Size
		}
	}
	return st.deleteCaches(ctx, 0, drop, "evicted")
}

// deleteCaches deletes caches and their files (why: deleted, evicted,
// expired).
func (st *Storage) deleteCaches(ctx context.Context, actorID int64, list []*model.ActionsCache, why string) error {
	if len(list) == 0 {
		return nil
	}
	ids := make([]int64, len(list))
	for i, c := range list {
		ids[i] = c.ID
	}
	err := st.svc.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.DeleteCaches(ctx, ids); err != nil {
			return err
		}
		for _, c := range list {
			if err := tx.AppendEvent(ctx, "actions_cache."+why, actorID, c.RepoID, 0, map[string]any{"cache_id": c.ID, "key": c.Key, "ref": c.Ref}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		os.Remove(st.CachePath(id))
		os.RemoveAll(st.uploadDir("cache", id))
	}
	return nil
}

// DeleteCaches deletes caches of a repository (REST).
func (st *Storage) DeleteCaches(ctx context.Context, actorID int64, list []*model.ActionsCache) error {
	return st.deleteCaches(ctx, actorID, list, "deleted")
}

// sweepCaches deletes the caches unused for longer than their
// repository's retention, and uploads left unfinished for a day.
func (st *Storage) sweepCaches(ctx context.Context, now time.Time) error {
	list, err := st.svc.Store.Background().StaleCaches(ctx, now.Add(-24*time.Hour), 10000)
	if err != nil {
		return err
	}
	days := map[int64]int64{}
	var drop []*model.ActionsCache
	for _, c := range list {
		d, ok := days[c.RepoID]
		if !ok {
			lim, err := st.RepoCacheLimits(ctx, c.RepoID)
			if errors.Is(err, model.ErrNotFound) {
				lim.RetentionDays = 0 // its repository is gone
			} else if err != nil {
				return err
			}
			d, days[c.RepoID] = lim.RetentionDays, lim.RetentionDays
		}
		if !c.Committed || c.LastAccessedAt.Before(now.Add(-time.Duration(d)*24*time.Hour)) {
			drop = append(drop, c)
		}
	}
	return st.deleteCaches(ctx, 0, drop, "expired")
}

// EffectiveCacheLimits are what applies to a repository's caches, and the
// maxima its owners allow.
type EffectiveCacheLimits struct {
	RetentionDays, SizeGB       int64 // the repository's
	MaxRetentionDays, MaxSizeGB int64 // the organization's (or enterprise's) maximum
}

func or(v *int64, def int64) int64 {
	if v != nil {
		return *v
	}
	return def
}

// EnterpriseCacheLimits are the enterprise's maxima and default.
func (st *Storage) EnterpriseCacheLimits(ctx context.Context) (maxDays, maxGB, defGB int64, err error) {
	l, err := st.svc.Store.R().CacheLimits(ctx, model.CacheScopeEnterprise, 0)
	return or(l.RetentionDays, DefaultMaxCacheRetention), or(l.SizeGB, DefaultCacheSizeGB), or(l.DefaultSizeGB, DefaultCacheSizeGB), err
}

// OrgCacheLimits are an organization's maxima: its own within the
// enterprise's, or the enterprise's.
func (st *Storage) OrgCacheLimits(ctx context.Context, orgID int64) (maxDays, maxGB int64, err error) {
	eDays, eGB, _, err := st.EnterpriseCacheLimits(ctx)
	if err != nil || orgID == 0 {
		return eDays, eGB, err
	}
	l, err := st.svc.Store.R().CacheLimits(ctx, model.CacheScopeOrg, orgID)
	return min(or(l.RetentionDays, eDays), eDays), min(or(l.SizeGB, eGB), eGB), err
}

// RepoCacheLimits are the limits that apply to a repository's caches.
func (st *Storage) RepoCacheLimits(ctx context.Context, repoID int64) (EffectiveCacheLimits, error) {
	var out EffectiveCacheLimits
	v, err := st.svc.Store.R().RepoByID(ctx, repoID, 0)
	if err != nil {
		return out, err
	}
	_, _, defGB, err := st.EnterpriseCacheLimits(ctx)
	if err != nil {
		return out, err
	}
	if out.MaxRetentionDays, out.MaxSizeGB, err = st.OrgCacheLimits(ctx, orgID(v.Repo)); err != nil {
		return out, err
	}
	l, err := st.svc.Store.R().CacheLimits(ctx, model.CacheScopeRepo, repoID)
	out.RetentionDays = min(or(l.RetentionDays, DefaultCacheRetentionDays), out.MaxRetentionDays)
	out.SizeGB = min(or(l.SizeGB, defGB), out.MaxSizeGB)
	return out, err
}

// SetCacheLimit sets a retention (days) or storage (sizeGB) limit of a
// scope; one of them is nil. A value above what the scope above allows is
// refused. A repository over its new storage limit evicts at once.
func (st *Storage) SetCacheLimit(ctx context.Context, actorID int64, scope string, id int64, days, sizeGB, defaultGB *int64) error {
	for _, v := range []*int64{days, sizeGB, defaultGB} {
		if v != nil && *v < 1 {
			return model.BadRequest("The limit must be a positive integer.")
		}
	}
	var maxDays, maxGB int64 = 1 << 40, 1 << 40
	var err error
	switch scope {
	case model.CacheScopeRepo:
		v, err := st.svc.Store.R().RepoByID(ctx, id, 0)
		if err != nil {
			return err
		}
		maxDays, maxGB, err = st.OrgCacheLimits(ctx, orgID(v.Repo))
		if err != nil {
			return err
		}
	case model.CacheScopeOrg:
		maxDays, maxGB, _, err = st.EnterpriseCacheLimits(ctx)
		if err != nil {
			return err
		}
	}
	if days != nil && *days > maxDays {
		return model.BadRequest(fmt.Sprintf("The cache retention limit of %d days exceeds the maximum of %d days allowed.", *days, maxDays))
	}
	if sizeGB != nil && *sizeGB > maxGB {
		return model.BadRequest(fmt.Sprintf("The cache storage limit of %d GB exceeds the maximum of %d GB allowed.", *sizeGB, maxGB))
	}
	if defaultGB != nil && sizeGB != nil && *defaultGB > *sizeGB {
		return model.BadRequest("repo_cache_size_limit_in_gb may not exceed max_repo_cache_size_limit_in_gb.")
	}
	err = st.svc.Store.Tx(ctx, func(tx store.Q) error {
		l, err := tx.CacheLimits(ctx, scope, id)
		if err != nil {
			return err
		}
		if days != nil {
			l.RetentionDays = days
		}
		if sizeGB != nil {
			l.SizeGB = sizeGB
		}
		if defaultGB != nil {
			l.DefaultSizeGB = defaultGB
		}
		if err := tx.SetCacheLimits(ctx, scope, id, l); err != nil {
			return err
		}
		var repoID int64
		if scope == model.CacheScopeRepo {
			repoID = id
		}
		return tx.AppendEvent(ctx, "actions_cache.limits_changed", actorID, repoID, 0, map[string]any{"scope": scope, "id": id})
	})
	if err == nil && scope == model.CacheScopeRepo {
		err = st.Evict(ctx, id)
	}
	return err
}
