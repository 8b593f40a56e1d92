package runners

import (
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/runners"
)

const noteHosted = "hubd has no GitHub-hosted machines: a hosted runner is a pool of hubd's own workers in one of the organization's runner groups — a job whose runs-on names it runs on any free worker while its group admits the repository and fewer than maximum_runners of its jobs run. " +
	"Images, sizes and platforms are this host's (one GitHub-owned image, no partner images, no static IPs: enable_static_ip is refused; custom images are the snapshots of image_gen runners' jobs, see their operations); status is Ready while a worker is online."

func (a *API) hostedRoutes() []rest.Route {
	var out []rest.Route
	for _, l := range []struct {
		kind, base, sfx string
		scopes          []string
	}{
		{model.RunnerOrg, "/orgs/{org}/actions/hosted-runners", "-for-org", []string{"admin:org", "manage_runners:org"}},
		{model.RunnerEnterprise, "/enterprises/{enterprise}/actions/hosted-runners", "-for-enterprise", []string{"manage_runners:enterprise"}},
	} {
		k, b, x, sc := l.kind, l.base, l.sfx, l.scopes
		out = append(out,
			rest.Route{Method: "GET", Pattern: b, OperationID: "actions/list-hosted-runners" + x, Handler: a.listHosted(k), Scopes: sc, Note: noteHosted},
			rest.Route{Method: "POST", Pattern: b, OperationID: "actions/create-hosted-runner" + x, Handler: a.createHosted(k), Scopes: sc, Note: noteHosted},
			rest.Route{Method: "GET", Pattern: b + "/{hosted_runner_id}", OperationID: "actions/get-hosted-runner" + x, Handler: a.getHosted(k), Scopes: sc, Note: noteHosted},
			rest.Route{Method: "PATCH", Pattern: b + "/{hosted_runner_id}", OperationID: "actions/update-hosted-runner" + x, Handler: a.updateHosted(k), Scopes: sc, Note: noteHosted},
			rest.Route{Method: "DELETE", Pattern: b + "/{hosted_runner_id}", OperationID: "actions/delete-hosted-runner" + x, Handler: a.deleteHosted(k), Scopes: sc, Note: noteHosted},
			rest.Route{Method: "GET", Pattern: b + "/images/github-owned", OperationID: "actions/get-hosted-runners-github-owned-images" + x, Handler: a.images(k, "github"), Scopes: sc, Note: noteHosted},
			rest.Route{Method: "GET", Pattern: b + "/images/partner", OperationID: "actions/get-hosted-runners-partner-images" + x, Handler: a.images(k, "partner"), Scopes: sc, Note: noteHosted},
			rest.Route{Method: "GET", Pattern: b + "/machine-sizes", OperationID: "actions/get-hosted-runners-machine-specs" + x, Handler: a.machineSizes(k), Scopes: sc, Note: noteHosted},
			rest.Route{Method: "GET", Pattern: b + "/platforms", OperationID: "actions/get-hosted-runners-platforms" + x, Handler: a.platforms(k), Scopes: sc, Note: noteHosted},
			rest.Route{Method: "GET", Pattern: b + "/limits", OperationID: "actions/get-hosted-runners-limits" + x, Handler: a.limits(k), Scopes: sc, Note: noteHosted},
		)
	}
	return out
}

type imageDetails struct {
	ID          string `json:"id"`
	SizeGB      int    `json:"size_gb"`
	DisplayName string `json:"display_name"`
	Source      string `json:"source"`
	Version     string `json:"version,omitempty"`
}

type machineSpec struct {
	ID        string `json:"id"`
	CPUCores  int    `json:"cpu_cores"`
	MemoryGB  int    `json:"memory_gb"`
	StorageGB int    `json:"storage_gb"`
}

type hostedRunner struct {
	ID                 int64        `json:"id"`
	Name               string       `json:"name"`
	RunnerGroupID      int64        `json:"runner_group_id"`
	ImageDetails       imageDetails `json:"image_details"`
	MachineSizeDetails machineSpec  `json:"machine_size_details"`
	Status             string       `json:"status"`
	Platform           string       `json:"platform"`
	MaximumRunners     int          `json:"maximum_runners"`
	PublicIPEnabled    bool         `json:"public_ip_enabled"`
	PublicIPs          []any        `json:"public_ips"`
	LastActiveOn       *string      `json:"last_active_on"`
	ImageGen           bool         `json:"image_gen"`
}

func (a *API) hostSpec() machineSpec {
	h := svc.Host(a.rootDir())
	return machineSpec{ID: h.ID, CPUCores: h.CPUCores, MemoryGB: h.MemoryGB, StorageGB: h.StorageGB}
}

// rootDir is the nearest existing directory of the jobs' root.
func (a *API) rootDir() string {
	for d := a.root; d != "" && d != "/"; {
		if _, err := os.Stat(d); err == nil {
			return d
		}
		d = filepath.Dir(d)
	}
	return "/"
}

func (a *API) renderHosted(r *http.Request, list []*model.HostedRunner) ([]hostedRunner, error) {
	ready, err := a.svc.Ready(r.Context())
	if err != nil {
		return nil, err
	}
	status := "Shutdown"
	if ready {
		status = "Ready"
	}
	img, spec := svc.Images(a.rootDir())[0], a.hostSpec()
	customs, err := a.customImagesOf(r.Context(), list)
	if err != nil {
		return nil, err
	}
	out := make([]hostedRunner, len(list))
	for i, h := range list {
		out[i] = hostedRunner{ID: h.ID, Name: h.Name, RunnerGroupID: h.GroupID, Status: status, Platform: h.Platform, MaximumRunners: h.MaximumRunners,
			PublicIPs: []any{}, MachineSizeDetails: spec, ImageGen: h.ImageGen,
			ImageDetails: imageDetails{ID: h.ImageID, SizeGB: img.SizeGB, DisplayName: img.DisplayName, Source: h.ImageSource, Version: h.ImageVersion}}
		if im := customs[h.ImageID]; h.ImageSource == "custom" && im != nil { // its custom image (images.go)
			out[i].ImageDetails.DisplayName, out[i].ImageDetails.SizeGB = im.Name, int(gb(im.TotalBytes))
		}
		if h.LastActive != nil {
			s := h.LastActive.UTC().Format(time.RFC3339)
			out[i].LastActiveOn = &s
		}
	}
	return out, nil
}

// hostedList writes a page of hosted runners (of group gid when not 0).
func (a *API) hostedList(w http.ResponseWriter, r *http.Request, sc svc.Scope, gid int64) error {
	p := rest.ParsePage(r)
	list, total, err := a.svc.ListHosted(r.Context(), sc, gid, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out, err := a.renderHosted(r, list)
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, struct {
		TotalCount int            `json:"total_count"`
		Runners    []hostedRunner `json:"runners"`
	}{total, out})
}

// GET /orgs/{org}/actions/hosted-runners
func (a *API) listHosted(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, err := a.scope(r, kind)
		if err != nil {
			return err
		}
		return a.hostedList(w, r, sc, 0)
	}
}

// hostedOne writes one hosted runner with status.
func (a *API) hostedOne(w http.ResponseWriter, r *http.Request, status int, h *model.HostedRunner) error {
	out, err := a.renderHosted(r, []*model.HostedRunner{h})
	if err != nil {
		return err
	}
	return rest.JSON(w, status, out[0])
}

// POST /orgs/{org}/actions/hosted-runners
func (a *API) createHosted(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, err := a.scope(r, kind)
		if err != nil {
			return err
		}
		var in svc.HostedInput
		if err := rest.Decode(r, &in); err != nil {
			return err
		}
		h, err := a.svc.CreateHosted(r.Context(), sc, in, a.rootDir())
		if err != nil {
			return err
		}
		return a.hostedOne(w, r, http.StatusCreated, h)
	}
}

// hostedScope authorizes the caller and finds {hosted_runner_id}.
func (a *API) hostedScope(r *http.Request, kind string) (svc.Scope, int64, error) {
	sc, err := a.scope(r, kind)
	if err != nil {
		return sc, 0, err
	}
	hid, err := id(r, "hosted_runner_id")
	return sc, hid, err
}

// GET /orgs/{org}/actions/hosted-runners/{hosted_runner_id}
func (a *API) getHosted(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, hid, err := a.hostedScope(r, kind)
		if err != nil {
			return err
		}
		h, err := a.svc.Hosted(r.Context(), sc, hid)
		if err != nil {
			return err
		}
		return a.hostedOne(w, r, http.StatusOK, h)
	}
}

// PATCH /orgs/{org}/actions/hosted-runners/{hosted_runner_id}
func (a *API) updateHosted(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, hid, err := a.hostedScope(r, kind)
		if err != nil {
			return err
		}
		var in svc.HostedInput
		if err := rest.Decode(r, &in); err != nil {
			return err
		}
		in.Image = nil // the update names image_* fields flat
		h, err := a.svc.UpdateHosted(r.Context(), sc, hid, in, a.rootDir())
		if err != nil {
			return err
		}
		return a.hostedOne(w, r, http.StatusOK, h)
	}
}

// DELETE /orgs/{org}/actions/hosted-runners/{hosted_runner_id}: 202 with
// the runner.
func (a *API) deleteHosted(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, hid, err := a.hostedScope(r, kind)
		if err != nil {
			return err
		}
		h, err := a.svc.DeleteHosted(r.Context(), sc, hid)
		if err != nil {
			return err
		}
		return a.hostedOne(w, r, http.StatusAccepted, h)
	}
}

// GET /orgs/{org}/actions/hosted-runners/images/github-owned and partner
func (a *API) images(kind, source string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := a.scope(r, kind); err != nil {
			return err
		}
		type image struct {
			ID          string `json:"id"`
			Platform    string `json:"platform"`
			SizeGB      int    `json:"size_gb"`
			DisplayName string `json:"display_name"`
			Source      string `json:"source"`
		}
		out := []image{}
		for _, im := range svc.Images(a.rootDir()) {
			if im.Source == source {
				out = append(out, image{ID: im.ID, Platform: im.Platform, SizeGB: im.SizeGB, DisplayName: im.DisplayName, Source: im.Source})
			}
		}
		return rest.JSON(w, http.StatusOK, struct {
			TotalCount int     `json:"total_count"`
			Images     []image `json:"images"`
		}{len(out), out})
	}
}

// GET /orgs/{org}/actions/hosted-runners/machine-sizes
func (a *API) machineSizes(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := a.scope(r, kind); err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, struct {
			TotalCount   int           `json:"total_count"`
			MachineSpecs []machineSpec `json:"machine_specs"`
		}{1, []machineSpec{a.hostSpec()}})
	}
}

// GET /orgs/{org}/actions/hosted-runners/platforms
func (a *API) platforms(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := a.scope(r, kind); err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, struct {
			TotalCount int      `json:"total_count"`
			Platforms  []string `json:"platforms"`
		}{1, []string{svc.Platform()}})
	}
}

// GET /orgs/{org}/actions/hosted-runners/limits: no static public IPs.
func (a *API) limits(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if _, err := a.scope(r, kind); err != nil {
			return err
		}
		type ips struct {
			Maximum      int `json:"maximum"`
			CurrentUsage int `json:"current_usage"`
		}
		return rest.JSON(w, http.StatusOK, struct {
			PublicIPs ips `json:"public_ips"`
		}{ips{0, 0}})
	}
}
