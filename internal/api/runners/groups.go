package runners

import (
	"net/http"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/runners"
	"github.com/hubd/hubd/internal/wire"
)

func (a *API) groupRoutes() []rest.Route {
	org, ent := "/orgs/{org}/actions/runner-groups", "/enterprises/{enterprise}/actions/runner-groups"
	osc, esc := []string{"admin:org", "manage_runners:org"}, []string{"manage_runners:enterprise"}
	o, e := model.RunnerOrg, model.RunnerEnterprise
	const ea = "enterprise-admin/"
	return []rest.Route{
		{Method: "GET", Pattern: org, OperationID: "actions/list-self-hosted-runner-groups-for-org", Handler: a.groups(o), Scopes: osc, Note: noteOrgGroups},
		{Method: "POST", Pattern: org, OperationID: "actions/create-self-hosted-runner-group-for-org", Handler: a.createGroup(o), Scopes: osc, Note: noteOrgGroups},
		{Method: "GET", Pattern: org + "/{runner_group_id}", OperationID: "actions/get-self-hosted-runner-group-for-org", Handler: a.group(o), Scopes: osc},
		{Method: "PATCH", Pattern: org + "/{runner_group_id}", OperationID: "actions/update-self-hosted-runner-group-for-org", Handler: a.updateGroup(o), Scopes: osc, Note: noteOrgGroups},
		{Method: "DELETE", Pattern: org + "/{runner_group_id}", OperationID: "actions/delete-self-hosted-runner-group-from-org", Handler: a.deleteGroup(o), Scopes: osc},
		{Method: "GET", Pattern: org + "/{runner_group_id}/hosted-runners", OperationID: "actions/list-github-hosted-runners-in-group-for-org", Handler: a.hostedInGroup, Scopes: osc, Note: noteHosted},
		{Method: "GET", Pattern: org + "/{runner_group_id}/repositories", OperationID: "actions/list-repo-access-to-self-hosted-runner-group-in-org", Handler: a.targets(o), Scopes: osc},
		{Method: "PUT", Pattern: org + "/{runner_group_id}/repositories", OperationID: "actions/set-repo-access-to-self-hosted-runner-group-in-org", Handler: a.setTargets(o, "set"), Scopes: osc},
		{Method: "PUT", Pattern: org + "/{runner_group_id}/repositories/{repository_id}", OperationID: "actions/add-repo-access-to-self-hosted-runner-group-in-org", Handler: a.setTargets(o, "add"), Scopes: osc},
		{Method: "DELETE", Pattern: org + "/{runner_group_id}/repositories/{repository_id}", OperationID: "actions/remove-repo-access-to-self-hosted-runner-group-in-org", Handler: a.setTargets(o, "remove"), Scopes: osc},
		{Method: "GET", Pattern: org + "/{runner_group_id}/runners", OperationID: "actions/list-self-hosted-runners-in-group-for-org", Handler: a.groupRunners(o), Scopes: osc},
		{Method: "PUT", Pattern: org + "/{runner_group_id}/runners", OperationID: "actions/set-self-hosted-runners-in-group-for-org", Handler: a.setRunners(o, "set"), Scopes: osc},
		{Method: "PUT", Pattern: org + "/{runner_group_id}/runners/{runner_id}", OperationID: "actions/add-self-hosted-runner-to-group-for-org", Handler: a.setRunners(o, "add"), Scopes: osc},
		{Method: "DELETE", Pattern: org + "/{runner_group_id}/runners/{runner_id}", OperationID: "actions/remove-self-hosted-runner-from-group-for-org", Handler: a.setRunners(o, "remove"), Scopes: osc},

		{Method: "GET", Pattern: ent, OperationID: ea + "list-self-hosted-runner-groups-for-enterprise", Handler: a.groups(e), Scopes: esc, Note: noteOrgGroups},
		{Method: "POST", Pattern: ent, OperationID: ea + "create-self-hosted-runner-group-for-enterprise", Handler: a.createGroup(e), Scopes: esc, Note: noteOrgGroups},
		{Method: "GET", Pattern: ent + "/{runner_group_id}", OperationID: ea + "get-self-hosted-runner-group-for-enterprise", Handler: a.group(e), Scopes: esc},
		{Method: "PATCH", Pattern: ent + "/{runner_group_id}", OperationID: ea + "update-self-hosted-runner-group-for-enterprise", Handler: a.updateGroup(e), Scopes: esc, Note: noteOrgGroups},
		{Method: "DELETE", Pattern: ent + "/{runner_group_id}", OperationID: ea + "delete-self-hosted-runner-group-from-enterprise", Handler: a.deleteGroup(e), Scopes: esc},
		{Method: "GET", Pattern: ent + "/{runner_group_id}/organizations", OperationID: ea + "list-org-access-to-self-hosted-runner-group-in-enterprise", Handler: a.targets(e), Scopes: esc},
		{Method: "PUT", Pattern: ent + "/{runner_group_id}/organizations", OperationID: ea + "set-org-access-to-self-hosted-runner-group-in-enterprise", Handler: a.setTargets(e, "set"), Scopes: esc},
		{Method: "PUT", Pattern: ent + "/{runner_group_id}/organizations/{org_id}", OperationID: ea + "add-org-access-to-self-hosted-runner-group-in-enterprise", Handler: a.setTargets(e, "add"), Scopes: esc},
		{Method: "DELETE", Pattern: ent + "/{runner_group_id}/organizations/{org_id}", OperationID: ea + "remove-org-access-to-self-hosted-runner-group-in-enterprise", Handler: a.setTargets(e, "remove"), Scopes: esc},
		{Method: "GET", Pattern: ent + "/{runner_group_id}/runners", OperationID: ea + "list-self-hosted-runners-in-group-for-enterprise", Handler: a.groupRunners(e), Scopes: esc},
		{Method: "PUT", Pattern: ent + "/{runner_group_id}/runners", OperationID: ea + "set-self-hosted-runners-in-group-for-enterprise", Handler: a.setRunners(e, "set"), Scopes: esc},
		{Method: "PUT", Pattern: ent + "/{runner_group_id}/runners/{runner_id}", OperationID: ea + "add-self-hosted-runner-to-group-for-enterprise", Handler: a.setRunners(e, "add"), Scopes: esc},
		{Method: "DELETE", Pattern: ent + "/{runner_group_id}/runners/{runner_id}", OperationID: ea + "remove-self-hosted-runner-from-group-for-enterprise", Handler: a.setRunners(e, "remove"), Scopes: esc},
	}
}

func (a *API) renderGroup(sc svc.Scope, g *model.RunnerGroup) wire.RunnerGroup {
	if sc.Kind == model.RunnerOrg {
		return a.d.URLs.ToRunnerGroup(g, sc.Org.Login, "")
	}
	return a.d.URLs.ToRunnerGroup(g, "", a.d.URLs.EnterpriseSlug())
}

// groupScope authorizes the caller and reads {runner_group_id}.
func (a *API) groupScope(r *http.Request, kind string) (svc.Scope, int64, error) {
	sc, err := a.scope(r, kind)
	if err != nil {
		return sc, 0, err
	}
	gid, err := id(r, "runner_group_id")
	return sc, gid, err
}

// GET .../actions/runner-groups
func (a *API) groups(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, err := a.scope(r, kind)
		if err != nil {
			return err
		}
		p := rest.ParsePage(r)
		list, total, err := a.svc.Groups(r.Context(), sc, p.Limit(), p.Offset())
		if err != nil {
			return err
		}
		out := make([]wire.RunnerGroup, len(list))
		for i, g := range list {
			out[i] = a.renderGroup(sc, g)
		}
		rest.SetLink(w, r, a.d.URLs.API, p, total)
		return rest.JSON(w, http.StatusOK, struct {
			TotalCount   int                `json:"total_count"`
			RunnerGroups []wire.RunnerGroup `json:"runner_groups"`
		}{total, out})
	}
}

// GET .../actions/runner-groups/{runner_group_id}
func (a *API) group(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, gid, err := a.groupScope(r, kind)
		if err != nil {
			return err
		}
		g, err := a.svc.Group(r.Context(), sc, gid)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, a.renderGroup(sc, g))
	}
}

// POST .../actions/runner-groups
func (a *API) createGroup(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, err := a.scope(r, kind)
		if err != nil {
			return err
		}
		var in svc.GroupInput
		if err := rest.Decode(r, &in); err != nil {
			return err
		}
		g, err := a.svc.CreateGroup(r.Context(), sc, in)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusCreated, a.renderGroup(sc, g))
	}
}

// PATCH .../actions/runner-groups/{runner_group_id}
func (a *API) updateGroup(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, gid, err := a.groupScope(r, kind)
		if err != nil {
			return err
		}
		var in svc.GroupInput
		if err := rest.Decode(r, &in); err != nil {
			return err
		}
		g, err := a.svc.UpdateGroup(r.Context(), sc, gid, in)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, a.renderGroup(sc, g))
	}
}

// DELETE .../actions/runner-groups/{runner_group_id}
func (a *API) deleteGroup(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, gid, err := a.groupScope(r, kind)
		if err != nil {
			return err
		}
		if err := a.svc.DeleteGroup(r.Context(), sc, gid); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}

// GET /orgs/{org}/actions/runner-groups/{runner_group_id}/hosted-runners
func (a *API) hostedInGroup(w http.ResponseWriter, r *http.Request) error {
	sc, gid, err := a.groupScope(r, model.RunnerOrg)
	if err != nil {
		return err
	}
	if _, err := a.svc.Group(r.Context(), sc, gid); err != nil {
		return err
	}
	return a.hostedList(w, r, sc, gid)
}

// GET .../runner-groups/{runner_group_id}/repositories (organizations)
func (a *API) targets(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, gid, err := a.groupScope(r, kind)
		if err != nil {
			return err
		}
		p := rest.ParsePage(r)
		ids, total, err := a.svc.Targets(r.Context(), sc, gid, p.Limit(), p.Offset())
		if err != nil {
			return err
		}
		rest.SetLink(w, r, a.d.URLs.API, p, total)
		ctx := r.Context()
		q := a.d.Store.R()
		if kind == model.RunnerEnterprise {
			accts, err := q.AccountsByID(ctx, ids)
			if err != nil {
				return err
			}
			out := []wire.OrganizationSimple{}
			for _, id := range ids {
				if o := accts[id]; o != nil {
					out = append(out, a.d.URLs.ToOrgSimple(o))
				}
			}
			return rest.JSON(w, http.StatusOK, struct {
				TotalCount    int                       `json:"total_count"`
				Organizations []wire.OrganizationSimple `json:"organizations"`
			}{total, out})
		}
		out, err := repos.MinimalByIDs(ctx, a.d, rest.Caller(r), ids)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, struct {
			TotalCount   int                      `json:"total_count"`
			Repositories []wire.MinimalRepository `json:"repositories"`
		}{total, out})
	}
}

// PUT/DELETE .../runner-groups/{runner_group_id}/repositories[/{repository_id}]
// (organizations[/{org_id}] for the enterprise)
func (a *API) setTargets(kind, op string) rest.Handler {
	field, param := "selected_repository_ids", "repository_id"
	if kind == model.RunnerEnterprise {
		field, param = "selected_organization_ids", "org_id"
	}
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, gid, err := a.groupScope(r, kind)
		if err != nil {
			return err
		}
		var ids []int64
		if op == "set" {
			in := map[string]*[]int64{}
			if err := rest.Decode(r, &in); err != nil {
				return err
			}
			if in[field] == nil {
				return model.Invalid("RunnerGroup", field, "missing_field")
			}
			ids = *in[field]
		} else {
			t, err := id(r, param)
			if err != nil {
				return err
			}
			ids = []int64{t}
		}
		if err := a.svc.SetTargets(r.Context(), sc, gid, op, ids); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}

// GET .../runner-groups/{runner_group_id}/runners
func (a *API) groupRunners(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, gid, err := a.groupScope(r, kind)
		if err != nil {
			return err
		}
		p := rest.ParsePage(r)
		list, total, err := a.svc.GroupRunners(r.Context(), sc, gid, p.Limit(), p.Offset())
		if err != nil {
			return err
		}
		rest.SetLink(w, r, a.d.URLs.API, p, total)
		return rest.JSON(w, http.StatusOK, runnerList{TotalCount: total, Runners: a.render(list)})
	}
}

// PUT/DELETE .../runner-groups/{runner_group_id}/runners[/{runner_id}]
func (a *API) setRunners(kind, op string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, gid, err := a.groupScope(r, kind)
		if err != nil {
			return err
		}
		var ids []int64
		if op == "set" {
			var in struct {
				Runners *[]int64 `json:"runners"`
			}
			if err := rest.Decode(r, &in); err != nil {
				return err
			}
			if in.Runners == nil {
				return model.Invalid("RunnerGroup", "runners", "missing_field")
			}
			ids = *in.Runners
		} else {
			rid, err := id(r, "runner_id")
			if err != nil {
				return err
			}
			ids = []int64{rid}
		}
		if err := a.svc.SetGroupRunners(r.Context(), sc, gid, op, ids); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}
