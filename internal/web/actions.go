package web

import (
	_ "embed"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// runsPerPage is the length of a page of /actions.
const runsPerPage = 25

type runsView struct {
	Head
	Runs                            []*model.WorkflowRun
	Workflows                       []*model.Workflow
	Workflow, Branch, Event, Status string
	Total                           int
	Statuses                        []string
	Prev, Next                      string
}

// actionsPage serves /actions and the pages under it: runs/{id} and
// runs/{id}/job/{job}.
func (x *req) actionsPage() bool {
	switch len(x.pg.rest) {
	case 0:
		return x.runList()
	case 5:
		if x.pg.rest[0] == "runs" && x.pg.rest[2] == "job" && x.pg.rest[4] == "logs" {
			rid, ok1 := posID(x.pg.rest[1])
			jid, ok2 := posID(x.pg.rest[3])
			if ok1 && ok2 {
				return x.jobRawLog(rid, jid)
			}
		}
	case 3:
		if x.pg.rest[0] == "runs" && x.pg.rest[2] == "jobs" {
			if id, ok := posID(x.pg.rest[1]); ok {
				return x.runJobsJSON(id)
			}
		}
	case 2:
		if x.pg.rest[0] == "runs" {
			if id, ok := posID(x.pg.rest[1]); ok {
				return x.runPage(id)
			}
		}
	case 4:
		if x.pg.rest[0] == "runs" && x.pg.rest[2] == "artifacts" {
			rid, ok1 := posID(x.pg.rest[1])
			aid, ok2 := posID(x.pg.rest[3])
			if ok1 && ok2 {
				return x.artifactZip(rid, aid)
			}
		}
		if x.pg.rest[0] == "runs" && x.pg.rest[2] == "job" {
			rid, ok1 := posID(x.pg.rest[1])
			jid, ok2 := posID(x.pg.rest[3])
			if ok1 && ok2 {
				return x.jobPage(rid, jid)
			}
		}
	}
	return x.notFound()
}

func posID(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

// runList is the runs of the repository, newest first, filtered by
// workflow (its file name or id), branch, event and status as REST's
// list filters them.
func (x *req) runList() bool {
	ctx := x.r.Context()
	st := x.h.d.Store.R()
	v := runsView{Head: x.head("actions"), Workflow: x.query("workflow"), Branch: x.query("branch"), Event: x.query("event"), Status: x.query("status"),
		Statuses: []string{"queued", "in_progress", "completed", "success", "failure", "cancelled", "skipped"}}
	wfs, _, err := st.Workflows(ctx, x.repo.ID, 100, 0)
	if err != nil {
		return x.fail(err)
	}
	v.Workflows = wfs
	f := store.RunFilter{RepoID: x.repo.ID, Branch: v.Branch, Event: v.Event, Status: v.Status}
	if v.Workflow != "" {
		f.WorkflowID = -1
		for _, w := range wfs {
			if v.Workflow == strconv.FormatInt(w.ID, 10) || v.Workflow == w.Path || v.Workflow == baseName(w.Path) {
				f.WorkflowID = w.ID
			}
		}
	}
	n := pageNumber(x.r)
	if f.WorkflowID >= 0 {
		if v.Runs, v.Total, err = st.Runs(ctx, f, runsPerPage, (n-1)*runsPerPage); err != nil {
			return x.fail(err)
		}
	}
	q := url.Values{}
	for k, s := range map[string]string{"workflow": v.Workflow, "branch": v.Branch, "event": v.Event, "status": v.Status} {
		if s != "" {
			q.Set(k, s)
		}
	}
	qs := q.Encode()
	if qs != "" {
		qs += "&"
	}
	v.Prev, v.Next = pager(x.r.URL.EscapedPath(), qs, n, v.Total, runsPerPage)
	return x.ok("Actions · "+x.repo.FullName(), "actions", v)
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}

type runView struct {
	Head
	Run          *model.WorkflowRun
	Actor        *model.Account
	Jobs         []*model.WorkflowJob
	Artifacts    []wire.Artifact
	Href         string
	CanAct, Live bool
	CSRF, Flash  string
}

// loadRun finds a run of the repository.
func (x *req) loadRun(id int64) (*model.WorkflowRun, bool) {
	run, err := x.h.d.Store.R().Run(x.r.Context(), x.repo.ID, id)
	if errors.Is(err, model.ErrNotFound) {
		return nil, x.notFound()
	}
	if err != nil {
		return nil, x.fail(err)
	}
	return run, true
}

// runPage is a run's html_url: its jobs with their steps, its artifacts,
// and re-run and cancel for those who may write.
func (x *req) runPage(id int64) bool {
	run, ok := x.loadRun(id)
	if run == nil {
		return ok
	}
	ctx := x.r.Context()
	st := x.h.d.Store.R()
	v := runView{Head: x.head("actions"), Run: run, Href: x.base + "/actions/runs/" + strconv.FormatInt(run.ID, 10), Flash: x.query("flash")}
	jobs, _, err := st.RunJobs(ctx, run.ID, run.RunAttempt, 1000, 0)
	if err != nil {
		return x.fail(err)
	}
	v.Jobs = jobs
	arts, _, err := st.Artifacts(ctx, store.ArtifactFilter{RepoID: x.repo.ID, RunID: run.ID}, 100, 0)
	if err != nil {
		return x.fail(err)
	}
	now := time.Now()
	for _, a := range arts {
		wa := x.h.d.URLs.ToArtifact(x.repo, a, now)
		// A browser downloads through the page, with its session (the
		// API's archive_download_url wants a token).
		wa.ArchiveDownloadURL = v.Href + "/artifacts/" + strconv.FormatInt(a.ID, 10)
		v.Artifacts = append(v.Artifacts, wa)
	}
	accs, err := st.AccountsByID(ctx, []int64{run.ActorID})
	if err != nil {
		return x.fail(err)
	}
	v.Actor = accs[run.ActorID]
	v.Live = run.Status != "completed"
	if x.h.svc.Actions != nil && x.perm >= authz.Write && x.caller().UserID() != 0 {
		v.CanAct, v.CSRF = true, x.csrf()
	}
	if v.Live {
		x.w.Header().Set("Refresh", "30") // follow the run without a script: live.js follows it with one
	}
	return x.ok(runTitle(run)+" · "+x.repo.FullName(), "run", v)
}

func runTitle(run *model.WorkflowRun) string {
	if run.DisplayTitle != "" {
		return run.DisplayTitle
	}
	return run.Name
}

type stepView struct {
	model.WorkflowStep
	Log string
}

type jobView struct {
	Head
	Run     *model.WorkflowRun
	Job     *model.WorkflowJob
	Steps   []stepView
	Log     string // the whole log when it splits into no step
	RunHref string
	RawHref string
	Live    bool
}

// jobPage is a job's html_url: each step with its log, from the same
// service REST's job logs read. While the job runs the page refreshes
// itself (no script: the CSP allows none inline).
func (x *req) jobPage(runID, jobID int64) bool {
	ctx := x.r.Context()
	j, err := x.h.d.Store.R().Job(ctx, x.repo.ID, jobID)
	if errors.Is(err, model.ErrNotFound) || (err == nil && j.RunID != runID) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	run, ok := x.loadRun(runID)
	if run == nil {
		return ok
	}
	v := jobView{RawHref: x.base + "/actions/runs/" + strconv.FormatInt(run.ID, 10) + "/job/" + strconv.FormatInt(j.ID, 10) + "/logs", Head: x.head("actions"), Run: run, Job: j, RunHref: x.base + "/actions/runs/" + strconv.FormatInt(run.ID, 10), Live: j.Status != "completed"}
	if x.h.svc.Actions != nil {
		text, err := x.h.svc.Actions.JobLog(ctx, j)
		if err == nil {
			logs := actions.SplitStepLogs(text, j.Steps)
			byNum := map[int]string{}
			for _, l := range logs {
				byNum[l.Number] = l.Text
			}
			if len(logs) == 0 {
				v.Log = text
			}
			for _, s := range j.Steps {
				v.Steps = append(v.Steps, stepView{WorkflowStep: s, Log: byNum[s.Number]})
			}
		}
	}
	if v.Steps == nil {
		for _, s := range j.Steps {
			v.Steps = append(v.Steps, stepView{WorkflowStep: s})
		}
	}
	if v.Live {
		x.w.Header().Set("Refresh", "30") // without a script: the live log is live.js's
	}
	return x.ok(j.Name+" · "+runTitle(run)+" · "+x.repo.FullName(), "job", v)
}

// runForm runs the re-run and cancel buttons through the actions
// service, with the write permission REST's routes need.
func (x *req) runForm() bool {
	if x.h.svc.Actions == nil || len(x.pg.rest) != 3 || x.pg.rest[0] != "runs" {
		return x.notFound()
	}
	id, ok := posID(x.pg.rest[1])
	if !ok {
		return x.notFound()
	}
	run, ok := x.loadRun(id)
	if run == nil {
		return ok
	}
	href := x.base + "/actions/runs/" + strconv.FormatInt(run.ID, 10)
	if x.perm < authz.Write {
		return x.back(href, "You may not run or cancel workflows in this repository.")
	}
	ctx, uid := x.r.Context(), x.caller().UserID()
	switch x.pg.rest[2] {
	case "cancel":
		return x.outcome(href, x.h.svc.Actions.Cancel(ctx, x.repo, uid, run))
	case "rerun":
		return x.outcome(href, x.h.svc.Actions.Rerun(ctx, x.repo, uid, run, false))
	case "rerun-failed-jobs":
		return x.outcome(href, x.h.svc.Actions.Rerun(ctx, x.repo, uid, run, true))
	}
	return x.notFound()
}

type checkRunView struct {
	Head
	Check   *model.CheckRun
	Summary string
	Text    string
	Title   string
}

// checkRunPage is a check run's html_url (/runs/{id}): its status,
// conclusion and output.
func (x *req) checkRunPage() bool {
	id, ok := posID(x.pg.rest[0])
	if !ok {
		return x.notFound()
	}
	c, err := x.h.d.Store.R().CheckRunByID(x.r.Context(), x.repo.ID, id)
	if errors.Is(err, model.ErrNotFound) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	v := checkRunView{Head: x.head("actions"), Check: c}
	if c.OutputTitle != nil {
		v.Title = *c.OutputTitle
	}
	if c.OutputSummary != nil {
		v.Summary = *c.OutputSummary
	}
	if c.OutputText != nil {
		v.Text = *c.OutputText
	}
	return x.ok(c.Name+" · "+x.repo.FullName(), "checkrun", v)
}

// artifactZip serves an artifact of the run to a reader of the
// repository, as the API's signed download URL serves it.
func (x *req) artifactZip(runID, id int64) bool {
	if x.h.svc.Artifacts == nil {
		return x.notFound()
	}
	art, err := x.h.d.Store.R().Artifact(x.r.Context(), x.repo.ID, id)
	if errors.Is(err, model.ErrNotFound) || (err == nil && (art.RunID != runID || !art.Finalized || art.Expired(time.Now()))) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	f, err := os.Open(x.h.svc.Artifacts.ArtifactPath(art.ID))
	if err != nil {
		return x.notFound()
	}
	defer f.Close()
	x.w.Header().Set("Content-Type", "application/zip")
	x.w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": art.Name + ".zip"}))
	http.ServeContent(x.w, x.r, art.Name+".zip", art.UpdatedAt, f)
	return true
}

// jobRawLog is a job's whole log as text ("View raw logs"), as far as it
// has run, from the service REST's job logs read.
func (x *req) jobRawLog(runID, jobID int64) bool {
	if x.h.svc.Actions == nil {
		return x.notFound()
	}
	j, err := x.h.d.Store.R().Job(x.r.Context(), x.repo.ID, jobID)
	if errors.Is(err, model.ErrNotFound) || (err == nil && j.RunID != runID) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	text, err := x.h.svc.Actions.JobLog(x.r.Context(), j)
	if errors.Is(err, model.ErrNotFound) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	h := x.w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(text)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Job-Status", j.Status) // the live log stops polling once completed
	x.w.WriteHeader(http.StatusOK)
	if x.r.Method != http.MethodHead {
		x.w.Write([]byte(text))
	}
	return true
}

//go:embed static/live.js
var liveJS []byte

// serveLiveJS serves the job page's live log script (the only script of
// the pages: the job page's CSP allows it while its job runs).
func serveLiveJS(w http.ResponseWriter, r *http.Request) bool {
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(liveJS)))
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(liveJS)
	}
	return true
}

// liveJSPath is where the live log script is served.
const liveJSPath = "/-/live.js"
