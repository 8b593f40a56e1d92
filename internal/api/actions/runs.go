package actions

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

// run finds the {run_id} of a repository the caller may access at need.
func (a *API) run(r *http.Request, need authz.Permission) (*model.Repo, *model.WorkflowRun, error) {
	repo, _, err := a.d.Repo(r, need)
	if err != nil {
		return nil, nil, err
	}
	rid, err := id(r, "run_id")
	if err != nil {
		return nil, nil, err
	}
	run, err := a.d.Store.R().Run(r.Context(), repo.ID, rid)
	return repo, run, err
}

// renderRuns converts runs with their actors and head commits loaded in
// one batch each.
func (a *API) renderRuns(r *http.Request, repo *model.Repo, list []*model.WorkflowRun) ([]wire.WorkflowRun, error) {
	ids := make([]int64, 0, 2*len(list))
	shas := make([]string, 0, len(list))
	for _, run := range list {
		ids = append(ids, run.ActorID, run.TriggeringActorID)
		shas = append(shas, run.HeadSHA)
	}
	accounts, err := a.d.Store.R().AccountsByID(r.Context(), ids)
	if err != nil {
		return nil, err
	}
	min, err := a.minimal(r, repo)
	if err != nil {
		return nil, err
	}
	commits := a.d.SimpleCommits(r.Context(), repo, shas)
	pulls, err := a.runPulls(r, repo, list)
	if err != nil {
		return nil, err
	}
	out := make([]wire.WorkflowRun, len(list))
	for i, run := range list {
		out[i] = a.d.URLs.ToWorkflowRun(repo, min, run, accounts[run.ActorID], accounts[run.TriggeringActorID], commits[run.HeadSHA])
		if ps := pulls[run.ID]; len(ps) > 0 {
			out[i].PullRequests = ps
		}
	}
	return out, nil
}

// runFilter reads the filters of the run lists.
func (a *API) runFilter(r *http.Request, repo *model.Repo) (store.RunFilter, error) {
	q := r.URL.Query()
	f := store.RunFilter{RepoID: repo.ID, Branch: q.Get("branch"), Event: q.Get("event"), Status: q.Get("status"), HeadSHA: q.Get("head_sha")}
	if login := q.Get("actor"); login != "" {
		acc, err := a.d.Store.R().AccountByLogin(r.Context(), login)
		if err != nil {
			f.ActorID = -1
		} else {
			f.ActorID = acc.ID
		}
	}
	if v := q.Get("check_suite_id"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return f, model.Invalid("", "check_suite_id", "invalid")
		}
		f.CheckSuiteID = n
	}
	if c := q.Get("created"); c != "" {
		from, until, ok := parseCreated(c)
		if !ok {
			return f, model.Invalid("", "created", "invalid")
		}
		f.CreatedFrom, f.CreatedUntil = from, until
	}
	return f, nil
}

// parseCreated reads GitHub's date filter: DATE, >=DATE, <=DATE, >DATE,
// <DATE or DATE..DATE (dates or times).
func parseCreated(s string) (*time.Time, *time.Time, bool) {
	parse := func(v string, end bool) (*time.Time, bool) {
		if v == "*" {
			return nil, true
		}
		for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"} {
			if t, err := time.Parse(layout, v); err == nil {
				if end && layout == "2006-01-02" {
					t = t.Add(24*time.Hour - time.Second)
				}
				return &t, true
			}
		}
		return nil, false
	}
	if a, b, ok := strings.Cut(s, ".."); ok {
		from, ok1 := parse(a, false)
		until, ok2 := parse(b, true)
		return from, until, ok1 && ok2
	}
	for _, op := range []string{">=", "<=", ">", "<"} {
		if v, ok := strings.CutPrefix(s, op); ok {
			t, ok := parse(v, op[0] == '<')
			if !ok || t == nil {
				return nil, nil, false
			}
			if op == ">" {
				n := t.Add(time.Second)
				t = &n
			} else if op == "<" {
				n := t.Add(-time.Second)
				t = &n
			}
			if op[0] == '>' {
				return t, nil, true
			}
			return nil, t, true
		}
	}
	from, ok1 := parse(s, false)
	until, ok2 := parse(s, true)
	return from, until, ok1 && ok2 && from != nil
}

func (a *API) writeRuns(w http.ResponseWriter, r *http.Request, repo *model.Repo, f store.RunFilter) error {
	p := rest.ParsePage(r)
	var list []*model.WorkflowRun
	total := 0
	if f.ActorID >= 0 {
		var err error
		if list, total, err = a.d.Store.R().Runs(r.Context(), f, p.Limit(), p.Offset()); err != nil {
			return err
		}
	}
	runs, err := a.renderRuns(r, repo, list)
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return writeRunList(w, total, runs)
}

// GET /repos/{owner}/{repo}/actions/runs
func (a *API) listRuns(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	f, err := a.runFilter(r, repo)
	if err != nil {
		return err
	}
	return a.writeRuns(w, r, repo, f)
}

// GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs
func (a *API) listWorkflowRuns(w http.ResponseWriter, r *http.Request) error {
	repo, wf, err := a.workflow(r, authz.Read)
	if err != nil {
		return err
	}
	f, err := a.runFilter(r, repo)
	if err != nil {
		return err
	}
	f.WorkflowID = wf.ID
	return a.writeRuns(w, r, repo, f)
}

// GET /repos/{owner}/{repo}/actions/runs/{run_id}
func (a *API) getRun(w http.ResponseWriter, r *http.Request) error {
	repo, run, err := a.run(r, authz.Read)
	if err != nil {
		return err
	}
	return a.writeRun(w, r, repo, run)
}

// writeRun writes one run (or attempt of a run).
func (a *API) writeRun(w http.ResponseWriter, r *http.Request, repo *model.Repo, run *model.WorkflowRun) error {
	out, err := a.renderRuns(r, repo, []*model.WorkflowRun{run})
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out[0])
}

// DELETE /repos/{owner}/{repo}/actions/runs/{run_id}
func (a *API) deleteRun(w http.ResponseWriter, r *http.Request) error {
	repo, run, err := a.run(r, authz.Write)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteRun(r.Context(), repo, rest.Caller(r).UserID(), run); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel
func (a *API) cancel(w http.ResponseWriter, r *http.Request) error {
	repo, run, err := a.run(r, authz.Write)
	if err != nil {
		return err
	}
	if err := a.svc.Cancel(r.Context(), repo, rest.Caller(r).UserID(), run); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusAccepted, struct{}{})
}

func (a *API) rerunAny(w http.ResponseWriter, r *http.Request, failedOnly bool) error {
	repo, run, err := a.run(r, authz.Write)
	if err != nil {
		return err
	}
	if err := rest.Decode(r, &struct {
		EnableDebugLogging bool `json:"enable_debug_logging"`
	}{}); err != nil {
		return err
	}
	if err := a.svc.Rerun(r.Context(), repo, rest.Caller(r).UserID(), run, failedOnly); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, struct{}{})
}

// POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun
func (a *API) rerun(w http.ResponseWriter, r *http.Request) error { return a.rerunAny(w, r, false) }

// POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs
func (a *API) rerunFailed(w http.ResponseWriter, r *http.Request) error {
	return a.rerunAny(w, r, true)
}

// DELETE /repos/{owner}/{repo}/actions/runs/{run_id}/logs
func (a *API) deleteLogs(w http.ResponseWriter, r *http.Request) error {
	repo, run, err := a.run(r, authz.Write)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteLogs(r.Context(), repo, rest.Caller(r).UserID(), run); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /repos/{owner}/{repo}/actions/runs/{run_id}/timing
func (a *API) timing(w http.ResponseWriter, r *http.Request) error {
	_, run, err := a.run(r, authz.Read)
	if err != nil {
		return err
	}
	list, _, err := a.d.Store.R().RunJobs(r.Context(), run.ID, run.RunAttempt, 1<<30, 0)
	if err != nil {
		return err
	}
	type jobRun struct {
		JobID      int64 `json:"job_id"`
		DurationMS int64 `json:"duration_ms"`
	}
	host := struct {
		TotalMS int64    `json:"total_ms"`
		Jobs    int      `json:"jobs"`
		JobRuns []jobRun `json:"job_runs"`
	}{JobRuns: []jobRun{}}
	end := run.RunStartedAt
	for _, j := range list {
		if j.StartedAt == nil || (j.Conclusion != nil && *j.Conclusion == model.ConclusionSkipped) {
			continue // never ran
		}
		until := time.Now()
		if j.CompletedAt != nil {
			until = *j.CompletedAt
		}
		if until.After(end) {
			end = until
		}
		ms := until.Sub(*j.StartedAt).Milliseconds()
		host.TotalMS += ms
		host.Jobs++
		host.JobRuns = append(host.JobRuns, jobRun{j.ID, ms})
	}
	if run.Status != model.ActionsCompleted {
		end = time.Now()
	}
	return rest.JSON(w, http.StatusOK, map[string]any{
		"billable":        map[string]any{"UBUNTU": host},
		"run_duration_ms": end.Sub(run.RunStartedAt).Milliseconds(),
	})
}
