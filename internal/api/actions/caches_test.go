package actions_test

import (
	"archive/zip"
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// seedCache commits a cache of repoID (its file holds size bytes).
func seedCache(t *testing.T, f *fixture, repoID int64, key, ref string, size int64) int64 {
	t.Helper()
	st := f.storage()
	c := &model.ActionsCache{RepoID: repoID, Key: key, Version: "v1", Ref: ref, Size: size}
	if err := f.e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.ReserveCache(ctx, c); err != nil {
			return err
		}
		return tx.CommitCache(ctx, c.ID, size)
	}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(st.CachePath(c.ID)), 0o700)
	os.WriteFile(st.CachePath(c.ID), bytes.Repeat([]byte("x"), int(min(size, 1024))), 0o600)
	time.Sleep(1100 * time.Millisecond) // distinct times (seconds)
	return c.ID
}

func (f *fixture) storage() *actions.Storage {
	return f.e.Deps.JobServices.(interface{ Storage() *actions.Storage }).Storage()
}

// seedArtifact stores a finalized artifact of a run holding one file.
func seedArtifact(t *testing.T, f *fixture, repoID, runID int64, name string, expires time.Time) int64 {
	t.Helper()
	a := &model.Artifact{RepoID: repoID, RunID: runID, Name: name, HeadBranch: "main", HeadSHA: "abc", ExpiresAt: expires}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("file.txt")
	w.Write([]byte("content of " + name))
	zw.Close()
	if err := f.e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateArtifact(ctx, a) }); err != nil {
		t.Fatal(err)
	}
	p := f.storage().ArtifactPath(a.ID)
	os.MkdirAll(filepath.Dir(p), 0o700)
	os.WriteFile(p, buf.Bytes(), 0o600)
	if err := f.e.Store.Tx(ctx, func(tx store.Q) error { return tx.FinalizeArtifact(ctx, a.ID, int64(buf.Len()), "sha256:00") }); err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// Every artifact and cache operation over HTTP (schema-checked), through
// go-github where it has a method, with GitHub's refusals.
func TestArtifactAndCacheOperations(t *testing.T) {
	f := newFixture(t)
	e := f.e
	head := f.push(t, "ci", map[string]string{".github/workflows/ci.yml": "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: true\n"})
	run := f.waitRun(t, head, true)
	repo, _, _ := f.gh.Repositories.Get(ctx, "mona", "app")
	_, other := e.NewUser("hubot", false)
	gh2 := e.GitHub(other)

	// Artifacts.
	a1 := seedArtifact(t, f, repo.GetID(), run.GetID(), "one", time.Now().Add(24*time.Hour))
	old := seedArtifact(t, f, repo.GetID(), run.GetID(), "old", time.Now().Add(-time.Hour))
	list, resp, err := f.gh.Actions.ListArtifacts(ctx, "mona", "app", &github.ListArtifactsOptions{ListOptions: github.ListOptions{PerPage: 1}})
	if err != nil || list.GetTotalCount() != 2 || len(list.Artifacts) != 1 || resp.NextPage != 2 {
		t.Fatalf("artifacts %+v %v", list, err)
	}
	runList, _, err := f.gh.Actions.ListWorkflowRunArtifacts(ctx, "mona", "app", run.GetID(), &github.ListOptions{})
	if err != nil || runList.GetTotalCount() != 2 {
		t.Fatalf("run artifacts %+v %v", runList, err)
	}
	if got, _, err := f.gh.Actions.GetArtifact(ctx, "mona", "app", old); err != nil || !got.GetExpired() || got.GetDigest() != "sha256:00" {
		t.Fatalf("old artifact %+v %v", got, err)
	}
	u, _, err := f.gh.Actions.DownloadArtifact(ctx, "mona", "app", a1, 0)
	if err != nil {
		t.Fatal(err)
	}
	dl, err := http.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	zb, _ := io.ReadAll(dl.Body)
	dl.Body.Close()
	if zr, err := zip.NewReader(bytes.NewReader(zb), int64(len(zb))); err != nil || zr.File[0].Name != "file.txt" {
		t.Fatalf("zip: %v", err)
	}
	e.Must(410, "GET", "/repos/mona/app/actions/artifacts/"+itoa(old)+"/zip", f.token, nil)
	e.Must(404, "GET", "/repos/mona/app/actions/artifacts/"+itoa(a1)+"/tar", f.token, nil)
	if resp, err := http.Get(u.String() + "x"); err != nil || resp.StatusCode != 404 {
		t.Fatalf("a bad signature: %v %v", resp.StatusCode, err)
	}
	e.Must(403, "DELETE", "/repos/mona/app/actions/artifacts/"+itoa(a1), other, nil)
	e.Must(401, "DELETE", "/repos/mona/app/actions/artifacts/"+itoa(a1), "", nil)
	if _, err := f.gh.Actions.DeleteArtifact(ctx, "mona", "app", a1); err != nil {
		t.Fatal(err)
	}
	e.Must(404, "GET", "/repos/mona/app/actions/artifacts/"+itoa(a1), f.token, nil)
	e.Must(404, "GET", "/repos/mona/app/actions/artifacts/999999", f.token, nil)

	// Caches.
	k1 := seedCache(t, f, repo.GetID(), "npm-1", "refs/heads/main", 300)
	seedCache(t, f, repo.GetID(), "npm-2", "refs/heads/dev", 200)
	seedCache(t, f, repo.GetID(), "go-1", "refs/heads/main", 100)
	caches, _, err := f.gh.Actions.ListCaches(ctx, "mona", "app", &github.ActionsCacheListOptions{Key: github.Ptr("npm"), Sort: github.Ptr("size_in_bytes"), Direction: github.Ptr("asc")})
	if err != nil || caches.TotalCount != 2 || caches.ActionsCaches[0].GetKey() != "npm-2" {
		t.Fatalf("caches %+v %v", caches, err)
	}
	caches, _, err = f.gh.Actions.ListCaches(ctx, "mona", "app", &github.ActionsCacheListOptions{Ref: github.Ptr("refs/heads/main")})
	if err != nil || caches.TotalCount != 2 || caches.ActionsCaches[0].GetKey() != "go-1" { // last used first
		t.Fatalf("main caches %+v %v", caches, err)
	}
	e.Must(422, "GET", "/repos/mona/app/actions/caches?sort=nope", f.token, nil)
	usage, _, err := f.gh.Actions.GetCacheUsageForRepo(ctx, "mona", "app")
	if err != nil || usage.ActiveCachesCount != 3 || usage.ActiveCachesSizeInBytes != 600 {
		t.Fatalf("usage %+v %v", usage, err)
	}
	e.Must(403, "DELETE", "/repos/mona/app/actions/caches/"+itoa(k1), other, nil)
	if _, err := f.gh.Actions.DeleteCachesByID(ctx, "mona", "app", k1); err != nil {
		t.Fatal(err)
	}
	e.Must(404, "DELETE", "/repos/mona/app/actions/caches/"+itoa(k1), f.token, nil)
	e.Must(422, "DELETE", "/repos/mona/app/actions/caches", f.token, nil)
	e.Must(404, "DELETE", "/repos/mona/app/actions/caches?key=nothing", f.token, nil)
	if _, err := f.gh.Actions.DeleteCachesByKey(ctx, "mona", "app", "npm-2", github.Ptr("refs/heads/dev")); err != nil {
		t.Fatal(err)
	}
	var deleted struct {
		TotalCount int `json:"total_count"`
	}
	e.Must(200, "DELETE", "/repos/mona/app/actions/caches?key=go-1", f.token, nil).JSON(t, &deleted)
	if deleted.TotalCount != 1 {
		t.Errorf("deleted %d", deleted.TotalCount)
	}

	// Repository limits.
	var lim map[string]int64
	limit := func(path, token, field string, want int64, what string) {
		t.Helper()
		var got map[string]int64
		e.Must(200, "GET", path, token, nil).JSON(t, &got)
		if got[field] != want {
			t.Errorf("%s: %v, want %s %d", what, got, field, want)
		}
	}
	limit("/repos/mona/app/actions/cache/retention-limit", f.token, "max_cache_retention_days", 7, "retention")
	e.Must(204, "PUT", "/repos/mona/app/actions/cache/retention-limit", f.token, map[string]any{"max_cache_retention_days": 30})
	limit("/repos/mona/app/actions/cache/retention-limit", f.token, "max_cache_retention_days", 30, "retention")
	e.Must(400, "PUT", "/repos/mona/app/actions/cache/retention-limit", f.token, map[string]any{"max_cache_retention_days": 91})
	e.Must(422, "PUT", "/repos/mona/app/actions/cache/retention-limit", f.token, map[string]any{"max_cache_retention_days": "x"})
	e.Must(403, "PUT", "/repos/mona/app/actions/cache/retention-limit", other, map[string]any{"max_cache_retention_days": 3})
	limit("/repos/mona/app/actions/cache/storage-limit", f.token, "max_cache_size_gb", 10, "storage")
	e.Must(400, "PUT", "/repos/mona/app/actions/cache/storage-limit", f.token, map[string]any{"max_cache_size_gb": 20})
	e.Must(204, "PUT", "/repos/mona/app/actions/cache/storage-limit", f.token, map[string]any{"max_cache_size_gb": 5})
	limit("/repos/mona/app/actions/cache/usage-policy", f.token, "repo_cache_size_limit_in_gb", 5, "policy")
	e.Must(204, "PATCH", "/repos/mona/app/actions/cache/usage-policy", f.token, map[string]any{"repo_cache_size_limit_in_gb": 1})
	e.Must(422, "PATCH", "/repos/mona/app/actions/cache/usage-policy", f.token, map[string]any{})

	// Eviction: over the 1 GB limit, the least recently used go first.
	seedCache(t, f, repo.GetID(), "big-1", "refs/heads/main", 600<<20)
	seedCache(t, f, repo.GetID(), "big-2", "refs/heads/main", 600<<20)
	if err := f.storage().Evict(ctx, repo.GetID()); err != nil {
		t.Fatal(err)
	}
	caches, _, _ = f.gh.Actions.ListCaches(ctx, "mona", "app", nil)
	if caches.TotalCount != 1 || caches.ActionsCaches[0].GetKey() != "big-2" {
		t.Fatalf("after eviction %+v", caches)
	}

	// Organization: usage and limits.
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "octo", "admin": "mona"})
	lib, _, err := f.gh.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("lib")})
	if err != nil {
		t.Fatal(err)
	}
	seedCache(t, f, lib.GetID(), "x", "refs/heads/main", 50)
	total, _, err := f.gh.Actions.GetTotalCacheUsageForOrg(ctx, "octo")
	if err != nil || total.TotalActiveCachesCount != 1 || total.TotalActiveCachesUsageSizeInBytes != 50 {
		t.Fatalf("org usage %+v %v", total, err)
	}
	byRepo, _, err := f.gh.Actions.ListCacheUsageByRepoForOrg(ctx, "octo", nil)
	if err != nil || byRepo.TotalCount != 1 || byRepo.RepoCacheUsage[0].FullName != "octo/lib" {
		t.Fatalf("org usage by repo %+v %v", byRepo, err)
	}
	if _, _, err := gh2.Actions.GetTotalCacheUsageForOrg(ctx, "octo"); err == nil {
		t.Errorf("a non-member read the org's usage")
	}
	e.Must(404, "GET", "/orgs/nope/actions/cache/usage", f.token, nil)
	limit("/organizations/octo/actions/cache/retention-limit", f.token, "max_cache_retention_days", 90, "org retention")
	e.Must(204, "PUT", "/organizations/octo/actions/cache/retention-limit", f.token, map[string]any{"max_cache_retention_days": 14})
	e.Must(400, "PUT", "/organizations/octo/actions/cache/retention-limit", f.token, map[string]any{"max_cache_retention_days": 100})
	e.Must(400, "PUT", "/repos/octo/lib/actions/cache/retention-limit", f.token, map[string]any{"max_cache_retention_days": 20})
	limit("/organizations/octo/actions/cache/storage-limit", f.token, "max_cache_size_gb", 10, "org storage")
	e.Must(204, "PUT", "/organizations/octo/actions/cache/storage-limit", f.token, map[string]any{"max_cache_size_gb": 2})
	limit("/repos/octo/lib/actions/cache/storage-limit", f.token, "max_cache_size_gb", 2, "repo storage within the org's")
	e.Must(403, "PUT", "/organizations/octo/actions/cache/storage-limit", other, map[string]any{"max_cache_size_gb": 2})

	// The enterprise (site administrators).
	ent, _, err := e.GitHub(e.AdminToken).Actions.GetTotalCacheUsageForEnterprise(ctx, "hubd")
	if err != nil || ent.TotalActiveCachesCount != 2 {
		t.Fatalf("enterprise usage %+v %v", ent, err)
	}
	e.Must(403, "GET", "/enterprises/hubd/actions/cache/usage", f.token, nil)
	e.Must(404, "GET", "/enterprises/other/actions/cache/usage", e.AdminToken, nil)
	limit("/enterprises/hubd/actions/cache/retention-limit", e.AdminToken, "max_cache_retention_days", 90, "enterprise retention")
	e.Must(204, "PUT", "/enterprises/hubd/actions/cache/retention-limit", e.AdminToken, map[string]any{"max_cache_retention_days": 120})
	e.Must(204, "PUT", "/enterprises/hubd/actions/cache/storage-limit", e.AdminToken, map[string]any{"max_cache_size_gb": 50})
	limit("/enterprises/hubd/actions/cache/storage-limit", e.AdminToken, "max_cache_size_gb", 50, "enterprise storage")
	e.Must(204, "PATCH", "/enterprises/hubd/actions/cache/usage-policy", e.AdminToken, map[string]any{"repo_cache_size_limit_in_gb": 20})
	e.Must(200, "GET", "/enterprises/hubd/actions/cache/usage-policy", e.AdminToken, nil).JSON(t, &lim)
	if lim["repo_cache_size_limit_in_gb"] != 20 || lim["max_repo_cache_size_limit_in_gb"] != 50 {
		t.Errorf("enterprise policy %v", lim)
	}
	e.Must(400, "PATCH", "/enterprises/hubd/actions/cache/usage-policy", e.AdminToken, map[string]any{"repo_cache_size_limit_in_gb": 60})
	e.Must(403, "PUT", "/enterprises/hubd/actions/cache/storage-limit", f.token, map[string]any{"max_cache_size_gb": 5})
	// The repository of an organization without limits of its own takes
	// the enterprise's default.
	limit("/repos/mona/app/actions/cache/storage-limit", f.token, "max_cache_size_gb", 1, "repo storage")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
