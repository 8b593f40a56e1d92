package runners

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/runners"
)

// Custom images of hosted runners (internal/runners/images.go).

const noteCustomImages = "GitHub captures a VM image; hubd's jobs run on its own host, so a custom image version is the tool cache (RUNNER_TOOL_CACHE) and home directory of a succeeded `snapshot:` job " +
	"that ran on a hosted runner with image_gen, archived as a tar.gz under hubd's data directory (versions N.0.0, N.1.0, ... of the major version the snapshot names). " +
	"A hosted runner whose image is {source: custom} gets that archive unpacked into each job's tool cache and home before its steps run; nothing else of the machine is captured. " +
	"Deleting an image (or a version) a hosted runner still uses is refused with 422; state is always Ready (a version exists once captured)."

// wireImages keeps custom images under the data directory beside the
// jobs' root and hooks them into jobs: a snapshot job's capture and a
// custom-image runner's restore.
func (a *API) wireImages(exec *actions.Executor) {
	dir := filepath.Join(os.TempDir(), "hubd-runner-images")
	if exec != nil && exec.Root != "" {
		dir = filepath.Join(filepath.Dir(exec.Root), "runner-images")
	}
	a.imgs = &svc.CustomImages{Svc: a.svc, Dir: dir}
	if exec != nil {
		exec.SpecHooks = append(exec.SpecHooks, a.imgs.RestoreHook)
		exec.AfterHooks = append(exec.AfterHooks, a.imgs.SnapshotHook)
		exec.Uploads = a.imgs.Uploads
	}
}

func (a *API) imageRoutes() []rest.Route {
	var out []rest.Route
	for _, l := range []struct {
		kind, base, sfx, from string
		scopes                []string
	}{
		{model.RunnerOrg, "/orgs/{org}/actions/hosted-runners/images/custom", "-for-org", "-from-org", []string{"admin:org", "manage_runners:org"}},
		{model.RunnerEnterprise, "/enterprises/{enterprise}/actions/hosted-runners/images/custom", "-for-enterprise", "-from-enterprise", []string{"manage_runners:enterprise"}},
	} {
		k, b, x, f, sc := l.kind, l.base, l.sfx, l.from, l.scopes
		out = append(out,
			rest.Route{Method: "GET", Pattern: b, OperationID: "actions/list-custom-images" + x, Handler: a.listImages(k), Scopes: sc, Note: noteCustomImages},
			rest.Route{Method: "GET", Pattern: b + "/{image_definition_id}", OperationID: "actions/get-custom-image" + x, Handler: a.getImage(k), Scopes: sc, Note: noteCustomImages},
			rest.Route{Method: "DELETE", Pattern: b + "/{image_definition_id}", OperationID: "actions/delete-custom-image" + f, Handler: a.deleteImage(k), Scopes: sc, Note: noteCustomImages},
			rest.Route{Method: "GET", Pattern: b + "/{image_definition_id}/versions", OperationID: "actions/list-custom-image-versions" + x, Handler: a.listVersions(k), Scopes: sc, Note: noteCustomImages},
			rest.Route{Method: "GET", Pattern: b + "/{image_definition_id}/versions/{version}", OperationID: "actions/get-custom-image-version" + x, Handler: a.getVersion(k), Scopes: sc, Note: noteCustomImages},
			rest.Route{Method: "DELETE", Pattern: b + "/{image_definition_id}/versions/{version}", OperationID: "actions/delete-custom-image-version" + f, Handler: a.deleteVersion(k), Scopes: sc, Note: noteCustomImages},
		)
	}
	return out
}

type customImage struct {
	ID                int64  `json:"id"`
	Platform          string `json:"platform"`
	TotalVersionsSize int64  `json:"total_versions_size"`
	Name              string `json:"name"`
	Source            string `json:"source"`
	VersionsCount     int    `json:"versions_count"`
	LatestVersion     string `json:"latest_version"`
	State             string `json:"state"`
}

type customImageVersion struct {
	Version      string `json:"version"`
	State        string `json:"state"`
	SizeGB       int64  `json:"size_gb"`
	CreatedOn    string `json:"created_on"`
	StateDetails string `json:"state_details"`
}

// gb is bytes in whole GB, rounded up (a captured version is at least 1).
func gb(n int64) int64 { return (n + 1<<30 - 1) >> 30 }

func renderImage(im *model.CustomImage) customImage {
	return customImage{ID: im.ID, Platform: im.Platform, TotalVersionsSize: gb(im.TotalBytes), Name: im.Name, Source: "custom",
		VersionsCount: im.VersionsCount, LatestVersion: im.LatestVersion, State: "Ready"}
}

func renderVersion(v *model.CustomImageVersion) customImageVersion {
	return customImageVersion{Version: v.Version, State: v.State, SizeGB: gb(v.SizeBytes), CreatedOn: v.CreatedAt.UTC().Format(time.RFC3339), StateDetails: "None"}
}

// customImagesOf are the custom images hosted runners use, by image id.
func (a *API) customImagesOf(ctx context.Context, list []*model.HostedRunner) (map[string]*model.CustomImage, error) {
	var ids []int64
	for _, h := range list {
		if n, err := strconv.ParseInt(h.ImageID, 10, 64); err == nil && h.ImageSource == "custom" {
			ids = append(ids, n)
		}
	}
	found, err := a.imgs.ByID(ctx, ids)
	out := map[string]*model.CustomImage{}
	for id, im := range found {
		out[strconv.FormatInt(id, 10)] = im
	}
	return out, err
}

// imageScope authorizes the caller as the hosted runners' operations do
// and reads {image_definition_id}.
func (a *API) imageScope(r *http.Request, kind string) (svc.Scope, int64, error) {
	sc, err := a.scope(r, kind)
	if err != nil {
		return sc, 0, err
	}
	iid, err := id(r, "image_definition_id")
	return sc, iid, err
}

// GET .../hosted-runners/images/custom
func (a *API) listImages(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, err := a.scope(r, kind)
		if err != nil {
			return err
		}
		p := rest.ParsePage(r)
		list, total, err := a.imgs.ListCustomImages(r.Context(), sc, p.Limit(), p.Offset())
		if err != nil {
			return err
		}
		out := make([]customImage, len(list))
		for i, im := range list {
			out[i] = renderImage(im)
		}
		rest.SetLink(w, r, a.d.URLs.API, p, total)
		return rest.JSON(w, http.StatusOK, struct {
			TotalCount int           `json:"total_count"`
			Images     []customImage `json:"images"`
		}{total, out})
	}
}

// GET .../images/custom/{image_definition_id}
func (a *API) getImage(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, iid, err := a.imageScope(r, kind)
		if err != nil {
			return err
		}
		im, err := a.imgs.CustomImage(r.Context(), sc, iid)
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, renderImage(im))
	}
}

// DELETE .../images/custom/{image_definition_id}
func (a *API) deleteImage(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, iid, err := a.imageScope(r, kind)
		if err != nil {
			return err
		}
		if err := a.imgs.DeleteCustomImage(r.Context(), sc, iid); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}

// GET .../images/custom/{image_definition_id}/versions
func (a *API) listVersions(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, iid, err := a.imageScope(r, kind)
		if err != nil {
			return err
		}
		p := rest.ParsePage(r)
		list, total, err := a.imgs.ListVersions(r.Context(), sc, iid, p.Limit(), p.Offset())
		if err != nil {
			return err
		}
		out := make([]customImageVersion, len(list))
		for i, v := range list {
			out[i] = renderVersion(v)
		}
		rest.SetLink(w, r, a.d.URLs.API, p, total)
		return rest.JSON(w, http.StatusOK, struct {
			TotalCount    int                  `json:"total_count"`
			ImageVersions []customImageVersion `json:"image_versions"`
		}{total, out})
	}
}

// GET .../images/custom/{image_definition_id}/versions/{version}
func (a *API) getVersion(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, iid, err := a.imageScope(r, kind)
		if err != nil {
			return err
		}
		v, err := a.imgs.Version(r.Context(), sc, iid, r.PathValue("version"))
		if err != nil {
			return err
		}
		return rest.JSON(w, http.StatusOK, renderVersion(v))
	}
}

// DELETE .../images/custom/{image_definition_id}/versions/{version}
func (a *API) deleteVersion(kind string) rest.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		sc, iid, err := a.imageScope(r, kind)
		if err != nil {
			return err
		}
		if err := a.imgs.DeleteVersion(r.Context(), sc, iid, r.PathValue("version")); err != nil {
			return err
		}
		return rest.NoContent(w)
	}
}
