package web

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/model"
)

// The live views: while a pull request is open or a workflow run runs,
// its page (with live.js) polls one of these small JSON documents of the
// web transport and redraws its checks or jobs, following the log of
// what is in progress. They read what the pages read (the same store
// reads and the actions service's job log), write nothing, and answer
// 404 where the page would.

// liveCheck is one check of a pull request's head as live.js draws it.
type liveCheck struct {
	Name  string `json:"name"`
	State string `json:"state"`
	Href  string `json:"href,omitempty"`
	Log   string `json:"log,omitempty"` // the raw log of a workflow job in progress
}

type liveChecks struct {
	Open    bool        `json:"open"`
	Summary string      `json:"summary"`
	Checks  []liveCheck `json:"checks"`
}

// pullChecksJSON is /{owner}/{repo}/pull/{n}/checks: the head commit's
// check runs and statuses with the merge box's summary.
func (x *req) pullChecksJSON() bool {
	p, err := x.h.d.Store.R().PullByNumber(x.r.Context(), x.repo.ID, x.pg.number)
	if errors.Is(err, model.ErrNotFound) {
		return x.notFound()
	}
	if err != nil {
		return x.fail(err)
	}
	list, err := x.headChecks(p.HeadSHA)
	if err != nil {
		return x.fail(err)
	}
	out := liveChecks{Open: p.Issue.State == "open", Summary: summarize(list), Checks: []liveCheck{}}
	for _, c := range list {
		out.Checks = append(out.Checks, liveCheck{Name: c.Name, State: c.State, Href: c.Href, Log: c.Log})
	}
	return x.json(out)
}

type liveJob struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion,omitempty"`
	Href       string `json:"href"`
	Log        string `json:"log,omitempty"` // while the job runs
}

type liveRun struct {
	Status     string    `json:"status"`
	Conclusion string    `json:"conclusion,omitempty"`
	Jobs       []liveJob `json:"jobs"`
}

// runJobsJSON is /{owner}/{repo}/actions/runs/{id}/jobs: the run's
// status and its current attempt's jobs.
func (x *req) runJobsJSON(id int64) bool {
	run, ok := x.loadRun(id)
	if run == nil {
		return ok
	}
	jobs, _, err := x.h.d.Store.R().RunJobs(x.r.Context(), run.ID, run.RunAttempt, 1000, 0)
	if err != nil {
		return x.fail(err)
	}
	href := x.base + "/actions/runs/" + strconv.FormatInt(run.ID, 10)
	out := liveRun{Status: run.Status, Jobs: []liveJob{}}
	if run.Conclusion != nil {
		out.Conclusion = *run.Conclusion
	}
	for _, j := range jobs {
		lj := liveJob{ID: j.ID, Name: j.Name, Status: j.Status, Href: href + "/job/" + strconv.FormatInt(j.ID, 10)}
		if j.Conclusion != nil {
			lj.Conclusion = *j.Conclusion
		}
		if j.Status == "in_progress" {
			lj.Log = lj.Href + "/logs"
		}
		out.Jobs = append(out.Jobs, lj)
	}
	return x.json(out)
}

// jobLogHref is the raw log of the workflow job a check run's details
// URL names in this repository ("" for any other check run).
func (x *req) jobLogHref(details *string) string {
	if details == nil {
		return ""
	}
	p, ok := strings.CutPrefix(*details, x.h.d.URLs.Web+x.base+"/actions/runs/")
	if !ok || !strings.Contains(p, "/job/") {
		return ""
	}
	return x.base + "/actions/runs/" + p + "/logs"
}

// json writes a live document: never cached, only for this site's
// scripts.
func (x *req) json(v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return x.fail(err)
	}
	h := x.w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	x.w.WriteHeader(http.StatusOK)
	if x.r.Method != http.MethodHead {
		x.w.Write(b)
	}
	return true
}

// scripted is a view whose page loads live.js (and so gets a CSP that
// allows this site's script and requests).
type scripted interface{ script() bool }

func (v jobView) script() bool   { return v.Live }
func (v runView) script() bool   { return v.Live }
func (v *pullView) script() bool { return v.Live }
