package actions_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/apitest"
)

// storeWorkflow uploads an artifact and saves or restores a cache through
// the real @actions/artifact and @actions/cache clients (hubd's own
// node_modules), and downloads the artifact in a second job both through
// the results service and through the REST API.
const storeWorkflow = `name: Store
on: push
permissions:
  actions: read
  contents: read
env:
  NODE_PATH: %NODE_PATH%
jobs:
  up:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: node .github/up.js
  down:
    needs: up
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: node .github/down.js
        env:
          GH_TOKEN: ${{ github.token }}
`

// @actions/artifact 2.x refuses hosts it takes for GitHub Enterprise
// Server (any but github.com, *.ghe.com and *.localhost): the scripts name
// hubd so for that check only; the client talks to ACTIONS_RESULTS_URL.
const upScript = `process.env.GITHUB_SERVER_URL = 'http://hubd.localhost';
const fs = require('fs');
const {DefaultArtifactClient} = require('@actions/artifact');
const cache = require('@actions/cache');
(async () => {
  fs.mkdirSync('out', {recursive: true});
  fs.writeFileSync('out/hello.txt', 'hello artifact of run ' + process.env.GITHUB_RUN_NUMBER);
  const up = await new DefaultArtifactClient().uploadArtifact('bundle', ['out/hello.txt'], 'out', {retentionDays: 5});
  console.log('uploaded artifact ' + up.id + ' of ' + up.size + ' bytes');
  fs.mkdirSync('deps', {recursive: true});
  const hit = await cache.restoreCache(['deps'], 'deps-' + process.env.GITHUB_RUN_NUMBER, ['deps-']);
  if (hit) {
    console.log('cache hit ' + hit + ': ' + fs.readFileSync('deps/data.txt', 'utf8'));
  } else {
    console.log('cache miss');
    fs.writeFileSync('deps/data.txt', 'saved by run ' + process.env.GITHUB_RUN_NUMBER);
    console.log('cache saved ' + await cache.saveCache(['deps'], 'deps-' + process.env.GITHUB_RUN_NUMBER));
  }
})().catch(e => { console.error(e); process.exit(1); });
`

const downScript = `process.env.GITHUB_SERVER_URL = 'http://hubd.localhost';
const fs = require('fs');
const {DefaultArtifactClient} = require('@actions/artifact');
(async () => {
  const c = new DefaultArtifactClient();
  const {artifact} = await c.getArtifact('bundle');
  await c.downloadArtifact(artifact.id, {path: 'got'});
  console.log('downloaded: ' + fs.readFileSync('got/hello.txt', 'utf8'));
  const [owner, repo] = process.env.GITHUB_REPOSITORY.split('/');
  const findBy = {token: process.env.GH_TOKEN, workflowRunId: Number(process.env.GITHUB_RUN_ID), repositoryOwner: owner, repositoryName: repo};
  const list = await c.listArtifacts({findBy});
  await c.downloadArtifact(list.artifacts[0].id, {path: 'rest', findBy});
  console.log('downloaded through the REST API: ' + fs.readFileSync('rest/hello.txt', 'utf8'));
})().catch(e => { console.error(e); process.exit(1); });
`

func nodeModules(t *testing.T) string {
	t.Helper()
	dir, _ := filepath.Abs("../../../node_modules")
	if _, err := os.Stat(filepath.Join(dir, "@actions/artifact")); err != nil {
		t.Fatal("node_modules/@actions/artifact is not installed (scripts/deps.sh installs it)")
	}
	return dir
}

// An artifact and a cache round-trip through the real clients: the
// first run uploads an artifact and misses then saves a cache, its second
// job downloads the artifact; the REST API lists and serves the zip; a
// second run hits the cache.
func TestArtifactsAndCachesEndToEnd(t *testing.T) {
	nm := nodeModules(t)
	// The clients come from the project's node_modules (NODE_PATH), which
	// a sandbox hides when the checkout is under /tmp (the sandbox has
	// its own /tmp): this test is about artifacts, TestSandbox about it.
	f := newFixture(t, apitest.Options{ActionsSandbox: "none"})
	head := f.push(t, "add store", map[string]string{
		".github/workflows/store.yml": strings.ReplaceAll(storeWorkflow, "%NODE_PATH%", nm),
		".github/up.js":               upScript,
		".github/down.js":             downScript,
	})
	run, up, down := f.upDownRun(t, head)
	if !strings.Contains(up, "cache miss") || !strings.Contains(up, "cache saved") {
		t.Errorf("up:\n%s", up)
	}
	if !strings.Contains(down, "downloaded: hello artifact of run 1") || !strings.Contains(down, "downloaded through the REST API: hello artifact of run 1") {
		t.Errorf("down:\n%s", down)
	}

	// The REST API: the run's artifact, its fields and its zip.
	list, _, err := f.gh.Actions.ListWorkflowRunArtifacts(ctx, "mona", "app", run.GetID(), nil)
	if err != nil || list.GetTotalCount() != 1 {
		t.Fatalf("run artifacts %+v %v", list, err)
	}
	art := list.Artifacts[0]
	if art.GetName() != "bundle" || art.GetExpired() || art.GetSizeInBytes() == 0 || art.GetWorkflowRun().GetID() != run.GetID() ||
		art.GetWorkflowRun().GetHeadSHA() != head || !strings.HasSuffix(art.GetArchiveDownloadURL(), "/zip") ||
		art.GetExpiresAt().Sub(time.Now()) > 5*24*time.Hour+time.Minute || art.GetExpiresAt().Sub(time.Now()) < 4*24*time.Hour {
		t.Errorf("artifact %+v", art)
	}
	all, _, err := f.gh.Actions.ListArtifacts(ctx, "mona", "app", &github.ListArtifactsOptions{Name: github.Ptr("bundle")})
	if err != nil || all.GetTotalCount() != 1 || all.Artifacts[0].GetID() != art.GetID() {
		t.Fatalf("repo artifacts %+v %v", all, err)
	}
	got, _, err := f.gh.Actions.GetArtifact(ctx, "mona", "app", art.GetID())
	if err != nil || got.GetName() != "bundle" {
		t.Fatalf("artifact %+v %v", got, err)
	}
	u, _, err := f.gh.Actions.DownloadArtifact(ctx, "mona", "app", art.GetID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	files := zipFiles(t, u.String()) // the signed URL needs no credentials
	if len(files) != 1 || files["hello.txt"] != "hello artifact of run 1" {
		t.Errorf("zip files %q", files)
	}

	// The cache the first run saved, then hit by the second run.
	caches, _, err := f.gh.Actions.ListCaches(ctx, "mona", "app", nil)
	if err != nil || caches.GetTotalCount() != 1 || caches.ActionsCaches[0].GetKey() != "deps-1" || caches.ActionsCaches[0].GetRef() != "refs/heads/main" {
		t.Fatalf("caches %+v %v", caches, err)
	}
	head2 := f.push(t, "again", map[string]string{"x.txt": "2\n"})
	run2 := f.waitRun(t, head2, true)
	up2 := f.jobLog(t, f.jobs(t, run2.GetID())["up"].GetID())
	if run2.GetConclusion() != "success" || !strings.Contains(up2, "cache hit deps-1: saved by run 1") {
		t.Fatalf("second run %s:\n%s", run2.GetConclusion(), up2)
	}
	usage, _, err := f.gh.Actions.GetCacheUsageForRepo(ctx, "mona", "app")
	if err != nil || usage.ActiveCachesCount != 1 || usage.ActiveCachesSizeInBytes == 0 || usage.FullName != "mona/app" {
		t.Fatalf("usage %+v %v", usage, err)
	}

	// Retention: 6 days on, the artifacts (5 days) are gone, the cache
	// (7 days since its last use) is not; 8 days on, it is.
	st := f.e.Deps.JobServices.(interface{ Storage() *actions.Storage }).Storage()
	if _, err := st.Sweep(ctx, time.Now().Add(6*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if all, _, _ := f.gh.Actions.ListArtifacts(ctx, "mona", "app", nil); all.GetTotalCount() != 0 {
		t.Errorf("after 6 days: %d artifacts", all.GetTotalCount())
	}
	if caches, _, _ := f.gh.Actions.ListCaches(ctx, "mona", "app", nil); caches.GetTotalCount() != 1 {
		t.Errorf("after 6 days: %d caches", caches.GetTotalCount())
	}
	if _, err := st.Sweep(ctx, time.Now().Add(8*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if caches, _, _ := f.gh.Actions.ListCaches(ctx, "mona", "app", nil); caches.GetTotalCount() != 0 {
		t.Errorf("after 8 days: %d caches", caches.GetTotalCount())
	}
	if _, _, err := f.gh.Actions.GetArtifact(ctx, "mona", "app", art.GetID()); err == nil {
		t.Errorf("an expired artifact is still there")
	}
}
