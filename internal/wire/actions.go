package wire

import (
	"net/url"
	"strconv"

	"github.com/hubd/hubd/internal/model"
)

// Workflow is components/schemas/workflow.
type Workflow struct {
	ID        int64   `json:"id"`
	NodeID    string  `json:"node_id"`
	Name      string  `json:"name"`
	Path      string  `json:"path"`
	State     string  `json:"state"`
	CreatedAt string  `json:"created_at"`
	UpdatedAt string  `json:"updated_at"`
	URL       string  `json:"url"`
	HTMLURL   string  `json:"html_url"`
	BadgeURL  string  `json:"badge_url"`
	DeletedAt *string `json:"deleted_at,omitempty"`
}

// ToWorkflow converts a workflow of repository r.
func (u URLs) ToWorkflow(r *model.Repo, w *model.Workflow, defaultBranch string) Workflow {
	out := Workflow{ID: w.ID, NodeID: NodeID("W_", w.ID), Name: w.Name, Path: w.Path, State: w.State,
		CreatedAt: Time(w.CreatedAt), UpdatedAt: Time(w.UpdatedAt),
		URL:      u.RepoAPI(r.Owner.Login, r.Name) + "/actions/workflows/" + strconv.FormatInt(w.ID, 10),
		HTMLURL:  u.RepoHTMLURL(r) + "/blob/" + defaultBranch + "/" + w.Path,
		BadgeURL: u.RepoHTMLURL(r) + "/workflows/" + url.PathEscape(w.Name) + "/badge.svg"}
	if w.State == model.WorkflowDeleted {
		out.DeletedAt = ptr(Time(w.UpdatedAt))
	}
	return out
}

// WorkflowRun is components/schemas/workflow-run.
type WorkflowRun struct {
	ID                 int64             `json:"id"`
	Name               string            `json:"name"`
	NodeID             string            `json:"node_id"`
	CheckSuiteID       int64             `json:"check_suite_id,omitempty"`
	CheckSuiteNodeID   string            `json:"check_suite_node_id,omitempty"`
	HeadBranch         *string           `json:"head_branch"`
	HeadSHA            string            `json:"head_sha"`
	Path               string            `json:"path"`
	RunNumber          int64             `json:"run_number"`
	RunAttempt         int64             `json:"run_attempt"`
	Event              string            `json:"event"`
	Status             string            `json:"status"`
	Conclusion         *string           `json:"conclusion"`
	WorkflowID         int64             `json:"workflow_id"`
	URL                string            `json:"url"`
	HTMLURL            string            `json:"html_url"`
	PullRequests       []any             `json:"pull_requests"`
	CreatedAt          string            `json:"created_at"`
	UpdatedAt          string            `json:"updated_at"`
	Actor              *SimpleUser       `json:"actor,omitempty"`
	TriggeringActor    *SimpleUser       `json:"triggering_actor,omitempty"`
	RunStartedAt       string            `json:"run_started_at"`
	JobsURL            string            `json:"jobs_url"`
	LogsURL            string            `json:"logs_url"`
	CheckSuiteURL      string            `json:"check_suite_url"`
	ArtifactsURL       string            `json:"artifacts_url"`
	CancelURL          string            `json:"cancel_url"`
	RerunURL           string            `json:"rerun_url"`
	PreviousAttemptURL *string           `json:"previous_attempt_url"`
	WorkflowURL        string            `json:"workflow_url"`
	HeadCommit         *SimpleCommit     `json:"head_commit"`
	Repository         MinimalRepository `json:"repository"`
	HeadRepository     MinimalRepository `json:"head_repository"`
	DisplayTitle       string            `json:"display_title"`
}

// RunURL is the API url of a workflow run.
func (u URLs) RunURL(r *model.Repo, id int64) string {
	return u.RepoAPI(r.Owner.Login, r.Name) + "/actions/runs/" + strconv.FormatInt(id, 10)
}

// ToWorkflowRun converts a run; actors and the head commit are loaded by
// the caller (nil actors are left out, as GitHub does for deleted users).
func (u URLs) ToWorkflowRun(r *model.Repo, repo MinimalRepository, run *model.WorkflowRun, actor, triggering *model.Account, head *model.SimpleCommit) WorkflowRun {
	api := u.RunURL(r, run.ID)
	out := WorkflowRun{ID: run.ID, Name: run.Name, NodeID: NodeID("WFR_", run.ID), HeadBranch: run.HeadBranch, HeadSHA: run.HeadSHA,
		Path: run.WorkflowPath, RunNumber: run.RunNumber, RunAttempt: run.RunAttempt, Event: run.Event, Status: run.Status,
		Conclusion: run.Conclusion, WorkflowID: run.WorkflowID, URL: api,
		HTMLURL:      u.RepoHTMLURL(r) + "/actions/runs/" + strconv.FormatInt(run.ID, 10),
		PullRequests: []any{}, CreatedAt: Time(run.CreatedAt), UpdatedAt: Time(run.UpdatedAt), RunStartedAt: Time(run.RunStartedAt),
		JobsURL: api + "/jobs", LogsURL: api + "/logs", ArtifactsURL: api + "/artifacts", CancelURL: api + "/cancel", RerunURL: api + "/rerun",
		WorkflowURL: u.RepoAPI(r.Owner.Login, r.Name) + "/actions/workflows/" + strconv.FormatInt(run.WorkflowID, 10),
		Repository:  repo, HeadRepository: repo, DisplayTitle: run.DisplayTitle}
	if run.CheckSuiteID != 0 {
		out.CheckSuiteID, out.CheckSuiteNodeID = run.CheckSuiteID, NodeID("CS_", run.CheckSuiteID)
		out.CheckSuiteURL = u.CheckSuiteURL(r, run.CheckSuiteID)
	} else {
		out.CheckSuiteURL = u.RepoAPI(r.Owner.Login, r.Name) + "/check-suites/0"
	}
	if run.RunAttempt > 1 {
		out.PreviousAttemptURL = ptr(api + "/attempts/" + strconv.FormatInt(run.RunAttempt-1, 10))
	}
	if actor != nil {
		a := u.ToSimpleUser(actor)
		out.Actor = &a
	}
	if triggering != nil {
		t := u.ToSimpleUser(triggering)
		out.TriggeringActor = &t
	}
	if head != nil {
		c := u.toSimpleCommit(run.HeadSHA, head)
		out.HeadCommit = &c
	}
	return out
}

// WorkflowStep is a step of components/schemas/job.
type WorkflowStep struct {
	Status      string  `json:"status"`
	Conclusion  *string `json:"conclusion"`
	Name        string  `json:"name"`
	Number      int     `json:"number"`
	StartedAt   *string `json:"started_at"`
	CompletedAt *string `json:"completed_at"`
}

// Job is components/schemas/job.
type Job struct {
	ID              int64          `json:"id"`
	RunID           int64          `json:"run_id"`
	RunURL          string         `json:"run_url"`
	RunAttempt      int64          `json:"run_attempt"`
	NodeID          string         `json:"node_id"`
	HeadSHA         string         `json:"head_sha"`
	URL             string         `json:"url"`
	HTMLURL         *string        `json:"html_url"`
	Status          string         `json:"status"`
	Conclusion      *string        `json:"conclusion"`
	CreatedAt       string         `json:"created_at"`
	StartedAt       string         `json:"started_at"`
	CompletedAt     *string        `json:"completed_at"`
	Name            string         `json:"name"`
	Steps           []WorkflowStep `json:"steps"`
	CheckRunURL     string         `json:"check_run_url"`
	Labels          []string       `json:"labels"`
	RunnerID        *int64         `json:"runner_id"`
	RunnerName      *string        `json:"runner_name"`
	RunnerGroupID   *int64         `json:"runner_group_id"`
	RunnerGroupName *string        `json:"runner_group_name"`
	WorkflowName    *string        `json:"workflow_name"`
	HeadBranch      *string        `json:"head_branch"`
}

// ToJob converts a job of a run of workflow workflowName.
func (u URLs) ToJob(r *model.Repo, j *model.WorkflowJob, workflowName string, labels []string) Job {
	started := j.CreatedAt
	if j.StartedAt != nil {
		started = *j.StartedAt
	}
	out := Job{ID: j.ID, RunID: j.RunID, RunURL: u.RunURL(r, j.RunID), RunAttempt: j.RunAttempt, NodeID: NodeID("CR_", j.ID),
		HeadSHA: j.HeadSHA, URL: u.RepoAPI(r.Owner.Login, r.Name) + "/actions/jobs/" + strconv.FormatInt(j.ID, 10),
		HTMLURL: ptr(u.RepoHTMLURL(r) + "/actions/runs/" + strconv.FormatInt(j.RunID, 10) + "/job/" + strconv.FormatInt(j.ID, 10)),
		Status:  j.Status, Conclusion: j.Conclusion, CreatedAt: Time(j.CreatedAt), StartedAt: Time(started),
		CompletedAt: TimePtr(j.CompletedAt), Name: j.Name, Steps: []WorkflowStep{}, Labels: labels,
		RunnerName: j.RunnerName, WorkflowName: &workflowName, HeadBranch: j.HeadBranch}
	if out.Labels == nil {
		out.Labels = []string{}
	}
	if j.CheckRunID != 0 {
		out.CheckRunURL = u.CheckRunURL(r, j.CheckRunID)
	} else {
		out.CheckRunURL = u.RepoAPI(r.Owner.Login, r.Name) + "/check-runs/" + strconv.FormatInt(j.ID, 10)
	}
	if j.RunnerName != nil {
		id, gid, gname := int64(1), int64(1), "Default"
		out.RunnerID, out.RunnerGroupID, out.RunnerGroupName = &id, &gid, &gname
	}
	for _, s := range j.Steps {
		out.Steps = append(out.Steps, WorkflowStep{Status: s.Status, Conclusion: s.Conclusion, Name: s.Name, Number: s.Number,
			StartedAt: TimePtr(s.StartedAt), CompletedAt: TimePtr(s.CompletedAt)})
	}
	return out
}
