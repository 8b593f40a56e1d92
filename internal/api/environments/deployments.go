package environments

import (
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// A run's pending deployments (jobs held by their environment's
// protection rules) and their reviews.

const (
	noteReview = "Jobs naming an environment with required reviewers or a wait timer wait (job and run status waiting) with a " +
		"deployment hubd records; a reviewer (a required user or a member of a required team; not the run's actor when the " +
		"environment prevents self-review) approves them (they run once the wait timer, fired from the job queue, has run out too) " +
		"or rejects them (the job fails, and the run). Admins cannot bypass the rules, and the deployments answered link to the " +
		"deployments API, which hubd does not serve yet."
)

// RunRoutes are the routes of a run's pending deployments and reviews.
func (a *API) RunRoutes() []rest.Route {
	repo := []string{"repo"}
	const run = "/repos/{owner}/{repo}/actions/runs/{run_id}"
	return []rest.Route{
		{Method: "GET", Pattern: run + "/pending_deployments", OperationID: "actions/get-pending-deployments-for-run", Handler: a.pending,
			Scopes: repo},
		{Method: "POST", Pattern: run + "/pending_deployments", OperationID: "actions/review-pending-deployments-for-run", Handler: a.review,
			Scopes: repo, Note: noteReview},
		{Method: "GET", Pattern: run + "/approvals", OperationID: "actions/get-reviews-for-run", Handler: a.reviews, Scopes: repo},
	}
}

// run is the path's workflow run, in a repository the caller may read.
func (a *API) run(r *http.Request) (*model.Repo, *model.WorkflowRun, error) {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return nil, nil, err
	}
	id, err := strconv.ParseInt(r.PathValue("run_id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, nil, model.ErrNotFound
	}
	run, err := a.d.Store.R().Run(r.Context(), repo.ID, id)
	return repo, run, err
}

// GET /repos/{owner}/{repo}/actions/runs/{run_id}/pending_deployments
func (a *API) pending(w http.ResponseWriter, r *http.Request) error {
	repo, run, err := a.run(r)
	if err != nil {
		return err
	}
	list, err := a.svc.PendingDeployments(r.Context(), repo, rest.Caller(r).UserID(), run)
	if err != nil {
		return err
	}
	envs := make([]*model.Environment, len(list))
	for i, p := range list {
		envs[i] = p.Environment
	}
	rendered, err := a.render(r, repo, envs...)
	if err != nil {
		return err
	}
	out := make([]wire.PendingDeployment, len(list))
	for i, p := range list {
		out[i] = wire.PendingDeployment{Environment: wire.ToPendingEnvironment(rendered[i], false), WaitTimer: p.Environment.WaitTimer,
			CurrentUserCanApprove: p.CanApprove, Reviewers: wire.EnvironmentReviewers(rendered[i])}
		if p.Environment.WaitTimer > 0 {
			out[i].WaitTimerStartedAt = new(wire.Time(p.WaitStartedAt))
		}
	}
	return rest.JSON(w, http.StatusOK, out)
}

// POST /repos/{owner}/{repo}/actions/runs/{run_id}/pending_deployments
func (a *API) review(w http.ResponseWriter, r *http.Request) error {
	repo, run, err := a.run(r)
	if err != nil {
		return err
	}
	var b struct {
		EnvironmentIDs []int64 `json:"environment_ids"`
		State          *string `json:"state"`
		Comment        *string `json:"comment"`
	}
	if err := rest.Decode(r, &b); err != nil {
		return err
	}
	switch {
	case b.EnvironmentIDs == nil:
		return model.Invalid("DeploymentReview", "environment_ids", "missing_field")
	case b.State == nil:
		return model.Invalid("DeploymentReview", "state", "missing_field")
	case b.Comment == nil:
		return model.Invalid("DeploymentReview", "comment", "missing_field")
	}
	caller := rest.Caller(r).UserID()
	if caller == 0 {
		return model.Forbidden("Only users can review deployments.")
	}
	deps, err := a.svc.Review(r.Context(), repo, caller, run, b.EnvironmentIDs, *b.State, *b.Comment)
	if err != nil {
		return err
	}
	ids := make([]int64, len(deps))
	for i, d := range deps {
		ids[i] = d.CreatorID
	}
	accounts, err := a.d.Store.R().AccountsByID(r.Context(), ids)
	if err != nil {
		return err
	}
	out := make([]wire.Deployment, len(deps))
	for i, d := range deps {
		out[i] = a.d.URLs.ToDeployment(repo, d, accounts[d.CreatorID])
	}
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/actions/runs/{run_id}/approvals
func (a *API) reviews(w http.ResponseWriter, r *http.Request) error {
	repo, run, err := a.run(r)
	if err != nil {
		return err
	}
	list, envs, err := a.svc.Reviews(r.Context(), repo, run)
	if err != nil {
		return err
	}
	var users []int64
	var all []*model.Environment
	for _, rv := range list {
		users = append(users, rv.UserID)
	}
	for _, e := range envs {
		all = append(all, e)
	}
	accounts, err := a.d.Store.R().AccountsByID(r.Context(), users)
	if err != nil {
		return err
	}
	rendered, err := a.render(r, repo, all...)
	if err != nil {
		return err
	}
	byID := map[int64]wire.Environment{}
	for _, e := range rendered {
		byID[e.ID] = e
	}
	out := make([]wire.EnvironmentApprovals, 0, len(list))
	for _, rv := range list {
		u := accounts[rv.UserID]
		if u == nil {
			continue // the reviewer's account was deleted
		}
		item := wire.EnvironmentApprovals{Environments: []wire.PendingEnvironment{}, State: rv.State, User: a.d.URLs.ToSimpleUser(u), Comment: rv.Comment}
		for _, id := range rv.EnvironmentIDs {
			if e, ok := byID[id]; ok {
				item.Environments = append(item.Environments, wire.ToPendingEnvironment(e, true))
			}
		}
		out = append(out, item)
	}
	return rest.JSON(w, http.StatusOK, out)
}
