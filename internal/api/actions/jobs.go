package actions

import (
	"archive/zip"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs
func (a *API) listJobs(w http.ResponseWriter, r *http.Request) error {
	repo, run, err := a.run(r, authz.Read)
	if err != nil {
		return err
	}
	attempt := run.RunAttempt
	switch r.URL.Query().Get("filter") {
	case "", "latest":
	case "all":
		attempt = 0
	default:
		return model.Invalid("", "filter", "invalid")
	}
	return a.writeJobs(w, r, repo, run, attempt)
}

// writeJobs writes a page of the jobs of a run's attempt (0: all).
func (a *API) writeJobs(w http.ResponseWriter, r *http.Request, repo *model.Repo, run *model.WorkflowRun, attempt int64) error {
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().RunJobs(r.Context(), run.ID, attempt, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := struct {
		TotalCount int        `json:"total_count"`
		Jobs       []wire.Job `json:"jobs"`
	}{TotalCount: total, Jobs: make([]wire.Job, len(list))}
	labels := a.svc.Labels(run)
	for i, j := range list {
		out.Jobs[i] = a.d.URLs.ToJob(repo, j, run.Name, labels[j.Key])
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// job finds the {job_id} of a repository and its run.
func (a *API) job(r *http.Request) (*model.Repo, *model.WorkflowRun, *model.WorkflowJob, error) {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return nil, nil, nil, err
	}
	jid, err := id(r, "job_id")
	if err != nil {
		return nil, nil, nil, err
	}
	j, err := a.d.Store.R().Job(r.Context(), repo.ID, jid)
	if err != nil {
		return nil, nil, nil, err
	}
	run, err := a.d.Store.R().Run(r.Context(), repo.ID, j.RunID)
	return repo, run, j, err
}

// GET /repos/{owner}/{repo}/actions/jobs/{job_id}
func (a *API) getJob(w http.ResponseWriter, r *http.Request) error {
	repo, run, j, err := a.job(r)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToJob(repo, j, run.Name, a.svc.Labels(run)[j.Key]))
}

// GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs: a redirect to a
// download URL that needs no credentials for a few minutes.
func (a *API) jobLogs(w http.ResponseWriter, r *http.Request) error {
	repo, _, j, err := a.job(r)
	if err != nil {
		return err
	}
	if _, err := a.svc.JobLog(r.Context(), j); err != nil {
		return err
	}
	res := "job/" + strconv.FormatInt(j.ID, 10)
	loc := fmt.Sprintf("%s/_actions/%s/%s/jobs/%d/logs?token=%s", a.d.URLs.Web, repo.Owner.Login, repo.Name, j.ID,
		a.sign.Token("actions-log", repo.ID, res, time.Now()))
	http.Redirect(w, r, loc, http.StatusFound)
	return nil
}

// GET /repos/{owner}/{repo}/actions/runs/{run_id}/logs: a redirect to the
// zip of the run's job logs.
func (a *API) runLogs(w http.ResponseWriter, r *http.Request) error {
	repo, run, err := a.run(r, authz.Read)
	if err != nil {
		return err
	}
	res := "run/" + strconv.FormatInt(run.ID, 10)
	loc := fmt.Sprintf("%s/_actions/%s/%s/runs/%d/logs?token=%s", a.d.URLs.Web, repo.Owner.Login, repo.Name, run.ID,
		a.sign.Token("actions-log", repo.ID, res, time.Now()))
	http.Redirect(w, r, loc, http.StatusFound)
	return nil
}

// signedRepo finds the repository of a download URL and checks its token
// (or, without one, the caller's read access).
func (a *API) signedRepo(r *http.Request, resource string) (*model.Repo, error) {
	v, err := a.d.Store.R().RepoByName(r.Context(), r.PathValue("owner"), r.PathValue("repo"), rest.Caller(r).UserID())
	if err != nil {
		return nil, err
	}
	if tok := r.URL.Query().Get("token"); tok != "" && a.sign.Valid(tok, "actions-log", v.Repo.ID, resource, time.Now()) {
		return v.Repo, nil
	}
	repo, _, err := a.d.Repo(r, authz.Read)
	return repo, err
}

// GET /_actions/{owner}/{repo}/jobs/{job_id}/logs
func (a *API) serveJobLog(w http.ResponseWriter, r *http.Request) error {
	jid, err := id(r, "job_id")
	if err != nil {
		return err
	}
	repo, err := a.signedRepo(r, "job/"+strconv.FormatInt(jid, 10))
	if err != nil {
		return err
	}
	j, err := a.d.Store.R().Job(r.Context(), repo.ID, jid)
	if err != nil {
		return err
	}
	text, err := a.svc.JobLog(r.Context(), j)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(text)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write([]byte(text))
	return err
}

// GET /_actions/{owner}/{repo}/runs/{run_id}/logs: a zip holding a text
// file per job of the run's latest attempt, named "<n>_<job name>.txt" as
// GitHub names them, and a folder per job with a file per step.
func (a *API) serveRunLogs(w http.ResponseWriter, r *http.Request) error {
	rid, err := id(r, "run_id")
	if err != nil {
		return err
	}
	repo, err := a.signedRepo(r, "run/"+strconv.FormatInt(rid, 10))
	if err != nil {
		return err
	}
	run, err := a.d.Store.R().Run(r.Context(), repo.ID, rid)
	if err != nil {
		return err
	}
	return a.writeLogsZip(w, r, run, run.RunAttempt)
}

// writeLogsZip writes the zip of the job logs of a run's attempt.
func (a *API) writeLogsZip(w http.ResponseWriter, r *http.Request, run *model.WorkflowRun, attempt int64) error {
	list, _, err := a.d.Store.R().RunJobs(r.Context(), run.ID, attempt, 1<<30, 0)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=logs_%d.zip", run.ID))
	zw := zip.NewWriter(w)
	for i, j := range list {
		text, err := a.svc.JobLog(r.Context(), j)
		if err != nil {
			continue // not run, or its log was deleted
		}
		name := actions.LogName(j.Name)
		if err := zipFile(zw, fmt.Sprintf("%d_%s.txt", i, name), text); err != nil {
			return err
		}
		for _, st := range actions.SplitStepLogs(text, j.Steps) {
			if err := zipFile(zw, name+"/"+actions.StepLogFile(st), st.Text); err != nil {
				return err
			}
		}
	}
	return zw.Close()
}

func zipFile(zw *zip.Writer, name, text string) error {
	f, err := zw.Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write([]byte(text))
	return err
}
