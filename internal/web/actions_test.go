package web_test

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// TestMain doubles as `hubd actions-worker`: the runner starts this test
// binary for each workflow job.
func TestMain(m *testing.M) { apitest.MainWithActionsWorker(m) }

const ciYAML = `name: CI
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - name: Greet
        run: echo "hello-from-step <b>"
  broken:
    runs-on: ubuntu-latest
    steps:
      - name: Fail
        run: echo "about to fail"; exit 1
`

type apiRun struct {
	ID         int64  `json:"id"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
	RunAttempt int64  `json:"run_attempt"`
	HTMLURL    string `json:"html_url"`
}

// waitRuns waits until the repository's newest run is completed.
func waitRuns(t *testing.T, e *apitest.Env, tok string, attempt int64) apiRun {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		var list struct {
			Runs []apiRun `json:"workflow_runs"`
		}
		e.Must(200, "GET", "/repos/mona/app/actions/runs", tok, nil).JSON(t, &list)
		if len(list.Runs) > 0 && list.Runs[0].Status == "completed" && list.Runs[0].RunAttempt >= attempt {
			return list.Runs[0]
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the run did not complete")
	return apiRun{}
}

// TestActionsPages: every html_url of a workflow run, its jobs and their
// check runs is a page; the runs list filters; the run page lists jobs
// and steps and re-runs through the actions service for a writer only;
// the job page shows each step's log; private pages 404 to others.
func TestActionsPages(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.New(t, apitest.Options{ActionsWorker: []string{exe}})
	_, monaTok := e.NewUser("mona", false)
	e.NewUser("rita", false)
	e.SetPassword("mona", "correct horse battery")
	e.SetPassword("rita", "correct horse battery")
	e.Must(201, "POST", "/user/repos", monaTok, map[string]any{"name": "app"})
	w := newWork(t)
	w.commit("CI", map[string]string{".github/workflows/ci.yml": ciYAML, "README.md": "hi\n"})
	w.push(e, monaTok, "mona", "app", "main")
	run := waitRuns(t, e, monaTok, 1)
	if run.Conclusion != "failure" {
		t.Fatalf("run: %+v", run)
	}
	rid := strconv.FormatInt(run.ID, 10)

	e.Must(201, "POST", "/repos/mona/app/check-runs", monaTok, map[string]any{"name": "lint", "head_sha": "main",
		"status": "completed", "conclusion": "neutral", "output": map[string]any{"title": "Lint report", "summary": "3 warnings <i>"}})

	// Every html_url of runs, jobs and check runs is a page.
	var urls []string
	for _, p := range []string{"/repos/mona/app/actions/runs", "/repos/mona/app/actions/runs/" + rid,
		"/repos/mona/app/actions/runs/" + rid + "/jobs", "/repos/mona/app/commits/main/check-runs"} {
		r := e.Must(200, "GET", p, monaTok, nil)
		urls = append(urls, htmlURLs(t, r.Body)...)
	}
	kinds := map[string]bool{}
	var jobURL, checkURL string
	for _, u := range urls {
		p := strings.TrimPrefix(u, e.URL)
		if !strings.HasPrefix(p, "/mona/app/") {
			continue // accounts and repositories are TestEveryHTMLURLIsAPage's
		}
		switch {
		case strings.Contains(p, "/job/"):
			kinds["job"], jobURL = true, u
		case strings.Contains(p, "/actions/runs/"):
			kinds["run"] = true
		case strings.HasPrefix(p, "/mona/app/runs/"):
			kinds["check run"], checkURL = true, u
		}
		browse(t, e, u, monaTok)
	}
	for _, k := range []string{"run", "job", "check run"} {
		if !kinds[k] {
			t.Errorf("no html_url of a %s was followed (%v)", k, urls)
		}
	}

	mona, rita := e.Browser(), e.Browser()
	mona.Accept, rita.Accept = htmlAccept, htmlAccept
	mona.SignIn("mona", "correct horse battery")
	rita.SignIn("rita", "correct horse battery")

	// The list and its filters.
	must(t, mona.Get("/mona/app/actions"), 200, "1 workflow run<", "/mona/app/actions/runs/"+rid, "CI #1", `class="on" aria-current="page">Actions`)
	must(t, mona.Get("/mona/app/actions?status=failure&branch=main&event=push"), 200, "1 workflow run<")
	must(t, mona.Get("/mona/app/actions?status=success"), 200, "0 workflow runs", "No workflow runs.")
	must(t, mona.Get("/mona/app/actions?branch=elsewhere"), 200, "0 workflow runs")
	must(t, mona.Get("/mona/app/actions?workflow=ci.yml"), 200, "1 workflow run<")
	must(t, mona.Get("/mona/app/actions?workflow=nope.yml"), 200, "0 workflow runs")

	// The run page: jobs with steps; re-run for mona only.
	runPath := "/mona/app/actions/runs/" + rid
	rp := mona.Get(runPath)
	must(t, rp, 200, "build", "broken", "Greet", "Fail", "failure", "Re-run all jobs", "Re-run failed jobs", "No artifacts.")
	rr := rita.Get(runPath)
	must(t, rr, 200, "build")
	if strings.Contains(rr.Body, "Re-run") {
		t.Fatal("rita may not re-run, yet sees the button")
	}
	if p := rita.Post(runPath+"/rerun", url.Values{}); p.Status != http.StatusForbidden {
		t.Fatalf("rita's re-run without CSRF: %d", p.Status)
	}
	if p := mona.Post(runPath+"/rerun", url.Values{}); p.Status != http.StatusForbidden {
		t.Fatalf("mona's re-run without CSRF: %d", p.Status)
	}
	must(t, mona.Get(runPath+"/rerun"), 404) // a form's address is no page
	// The run page's live document (live.js polls it while the run runs).
	must(t, rita.Get(runPath+"/jobs"), 200, `"status":"completed"`, `"conclusion":"failure"`, `"name":"build"`, `"href":"`+runPath+`/job/`)
	if p := rita.Get(runPath + "/jobs"); strings.Contains(p.Body, `"log"`) {
		t.Fatalf("a completed run's jobs offer a live log: %s", p.Body)
	}
	if strings.Contains(rp.Body, "live.js") {
		t.Fatal("a completed run's page loads the live script")
	}

	// The job page shows each step's log, escaped.
	jp := mona.Get(strings.TrimPrefix(jobURL, e.URL))
	must(t, jp, 200, "Fail", "about to fail")
	var jobs struct {
		Jobs []struct {
			Name    string `json:"name"`
			HTMLURL string `json:"html_url"`
		} `json:"jobs"`
	}
	e.Must(200, "GET", "/repos/mona/app/actions/runs/"+rid+"/jobs", monaTok, nil).JSON(t, &jobs)
	for _, j := range jobs.Jobs {
		if j.Name == "build" {
			must(t, mona.Get(strings.TrimPrefix(j.HTMLURL, e.URL)), 200, "Greet", "hello-from-step &lt;b&gt;")
		}
	}
	raw := mona.Get(strings.TrimPrefix(jobURL, e.URL) + "/logs")
	if raw.Status != 200 || !strings.Contains(raw.Body, "about to fail") {
		t.Fatalf("raw log: %d %.300s", raw.Status, raw.Body)
	}
	must(t, mona.Get(runPath+"/job/999999"), 404)
	must(t, mona.Get(runPath+"/job/999999/logs"), 404)
	must(t, mona.Get("/mona/app/actions/runs/999999"), 404)
	must(t, mona.Get(strings.TrimPrefix(checkURL, e.URL)), 200, "lint", "neutral", "Lint report", "3 warnings &lt;i&gt;")
	must(t, mona.Get("/mona/app/runs/999999"), 404)

	// An artifact the run uploaded (its row and zip as the runtime's
	// upload leaves them) is offered on the run page and downloads with
	// the browser's session.
	zipBytes := []byte("PK\x05\x06" + strings.Repeat("\x00", 18))
	var repo struct {
		ID int64 `json:"id"`
	}
	e.Must(200, "GET", "/repos/mona/app", monaTok, nil).JSON(t, &repo)
	art := &model.Artifact{RepoID: repo.ID, RunID: run.ID, Name: "bundle", HeadSHA: "x", ExpiresAt: time.Now().Add(time.Hour)}
	if err := e.Store.Tx(t.Context(), func(tx store.Q) error {
		if err := tx.CreateArtifact(t.Context(), art); err != nil {
			return err
		}
		return tx.FinalizeArtifact(t.Context(), art.ID, int64(len(zipBytes)), "")
	}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(e.DataDir, "actions-storage", "artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, strconv.FormatInt(art.ID, 10)+".zip"), zipBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	artPath := runPath + "/artifacts/" + strconv.FormatInt(art.ID, 10)
	must(t, mona.Get(runPath), 200, `href="`+artPath+`"`, ">bundle</a>")
	if p := mona.Get(artPath); p.Status != 200 || p.Body != string(zipBytes) {
		t.Fatalf("artifact download: %d %q", p.Status, p.Body)
	}
	must(t, mona.Get(runPath+"/artifacts/999999"), 404)

	// mona re-runs the failed jobs through the form: a second attempt.
	if p := post(t, mona, rp, runPath+"/rerun-failed-jobs"); p.Status != http.StatusSeeOther || strings.Contains(p.Location, "flash=") {
		t.Fatalf("re-run: %d %s", p.Status, p.Location)
	}
	again := waitRuns(t, e, monaTok, 2)
	if again.ID != run.ID || again.RunAttempt != 2 {
		t.Fatalf("after re-run: %+v", again)
	}
	must(t, mona.Get(runPath), 200, "attempt 2")

	// Private: the pages 404 to rita, and to the anonymous.
	e.Must(200, "PATCH", "/repos/mona/app", monaTok, map[string]any{"private": true})
	anon := e.Browser()
	anon.Accept = htmlAccept
	for _, p := range []string{"/mona/app/actions", runPath, runPath + "/jobs", artPath, strings.TrimPrefix(jobURL, e.URL) + "/logs", strings.TrimPrefix(jobURL, e.URL), strings.TrimPrefix(checkURL, e.URL)} {
		must(t, rita.Get(p), 404)
		must(t, anon.Get(p), 404)
		must(t, mona.Get(p), 200)
	}
}

// TestLiveJobAndCancel: while a job runs its page carries the live log
// script (and a CSP that allows only this site's script), its raw log
// says the job's status, and the run page's Cancel button cancels it
// through the actions service.
func TestLiveJobAndCancel(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.New(t, apitest.Options{ActionsWorker: []string{exe}})
	_, monaTok := e.NewUser("mona", false)
	e.SetPassword("mona", "correct horse battery")
	e.Must(201, "POST", "/user/repos", monaTok, map[string]any{"name": "app"})
	w := newWork(t)
	w.commit("Slow", map[string]string{".github/workflows/slow.yml": `on: push
jobs:
  slow:
    runs-on: ubuntu-latest
    steps:
      - run: echo started-slowly; sleep 300
`})
	w.push(e, monaTok, "mona", "app", "main")
	type job struct {
		Status  string `json:"status"`
		HTMLURL string `json:"html_url"`
		RunID   int64  `json:"run_id"`
	}
	var running job
	for deadline := time.Now().Add(90 * time.Second); running.HTMLURL == "" && time.Now().Before(deadline); {
		var runs struct {
			Runs []apiRun `json:"workflow_runs"`
		}
		e.Must(200, "GET", "/repos/mona/app/actions/runs", monaTok, nil).JSON(t, &runs)
		if len(runs.Runs) > 0 {
			var jobs struct {
				Jobs []job `json:"jobs"`
			}
			e.Must(200, "GET", "/repos/mona/app/actions/runs/"+strconv.FormatInt(runs.Runs[0].ID, 10)+"/jobs", monaTok, nil).JSON(t, &jobs)
			if len(jobs.Jobs) > 0 && jobs.Jobs[0].Status == "in_progress" {
				running = jobs.Jobs[0]
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if running.HTMLURL == "" {
		t.Fatal("the job never ran")
	}
	mona := e.Browser()
	mona.Accept = htmlAccept
	mona.SignIn("mona", "correct horse battery")
	jobPath := strings.TrimPrefix(running.HTMLURL, e.URL)
	resp, err := http.Get(running.HTMLURL) // public: anyone may watch
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if c := resp.Header.Get("Content-Security-Policy"); !strings.Contains(c, "script-src 'self'") || !strings.Contains(c, "connect-src 'self'") {
		t.Fatalf("live job page CSP: %q", c)
	}
	must(t, mona.Get(jobPath), 200, `id="live-log"`, `data-src="`+jobPath+`/logs"`, `<script src="/-/live.js" defer></script>`)
	js, err := http.Get(e.URL + "/-/live.js")
	if err != nil {
		t.Fatal(err)
	}
	jsBody, _ := io.ReadAll(js.Body)
	js.Body.Close()
	if js.StatusCode != 200 || js.Header.Get("Content-Type") != "text/javascript; charset=utf-8" || !strings.Contains(string(jsBody), "X-Job-Status") {
		t.Fatalf("live.js: %d %s", js.StatusCode, js.Header.Get("Content-Type"))
	}
	raw, err := http.Get(running.HTMLURL + "/logs")
	if err != nil {
		t.Fatal(err)
	}
	raw.Body.Close()
	if raw.StatusCode != 200 || raw.Header.Get("X-Job-Status") != "in_progress" {
		t.Fatalf("raw log while running: %d %q", raw.StatusCode, raw.Header.Get("X-Job-Status"))
	}

	runPath := "/mona/app/actions/runs/" + strconv.FormatInt(running.RunID, 10)
	rp := mona.Get(runPath)
	must(t, rp, 200, "Cancel workflow")
	if p := post(t, mona, rp, runPath+"/cancel"); p.Status != http.StatusSeeOther || strings.Contains(p.Location, "flash=") {
		t.Fatalf("cancel: %d %s", p.Status, p.Location)
	}
	done := waitRuns(t, e, monaTok, 1)
	if done.Conclusion != "cancelled" {
		t.Fatalf("after cancel: %+v", done)
	}
	page := mona.Get(jobPath)
	must(t, page, 200, "cancelled")
	if strings.Contains(page.Body, "live.js") {
		t.Fatal("a finished job's page still loads the live script")
	}
}
