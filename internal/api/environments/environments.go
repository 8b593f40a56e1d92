// Package environments is the REST adapter of deployment environments
// (docs: deployments/environments, deployments/branch-policies) over the
// environments service.
package environments

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	svc "github.com/hubd/hubd/internal/environments"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

// API serves the environments routes.
type API struct {
	d   *api.Deps
	svc *svc.Service
}

// New makes the package.
func New(d *api.Deps) *API { return &API{d: d, svc: svc.New(d.Store)} }

// Service is the environments service (jobs' spec hook).
func (a *API) Service() *svc.Service { return a.svc }

const noteEnv = "Protection rules are stored, returned and enforced: a job naming the environment creates it, fails when its " +
	"deployment branch policy does not admit the run's ref, and waits (a pending deployment, recorded) for a required reviewer's " +
	"approval and for its wait timer (fired from the job queue). can_admins_bypass is neither stored nor honoured (admins review " +
	"only as required reviewers), custom deployment protection rules (apps) do not exist, and jobs in an unprotected environment " +
	"record no deployment. PUT replaces the rules (absent fields take their defaults)."

// Routes is the package's route table.
func (a *API) Routes() []rest.Route {
	repo := []string{"repo"}
	const e = "/repos/{owner}/{repo}/environments"
	const p = e + "/{environment_name}/deployment-branch-policies"
	return []rest.Route{
		{Method: "GET", Pattern: e, OperationID: "repos/get-all-environments", Handler: a.list, Scopes: repo, Note: noteEnv},
		{Method: "GET", Pattern: e + "/{environment_name}", OperationID: "repos/get-environment", Handler: a.get, Scopes: repo, Note: noteEnv},
		{Method: "PUT", Pattern: e + "/{environment_name}", OperationID: "repos/create-or-update-environment", Handler: a.put, Scopes: repo, Note: noteEnv},
		{Method: "DELETE", Pattern: e + "/{environment_name}", OperationID: "repos/delete-an-environment", Handler: a.delete, Scopes: repo},
		{Method: "GET", Pattern: p, OperationID: "repos/list-deployment-branch-policies", Handler: a.listPolicies, Scopes: repo},
		{Method: "POST", Pattern: p, OperationID: "repos/create-deployment-branch-policy", Handler: a.createPolicy, Scopes: repo},
		{Method: "GET", Pattern: p + "/{branch_policy_id}", OperationID: "repos/get-deployment-branch-policy", Handler: a.getPolicy, Scopes: repo},
		{Method: "PUT", Pattern: p + "/{branch_policy_id}", OperationID: "repos/update-deployment-branch-policy", Handler: a.updatePolicy, Scopes: repo},
		{Method: "DELETE", Pattern: p + "/{branch_policy_id}", OperationID: "repos/delete-deployment-branch-policy", Handler: a.deletePolicy, Scopes: repo},
	}
}

// repo is the path's repository: anyone who may read it reads its
// environments (GitHub), admins change them.
func (a *API) repo(r *http.Request, write bool) (*model.Repo, error) {
	need := authz.Read
	if write {
		need = authz.Admin
	}
	repo, _, err := a.d.Repo(r, need)
	return repo, err
}

// render converts environments with their reviewers loaded in one batch
// of users and one of teams.
func (a *API) render(r *http.Request, repo *model.Repo, list ...*model.Environment) ([]wire.Environment, error) {
	var users, teams []int64
	for _, e := range list {
		for _, rv := range e.Reviewers {
			if rv.Type == "Team" {
				teams = append(teams, rv.ID)
			} else {
				users = append(users, rv.ID)
			}
		}
	}
	q := a.d.Store.R()
	accounts, err := q.AccountsByID(r.Context(), users)
	if err != nil {
		return nil, err
	}
	tm, err := q.TeamsByID(r.Context(), teams)
	if err != nil {
		return nil, err
	}
	out := make([]wire.Environment, len(list))
	for i, e := range list {
		out[i] = a.d.URLs.ToEnvironment(repo, e, accounts, tm)
	}
	return out, nil
}

// GET /repos/{owner}/{repo}/environments
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	repo, err := a.repo(r, false)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.List(r.Context(), repo, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out, err := a.render(r, repo, list...)
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, struct {
		TotalCount   int                `json:"total_count"`
		Environments []wire.Environment `json:"environments"`
	}{total, out})
}

// GET /repos/{owner}/{repo}/environments/{environment_name}
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	repo, err := a.repo(r, false)
	if err != nil {
		return err
	}
	env, err := a.svc.Get(r.Context(), repo, r.PathValue("environment_name"))
	if err != nil {
		return err
	}
	out, err := a.render(r, repo, env)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out[0])
}

type envBody struct {
	WaitTimer         *int  `json:"wait_timer"`
	PreventSelfReview *bool `json:"prevent_self_review"`
	Reviewers         []struct {
		Type string `json:"type"`
		ID   int64  `json:"id"`
	} `json:"reviewers"`
	BranchPolicy rest.Opt[struct {
		Protected *bool `json:"protected_branches"`
		Custom    *bool `json:"custom_branch_policies"`
	}] `json:"deployment_branch_policy"`
}

// input reads the body of PUT (which may be empty or null).
func input(r *http.Request) (svc.Input, error) {
	var in svc.Input
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return in, model.BadRequest("Problems parsing JSON")
	}
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		data = nil
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	var b envBody
	if err := rest.Decode(r, &b); err != nil {
		return in, err
	}
	if b.WaitTimer != nil {
		in.WaitTimer = *b.WaitTimer
	}
	if b.PreventSelfReview != nil {
		in.PreventSelfReview = *b.PreventSelfReview
	}
	for _, rv := range b.Reviewers {
		in.Reviewers = append(in.Reviewers, model.EnvironmentReviewer{Type: rv.Type, ID: rv.ID})
	}
	if bp, ok := b.BranchPolicy.Get(); ok {
		if bp.Protected == nil || bp.Custom == nil {
			return in, model.Invalid("Environment", "deployment_branch_policy", "missing_field")
		}
		if *bp.Protected == *bp.Custom {
			return in, model.Unprocessable("Only one of protected_branches and custom_branch_policies can be true, and one of them must be.")
		}
		in.BranchPolicy = model.BranchPolicyCustom
		if *bp.Protected {
			in.BranchPolicy = model.BranchPolicyProtected
		}
	}
	return in, nil
}

// PUT /repos/{owner}/{repo}/environments/{environment_name}
func (a *API) put(w http.ResponseWriter, r *http.Request) error {
	repo, err := a.repo(r, true)
	if err != nil {
		return err
	}
	in, err := input(r)
	if err != nil {
		return err
	}
	env, _, err := a.svc.Put(r.Context(), repo, rest.Caller(r).UserID(), r.PathValue("environment_name"), in)
	if err != nil {
		return err
	}
	out, err := a.render(r, repo, env)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out[0])
}

// DELETE /repos/{owner}/{repo}/environments/{environment_name}
func (a *API) delete(w http.ResponseWriter, r *http.Request) error {
	repo, err := a.repo(r, true)
	if err != nil {
		return err
	}
	if err := a.svc.Delete(r.Context(), repo, rest.Caller(r).UserID(), r.PathValue("environment_name")); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// policy reads a branch policy's path: the repository (an admin's for a
// change) and the policy's id.
func (a *API) policy(r *http.Request, write bool) (*model.Repo, int64, error) {
	repo, err := a.repo(r, write)
	if err != nil {
		return nil, 0, err
	}
	id, err := strconv.ParseInt(r.PathValue("branch_policy_id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, 0, model.ErrNotFound
	}
	return repo, id, nil
}

// GET .../environments/{environment_name}/deployment-branch-policies
func (a *API) listPolicies(w http.ResponseWriter, r *http.Request) error {
	repo, err := a.repo(r, false)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.BranchPolicies(r.Context(), repo, r.PathValue("environment_name"), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.BranchPolicy, len(list))
	for i, bp := range list {
		out[i] = wire.ToBranchPolicy(bp)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, struct {
		TotalCount     int                 `json:"total_count"`
		BranchPolicies []wire.BranchPolicy `json:"branch_policies"`
	}{total, out})
}

type policyBody struct {
	Name *string `json:"name"`
	Type string  `json:"type"`
}

// decodePolicy reads a branch policy's body: its name pattern (required)
// and type.
func decodePolicy(r *http.Request) (name, typ string, err error) {
	var b policyBody
	if err := rest.Decode(r, &b); err != nil {
		return "", "", err
	}
	if b.Name == nil {
		return "", "", model.Invalid("DeploymentBranchPolicy", "name", "missing_field")
	}
	return *b.Name, b.Type, nil
}

// POST .../environments/{environment_name}/deployment-branch-policies
func (a *API) createPolicy(w http.ResponseWriter, r *http.Request) error {
	repo, err := a.repo(r, true)
	if err != nil {
		return err
	}
	name, typ, err := decodePolicy(r)
	if err != nil {
		return err
	}
	env := r.PathValue("environment_name")
	p, err := a.svc.CreateBranchPolicy(r.Context(), repo, rest.Caller(r).UserID(), env, name, typ)
	var ex *svc.Existing
	if errors.As(err, &ex) {
		// GitHub's 303 to the pattern already there.
		w.Header().Set("Location", a.d.URLs.EnvironmentURL(repo, env)+"/deployment-branch-policies/"+strconv.FormatInt(ex.Policy.ID, 10))
		w.WriteHeader(http.StatusSeeOther)
		return nil
	}
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToBranchPolicy(p))
}

// GET .../deployment-branch-policies/{branch_policy_id}
func (a *API) getPolicy(w http.ResponseWriter, r *http.Request) error {
	repo, id, err := a.policy(r, false)
	if err != nil {
		return err
	}
	p, err := a.svc.BranchPolicy(r.Context(), repo, r.PathValue("environment_name"), id)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToBranchPolicy(p))
}

// PUT .../deployment-branch-policies/{branch_policy_id}
func (a *API) updatePolicy(w http.ResponseWriter, r *http.Request) error {
	repo, id, err := a.policy(r, true)
	if err != nil {
		return err
	}
	name, _, err := decodePolicy(r)
	if err != nil {
		return err
	}
	p, err := a.svc.UpdateBranchPolicy(r.Context(), repo, rest.Caller(r).UserID(), r.PathValue("environment_name"), id, name)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.ToBranchPolicy(p))
}

// DELETE .../deployment-branch-policies/{branch_policy_id}
func (a *API) deletePolicy(w http.ResponseWriter, r *http.Request) error {
	repo, id, err := a.policy(r, true)
	if err != nil {
		return err
	}
	if err := a.svc.DeleteBranchPolicy(r.Context(), repo, rest.Caller(r).UserID(), r.PathValue("environment_name"), id); err != nil {
		return err
	}
	return rest.NoContent(w)
}
