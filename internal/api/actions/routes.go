// Package actions is the REST adapter of GitHub Actions' workflows,
// workflow runs and workflow jobs: it parses requests, calls the actions
// service (internal/actions) and writes GitHub's shapes.
package actions

import (
	"context"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/actionspolicy"
	"github.com/hubd/hubd/internal/api"
	appsvc "github.com/hubd/hubd/internal/apps"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/checks"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// API is the actions package.
type API struct {
	d    *api.Deps
	svc  *actions.Service
	sign *api.DownloadSigner
	// storage keeps the artifacts and caches of jobs (artifacts*.go, caches*.go).
	storage *actions.Storage
	// policy and issuer: the Actions policies and OIDC (permissions.go, oidc.go).
	policy *actionspolicy.Service
	issuer *actionspolicy.Issuer
}

// New makes the package and its service, hooks pushes to the evaluation
// of their triggers and installs the runner's queue in d (hubd's side of
// the jobs' files is a directory beside gitRoot).
func New(d *api.Deps, checks *checks.Service, gitRoot string) *API {
	a := &API{d: d, svc: actions.New(d.Store, d.Git, d.Jobs), sign: d.Downloads()}
	a.svc.Checks = checks
	a.svc.Exec.Web, a.svc.Exec.API = d.URLs.Web, d.URLs.API
	if gitRoot != "" {
		if abs, err := filepath.Abs(gitRoot); err == nil {
			gitRoot = abs
		}
		a.svc.Exec.Root = filepath.Join(filepath.Dir(gitRoot), "actions")
	}
	d.Runner = a.svc.Runner
	a.storage, d.JobServices = actions.NewStorage(a.svc, storageDir(gitRoot), d.URLs.Web), jobServices{a}
	// Jobs' GITHUB_TOKENs are installation tokens of the GitHub Actions app.
	tokens := &actions.Tokens{Apps: &appsvc.Service{Store: d.Store, Revoked: func() {
		if d.Tokens != nil {
			d.Tokens.Flush()
		}
	}}}
	a.svc.Exec.Token, a.svc.Exec.Revoke, a.svc.Provision = tokens.Mint, tokens.Revoke, tokens.Provision
	a.svc.Exec.SpecHooks = append(a.svc.Exec.SpecHooks, a.svc.EventPayloadHook)
	a.svc.UseOutbox(d.Outbox, d.Git != nil)
	a.wirePolicy()
	d.PushHooks = append(d.PushHooks, func(ctx context.Context, repo *model.Repo, actorID int64, updates []api.RefUpdate) {
		list := make([]actions.PushUpdate, len(updates))
		for i, u := range updates {
			list[i] = actions.PushUpdate{Ref: u.Ref, Old: u.Old, New: u.New}
		}
		_ = a.svc.Pushed(ctx, repo.ID, actorID, list)
	})
	return a
}

// Service is the actions service (the program starts its runner).
func (a *API) Service() *actions.Service { return a.svc }

// Storage is where artifacts are kept (the web serves their zips to
// signed-in readers).
func (a *API) Storage() *actions.Storage { return a.storage }

const (
	noteLogs  = "A running job's log is streamed to disk and these operations return what it has written so far (from the hubd process whose worker runs it), each line timestamped as GitHub's; a log is cut at 16 MiB; the run's zip holds GitHub's layout: a text file per job and a folder per job with one file per step."
	noteRuns  = "referenced_workflows is absent (reusable workflows come later). Jobs run on runners that connect to hubd (hubd runner; nektos/act's host executor in a verified bubblewrap sandbox with per-job limits, as an unprivileged user) without containers: Docker container actions, docker:// steps, container: and services: fail the job before its steps run; uses: owner/repo@ref resolves from hubd's own repositories (public ones and the job repository owner's), never from github.com."
	noteRerun = "Starts a new attempt with every job (or the failed ones and their dependants), run again by hubd's workers; enable_debug_logging is ignored."
)

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	repo := "/repos/{owner}/{repo}/actions"
	rd, wr := []string{"repo"}, []string{"repo"}
	return slices.Concat([]rest.Route{
		// Workflows
		{Method: "GET", Pattern: repo + "/workflows", OperationID: "actions/list-repo-workflows", Handler: a.listWorkflows, Scopes: rd},
		{Method: "GET", Pattern: repo + "/workflows/{workflow_id}", OperationID: "actions/get-workflow", Handler: a.getWorkflow, Scopes: rd},
		{Method: "PUT", Pattern: repo + "/workflows/{workflow_id}/disable", OperationID: "actions/disable-workflow", Handler: a.disable, Scopes: wr},
		{Method: "PUT", Pattern: repo + "/workflows/{workflow_id}/enable", OperationID: "actions/enable-workflow", Handler: a.enable, Scopes: wr},
		{Method: "POST", Pattern: repo + "/workflows/{workflow_id}/dispatches", OperationID: "actions/create-workflow-dispatch", Handler: a.dispatch, Scopes: wr,
			Note: "Answers 204; return_run_details (200 with the run) is not supported yet."},
		{Method: "GET", Pattern: repo + "/workflows/{workflow_id}/runs", OperationID: "actions/list-workflow-runs", Handler: a.listWorkflowRuns, Scopes: rd, Note: noteRuns},
		// Workflow runs
		{Method: "GET", Pattern: repo + "/runs", OperationID: "actions/list-workflow-runs-for-repo", Handler: a.listRuns, Scopes: rd, Note: noteRuns},
		{Method: "GET", Pattern: repo + "/runs/{run_id}", OperationID: "actions/get-workflow-run", Handler: a.getRun, Scopes: rd, Note: noteRuns},
		{Method: "DELETE", Pattern: repo + "/runs/{run_id}", OperationID: "actions/delete-workflow-run", Handler: a.deleteRun, Scopes: wr},
		{Method: "POST", Pattern: repo + "/runs/{run_id}/cancel", OperationID: "actions/cancel-workflow-run", Handler: a.cancel, Scopes: wr},
		{Method: "POST", Pattern: repo + "/runs/{run_id}/rerun", OperationID: "actions/re-run-workflow", Handler: a.rerun, Scopes: wr, Note: noteRerun},
		{Method: "POST", Pattern: repo + "/runs/{run_id}/rerun-failed-jobs", OperationID: "actions/re-run-workflow-failed-jobs", Handler: a.rerunFailed, Scopes: wr, Note: noteRerun},
		{Method: "GET", Pattern: repo + "/runs/{run_id}/timing", OperationID: "actions/get-workflow-run-usage", Handler: a.timing, Scopes: rd,
			Note: "Every job runs on hubd's own host: its time is reported under UBUNTU (to the second), and nothing is billed."},
		{Method: "GET", Pattern: repo + "/runs/{run_id}/logs", OperationID: "actions/download-workflow-run-logs", Handler: a.runLogs, Scopes: rd, Note: noteLogs},
		{Method: "DELETE", Pattern: repo + "/runs/{run_id}/logs", OperationID: "actions/delete-workflow-run-logs", Handler: a.deleteLogs, Scopes: wr},
		// Workflow jobs
		{Method: "GET", Pattern: repo + "/runs/{run_id}/jobs", OperationID: "actions/list-jobs-for-workflow-run", Handler: a.listJobs, Scopes: rd},
		{Method: "GET", Pattern: repo + "/jobs/{job_id}", OperationID: "actions/get-job-for-workflow-run", Handler: a.getJob, Scopes: rd},
		{Method: "GET", Pattern: repo + "/jobs/{job_id}/logs", OperationID: "actions/download-job-logs-for-workflow-run", Handler: a.jobLogs, Scopes: rd, Note: noteLogs},
		// The signed download URLs the log operations redirect to.
		{Method: "GET", Pattern: "/_actions/{owner}/{repo}/jobs/{job_id}/logs", OperationID: "hubd/actions-job-log", Handler: a.serveJobLog,
			Extension: true, Stream: true, NoRateLimit: true},
		{Method: "GET", Pattern: "/_actions/{owner}/{repo}/runs/{run_id}/logs", OperationID: "hubd/actions-run-logs", Handler: a.serveRunLogs,
			Extension: true, Stream: true, NoRateLimit: true},
	}, a.artifactRoutes(), a.cacheRoutes(), a.TriggerRoutes(), a.policyRoutes())
}

// id reads a positive integer path value; anything else is not found.
func id(r *http.Request, name string) (int64, error) {
	v, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || v <= 0 {
		return 0, model.ErrNotFound
	}
	return v, nil
}

// minimal is the repository as minimal-repository for the caller.
func (a *API) minimal(r *http.Request, repo *model.Repo) (wire.MinimalRepository, error) {
	c := rest.Caller(r)
	v, err := a.d.Store.R().RepoByID(r.Context(), repo.ID, c.UserID())
	if err != nil {
		return wire.MinimalRepository{}, err
	}
	facts, err := a.d.Store.R().RepoFacts(r.Context(), []int64{repo.ID})
	if err != nil {
		return wire.MinimalRepository{}, err
	}
	access := wire.Access{Perm: authz.RepoPermission(c, v.Repo, v.Facts), Authenticated: c.Authenticated()}
	return a.d.URLs.ToMinimalRepository(v.Repo, repos.Counts(a.d, v.Repo, facts[repo.ID]), access), nil
}
