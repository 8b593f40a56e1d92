package actions_test

import (
	"archive/zip"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
	"github.com/hubd/hubd/internal/apitest"
)

// v3Workflow uploads two files with @actions/artifact 1.x (the client of
// upload-artifact@v3, GitHub Enterprise Server's) and downloads them in a
// second job with it; GITHUB_SERVER_URL stays hubd's. The second job then
// finds the artifact through the 2.x client too.
const v3Workflow = `name: Store v3
on: push
env:
  NODE_PATH: %NODE_PATH%
jobs:
  up:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: node .github/up3.js
  down:
    needs: up
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: node .github/down3.js
`

const up3Script = `const fs = require('fs');
const artifact = require('actions-artifact-v1');
(async () => {
  fs.mkdirSync('out/sub', {recursive: true});
  fs.writeFileSync('out/a.txt', 'plain file of run ' + process.env.GITHUB_RUN_NUMBER);
  fs.writeFileSync('out/sub/b.txt', 'gzipped '.repeat(12000));
  const up = await artifact.create().uploadArtifact('bundle3', ['out/a.txt', 'out/sub/b.txt'], 'out', {retentionDays: 3, continueOnError: false});
  console.log('uploaded ' + up.artifactItems.length + ' files, ' + up.size + ' bytes, ' + up.failedItems.length + ' failed');
  // The protocol's refusals, straight over HTTP.
  const base = process.env.ACTIONS_RUNTIME_URL + '_apis/pipelines/workflows/';
  const auth = {Authorization: 'Bearer ' + process.env.ACTIONS_RUNTIME_TOKEN, 'Content-Type': 'application/json'};
  const call = async (url, init) => (await fetch(url, init)).status;
  const runURL = base + process.env.GITHUB_RUN_ID + '/artifacts?api-version=6.0-preview';
  const list = await (await fetch(runURL, {headers: auth})).json();
  const container = list.value[0].fileContainerResourceUrl;
  const made = await (await fetch(runURL, {method: 'POST', headers: auth, body: JSON.stringify({Type: 'actions_storage', Name: 'other'})})).json();
  const codes = [
    await call(runURL, {headers: {}}),
    await call(base + '999999/artifacts?api-version=6.0-preview', {headers: auth}),
    await call(runURL, {method: 'POST', headers: auth, body: JSON.stringify({Type: 'actions_storage', Name: 'bundle3'})}),
    await call(runURL, {method: 'POST', headers: auth, body: JSON.stringify({Type: 'actions_storage', Name: 'bad/name'})}),
    await call(runURL, {method: 'POST', headers: auth, body: '{'}),
    await call(container + '?itemPath=bundle3/c.txt', {method: 'PUT', headers: {...auth, 'Content-Range': 'bytes 0-1/2'}, body: 'hi'}),
    await call(made.fileContainerResourceUrl + '?itemPath=other/../../x', {method: 'PUT', headers: {...auth, 'Content-Range': 'bytes 0-1/2'}, body: 'hi'}),
    await call(made.fileContainerResourceUrl + '?itemPath=other/x', {method: 'PUT', headers: {...auth, 'Content-Range': 'bytes 4-5/6'}, body: 'hi'}),
    await call(made.fileContainerResourceUrl + '?itemPath=other/x', {method: 'PUT', headers: {...auth, 'Content-Range': 'bytes 0-1/4'}, body: 'hi'}),
    await call(made.fileContainerResourceUrl + '?itemPath=other', {headers: auth}),
    await call(container + '?itemPath=bundle3/nope.txt', {headers: auth}),
    await call(runURL + '&artifactName=nope', {method: 'PATCH', headers: auth, body: '{"Size": 1}'}),
  ];
  console.log('codes ' + codes.join(','));
})().catch(e => { console.error(e); process.exit(1); });
`

const down3Script = `const fs = require('fs');
const artifact = require('actions-artifact-v1');
(async () => {
  const got = await artifact.create().downloadArtifact('bundle3', 'got');
  console.log('downloaded ' + got.artifactName + ': ' + fs.readFileSync('got/a.txt', 'utf8') + ' / ' + fs.readFileSync('got/sub/b.txt', 'utf8').length);
  const all = await artifact.create().downloadAllArtifacts('all');
  console.log('all: ' + all.map(a => a.artifactName).join(',') + ' ' + fs.readFileSync('all/bundle3/sub/b.txt', 'utf8').slice(0, 8));
  process.env.GITHUB_SERVER_URL = 'http://hubd.localhost'; // the 2.x client's host check only
  const {DefaultArtifactClient} = require('@actions/artifact');
  const {artifact: a4} = await new DefaultArtifactClient().getArtifact('bundle3');
  console.log('v4 client sees ' + a4.name + ' ' + a4.id);
})().catch(e => { console.error(e); process.exit(1); });
`

// An artifact round-trips through @actions/artifact 1.x: one job uploads
// two files (one plain, one gzipped), another downloads them; the REST
// API lists the artifact and serves a zip holding both.
func TestArtifactsV3EndToEnd(t *testing.T) {
	nm := nodeModules(t)
	f := newFixture(t, apitest.Options{ActionsSandbox: "none"})
	head := f.push(t, "add store v3", map[string]string{
		".github/workflows/store3.yml": strings.ReplaceAll(v3Workflow, "%NODE_PATH%", nm),
		".github/up3.js":               up3Script,
		".github/down3.js":             down3Script,
	})
	run, up, down := f.upDownRun(t, head)
	// anonymous 401, another run 403, a name taken 409, a bad name 400,
	// bad JSON 400, a finalized upload 409, a path out of the artifact
	// 400, a chunk past what arrived 400, a chunk in order 201, an
	// unfinished artifact's items 404, a missing file 404, finalizing an
	// unknown name 404.
	if !strings.Contains(up, "uploaded 2 files") || !strings.Contains(up, " 0 failed") ||
		!strings.Contains(up, "codes 401,403,409,400,400,409,400,400,201,404,404,404") {
		t.Errorf("up:\n%s", up)
	}
	if !strings.Contains(down, "downloaded bundle3: plain file of run 1 / 96000") || !strings.Contains(down, "all: bundle3 gzipped ") ||
		!strings.Contains(down, "v4 client sees bundle3 ") {
		t.Errorf("down:\n%s", down)
	}

	list, _, err := f.gh.Actions.ListWorkflowRunArtifacts(ctx, "mona", "app", run.GetID(), nil)
	if err != nil || list.GetTotalCount() != 1 {
		t.Fatalf("run artifacts %+v %v", list, err)
	}
	art := list.Artifacts[0]
	if art.GetName() != "bundle3" || art.GetSizeInBytes() == 0 || art.GetWorkflowRun().GetHeadSHA() != head ||
		art.GetExpiresAt().Sub(time.Now()) > 3*24*time.Hour+time.Minute || art.GetExpiresAt().Sub(time.Now()) < 2*24*time.Hour {
		t.Errorf("artifact %+v", art)
	}
	u, _, err := f.gh.Actions.DownloadArtifact(ctx, "mona", "app", art.GetID(), 0)
	if err != nil {
		t.Fatal(err)
	}
	files := zipFiles(t, u.String())
	if len(files) != 2 {
		t.Fatalf("zip files %d", len(files))
	}
	if files["a.txt"] != "plain file of run 1" || files["sub/b.txt"] != strings.Repeat("gzipped ", 12000) {
		t.Errorf("zip files %q", func() []string {
			var names []string
			for n, c := range files {
				names = append(names, n+"="+c[:min(len(c), 20)])
			}
			return names
		}())
	}
}

// upDownRun waits for the run of head whose jobs "up" and then "down"
// must succeed, and answers it with their logs.
func (f *fixture) upDownRun(t *testing.T, head string) (*github.WorkflowRun, string, string) {
	t.Helper()
	run := f.waitRun(t, head, true)
	jobs := f.jobs(t, run.GetID())
	if jobs["up"] == nil || jobs["down"] == nil {
		t.Fatalf("run %s %s, jobs %v", run.GetStatus(), run.GetConclusion(), jobs)
	}
	up, down := f.jobLog(t, jobs["up"].GetID()), ""
	if jobs["down"].GetConclusion() != "skipped" {
		down = f.jobLog(t, jobs["down"].GetID())
	}
	if run.GetConclusion() != "success" {
		t.Fatalf("run %s\nup:\n%s\ndown:\n%s", run.GetConclusion(), up, down)
	}
	return run, up, down
}

// zipFiles fetches a zip from a signed URL (no credentials) and answers
// its files' contents by name.
func zipFiles(t *testing.T, u string) map[string]string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	zb, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	zr, err := zip.NewReader(bytes.NewReader(zb), int64(len(zb)))
	if err != nil {
		t.Fatalf("zip %v %d bytes", err, len(zb))
	}
	files := map[string]string{}
	for _, zf := range zr.File {
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[zf.Name] = string(b)
	}
	return files
}
