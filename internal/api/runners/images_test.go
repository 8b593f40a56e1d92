package runners_test

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
)

// A snapshot job installs a tool into its tool cache and a file into its
// home; the second job restores both from the custom image.
const snapshotWorkflow = `on: push
jobs:
  build:
    runs-on: %s
    snapshot: %s
    steps:
      - run: mkdir -p "$RUNNER_TOOL_CACHE/mytool/1.0/x64" && echo tool-v1 > "$RUNNER_TOOL_CACHE/mytool/1.0/x64/mytool" && echo cfg > "$HOME/.mytoolrc"
`

const useWorkflow = `on: push
jobs:
  build:
    runs-on: %s
    steps:
      - run: grep -q tool-v1 "$RUNNER_TOOL_CACHE/mytool/1.0/x64/mytool" && test -f "$HOME/.mytoolrc"
`

// archives are the custom image archives under hubd's data directory.
func archives(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(p, "runner-images") && strings.HasSuffix(p, ".tar.gz") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestCustomImages: an image-generation hosted runner's snapshot job
// becomes a custom image version; a hosted runner using it restores the
// tool cache and home it captured; the ten operations at both levels.
func TestCustomImages(t *testing.T) {
	w := newWorld(t)
	e := w.e
	w.worker(t)
	g, _, err := w.gh.Actions.CreateOrganizationRunnerGroup(ctx, "acme", github.CreateRunnerGroupRequest{Name: github.Ptr("pool"),
		Visibility: github.Ptr("selected"), SelectedRepositoryIDs: []int64{w.app.GetID()}, AllowsPublicRepositories: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	imgs, _, err := w.gh.Actions.GetHostedRunnerGitHubOwnedImages(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	sizes, _, err := w.gh.Actions.GetHostedRunnerMachineSpecs(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	size := sizes.MachineSpecs[0].ID
	builder, _, err := w.gh.Actions.CreateHostedRunner(ctx, "acme", github.CreateHostedRunnerRequest{Name: "builder",
		Image: github.HostedRunnerImage{ID: imgs.Images[0].ID, Source: "github"}, Size: size, RunnerGroupID: g.GetID(), ImageGen: github.Ptr(true)})
	if err != nil || !builder.GetImageGen() {
		t.Fatalf("image-generation runner %+v %v", builder, err)
	}

	// The snapshot job: version 1.0.0 of "tools".
	head := w.push(t, map[string]string{".github/workflows/ci.yml": fmt.Sprintf(snapshotWorkflow, "builder", "tools")})
	start := time.Now()
	if j := w.job(t, head, "completed", 60*time.Second); j.GetConclusion() != "success" || j.GetRunnerName() != "builder" {
		t.Fatalf("snapshot job %+v", j)
	}
	t.Logf("snapshot job with its capture: %v", time.Since(start))
	list, _, err := w.gh.Actions.ListHostedRunnerCustomImages(ctx, "acme")
	if err != nil || list.TotalCount != 1 {
		t.Fatalf("custom images %+v %v", list, err)
	}
	im := list.Images[0]
	if im.Name != "tools" || im.Source != "custom" || im.VersionsCount != 1 || im.LatestVersion != "1.0.0" || im.State != "Ready" || im.TotalVersionsSize != 1 {
		t.Fatalf("custom image %+v", im)
	}
	if got := archives(t, e.DataDir); len(got) != 1 {
		t.Fatalf("archives %v", got)
	}
	// A second snapshot, of major version 2.
	head = w.push(t, map[string]string{".github/workflows/ci.yml": fmt.Sprintf(snapshotWorkflow, "builder", "{image-name: tools, version: 2.*}")})
	if j := w.job(t, head, "completed", 60*time.Second); j.GetConclusion() != "success" {
		t.Fatalf("second snapshot job %+v", j)
	}
	got, _, err := w.gh.Actions.GetHostedRunnerCustomImage(ctx, "acme", im.ID)
	if err != nil || got.VersionsCount != 2 || got.LatestVersion != "2.0.0" {
		t.Fatalf("custom image %+v %v", got, err)
	}
	vs, _, err := w.gh.Actions.ListHostedRunnerCustomImageVersions(ctx, "acme", im.ID)
	if err != nil || vs.TotalCount != 2 || vs.ImageVersions[0].Version != "2.0.0" || vs.ImageVersions[1].Version != "1.0.0" ||
		vs.ImageVersions[1].State != "Ready" || vs.ImageVersions[1].SizeGB != 1 {
		t.Fatalf("versions %+v %v", vs, err)
	}
	r := e.Must(200, "GET", fmt.Sprintf("/orgs/acme/actions/hosted-runners/images/custom/%d/versions?per_page=1", im.ID), w.mona, nil)
	if !strings.Contains(r.Header.Get("Link"), `rel="next"`) {
		t.Fatalf("versions' Link %q", r.Header.Get("Link"))
	}
	v, _, err := w.gh.Actions.GetHostedRunnerCustomImageVersion(ctx, "acme", im.ID, "1.0.0")
	if err != nil || v.Version != "1.0.0" || v.CreatedOn.IsZero() {
		t.Fatalf("version %+v %v", v, err)
	}
	base := fmt.Sprintf("/orgs/acme/actions/hosted-runners/images/custom/%d", im.ID)
	e.Must(404, "GET", base+"/versions/9.9.9", w.mona, nil)
	e.Must(404, "GET", base+"/versions/nope", w.mona, nil)
	e.Must(404, "GET", "/orgs/acme/actions/hosted-runners/images/custom/999999", w.mona, nil)
	e.Must(404, "GET", "/orgs/acme/actions/hosted-runners/images/custom/999999/versions", w.mona, nil)
	e.Must(403, "GET", base, w.bob, nil)
	e.Must(401, "GET", base, "", nil)

	// A hosted runner using version 1.0.0 of the custom image: its job
	// finds the tool and the home file.
	custom := func(version string) github.CreateHostedRunnerRequest {
		return github.CreateHostedRunnerRequest{Name: "user", Image: github.HostedRunnerImage{ID: fmt.Sprint(im.ID), Source: "custom", Version: &version},
			Size: size, RunnerGroupID: g.GetID()}
	}
	for _, bad := range []github.CreateHostedRunnerRequest{custom("7.0.0"), {Name: "user", Image: github.HostedRunnerImage{ID: "424242", Source: "custom"}, Size: size, RunnerGroupID: g.GetID()}} {
		if _, resp, err := w.gh.Actions.CreateHostedRunner(ctx, "acme", bad); err == nil || resp.StatusCode != 422 {
			t.Fatalf("create %+v: %v", bad, err)
		}
	}
	user, _, err := w.gh.Actions.CreateHostedRunner(ctx, "acme", custom("1.0.0"))
	if err != nil || user.GetImageDetails().GetSource() != "custom" || user.GetImageDetails().GetVersion() != "1.0.0" ||
		user.GetImageDetails().GetDisplayName() != "tools" || user.GetImageDetails().GetID() != fmt.Sprint(im.ID) {
		t.Fatalf("custom image runner %+v %v", user, err)
	}
	head = w.push(t, map[string]string{".github/workflows/ci.yml": fmt.Sprintf(useWorkflow, "user")})
	if j := w.job(t, head, "completed", 60*time.Second); j.GetConclusion() != "success" || j.GetRunnerName() != "user" {
		u, _, _ := w.gh.Actions.GetWorkflowJobLogs(ctx, "acme", "app", j.GetID(), 3)
		resp, _ := http.Get(u.String())
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("job on the custom image %s", b)
	}
	// Without the image, the same job does not find the tool.
	head = w.push(t, map[string]string{".github/workflows/ci.yml": fmt.Sprintf(useWorkflow, "builder")})
	if j := w.job(t, head, "completed", 60*time.Second); j.GetConclusion() != "failure" {
		t.Fatalf("job without the custom image %+v", j)
	}

	// What a hosted runner uses cannot be deleted.
	e.Must(422, "DELETE", base+"/versions/1.0.0", w.mona, nil)
	e.Must(422, "DELETE", base, w.mona, nil)
	if _, err := w.gh.Actions.DeleteHostedRunnerCustomImageVersion(ctx, "acme", im.ID, "2.0.0"); err != nil {
		t.Fatalf("delete version: %v", err)
	}
	e.Must(404, "GET", base+"/versions/2.0.0", w.mona, nil)
	if got := archives(t, e.DataDir); len(got) != 1 {
		t.Fatalf("archives after deleting a version %v", got)
	}
	e.Must(202, "DELETE", fmt.Sprintf("/orgs/acme/actions/hosted-runners/%d", user.GetID()), w.mona, nil)
	if _, err := w.gh.Actions.DeleteHostedRunnerCustomImage(ctx, "acme", im.ID); err != nil {
		t.Fatalf("delete image: %v", err)
	}
	e.Must(404, "GET", base, w.mona, nil)
	e.Must(404, "DELETE", base, w.mona, nil)
	if got := archives(t, e.DataDir); len(got) != 0 {
		t.Fatalf("archives after deleting the image %v", got)
	}

	// The enterprise's: an image-generation runner in its default group.
	const eb = "/enterprises/hubd/actions/hosted-runners"
	var eh struct {
		ID       int64 `json:"id"`
		ImageGen bool  `json:"image_gen"`
	}
	e.Must(201, "POST", eb, w.ent, map[string]any{"name": "ent-builder", "image": map[string]any{"id": imgs.Images[0].ID, "source": "github"},
		"size": size, "runner_group_id": 1, "image_gen": true}).JSON(t, &eh)
	if !eh.ImageGen {
		t.Fatalf("enterprise runner %+v", eh)
	}
	head = w.push(t, map[string]string{".github/workflows/ci.yml": fmt.Sprintf(snapshotWorkflow, "ent-builder", "ent-tools")})
	if j := w.job(t, head, "completed", 60*time.Second); j.GetConclusion() != "success" {
		t.Fatalf("enterprise snapshot job %+v", j)
	}
	var el struct {
		TotalCount int `json:"total_count"`
		Images     []struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		} `json:"images"`
	}
	e.Must(200, "GET", eb+"/images/custom", w.ent, nil).JSON(t, &el)
	if el.TotalCount != 1 || el.Images[0].Name != "ent-tools" {
		t.Fatalf("enterprise images %+v", el)
	}
	ei := fmt.Sprintf("%s/images/custom/%d", eb, el.Images[0].ID)
	e.Must(200, "GET", ei, w.ent, nil)
	e.Must(200, "GET", ei+"/versions", w.ent, nil)
	e.Must(200, "GET", ei+"/versions/1.0.0", w.ent, nil)
	e.Must(403, "GET", ei, w.mona, nil)
	e.Must(404, "GET", fmt.Sprintf("/orgs/acme/actions/hosted-runners/images/custom/%d", el.Images[0].ID), w.mona, nil) // not acme's
	e.Must(204, "DELETE", ei+"/versions/1.0.0", w.ent, nil)
	e.Must(404, "GET", ei+"/versions/1.0.0", w.ent, nil)
	e.Must(204, "DELETE", ei, w.ent, nil)
	e.Must(404, "GET", ei, w.ent, nil)
}
