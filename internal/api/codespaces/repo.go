package codespaces

import (
	"net/http"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	svc "github.com/hubd/hubd/internal/codespaces"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/wire"
)

func toMachine(m svc.Machine) wire.CodespaceMachine {
	return wire.CodespaceMachine{Name: m.Name, DisplayName: m.Display, OperatingSystem: "linux", StorageInBytes: m.Storage,
		MemoryInBytes: m.Memory, CPUs: m.CPUs}
}

type machineList struct {
	TotalCount int                     `json:"total_count"`
	Machines   []wire.CodespaceMachine `json:"machines"`
}

func (a *API) machines(w http.ResponseWriter) error {
	out := []wire.CodespaceMachine{}
	for _, m := range a.svc.Machines() {
		out = append(out, toMachine(m))
	}
	return rest.JSON(w, http.StatusOK, machineList{TotalCount: len(out), Machines: out})
}

// GET /repos/{owner}/{repo}/codespaces/machines
func (a *API) repoMachines(w http.ResponseWriter, r *http.Request) error {
	if _, err := api.RequireUser(r); err != nil && rest.Caller(r).Kind != authz.Installation {
		return err
	}
	if _, _, err := a.d.Repo(r, authz.Read); err != nil {
		return err
	}
	return a.machines(w)
}

// GET /user/codespaces/{codespace_name}/machines
func (a *API) codespaceMachines(w http.ResponseWriter, r *http.Request) error {
	if _, _, err := a.mine(r, false); err != nil {
		return err
	}
	return a.machines(w)
}

// commit is the commit of ref (the default branch when "") of the path's
// repository.
func (a *API) commit(r *http.Request, ref string) (*model.Repo, string, error) {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return nil, "", err
	}
	if ref == "" {
		ref = repo.DefaultBranch
	}
	info, err := a.d.Git.Open(repo.ID).Info(r.Context(), ref+"^{commit}")
	if err != nil {
		if ref == repo.DefaultBranch {
			return repo, "", api.ErrEmptyRepo
		}
		return nil, "", model.Unprocessable("Invalid ref: " + ref + ".")
	}
	return repo, info.OID, nil
}

// GET /repos/{owner}/{repo}/codespaces/devcontainers
func (a *API) devcontainers(w http.ResponseWriter, r *http.Request) error {
	c := rest.Caller(r)
	if !c.Authenticated() {
		return rest.ErrRequiresAuth
	}
	repo, sha, err := a.commit(r, "")
	if err != nil {
		return err
	}
	list, err := svc.Devcontainers(r.Context(), a.d.Git.Open(repo.ID), sha)
	if err != nil {
		return err
	}
	type item struct {
		Path        string `json:"path"`
		Name        string `json:"name,omitempty"`
		DisplayName string `json:"display_name,omitempty"`
	}
	p := rest.ParsePage(r)
	out := []item{}
	for i, d := range list {
		if i >= p.Offset() && len(out) < p.Limit() {
			out = append(out, item{Path: d.Path, Name: d.Name, DisplayName: d.Display})
		}
	}
	rest.SetLink(w, r, a.d.URLs.API, p, len(list))
	return rest.JSON(w, http.StatusOK, struct {
		TotalCount    int    `json:"total_count"`
		Devcontainers []item `json:"devcontainers"`
	}{len(list), out})
}

// GET /repos/{owner}/{repo}/codespaces/new
func (a *API) preflight(w http.ResponseWriter, r *http.Request) error {
	repo, sha, err := a.commit(r, r.URL.Query().Get("ref"))
	if err != nil {
		return err
	}
	c, err := caller(r, false)
	if err != nil {
		return err
	}
	list, err := svc.Devcontainers(r.Context(), a.d.Git.Open(repo.ID), sha)
	if err != nil {
		return err
	}
	var path *string
	if len(list) > 0 {
		path = &list[0].Path
	}
	loc, _ := svc.Location("", "")
	type defaults struct {
		Location         string  `json:"location"`
		DevcontainerPath *string `json:"devcontainer_path"`
	}
	return rest.JSON(w, http.StatusOK, struct {
		BillableOwner wire.SimpleUser `json:"billable_owner"`
		Defaults      defaults        `json:"defaults"`
	}{a.d.URLs.ToSimpleUser(c.User), defaults{loc, path}})
}

// GET /repos/{owner}/{repo}/codespaces/permissions_check
func (a *API) permissionsCheck(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	ref, path := q.Get("ref"), q.Get("devcontainer_path")
	if _, _, err := a.d.Repo(r, authz.Read); err != nil {
		return err
	}
	if _, err := caller(r, false); err != nil {
		return err
	}
	if ref == "" || path == "" {
		return model.Unprocessable("ref and devcontainer_path are required.")
	}
	repo, sha, err := a.commit(r, ref)
	if err != nil {
		return err
	}
	list, err := svc.Devcontainers(r.Context(), a.d.Git.Open(repo.ID), sha)
	if err != nil {
		return err
	}
	for _, d := range list {
		if d.Path == path {
			// hubd's codespace tokens reach the one repository: a
			// devcontainer.json asking for others' permissions
			// (customizations.codespaces.repositories) is not accepted.
			cfg, _ := svc.ReadConfig(r.Context(), a.d.Git.Open(repo.ID), sha, path)
			return rest.JSON(w, http.StatusOK, struct {
				Accepted bool `json:"accepted"`
			}{len(cfg.Customizations.Codespaces.Repositories) == 0})
		}
	}
	return model.Unprocessable("Invalid devcontainer_path: " + path + " is no devcontainer.json of " + ref + ".")
}

func rCaller(r *http.Request) *authz.Caller { return rest.Caller(r) }

func writeAccepted(w http.ResponseWriter) error { return rest.JSON(w, http.StatusAccepted, struct{}{}) }
