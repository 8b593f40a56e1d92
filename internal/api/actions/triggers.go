package actions

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// Run attempts, one job's rerun, force-cancel, fork approvals, a workflow's
// usage, repository dispatches and concurrency groups.

const (
	noteGroups = "Lists page with page/per_page (the before/after cursors are not supported)."
	noteUsage  = "Every job runs on hubd's own host: the month's job time is reported under UBUNTU (to the second); nothing is billed."
)

// TriggerRoutes are the routes of runs' attempts, approvals and
// concurrency groups and of repository dispatches.
func (a *API) TriggerRoutes() []rest.Route {
	repo := "/repos/{owner}/{repo}/actions"
	rd, wr := []string{"repo"}, []string{"repo"}
	return []rest.Route{
		{Method: "GET", Pattern: repo + "/runs/{run_id}/attempts/{attempt_number}", OperationID: "actions/get-workflow-run-attempt",
			Handler: a.getAttempt, Scopes: rd},
		{Method: "GET", Pattern: repo + "/runs/{run_id}/attempts/{attempt_number}/jobs", OperationID: "actions/list-jobs-for-workflow-run-attempt",
			Handler: a.attemptJobs, Scopes: rd},
		{Method: "GET", Pattern: repo + "/runs/{run_id}/attempts/{attempt_number}/logs", OperationID: "actions/download-workflow-run-attempt-logs",
			Handler: a.attemptLogs, Scopes: rd, Note: noteLogs},
		{Method: "POST", Pattern: repo + "/jobs/{job_id}/rerun", OperationID: "actions/re-run-job-for-workflow-run", Handler: a.rerunJob, Scopes: wr,
			Note: noteRerun},
		{Method: "POST", Pattern: repo + "/runs/{run_id}/force-cancel", OperationID: "actions/force-cancel-workflow-run", Handler: a.forceCancel, Scopes: wr},
		{Method: "POST", Pattern: repo + "/runs/{run_id}/approve", OperationID: "actions/approve-workflow-run", Handler: a.approve, Scopes: wr},
		{Method: "GET", Pattern: repo + "/workflows/{workflow_id}/timing", OperationID: "actions/get-workflow-usage", Handler: a.workflowUsage,
			Scopes: rd, Note: noteUsage},
		{Method: "POST", Pattern: "/repos/{owner}/{repo}/dispatches", OperationID: "repos/create-dispatch-event", Handler: a.repositoryDispatch,
			Scopes: wr},
		{Method: "GET", Pattern: repo + "/concurrency_groups", OperationID: "actions/list-concurrency-groups-for-repository",
			Handler: a.listGroups, Scopes: rd, Note: noteGroups},
		{Method: "GET", Pattern: repo + "/concurrency_groups/{concurrency_group_name}", OperationID: "actions/get-concurrency-group-for-repository",
			Handler: a.getGroup, Scopes: rd, Note: noteGroups},
		{Method: "GET", Pattern: repo + "/runs/{run_id}/concurrency_groups", OperationID: "actions/list-concurrency-groups-for-workflow-run",
			Handler: a.runGroups, Scopes: rd},
		{Method: "GET", Pattern: "/_actions/{owner}/{repo}/runs/{run_id}/attempts/{attempt_number}/logs", OperationID: "hubd/actions-run-attempt-logs",
			Handler: a.serveAttemptLogs, Extension: true, Stream: true, NoRateLimit: true},
	}
}

// attempt finds attempt {attempt_number} of the {run_id}.
func (a *API) attempt(r *http.Request) (*model.Repo, *model.WorkflowRun, error) {
	repo, run, err := a.run(r, authz.Read)
	if err != nil {
		return nil, nil, err
	}
	n, err := id(r, "attempt_number")
	if err != nil {
		return nil, nil, err
	}
	at, err := a.svc.Attempt(r.Context(), run, n)
	return repo, at, err
}

// GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}
func (a *API) getAttempt(w http.ResponseWriter, r *http.Request) error {
	repo, run, err := a.attempt(r)
	if err != nil {
		return err
	}
	return a.writeRun(w, r, repo, run)
}

// GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs
func (a *API) attemptJobs(w http.ResponseWriter, r *http.Request) error {
	repo, run, err := a.attempt(r)
	if err != nil {
		return err
	}
	return a.writeJobs(w, r, repo, run, run.RunAttempt)
}

// GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/logs
func (a *API) attemptLogs(w http.ResponseWriter, r *http.Request) error {
	repo, run, err := a.attempt(r)
	if err != nil {
		return err
	}
	res := fmt.Sprintf("run/%d/%d", run.ID, run.RunAttempt)
	loc := fmt.Sprintf("%s/_actions/%s/%s/runs/%d/attempts/%d/logs?token=%s", a.d.URLs.Web, repo.Owner.Login, repo.Name, run.ID, run.RunAttempt,
		a.sign.Token("actions-log", repo.ID, res, time.Now()))
	http.Redirect(w, r, loc, http.StatusFound)
	return nil
}

// GET /_actions/{owner}/{repo}/runs/{run_id}/attempts/{attempt_number}/logs
func (a *API) serveAttemptLogs(w http.ResponseWriter, r *http.Request) error {
	rid, err := id(r, "run_id")
	if err != nil {
		return err
	}
	n, err := id(r, "attempt_number")
	if err != nil {
		return err
	}
	repo, err := a.signedRepo(r, fmt.Sprintf("run/%d/%d", rid, n))
	if err != nil {
		return err
	}
	run, err := a.d.Store.R().Run(r.Context(), repo.ID, rid)
	if err != nil {
		return err
	}
	if n > run.RunAttempt {
		return model.ErrNotFound
	}
	return a.writeLogsZip(w, r, run, n)
}

// POST /repos/{owner}/{repo}/actions/jobs/{job_id}/rerun
func (a *API) rerunJob(w http.ResponseWriter, r *http.Request) error {
	repo, run, j, err := a.job(r)
	if err != nil {
		return err
	}
	if _, _, err := a.d.Repo(r, authz.Write); err != nil {
		return err
	}
	if err := rest.Decode(r, &struct {
		EnableDebugLogging bool `json:"enable_debug_logging"`
	}{}); err != nil {
		return err
	}
	if err := a.svc.RerunJob(r.Context(), repo, rest.Caller(r).UserID(), run, j); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, struct{}{})
}

// POST /repos/{owner}/{repo}/actions/runs/{run_id}/force-cancel
func (a *API) forceCancel(w http.ResponseWriter, r *http.Request) error {
	repo, run, err := a.run(r, authz.Write)
	if err != nil {
		return err
	}
	if err := a.svc.ForceCancel(r.Context(), repo, rest.Caller(r).UserID(), run); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusAccepted, struct{}{})
}

// POST /repos/{owner}/{repo}/actions/runs/{run_id}/approve
func (a *API) approve(w http.ResponseWriter, r *http.Request) error {
	repo, run, err := a.run(r, authz.Write)
	if err != nil {
		return err
	}
	if err := a.svc.Approve(r.Context(), repo, rest.Caller(r).UserID(), run); err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, struct{}{})
}

// GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/timing
func (a *API) workflowUsage(w http.ResponseWriter, r *http.Request) error {
	_, wf, err := a.workflow(r, authz.Read)
	if err != nil {
		return err
	}
	ms, err := a.svc.WorkflowUsage(r.Context(), wf)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, map[string]any{"billable": map[string]any{"UBUNTU": map[string]any{"total_ms": ms}}})
}

// POST /repos/{owner}/{repo}/dispatches
func (a *API) repositoryDispatch(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Write)
	if err != nil {
		return err
	}
	var in struct {
		EventType     *string        `json:"event_type"`
		ClientPayload map[string]any `json:"client_payload"`
	}
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if in.EventType == nil {
		return model.Invalid("", "event_type", "missing_field")
	}
	if *in.EventType == "" || len(*in.EventType) > 100 {
		return model.Unprocessable("event_type must be between 1 and 100 characters")
	}
	if len(in.ClientPayload) > 10 {
		return model.Unprocessable("client_payload can have at most 10 top-level properties")
	}
	if err := a.svc.RepositoryDispatch(r.Context(), repo, rest.Caller(r).UserID(), *in.EventType, in.ClientPayload); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// groupURL is the API url of a concurrency group.
func (a *API) groupURL(repo *model.Repo, name string) string {
	return a.d.URLs.RepoAPI(repo.Owner.Login, repo.Name) + "/actions/concurrency_groups/" + url.PathEscape(name)
}

// GET /repos/{owner}/{repo}/actions/concurrency_groups
func (a *API) listGroups(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().ConcurrencyGroups(r.Context(), repo.ID, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	type group struct {
		Name         string  `json:"group_name"`
		URL          string  `json:"group_url"`
		LastAcquired *string `json:"last_acquired_at"`
	}
	out := struct {
		TotalCount int     `json:"total_count"`
		Groups     []group `json:"concurrency_groups"`
	}{TotalCount: total, Groups: []group{}}
	for _, g := range list {
		out.Groups = append(out.Groups, group{g.Name, a.groupURL(repo, g.Name), wire.TimePtr(g.LastAcquired)})
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// groupMember is a member of a concurrency group as GitHub shows it.
type groupMember struct {
	RunID       int64   `json:"run_id"`
	RunName     string  `json:"run_name"`
	RunURL      string  `json:"run_url"`
	RunHTMLURL  string  `json:"run_html_url"`
	JobID       *int64  `json:"job_id,omitempty"`
	JobName     *string `json:"job_name,omitempty"`
	JobURL      *string `json:"job_url,omitempty"`
	JobHTMLURL  *string `json:"job_html_url,omitempty"`
	Status      string  `json:"status"`
	Position    *int    `json:"position,omitempty"`
	PositionURL *string `json:"position_url,omitempty"`
}

func (a *API) member(repo *model.Repo, group string, m actions.GroupMember, withPosition bool) groupMember {
	runURL := a.d.URLs.RunURL(repo, m.Run.ID)
	html := a.d.URLs.RepoHTMLURL(repo) + "/actions/runs/" + strconv.FormatInt(m.Run.ID, 10)
	out := groupMember{RunID: m.Run.ID, RunName: m.Run.Name, RunURL: runURL, RunHTMLURL: html, Status: m.Status}
	ahead := "?ahead_of_run=" + strconv.FormatInt(m.Run.ID, 10)
	if m.Job != nil {
		jid, name := m.Job.ID, m.Job.Name
		ju := a.d.URLs.RepoAPI(repo.Owner.Login, repo.Name) + "/actions/jobs/" + strconv.FormatInt(jid, 10)
		jh := html + "/job/" + strconv.FormatInt(jid, 10)
		out.JobID, out.JobName, out.JobURL, out.JobHTMLURL = &jid, &name, &ju, &jh
		ahead = "?ahead_of_job=" + strconv.FormatInt(jid, 10)
	}
	if withPosition {
		pos, pu := m.Position, a.groupURL(repo, group)+ahead
		out.Position, out.PositionURL = &pos, &pu
	}
	return out
}

// GET /repos/{owner}/{repo}/actions/concurrency_groups/{concurrency_group_name}
func (a *API) getGroup(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	name := r.PathValue("concurrency_group_name")
	members, err := a.svc.GroupMembers(r.Context(), repo.ID, name)
	if err != nil {
		return err
	}
	if len(members) == 0 {
		return model.ErrNotFound
	}
	q := r.URL.Query()
	// ahead_of_run / ahead_of_job: the members before that one.
	if v := q.Get("ahead_of_run") + q.Get("ahead_of_job"); v != "" {
		for i, m := range members {
			if (q.Get("ahead_of_job") == "" && m.Job == nil && strconv.FormatInt(m.Run.ID, 10) == v) ||
				(m.Job != nil && strconv.FormatInt(m.Job.ID, 10) == v) {
				members = members[:i]
				break
			}
		}
	}
	p := rest.ParsePage(r)
	total := len(members)
	page := members[min(p.Offset(), total):min(p.Offset()+p.Limit(), total)]
	out := struct {
		Name    string        `json:"group_name"`
		URL     string        `json:"group_url"`
		Total   int           `json:"total_count"`
		Members []groupMember `json:"group_members"`
	}{name, a.groupURL(repo, name), total, []groupMember{}}
	for _, m := range page {
		out.Members = append(out.Members, a.member(repo, name, m, false))
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/actions/runs/{run_id}/concurrency_groups
func (a *API) runGroups(w http.ResponseWriter, r *http.Request) error {
	repo, run, err := a.run(r, authz.Read)
	if err != nil {
		return err
	}
	names, err := a.svc.RunGroups(r.Context(), repo, run)
	if err != nil {
		return err
	}
	type group struct {
		Name    string        `json:"group_name"`
		URL     string        `json:"group_url"`
		Members []groupMember `json:"group_members"`
	}
	out := struct {
		Total  int     `json:"total_count"`
		Groups []group `json:"concurrency_groups"`
	}{len(names), []group{}}
	for _, name := range names {
		members, err := a.svc.GroupMembers(r.Context(), repo.ID, name)
		if err != nil {
			return err
		}
		g := group{name, a.groupURL(repo, name), []groupMember{}}
		for _, m := range members {
			if m.Run.ID == run.ID {
				g.Members = append(g.Members, a.member(repo, name, m, true))
			}
		}
		out.Groups = append(out.Groups, g)
	}
	return rest.JSON(w, http.StatusOK, out)
}

// runPulls are the pull requests of runs (pull-request-minimal), loaded in
// one query; exclude_pull_requests=true leaves them out.
func (a *API) runPulls(r *http.Request, repo *model.Repo, list []*model.WorkflowRun) (map[int64][]any, error) {
	out := map[int64][]any{}
	if r.URL.Query().Get("exclude_pull_requests") == "true" {
		return out, nil
	}
	var numbers []int64
	for _, run := range list {
		numbers = append(numbers, run.PullNumbers...)
	}
	pulls, err := a.d.Store.R().PullsByNumbers(r.Context(), repo.ID, numbers)
	if err != nil || len(pulls) == 0 {
		return out, err
	}
	for _, run := range list {
		var refs []*model.PullRef
		for _, n := range run.PullNumbers {
			p := pulls[n]
			if p == nil {
				continue
			}
			refs = append(refs, &model.PullRef{ID: p.IssueID, Number: p.Number, HeadRef: p.HeadRef, HeadSHA: p.HeadSHA, HeadRepoID: repo.ID,
				HeadRepoOwner: repo.Owner.Login, HeadRepo: repo.Name, BaseRef: p.BaseRef, BaseSHA: p.BaseSHA, BaseRepoID: repo.ID,
				BaseRepoOwner: repo.Owner.Login, BaseRepo: repo.Name})
		}
		for _, m := range a.d.URLs.ToPullRequestMinimals(refs) {
			out[run.ID] = append(out[run.ID], m)
		}
	}
	return out, nil
}
