package actions

import (
	"errors"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// The cache operations of the REST API: a repository's caches (saved by
// jobs through the cache service, caches_runner.go), their usage, and the
// retention and storage limits of repositories, organizations and hubd's
// enterprise.

const (
	noteCacheOrg = "Any active member reads an organization's cache usage and limits; its owners set the limits and list usage by repository. Limits: repository at most its organization's maximum, organization at most the enterprise's (10 GB and 90 days unless site administrators raise them)."
	noteCacheEnt = "hubd has one enterprise (--enterprise), administered by site administrators (classic tokens: read:enterprise to read, admin:enterprise to set, or site_admin). Its usage-policy's max_repo_cache_size_limit_in_gb is the same maximum as its storage-limit."
)

func (a *API) cacheRoutes() []rest.Route {
	repo := "/repos/{owner}/{repo}/actions"
	rd, wr := []string{"repo"}, []string{"repo"}
	org, ent := []string{"admin:org", "read:org"}, []string{"admin:enterprise", "read:enterprise", "site_admin"}
	orgW := []string{"admin:org"}
	return []rest.Route{
		{Method: "GET", Pattern: repo + "/caches", OperationID: "actions/get-actions-cache-list", Handler: a.listCaches, Scopes: rd},
		{Method: "DELETE", Pattern: repo + "/caches", OperationID: "actions/delete-actions-cache-by-key", Handler: a.deleteCachesByKey, Scopes: wr},
		{Method: "DELETE", Pattern: repo + "/caches/{cache_id}", OperationID: "actions/delete-actions-cache-by-id", Handler: a.deleteCacheByID, Scopes: wr},
		{Method: "GET", Pattern: repo + "/cache/usage", OperationID: "actions/get-actions-cache-usage", Handler: a.repoCacheUsage, Scopes: rd},
		{Method: "GET", Pattern: repo + "/cache/retention-limit", OperationID: "actions/get-actions-cache-retention-limit-for-repository", Handler: a.repoCacheLimit("retention"), Scopes: rd},
		{Method: "PUT", Pattern: repo + "/cache/retention-limit", OperationID: "actions/set-actions-cache-retention-limit-for-repository", Handler: a.setRepoCacheLimit("max_cache_retention_days"), Scopes: wr},
		{Method: "GET", Pattern: repo + "/cache/storage-limit", OperationID: "actions/get-actions-cache-storage-limit-for-repository", Handler: a.repoCacheLimit("storage"), Scopes: rd},
		{Method: "PUT", Pattern: repo + "/cache/storage-limit", OperationID: "actions/set-actions-cache-storage-limit-for-repository", Handler: a.setRepoCacheLimit("max_cache_size_gb"), Scopes: wr},
		{Method: "GET", Pattern: repo + "/cache/usage-policy", OperationID: "actions/get-actions-cache-usage-policy", Handler: a.repoCacheLimit("policy"), Scopes: rd},
		{Method: "PATCH", Pattern: repo + "/cache/usage-policy", OperationID: "actions/set-actions-cache-usage-policy", Handler: a.setRepoCacheLimit("repo_cache_size_limit_in_gb"), Scopes: wr},

		{Method: "GET", Pattern: "/orgs/{org}/actions/cache/usage", OperationID: "actions/get-actions-cache-usage-for-org", Handler: a.orgCacheUsage, Scopes: org, Note: noteCacheOrg},
		{Method: "GET", Pattern: "/orgs/{org}/actions/cache/usage-by-repository", OperationID: "actions/get-actions-cache-usage-by-repo-for-org", Handler: a.orgCacheUsageByRepo, Scopes: org, Note: noteCacheOrg},
		{Method: "GET", Pattern: "/organizations/{org}/actions/cache/retention-limit", OperationID: "actions/get-actions-cache-retention-limit-for-organization", Handler: a.orgCacheLimit("retention"), Scopes: org, Note: noteCacheOrg},
		{Method: "PUT", Pattern: "/organizations/{org}/actions/cache/retention-limit", OperationID: "actions/set-actions-cache-retention-limit-for-organization", Handler: a.setOrgCacheLimit("max_cache_retention_days"), Scopes: orgW, Note: noteCacheOrg},
		{Method: "GET", Pattern: "/organizations/{org}/actions/cache/storage-limit", OperationID: "actions/get-actions-cache-storage-limit-for-organization", Handler: a.orgCacheLimit("storage"), Scopes: org, Note: noteCacheOrg},
		{Method: "PUT", Pattern: "/organizations/{org}/actions/cache/storage-limit", OperationID: "actions/set-actions-cache-storage-limit-for-organization", Handler: a.setOrgCacheLimit("max_cache_size_gb"), Scopes: orgW, Note: noteCacheOrg},

		{Method: "GET", Pattern: "/enterprises/{enterprise}/actions/cache/usage", OperationID: "actions/get-actions-cache-usage-for-enterprise", Handler: a.entCacheUsage, Scopes: ent, Note: noteCacheEnt},
		{Method: "GET", Pattern: "/enterprises/{enterprise}/actions/cache/retention-limit", OperationID: "actions/get-actions-cache-retention-limit-for-enterprise", Handler: a.entCacheLimit("retention"), Scopes: ent, Note: noteCacheEnt},
		{Method: "PUT", Pattern: "/enterprises/{enterprise}/actions/cache/retention-limit", OperationID: "actions/set-actions-cache-retention-limit-for-enterprise", Handler: a.setEntCacheLimit("max_cache_retention_days"), Scopes: ent, Note: noteCacheEnt},
		{Method: "GET", Pattern: "/enterprises/{enterprise}/actions/cache/storage-limit", OperationID: "actions/get-actions-cache-storage-limit-for-enterprise", Handler: a.entCacheLimit("storage"), Scopes: ent, Note: noteCacheEnt},
		{Method: "PUT", Pattern: "/enterprises/{enterprise}/actions/cache/storage-limit", OperationID: "actions/set-actions-cache-storage-limit-for-enterprise", Handler: a.setEntCacheLimit("max_cache_size_gb"), Scopes: ent, Note: noteCacheEnt},
		{Method: "GET", Pattern: "/enterprises/{enterprise}/actions/cache/usage-policy", OperationID: "actions/get-actions-cache-usage-policy-for-enterprise", Handler: a.entCacheLimit("policy"), Scopes: ent, Note: noteCacheEnt},
		{Method: "PATCH", Pattern: "/enterprises/{enterprise}/actions/cache/usage-policy", OperationID: "actions/set-actions-cache-usage-policy-for-enterprise", Handler: a.setEntCacheLimit("policy"), Scopes: ent, Note: noteCacheEnt},
	}
}

func (a *API) writeCaches(w http.ResponseWriter, list []*model.ActionsCache, total int) error {
	out := wire.ActionsCacheList{TotalCount: total, ActionsCaches: make([]wire.ActionsCache, len(list))}
	for i, c := range list {
		out.ActionsCaches[i] = wire.ToActionsCache(c)
	}
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/actions/caches
func (a *API) listCaches(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := store.CacheFilter{RepoID: repo.ID, Ref: q.Get("ref"), KeyPrefix: q.Get("key"), Sort: q.Get("sort"), Asc: q.Get("direction") == "asc"}
	switch f.Sort {
	case "", "created_at", "last_accessed_at", "size_in_bytes":
	default:
		return model.Invalid("", "sort", "invalid")
	}
	if d := q.Get("direction"); d != "" && d != "asc" && d != "desc" {
		return model.Invalid("", "direction", "invalid")
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().Caches(r.Context(), f, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return a.writeCaches(w, list, total)
}

// DELETE /repos/{owner}/{repo}/actions/caches?key=&ref=: the deleted
// caches.
func (a *API) deleteCachesByKey(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Write)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	if q.Get("key") == "" {
		return model.Invalid("", "key", "missing_field")
	}
	list, _, err := a.d.Store.R().Caches(r.Context(), store.CacheFilter{RepoID: repo.ID, Key: q.Get("key"), Ref: q.Get("ref")}, 1000, 0)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		return model.ErrNotFound
	}
	if err := a.storage.DeleteCaches(r.Context(), rest.Caller(r).UserID(), list); err != nil {
		return err
	}
	return a.writeCaches(w, list, len(list))
}

// DELETE /repos/{owner}/{repo}/actions/caches/{cache_id}
func (a *API) deleteCacheByID(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Write)
	if err != nil {
		return err
	}
	cid, err := id(r, "cache_id")
	if err != nil {
		return err
	}
	c, err := a.d.Store.R().CacheByID(r.Context(), repo.ID, cid)
	if err != nil {
		return err
	}
	if err := a.storage.DeleteCaches(r.Context(), rest.Caller(r).UserID(), []*model.ActionsCache{c}); err != nil {
		return err
	}
	return rest.NoContent(w)
}

type repoUsage struct {
	FullName string `json:"full_name"`
	Size     int64  `json:"active_caches_size_in_bytes"`
	Count    int64  `json:"active_caches_count"`
}

// GET /repos/{owner}/{repo}/actions/cache/usage
func (a *API) repoCacheUsage(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	list, _, err := a.d.Store.R().CacheUsage(r.Context(), repo.ID, 0, 1, 0)
	if err != nil {
		return err
	}
	out := repoUsage{FullName: repo.Owner.Login + "/" + repo.Name}
	if len(list) > 0 {
		out.Size, out.Count = list[0].Size, list[0].Count
	}
	return rest.JSON(w, http.StatusOK, out)
}

// limitBody reads a limit's body: field, a positive integer.
func limitBody(r *http.Request, fields ...string) (map[string]*int64, error) {
	var body map[string]any
	if err := rest.Decode(r, &body); err != nil {
		return nil, err
	}
	out := map[string]*int64{}
	for _, f := range fields {
		v, ok := body[f]
		if !ok {
			continue
		}
		n, isNum := v.(float64)
		if !isNum || n != float64(int64(n)) {
			return nil, model.BadRequest("Invalid value for " + f + ": it must be an integer.")
		}
		i := int64(n)
		out[f] = &i
	}
	if len(out) == 0 {
		return nil, model.BadRequest("The request body must set " + strings.Join(fields, " or ") + ".")
	}
	return out, nil
}

// repoCacheLimit answers a repository's retention, storage or policy.
func (a *API) repoCacheLimit(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		repo, _, err := a.d.Repo(r, authz.Read)
		if err != nil {
			return err
		}
		lim, err := a.storage.RepoCacheLimits(r.Context(), repo.ID)
		if err != nil {
			return err
		}
		switch kind {
		case "retention":
			return rest.JSON(w, http.StatusOK, map[string]int64{"max_cache_retention_days": lim.RetentionDays})
		case "storage":
			return rest.JSON(w, http.StatusOK, map[string]int64{"max_cache_size_gb": lim.SizeGB})
		}
		return rest.JSON(w, http.StatusOK, map[string]int64{"repo_cache_size_limit_in_gb": lim.SizeGB})
	}
}

// setRepoCacheLimit sets a repository's limit (administrators).
func (a *API) setRepoCacheLimit(field string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		repo, _, err := a.d.Repo(r, authz.Admin)
		if err != nil {
			return err
		}
		body, err := limitBody(r, field)
		if err != nil {
			return err
		}
		days, size := body["max_cache_retention_days"], body[field]
		if field == "max_cache_retention_days" {
			size = nil
		}
		if err := a.storage.SetCacheLimit(r.Context(), rest.Caller(r).UserID(), model.CacheScopeRepo, repo.ID, days, size, nil); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}

// errTokenScope refuses a classic token without the operation's scope.
var errTokenScope = model.Forbidden("Resource not accessible by personal access token")

// cacheOrg finds {org} for a caller who is an active member of it (an
// owner when owner is set).
func (a *API) cacheOrg(r *http.Request, owner bool) (*model.Account, error) {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return nil, rest.ErrRequiresAuth
	}
	org, err := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return nil, err
	}
	// Classic tokens: admin:org to set, read:org (or more) to read.
	if scope := map[bool]string{true: "admin:org", false: "read:org"}[r.Method != http.MethodGet]; !c.HasScope(scope) {
		return nil, errTokenScope
	}
	if c.SiteAdmin() {
		return org, nil
	}
	m, err := a.d.Store.R().Membership(r.Context(), org.ID, c.UserID())
	if errors.Is(err, model.ErrNotFound) || (err == nil && m.State != store.StateActive) {
		return nil, model.Forbidden("You must be a member of the organization to use this endpoint.")
	}
	if err != nil {
		return nil, err
	}
	if owner && m.Role != model.RoleAdmin {
		return nil, model.Forbidden("You must be an organization owner to use this endpoint.")
	}
	return org, nil
}

// GET /orgs/{org}/actions/cache/usage
func (a *API) orgCacheUsage(w http.ResponseWriter, r *http.Request) error {
	org, err := a.cacheOrg(r, false)
	if err != nil {
		return err
	}
	return a.writeTotals(w, r, org.ID)
}

func (a *API) writeTotals(w http.ResponseWriter, r *http.Request, ownerID int64) error {
	n, size, err := a.d.Store.R().CacheTotals(r.Context(), ownerID)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, map[string]int64{"total_active_caches_count": n, "total_active_caches_size_in_bytes": size})
}

// GET /orgs/{org}/actions/cache/usage-by-repository
func (a *API) orgCacheUsageByRepo(w http.ResponseWriter, r *http.Request) error {
	org, err := a.cacheOrg(r, true)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().CacheUsage(r.Context(), 0, org.ID, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	ids := make([]int64, len(list))
	for i, u := range list {
		ids[i] = u.RepoID
	}
	repos, err := a.d.Store.R().ReposByID(r.Context(), ids, 0)
	if err != nil {
		return err
	}
	out := struct {
		TotalCount int         `json:"total_count"`
		Usages     []repoUsage `json:"repository_cache_usages"`
	}{TotalCount: total, Usages: []repoUsage{}}
	for _, u := range list {
		if v := repos[u.RepoID]; v != nil {
			out.Usages = append(out.Usages, repoUsage{FullName: org.Login + "/" + v.Repo.Name, Size: u.Size, Count: u.Count})
		}
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

func limitJSON(w http.ResponseWriter, kind string, days, size int64) error {
	if kind == "retention" {
		return rest.JSON(w, http.StatusOK, map[string]int64{"max_cache_retention_days": days})
	}
	return rest.JSON(w, http.StatusOK, map[string]int64{"max_cache_size_gb": size})
}

// orgCacheLimit answers an organization's maximum retention or storage.
func (a *API) orgCacheLimit(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		org, err := a.cacheOrg(r, false)
		if err != nil {
			return err
		}
		days, size, err := a.storage.OrgCacheLimits(r.Context(), org.ID)
		if err != nil {
			return err
		}
		return limitJSON(w, kind, days, size)
	}
}

// setOrgCacheLimit sets an organization's maximum (owners).
func (a *API) setOrgCacheLimit(field string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		org, err := a.cacheOrg(r, true)
		if err != nil {
			return err
		}
		body, err := limitBody(r, field)
		if err != nil {
			return err
		}
		if err := a.storage.SetCacheLimit(r.Context(), rest.Caller(r).UserID(), model.CacheScopeOrg, org.ID,
			body["max_cache_retention_days"], body["max_cache_size_gb"], nil); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}

// enterpriseAdmin checks {enterprise} and that the caller administers it
// (a site administrator).
func (a *API) enterpriseAdmin(r *http.Request) error {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return rest.ErrRequiresAuth
	}
	if !strings.EqualFold(r.PathValue("enterprise"), a.d.URLs.EnterpriseSlug()) {
		return model.ErrNotFound
	}
	if scope := map[bool]string{true: "admin:enterprise", false: "read:enterprise"}[r.Method != http.MethodGet]; !c.HasScope(scope) && !c.HasScope("site_admin") {
		return errTokenScope // (site_admin: hubd's site administrators' scope)
	}
	if !c.SiteAdmin() {
		return model.Forbidden("You must be an enterprise owner to use this endpoint.")
	}
	return nil
}

// GET /enterprises/{enterprise}/actions/cache/usage
func (a *API) entCacheUsage(w http.ResponseWriter, r *http.Request) error {
	if err := a.enterpriseAdmin(r); err != nil {
		return err
	}
	return a.writeTotals(w, r, 0)
}

// entCacheLimit answers the enterprise's maximum retention or storage, or
// its usage policy.
func (a *API) entCacheLimit(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := a.enterpriseAdmin(r); err != nil {
			return err
		}
		days, size, def, err := a.storage.EnterpriseCacheLimits(r.Context())
		if err != nil {
			return err
		}
		if kind == "policy" {
			return rest.JSON(w, http.StatusOK, map[string]int64{"repo_cache_size_limit_in_gb": def, "max_repo_cache_size_limit_in_gb": size})
		}
		return limitJSON(w, kind, days, size)
	}
}

// setEntCacheLimit sets the enterprise's maxima or usage policy.
func (a *API) setEntCacheLimit(field string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := a.enterpriseAdmin(r); err != nil {
			return err
		}
		fields := []string{field}
		if field == "policy" {
			fields = []string{"repo_cache_size_limit_in_gb", "max_repo_cache_size_limit_in_gb"}
		}
		body, err := limitBody(r, fields...)
		if err != nil {
			return err
		}
		size, def := body["max_cache_size_gb"], body["repo_cache_size_limit_in_gb"]
		if field == "policy" {
			size = body["max_repo_cache_size_limit_in_gb"]
			if def != nil && size == nil {
				_, cur, _, err := a.storage.EnterpriseCacheLimits(r.Context())
				if err != nil {
					return err
				}
				size = &cur
			}
		}
		if err := a.storage.SetCacheLimit(r.Context(), rest.Caller(r).UserID(), model.CacheScopeEnterprise, 0,
			body["max_cache_retention_days"], size, def); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}
