package runners_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/runner"
)

var ctx = context.Background()

// TestMain doubles as `hubd actions-worker`.
func TestMain(m *testing.M) { apitest.MainWithActionsWorker(m) }

type world struct {
	e              *apitest.Env
	mona, ent, bob string // tokens: acme's owner, the enterprise admin, a member of nothing
	gh             *github.Client
	app, secret    *github.Repository
}

func newWorld(t *testing.T) *world {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.New(t, apitest.Options{ActionsWorker: []string{exe}})
	w := &world{e: e}
	_, w.mona = e.NewUser("mona", false)
	_, w.bob = e.NewUser("bob", false)
	w.ent = e.Token(e.Admin, "admin:enterprise,site_admin")
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	w.gh = e.GitHub(w.mona)
	if w.app, _, err = w.gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if w.secret, _, err = w.gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	return w
}

// worker waits for hubd's worker runner to be listed online at the
// enterprise and returns it.
func (w *world) worker(t *testing.T) *github.Runner {
	t.Helper()
	eg := w.e.GitHub(w.ent)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		list, _, err := eg.Enterprise.ListRunners(ctx, "hubd", nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Runners) > 0 && list.Runners[0].GetStatus() == "online" {
			return list.Runners[0]
		}
	}
	t.Fatal("the worker runner never came online")
	return nil
}

func labelNames(t *testing.T, r *apitest.Response) []string {
	t.Helper()
	var out struct {
		TotalCount int `json:"total_count"`
		Labels     []struct {
			Name, Type string
		} `json:"labels"`
	}
	r.JSON(t, &out)
	var names []string
	for _, l := range out.Labels {
		names = append(names, l.Name+":"+l.Type)
	}
	if out.TotalCount != len(names) {
		t.Fatalf("total_count %d for %v", out.TotalCount, names)
	}
	return names
}

// TestRunners covers the runner operations at the three levels.
func TestRunners(t *testing.T) {
	w := newWorld(t)
	e := w.e
	wr := w.worker(t)
	names := []string{}
	for _, l := range wr.Labels {
		names = append(names, l.GetName()+":"+l.GetType())
	}
	if got := strings.Join(names, ","); !strings.HasPrefix(got, "self-hosted:read-only,Linux:read-only,X64:read-only,ubuntu-latest:custom") || wr.GetBusy() {
		t.Fatalf("worker runner %s busy=%v labels %s", wr.GetName(), wr.GetBusy(), got)
	}
	// The organization sees hubd's worker in its default group.
	orgList, _, err := w.gh.Actions.ListOrganizationRunners(ctx, "acme", nil)
	if err != nil || orgList.TotalCount != 1 || orgList.Runners[0].GetID() != wr.GetID() || orgList.Runners[0].GetRunnerGroupID() != 1 {
		t.Fatalf("org runners %+v %v", orgList, err)
	}
	if _, _, err := w.gh.Actions.GetOrganizationRunner(ctx, "acme", wr.GetID()); err != nil {
		t.Fatal(err)
	}
	// ... but may not remove it or change its labels.
	e.Must(422, "DELETE", fmt.Sprintf("/orgs/acme/actions/runners/%d", wr.GetID()), w.mona, nil)
	e.Must(422, "POST", fmt.Sprintf("/orgs/acme/actions/runners/%d/labels", wr.GetID()), w.mona, map[string]any{"labels": []string{"x"}})
	e.Must(422, "DELETE", fmt.Sprintf("/enterprises/hubd/actions/runners/%d", wr.GetID()), w.ent, nil)

	// Tokens: an hour.
	tok, _, err := w.gh.Actions.CreateRegistrationToken(ctx, "acme", "app")
	if err != nil || len(tok.GetToken()) != 29 || time.Until(tok.GetExpiresAt().Time) < 59*time.Minute {
		t.Fatalf("registration token %+v %v", tok, err)
	}
	if rt, _, err := w.gh.Actions.CreateRemoveToken(ctx, "acme", "app"); err != nil || rt.GetToken() == tok.GetToken() {
		t.Fatalf("remove token %+v %v", rt, err)
	}
	if _, _, err := w.gh.Actions.CreateOrganizationRegistrationToken(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	e.Must(201, "POST", "/orgs/acme/actions/runners/remove-token", w.mona, nil)
	if _, _, err := e.GitHub(w.ent).Enterprise.CreateRegistrationToken(ctx, "hubd"); err != nil {
		t.Fatal(err)
	}
	e.Must(201, "POST", "/enterprises/hubd/actions/runners/remove-token", w.ent, nil)

	// Downloads and deprecations at each level.
	if d, _, err := w.gh.Actions.ListRunnerApplicationDownloads(ctx, "acme", "app"); err != nil || len(d) == 0 || !strings.HasPrefix(d[0].GetDownloadURL(), "https://github.com/actions/runner/") {
		t.Fatalf("downloads %v %v", d, err)
	}
	if _, _, err := w.gh.Actions.ListOrganizationRunnerApplicationDownloads(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.GitHub(w.ent).Enterprise.ListRunnerApplicationDownloads(ctx, "hubd"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/repos/acme/app", "/orgs/acme"} {
		e.Must(200, "GET", p+"/actions/runners/deprecations/2.300.0", w.mona, nil)
	}
	e.Must(200, "GET", "/enterprises/hubd/actions/runners/deprecations/2.300.0", w.ent, nil)

	// A JIT runner at each level, and its labels.
	levels := []struct{ base, tok string }{
		{"/repos/acme/app/actions/runners", w.mona}, {"/orgs/acme/actions/runners", w.mona}, {"/enterprises/hubd/actions/runners", w.ent},
	}
	for _, l := range levels {
		var jit struct {
			Runner struct {
				ID     int64  `json:"id"`
				Status string `json:"status"`
			} `json:"runner"`
			Config string `json:"encoded_jit_config"`
		}
		body := map[string]any{"name": "box", "runner_group_id": 1, "labels": []string{"self-hosted", "X64", "macOS", "gpu"}}
		e.Must(201, "POST", l.base+"/generate-jitconfig", l.tok, body).JSON(t, &jit)
		raw, err := base64.StdEncoding.DecodeString(jit.Config)
		var files map[string]string
		if err != nil || json.Unmarshal(raw, &files) != nil || files[".runner"] == "" || jit.Runner.Status != "offline" {
			t.Fatalf("%s: jit %+v %v", l.base, jit, err)
		}
		e.Must(409, "POST", l.base+"/generate-jitconfig", l.tok, body)
		e.Must(422, "POST", l.base+"/generate-jitconfig", l.tok, map[string]any{"name": "other", "runner_group_id": 1, "labels": []string{}})
		rb := fmt.Sprintf("%s/%d", l.base, jit.Runner.ID)
		e.Must(200, "GET", rb, l.tok, nil)
		if got := labelNames(t, e.Must(200, "GET", rb+"/labels", l.tok, nil)); strings.Join(got, ",") != "self-hosted:read-only,macOS:read-only,X64:read-only,gpu:custom" {
			t.Fatalf("%s: labels %v", l.base, got)
		}
		e.Must(200, "POST", rb+"/labels", l.tok, map[string]any{"labels": []string{"fast", "GPU"}})
		e.Must(422, "POST", rb+"/labels", l.tok, map[string]any{"labels": []string{"x64"}})
		e.Must(422, "POST", rb+"/labels", l.tok, map[string]any{"labels": []string{}})
		if got := labelNames(t, e.Must(200, "PUT", rb+"/labels", l.tok, map[string]any{"labels": []string{"a", "b"}})); len(got) != 5 {
			t.Fatalf("%s: set labels %v", l.base, got)
		}
		if got := labelNames(t, e.Must(200, "DELETE", rb+"/labels/a", l.tok, nil)); len(got) != 4 {
			t.Fatalf("%s: remove a: %v", l.base, got)
		}
		e.Must(404, "DELETE", rb+"/labels/a", l.tok, nil)
		e.Must(422, "DELETE", rb+"/labels/self-hosted", l.tok, nil)
		if got := labelNames(t, e.Must(200, "DELETE", rb+"/labels", l.tok, nil)); len(got) != 3 {
			t.Fatalf("%s: remove all: %v", l.base, got)
		}
		e.Must(204, "DELETE", rb, l.tok, nil)
		e.Must(404, "GET", rb, l.tok, nil)
	}
	// go-github's view of a repository runner.
	if _, _, err := w.gh.Actions.CreateRepoJITConfig(ctx, "acme", "app", github.CreateJITConfigRequest{Name: "r2", RunnerGroupID: 1, Labels: []string{"linux"}}); err != nil {
		t.Fatal(err)
	}
	list, _, err := w.gh.Actions.ListRunners(ctx, "acme", "app", &github.ListRunnersOptions{Name: github.Ptr("r2")})
	if err != nil || list.TotalCount != 1 || list.Runners[0].GetOS() != "Linux" {
		t.Fatalf("repo runners %+v %v", list, err)
	}
	if _, _, err := w.gh.Actions.GetRunner(ctx, "acme", "app", list.Runners[0].GetID()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.gh.Actions.RemoveRunner(ctx, "acme", "app", list.Runners[0].GetID()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.GitHub(w.ent).Enterprise.GetRunner(ctx, "hubd", wr.GetID()); err != nil {
		t.Fatal(err)
	}

	// Who may: 401 anonymous, 403 a non-owner, 404 another enterprise.
	e.Must(401, "GET", "/orgs/acme/actions/runners", "", nil)
	e.Must(403, "GET", "/orgs/acme/actions/runners", w.bob, nil)
	e.Must(403, "GET", "/repos/acme/app/actions/runners", w.bob, nil)
	e.Must(404, "GET", "/repos/acme/secret/actions/runners", w.bob, nil)
	e.Must(403, "GET", "/enterprises/hubd/actions/runners", w.mona, nil)
	e.Must(404, "GET", "/enterprises/other/actions/runners", w.ent, nil)
	e.Must(403, "GET", "/orgs/acme/actions/runners", e.Token(e.Admin, "repo"), nil)
}

// TestRunnerGroups covers the organization's and the enterprise's groups.
func TestRunnerGroups(t *testing.T) {
	w := newWorld(t)
	e := w.e
	wr := w.worker(t)
	groups, _, err := w.gh.Actions.ListOrganizationRunnerGroups(ctx, "acme", nil)
	if err != nil || groups.TotalCount != 1 || !groups.RunnerGroups[0].GetDefault() || groups.RunnerGroups[0].GetID() != 1 {
		t.Fatalf("groups %+v %v", groups, err)
	}
	g, _, err := w.gh.Actions.CreateOrganizationRunnerGroup(ctx, "acme", github.CreateRunnerGroupRequest{Name: github.Ptr("limited"),
		Visibility: github.Ptr("selected"), SelectedRepositoryIDs: []int64{w.app.GetID()}, Runners: []int64{wr.GetID()}})
	if err != nil || g.GetID() == 1 || g.GetVisibility() != "selected" {
		t.Fatalf("create %+v %v", g, err)
	}
	e.Must(422, "POST", "/orgs/acme/actions/runner-groups", w.mona, map[string]any{"name": "limited"})
	e.Must(422, "POST", "/orgs/acme/actions/runner-groups", w.mona, map[string]any{"name": "x", "visibility": "bogus"})
	e.Must(422, "POST", "/orgs/acme/actions/runner-groups", w.mona, map[string]any{"name": "x", "selected_repository_ids": []int64{999999}})
	e.Must(400, "POST", "/orgs/acme/actions/runner-groups", w.mona, "{")
	if got, _, err := w.gh.Actions.GetOrganizationRunnerGroup(ctx, "acme", g.GetID()); err != nil || got.GetName() != "limited" {
		t.Fatalf("get %+v %v", got, err)
	}
	up, _, err := w.gh.Actions.UpdateOrganizationRunnerGroup(ctx, "acme", g.GetID(), github.UpdateRunnerGroupRequest{Name: github.Ptr("limited"), AllowsPublicRepositories: github.Ptr(true),
		RestrictedToWorkflows: github.Ptr(true), SelectedWorkflows: []string{"acme/app/.github/workflows/ci.yml@refs/heads/main"}})
	if err != nil || !up.GetAllowsPublicRepositories() || !up.GetRestrictedToWorkflows() || len(up.SelectedWorkflows) != 1 {
		t.Fatalf("update %+v %v", up, err)
	}
	e.Must(422, "PATCH", fmt.Sprintf("/orgs/acme/actions/runner-groups/%d", g.GetID()), w.mona, map[string]any{"name": "limited", "selected_workflows": []string{"ci.yml"}})
	// Repositories.
	repos, _, err := w.gh.Actions.ListRepositoryAccessRunnerGroup(ctx, "acme", g.GetID(), nil)
	if err != nil || repos.GetTotalCount() != 1 || repos.Repositories[0].GetName() != "app" {
		t.Fatalf("repos %+v %v", repos, err)
	}
	if _, err := w.gh.Actions.SetRepositoryAccessRunnerGroup(ctx, "acme", g.GetID(), github.SetRepoAccessRunnerGroupRequest{SelectedRepositoryIDs: []int64{w.secret.GetID()}}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.gh.Actions.AddRepositoryAccessRunnerGroup(ctx, "acme", g.GetID(), w.app.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.gh.Actions.RemoveRepositoryAccessRunnerGroup(ctx, "acme", g.GetID(), w.secret.GetID()); err != nil {
		t.Fatal(err)
	}
	if repos, _, _ = w.gh.Actions.ListRepositoryAccessRunnerGroup(ctx, "acme", g.GetID(), nil); repos.GetTotalCount() != 1 || repos.Repositories[0].GetID() != w.app.GetID() {
		t.Fatalf("repos after changes %+v", repos)
	}
	// Runners: hubd's worker was placed in the group at creation.
	rs, _, err := w.gh.Actions.ListRunnerGroupRunners(ctx, "acme", g.GetID(), nil)
	if err != nil || rs.TotalCount != 1 || rs.Runners[0].GetRunnerGroupID() != g.GetID() {
		t.Fatalf("group runners %+v %v", rs, err)
	}
	if _, err := w.gh.Actions.RemoveRunnerGroupRunners(ctx, "acme", g.GetID(), wr.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.gh.Actions.AddRunnerGroupRunners(ctx, "acme", g.GetID(), wr.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, err := w.gh.Actions.SetRunnerGroupRunners(ctx, "acme", g.GetID(), github.SetRunnerGroupRunnersRequest{Runners: []int64{}}); err != nil {
		t.Fatal(err)
	}
	if rs, _, _ = w.gh.Actions.ListRunnerGroupRunners(ctx, "acme", 1, nil); rs.TotalCount != 1 {
		t.Fatalf("default group runners %+v", rs)
	}
	if h, _, err := w.gh.Actions.ListRunnerGroupHostedRunners(ctx, "acme", g.GetID(), nil); err != nil || h.TotalCount != 0 {
		t.Fatalf("hosted %+v %v", h, err)
	}
	e.Must(422, "DELETE", "/orgs/acme/actions/runner-groups/1", w.mona, nil)
	if _, err := w.gh.Actions.DeleteOrganizationRunnerGroup(ctx, "acme", g.GetID()); err != nil {
		t.Fatal(err)
	}
	e.Must(404, "GET", fmt.Sprintf("/orgs/acme/actions/runner-groups/%d", g.GetID()), w.mona, nil)
	e.Must(403, "GET", "/orgs/acme/actions/runner-groups", w.bob, nil)

	// The enterprise's groups.
	eg := e.GitHub(w.ent)
	acme, _, _ := w.gh.Organizations.Get(ctx, "acme")
	egr, _, err := eg.Enterprise.CreateEnterpriseRunnerGroup(ctx, "hubd", github.CreateEnterpriseRunnerGroupRequest{Name: github.Ptr("ent"),
		Visibility: github.Ptr("selected"), SelectedOrganizationIDs: []int64{acme.GetID()}})
	if err != nil || egr.GetID() == 1 {
		t.Fatalf("enterprise group %+v %v", egr, err)
	}
	if list, _, err := eg.Enterprise.ListRunnerGroups(ctx, "hubd", nil); err != nil || list.GetTotalCount() != 2 {
		t.Fatalf("enterprise groups %+v %v", list, err)
	}
	if _, _, err := eg.Enterprise.GetEnterpriseRunnerGroup(ctx, "hubd", egr.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := eg.Enterprise.UpdateEnterpriseRunnerGroup(ctx, "hubd", egr.GetID(), github.UpdateEnterpriseRunnerGroupRequest{Name: github.Ptr("ent2")}); err != nil {
		t.Fatal(err)
	}
	if orgs, _, err := eg.Enterprise.ListOrganizationAccessRunnerGroup(ctx, "hubd", egr.GetID(), nil); err != nil || orgs.GetTotalCount() != 1 {
		t.Fatalf("orgs %+v %v", orgs, err)
	}
	if _, err := eg.Enterprise.SetOrganizationAccessRunnerGroup(ctx, "hubd", egr.GetID(), github.SetOrgAccessRunnerGroupRequest{SelectedOrganizationIDs: []int64{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := eg.Enterprise.AddOrganizationAccessRunnerGroup(ctx, "hubd", egr.GetID(), acme.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, err := eg.Enterprise.RemoveOrganizationAccessRunnerGroup(ctx, "hubd", egr.GetID(), acme.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, err := eg.Enterprise.AddRunnerGroupRunners(ctx, "hubd", egr.GetID(), wr.GetID()); err != nil {
		t.Fatal(err)
	}
	if rs, _, err := eg.Enterprise.ListRunnerGroupRunners(ctx, "hubd", egr.GetID(), nil); err != nil || rs.TotalCount != 1 {
		t.Fatalf("enterprise group runners %+v %v", rs, err)
	}
	if _, err := eg.Enterprise.RemoveRunnerGroupRunners(ctx, "hubd", egr.GetID(), wr.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, err := eg.Enterprise.SetRunnerGroupRunners(ctx, "hubd", egr.GetID(), github.SetRunnerGroupRunnersRequest{Runners: []int64{wr.GetID()}}); err != nil {
		t.Fatal(err)
	}
	if _, err := eg.Enterprise.DeleteEnterpriseRunnerGroup(ctx, "hubd", egr.GetID()); err != nil {
		t.Fatal(err)
	}
	// Its runner went back to the default group.
	if r, _, _ := eg.Enterprise.GetRunner(ctx, "hubd", wr.GetID()); r.GetRunnerGroupID() != 1 {
		t.Fatalf("worker after the group's deletion: %+v", r)
	}
}

// push commits files to acme/app's main through git.
func (w *world) push(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	u, _ := url.Parse(w.e.URL + "/acme/app.git")
	u.User = url.UserPassword("mona", w.mona)
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=Mona", "-c", "user.email=mona@example.com"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("clone", "-q", u.String(), ".")
	for p, c := range files {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", "-A")
	git("commit", "-q", "-m", "ci")
	git("push", "-q", "origin", "HEAD:main")
	return git("rev-parse", "HEAD")
}

// job waits for the one job of head's run to reach status and returns it.
func (w *world) job(t *testing.T, head, status string, within time.Duration) *github.WorkflowJob {
	t.Helper()
	var last *github.WorkflowJob
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		runs, _, err := w.gh.Actions.ListRepositoryWorkflowRuns(ctx, "acme", "app", &github.ListWorkflowRunsOptions{HeadSHA: head})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs.WorkflowRuns) == 0 {
			continue
		}
		jobs, _, err := w.gh.Actions.ListWorkflowJobs(ctx, "acme", "app", runs.WorkflowRuns[0].GetID(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs.Jobs) == 1 {
			last = jobs.Jobs[0]
			if last.GetStatus() == status {
				return last
			}
		}
	}
	t.Fatalf("job of %s: want %s, last %+v", head, status, last)
	return nil
}

const workflow = `on: push
jobs:
  build:
    runs-on: %s
    steps:
      - run: sleep 2 && echo hello
`

// TestGroupsAdmitJobs: a job runs only on a worker whose groups admit its
// repository and whose labels cover its runs-on; otherwise it stays
// queued until they do.
func TestGroupsAdmitJobs(t *testing.T) {
	w := newWorld(t)
	e := w.e
	wr := w.worker(t)
	// acme's default group admits no repository: the job waits.
	e.Must(200, "PATCH", "/orgs/acme/actions/runner-groups/1", w.mona, map[string]any{"name": "Default", "visibility": "selected"})
	head := w.push(t, map[string]string{".github/workflows/ci.yml": fmt.Sprintf(workflow, "ubuntu-latest")})
	w.job(t, head, "queued", 10*time.Second)
	time.Sleep(3 * time.Second)
	if j := w.job(t, head, "queued", time.Second); j.GetRunnerName() != "" {
		t.Fatalf("a job no group admits was taken: %+v", j)
	}
	// Admitting the repository lets it run on the worker, busy meanwhile.
	e.Must(204, "PUT", fmt.Sprintf("/orgs/acme/actions/runner-groups/1/repositories/%d", w.app.GetID()), w.mona, nil)
	w.job(t, head, "in_progress", 30*time.Second)
	if r, _, err := e.GitHub(w.ent).Enterprise.GetRunner(ctx, "hubd", wr.GetID()); err != nil || !r.GetBusy() || r.GetStatus() != "online" {
		t.Fatalf("worker running a job: %+v %v", r, err)
	}
	j := w.job(t, head, "completed", 30*time.Second)
	if r, _, _ := e.GitHub(w.ent).Enterprise.GetRunner(ctx, "hubd", wr.GetID()); r.GetBusy() {
		t.Fatalf("worker still busy after its job: %+v", r)
	}
	if j.GetConclusion() != "success" || j.GetRunnerName() != wr.GetName() {
		t.Fatalf("admitted job %+v", j)
	}

	// A label no worker has keeps the job queued until the worker gets it.
	head = w.push(t, map[string]string{".github/workflows/ci.yml": fmt.Sprintf(workflow, "[self-hosted, gpu]")})
	w.job(t, head, "queued", 10*time.Second)
	time.Sleep(3 * time.Second)
	w.job(t, head, "queued", time.Second)
	e.Must(200, "POST", fmt.Sprintf("/enterprises/hubd/actions/runners/%d/labels", wr.GetID()), w.ent, map[string]any{"labels": []string{"gpu"}})
	if j := w.job(t, head, "completed", 30*time.Second); j.GetConclusion() != "success" {
		t.Fatalf("labelled job %+v", j)
	}

	// The enterprise's default group, restricted to other workflows, keeps
	// the job queued; allowing the workflow lets it run.
	e.Must(200, "PATCH", "/enterprises/hubd/actions/runner-groups/1", w.ent, map[string]any{"name": "Default", "restricted_to_workflows": true,
		"selected_workflows": []string{"acme/other/.github/workflows/ci.yml@refs/heads/main"}})
	head = w.push(t, map[string]string{"README.md": "again"})
	w.job(t, head, "queued", 10*time.Second)
	time.Sleep(3 * time.Second)
	w.job(t, head, "queued", time.Second)
	e.Must(200, "PATCH", "/enterprises/hubd/actions/runner-groups/1", w.ent, map[string]any{"name": "Default",
		"selected_workflows": []string{"acme/app/.github/workflows/ci.yml@*"}})
	if j := w.job(t, head, "completed", 30*time.Second); j.GetConclusion() != "success" {
		t.Fatalf("allowed workflow's job %+v", j)
	}
}

// TestHostedRunners: what this host provides, and a hosted runner as a
// pool of hubd's workers that takes the jobs naming it.
func TestHostedRunners(t *testing.T) {
	w := newWorld(t)
	e := w.e
	w.worker(t)
	imgs, _, err := w.gh.Actions.GetHostedRunnerGitHubOwnedImages(ctx, "acme")
	if err != nil || imgs.TotalCount != 1 || imgs.Images[0].Source != "github" {
		t.Fatalf("images %+v %v", imgs, err)
	}
	if p, _, err := w.gh.Actions.GetHostedRunnerPartnerImages(ctx, "acme"); err != nil || p.TotalCount != 0 {
		t.Fatalf("partner images %+v %v", p, err)
	}
	if c, _, err := w.gh.Actions.ListHostedRunnerCustomImages(ctx, "acme"); err != nil || c.TotalCount != 0 {
		t.Fatalf("custom images %+v %v", c, err)
	}
	sizes, _, err := w.gh.Actions.GetHostedRunnerMachineSpecs(ctx, "acme")
	if err != nil || sizes.TotalCount != 1 || sizes.MachineSpecs[0].CPUCores < 1 {
		t.Fatalf("sizes %+v %v", sizes, err)
	}
	if p, _, err := w.gh.Actions.GetHostedRunnerPlatforms(ctx, "acme"); err != nil || p.TotalCount != 1 {
		t.Fatalf("platforms %+v %v", p, err)
	}
	if l, _, err := w.gh.Actions.GetHostedRunnerLimits(ctx, "acme"); err != nil || l.PublicIPs.Maximum != 0 {
		t.Fatalf("limits %+v %v", l, err)
	}
	// A pool in its own group, admitting acme/app.
	g, _, err := w.gh.Actions.CreateOrganizationRunnerGroup(ctx, "acme", github.CreateRunnerGroupRequest{Name: github.Ptr("pool"),
		Visibility: github.Ptr("selected"), SelectedRepositoryIDs: []int64{w.app.GetID()}, AllowsPublicRepositories: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	body := func(name, image, size string) github.CreateHostedRunnerRequest {
		return github.CreateHostedRunnerRequest{Name: name, Image: github.HostedRunnerImage{ID: image, Source: "github"}, Size: size,
			RunnerGroupID: g.GetID(), MaximumRunners: github.Ptr(int64(1))}
	}
	img, size := imgs.Images[0].ID, sizes.MachineSpecs[0].ID
	h, _, err := w.gh.Actions.CreateHostedRunner(ctx, "acme", body("big", img, size))
	if err != nil || h.GetStatus() != "Ready" || h.GetRunnerGroupID() != g.GetID() || h.GetMaximumRunners() != 1 {
		t.Fatalf("create %+v %v", h, err)
	}
	for _, bad := range []github.CreateHostedRunnerRequest{body("big", img, size), body("x", "windows-latest", size), body("x", img, "64-core"), body("bad name", img, size)} {
		if _, resp, err := w.gh.Actions.CreateHostedRunner(ctx, "acme", bad); err == nil || resp.StatusCode != 422 {
			t.Fatalf("create %+v: %v", bad, err)
		}
	}
	static := body("x", img, size)
	static.EnableStaticIP = github.Ptr(true)
	if _, resp, err := w.gh.Actions.CreateHostedRunner(ctx, "acme", static); err == nil || resp.StatusCode != 422 {
		t.Fatalf("static IP: %v", err)
	}
	if list, _, err := w.gh.Actions.ListHostedRunners(ctx, "acme", nil); err != nil || list.GetTotalCount() != 1 {
		t.Fatalf("list %+v %v", list, err)
	}
	if list, _, err := w.gh.Actions.ListRunnerGroupHostedRunners(ctx, "acme", g.GetID(), nil); err != nil || list.GetTotalCount() != 1 {
		t.Fatalf("group's hosted runners %+v %v", list, err)
	}
	if up, _, err := w.gh.Actions.UpdateHostedRunner(ctx, "acme", h.GetID(), github.UpdateHostedRunnerRequest{MaximumRunners: github.Ptr(int64(2))}); err != nil || up.GetMaximumRunners() != 2 {
		t.Fatalf("update %+v %v", up, err)
	}
	e.Must(403, "GET", "/orgs/acme/actions/hosted-runners", w.bob, nil)

	// A job naming it runs on a worker, under its name.
	head := w.push(t, map[string]string{".github/workflows/ci.yml": fmt.Sprintf(workflow, "big")})
	start := time.Now()
	j := w.job(t, head, "completed", 30*time.Second)
	t.Logf("job on the hosted runner: %v", time.Since(start))
	if j.GetConclusion() != "success" || j.GetRunnerName() != "big" {
		t.Fatalf("job on the hosted runner %+v", j)
	}
	if got, _, err := w.gh.Actions.GetHostedRunner(ctx, "acme", h.GetID()); err != nil || got.LastActiveOn == nil {
		t.Fatalf("get %+v %v", got, err)
	}
	var accepted *github.AcceptedError
	if _, _, err := w.gh.Actions.DeleteHostedRunner(ctx, "acme", h.GetID()); !errors.As(err, &accepted) {
		t.Fatalf("delete: want 202, got %v", err)
	}
	e.Must(404, "GET", fmt.Sprintf("/orgs/acme/actions/hosted-runners/%d", h.GetID()), w.mona, nil)

	// The enterprise's hosted runners, in its default group.
	const eb = "/enterprises/hubd/actions/hosted-runners"
	for _, p := range []string{"/images/github-owned", "/images/partner", "/images/custom", "/machine-sizes", "/platforms", "/limits", ""} {
		e.Must(200, "GET", eb+p, w.ent, nil)
	}
	e.Must(403, "GET", eb, w.mona, nil)
	var eh struct {
		ID int64 `json:"id"`
	}
	e.Must(201, "POST", eb, w.ent, map[string]any{"name": "shared", "image": map[string]any{"id": img, "source": "github"}, "size": size,
		"runner_group_id": 1}).JSON(t, &eh)
	e.Must(200, "PATCH", fmt.Sprintf("%s/%d", eb, eh.ID), w.ent, map[string]any{"maximum_runners": 3})
	e.Must(422, "PATCH", fmt.Sprintf("%s/%d", eb, eh.ID), w.ent, map[string]any{"image_id": "macos-latest", "image_source": "github"})
	head = w.push(t, map[string]string{".github/workflows/ci.yml": fmt.Sprintf(workflow, "shared")})
	if j := w.job(t, head, "completed", 30*time.Second); j.GetConclusion() != "success" || j.GetRunnerName() != "shared" {
		t.Fatalf("job on the enterprise's hosted runner %+v", j)
	}
	e.Must(200, "GET", fmt.Sprintf("%s/%d", eb, eh.ID), w.ent, nil)
	e.Must(202, "DELETE", fmt.Sprintf("%s/%d", eb, eh.ID), w.ent, nil)
}

// TestJITRunnerRunsOneJob: a repository's JIT configuration is all a
// runner needs (hubd's URL and its credential): it connects, shows online,
// takes the repository's job its labels match, and, ephemeral, is removed
// after that one job.
func TestJITRunnerRunsOneJob(t *testing.T) {
	w := newWorld(t)
	cfg, _, err := w.gh.Actions.CreateRepoJITConfig(ctx, "acme", "app", github.CreateJITConfigRequest{Name: "jitbox", RunnerGroupID: 1, Labels: []string{"self-hosted", "jit"}})
	if err != nil {
		t.Fatal(err)
	}
	url, name, cred, err := runner.ParseJIT(cfg.GetEncodedJITConfig())
	if err != nil || url != w.e.URL || name != "jitbox" {
		t.Fatalf("jit config: %s %s %v", url, name, err)
	}
	exe, _ := os.Executable()
	r := &runner.Runner{Client: &runner.Client{URL: url, Credential: cred}, Name: name, Work: filepath.Join(apitest.RunnerWorkRoot(t), "jit"),
		Worker: apitest.WorkerCommand(t, []string{exe}), Isolation: &runner.Isolation{Credential: apitest.RunnerCredential(t)}, Ephemeral: true}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	status := func() string {
		list, _, err := w.gh.Actions.ListRunners(ctx, "acme", "app", &github.ListRunnersOptions{Name: github.Ptr("jitbox")})
		if err != nil || list.TotalCount != 1 {
			return "gone"
		}
		return list.Runners[0].GetStatus()
	}
	for deadline := time.Now().Add(10 * time.Second); status() != "online"; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("jit runner %s, want online", status())
		}
	}
	head := w.push(t, map[string]string{".github/workflows/ci.yml": fmt.Sprintf(workflow, "[self-hosted, jit]")})
	if j := w.job(t, head, "completed", 30*time.Second); j.GetConclusion() != "success" || j.GetRunnerName() != "jitbox" {
		t.Fatalf("job %+v", j)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the ephemeral runner did not stop after its job")
	}
	// The runner is removed once its job is released, which the job's
	// completion does not wait for.
	for deadline := time.Now().Add(10 * time.Second); status() != "gone"; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the ephemeral runner is still listed: %s", status())
		}
	}
}
