package hooks_test

import (
	"os"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/hooks/hookstest"
)

// TestMain doubles as `hubd actions-worker` for the tests that run workflows.
func TestMain(m *testing.M) { apitest.MainWithActionsWorker(m) }

const dispatchable = `name: Build
on:
  push:
    branches: [main]
  workflow_dispatch:
    inputs:
      target:
        required: false
jobs:
  go:
    runs-on: ubuntu-latest
    steps:
      - run: echo hi
`

// TestCIEvents: commit statuses, check runs and suites, branch protection
// rules, Actions runs and jobs, a workflow dispatch and a repository made
// public reach a hook subscribed to them, each payload valid against
// GitHub's webhooks description.
func TestCIEvents(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, apitest.Options{ActionsWorker: []string{exe}})
	const secret = "ci"
	f.hook(secret, "json", "status", "check_run", "check_suite", "branch_protection_rule", "workflow_run", "workflow_job",
		"workflow_dispatch", "public")
	f.recv.WaitFor(t, "ping", "")

	br, _, err := f.gh.Repositories.GetBranch(ctx, "mona", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	head := br.GetCommit().GetSHA()
	if _, _, err := f.gh.Repositories.CreateStatus(ctx, "mona", "app", head, github.RepoStatus{State: github.Ptr("success"),
		Context: github.Ptr("ci/lint"), Description: github.Ptr("fine")}); err != nil {
		t.Fatal(err)
	}
	st := f.recv.WaitFor(t, "status", "")
	f.check(st, secret)
	if m := st.Map(t); m["sha"] != head || m["state"] != "success" || len(m["branches"].([]any)) != 1 {
		t.Errorf("status %.600s", st.Payload)
	}

	cr, _, err := f.gh.Checks.CreateCheckRun(ctx, "mona", "app", github.CreateCheckRunOptions{Name: "lint", HeadSHA: head})
	if err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "check_run", "created"), secret)
	if _, _, err := f.gh.Checks.UpdateCheckRun(ctx, "mona", "app", cr.GetID(), github.UpdateCheckRunOptions{Name: "lint",
		Status: github.Ptr("completed"), Conclusion: github.Ptr("success")}); err != nil {
		t.Fatal(err)
	}
	done := f.recv.WaitFor(t, "check_run", "completed")
	f.check(done, secret)
	if m := done.Map(t)["check_run"].(map[string]any); m["conclusion"] != "success" || m["check_suite"].(map[string]any)["id"] != float64(cr.GetCheckSuite().GetID()) {
		t.Errorf("check_run %.600s", done.Payload)
	}
	f.check(f.recv.WaitFor(t, "check_suite", "completed"), secret)
	if _, err := f.gh.Checks.ReRequestCheckRun(ctx, "mona", "app", cr.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, err := f.gh.Checks.ReRequestCheckSuite(ctx, "mona", "app", cr.GetCheckSuite().GetID()); err != nil {
		t.Fatal(err)
	}

	prot := &github.ProtectionRequest{RequiredStatusChecks: &github.RequiredStatusChecks{Strict: true, Contexts: &[]string{"ci/lint"}}}
	if _, _, err := f.gh.Repositories.UpdateBranchProtection(ctx, "mona", "app", "main", prot); err != nil {
		t.Fatal(err)
	}
	created := f.recv.WaitFor(t, "branch_protection_rule", "created")
	f.check(created, secret)
	if r := created.Map(t)["rule"].(map[string]any); r["name"] != "main" || r["required_status_checks_enforcement_level"] != "non_admins" {
		t.Errorf("rule %v", r)
	}
	prot.EnforceAdmins = true
	if _, _, err := f.gh.Repositories.UpdateBranchProtection(ctx, "mona", "app", "main", prot); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "branch_protection_rule", "edited"), secret)
	if _, err := f.gh.Repositories.RemoveBranchProtection(ctx, "mona", "app", "main"); err != nil {
		t.Fatal(err)
	}
	gone := f.recv.WaitFor(t, "branch_protection_rule", "deleted")
	f.check(gone, secret)
	if r := gone.Map(t)["rule"].(map[string]any); r["admin_enforced"] != true || r["required_status_checks_enforcement_level"] != "everyone" ||
		r["id"] != created.Map(t)["rule"].(map[string]any)["id"] {
		t.Errorf("deleted rule %v", r)
	}

	// A workflow pushed runs: its run and job events follow it.
	dir := f.clone()
	if err := os.MkdirAll(dir+"/.github/workflows", 0o755); err != nil {
		t.Fatal(err)
	}
	commit(t, dir, ".github/workflows/build.yml", dispatchable, "build")
	git(t, dir, "push", "-q", "origin", "main")
	for _, a := range []string{"requested", "in_progress", "completed"} {
		f.check(f.recv.WaitFor(t, "workflow_run", a), secret)
	}
	for _, a := range []string{"queued", "in_progress", "completed"} {
		f.check(f.recv.WaitFor(t, "workflow_job", a), secret)
	}
	job := f.recv.WaitFor(t, "workflow_job", "queued").Map(t)["workflow_job"].(map[string]any)
	if l, _ := job["labels"].([]any); len(l) != 1 || l[0] != "ubuntu-latest" || job["workflow_name"] != "Build" {
		t.Errorf("queued job %v", job)
	}
	if _, _, err := f.gh.Actions.CreateWorkflowDispatchEventByFileName(ctx, "mona", "app", "build.yml", github.CreateWorkflowDispatchEventRequest{
		Ref: "main", Inputs: map[string]any{"target": "prod"}}); err != nil {
		t.Fatal(err)
	}
	wd := f.recv.WaitFor(t, "workflow_dispatch", "")
	f.check(wd, secret)
	if m := wd.Map(t); m["ref"] != "refs/heads/main" || m["workflow"] != ".github/workflows/build.yml" || m["inputs"].(map[string]any)["target"] != "prod" {
		t.Errorf("workflow_dispatch %.400s", wd.Payload)
	}

	// Made private and public again: public.
	for _, private := range []bool{true, false} {
		if _, _, err := f.gh.Repositories.Edit(ctx, "mona", "app", &github.Repository{Private: github.Ptr(private)}); err != nil {
			t.Fatal(err)
		}
	}
	f.check(f.recv.WaitFor(t, "public", ""), secret)

	f.e.RunJobs()
	hookstest.Drain(t, f.e)
	for _, d := range f.recv.All() {
		f.check(d, secret)
	}
	// Rerequests are for the suite's app, not repository hooks (GitHub).
	if n := f.recv.Count("check_run", "rerequested") + f.recv.Count("check_suite", "rerequested") + f.recv.Count("check_suite", "requested"); n != 0 {
		t.Errorf("%d check requests reached a repository hook", n)
	}
}

// TestOrgWorkflowEvents: an organization hook gets the Actions run and
// job events of the organization's repositories (Actions records them
// without the organization).
func TestOrgWorkflowEvents(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, apitest.Options{ActionsWorker: []string{exe}})
	f.e.Must(201, "POST", "/admin/organizations", f.e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	if _, _, err := f.gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("svc"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	cfg := &github.HookConfig{URL: github.Ptr(f.recv.URL), ContentType: github.Ptr("json")}
	if _, _, err := f.gh.Organizations.CreateHook(ctx, "acme", &github.Hook{Config: cfg, Events: []string{"workflow_run", "workflow_job"}, Active: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	f.recv.WaitFor(t, "ping", "")
	dir := f.cloneOf("acme/svc")
	if err := os.MkdirAll(dir+"/.github/workflows", 0o755); err != nil {
		t.Fatal(err)
	}
	commit(t, dir, ".github/workflows/build.yml", dispatchable, "build")
	git(t, dir, "push", "-q", "origin", "main")
	run := f.recv.WaitFor(t, "workflow_run", "completed")
	f.check(run, "")
	if m := run.Map(t); m["organization"].(map[string]any)["login"] != "acme" || m["repository"].(map[string]any)["full_name"] != "acme/svc" {
		t.Errorf("org workflow_run %.300s", run.Payload)
	}
	f.check(f.recv.WaitFor(t, "workflow_job", "completed"), "")
}
