package actions

import (
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// GET /repos/{owner}/{repo}/actions/workflows
func (a *API) listWorkflows(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.d.Store.R().Workflows(r.Context(), repo.ID, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := struct {
		TotalCount int             `json:"total_count"`
		Workflows  []wire.Workflow `json:"workflows"`
	}{TotalCount: total, Workflows: make([]wire.Workflow, len(list))}
	for i, wf := range list {
		out.Workflows[i] = a.d.URLs.ToWorkflow(repo, wf, repo.DefaultBranch)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// workflow finds the {workflow_id} (an id or a file name) of a repository
// the caller may access at need.
func (a *API) workflow(r *http.Request, need authz.Permission) (*model.Repo, *model.Workflow, error) {
	repo, _, err := a.d.Repo(r, need)
	if err != nil {
		return nil, nil, err
	}
	wf, err := a.svc.WorkflowByParam(r.Context(), repo, r.PathValue("workflow_id"))
	return repo, wf, err
}

// GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}
func (a *API) getWorkflow(w http.ResponseWriter, r *http.Request) error {
	repo, wf, err := a.workflow(r, authz.Read)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToWorkflow(repo, wf, repo.DefaultBranch))
}

func (a *API) setEnabled(w http.ResponseWriter, r *http.Request, on bool) error {
	repo, wf, err := a.workflow(r, authz.Write)
	if err != nil {
		return err
	}
	if err := a.svc.SetWorkflowEnabled(r.Context(), repo, rest.Caller(r).UserID(), wf, on); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// PUT /repos/{owner}/{repo}/actions/workflows/{workflow_id}/disable
func (a *API) disable(w http.ResponseWriter, r *http.Request) error { return a.setEnabled(w, r, false) }

// PUT /repos/{owner}/{repo}/actions/workflows/{workflow_id}/enable
func (a *API) enable(w http.ResponseWriter, r *http.Request) error { return a.setEnabled(w, r, true) }

// POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches
func (a *API) dispatch(w http.ResponseWriter, r *http.Request) error {
	repo, wf, err := a.workflow(r, authz.Write)
	if err != nil {
		return err
	}
	var body struct {
		Ref    string         `json:"ref"`
		Inputs map[string]any `json:"inputs"`
	}
	if err := rest.Decode(r, &body); err != nil {
		return err
	}
	if _, err := api.RequireUser(r); err != nil {
		return err
	}
	if err := a.svc.Dispatch(r.Context(), repo, rest.Caller(r).UserID(), wf, body.Ref, body.Inputs); err != nil {
		return err
	}
	return rest.NoContent(w)
}
