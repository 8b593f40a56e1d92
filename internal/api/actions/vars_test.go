package actions_test

import (
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
)

// A pushed workflow sees the vars context (an environment's variables
// over the repository's), a job naming a missing environment creates it,
// and one whose environment's branch policy refuses the branch fails.
func TestVarsContextAndEnvironments(t *testing.T) {
	f := newFixture(t)
	gh := f.gh
	for name, value := range map[string]string{"GREETING": "hello", "REGION": "repo-region"} {
		if _, err := gh.Actions.CreateRepoVariable(ctx, "mona", "app", github.ActionsCreateVariableRequest{Name: name, Value: value}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := gh.Repositories.CreateUpdateEnvironment(ctx, "mona", "app", "production", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Actions.CreateEnvVariable(ctx, "mona", "app", "production", github.ActionsCreateVariableRequest{Name: "region", Value: "env-region"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateUpdateEnvironment(ctx, "mona", "app", "locked", &github.CreateUpdateEnvironment{
		DeploymentBranchPolicy: &github.BranchPolicy{ProtectedBranches: github.Ptr(false), CustomBranchPolicies: github.Ptr(true)}}); err != nil {
		t.Fatal(err)
	}
	head := f.push(t, "vars", map[string]string{".github/workflows/vars.yml": `on: push
jobs:
  plain:
    runs-on: ubuntu-latest
    steps:
      - run: echo "plain ${{ vars.GREETING }} ${{ vars.REGION }} [${{ vars.MISSING }}]"
  deploy:
    runs-on: ubuntu-latest
    environment:
      name: production
      url: https://example.com
    steps:
      - run: echo "deploy ${{ vars.GREETING }} ${{ vars.REGION }}"
  stage:
    runs-on: ubuntu-latest
    environment: staging
    steps:
      - run: echo "stage ${{ vars.REGION }}"
  gated:
    runs-on: ubuntu-latest
    if: ${{ vars.GREETING == 'hello' }}
    steps:
      - run: echo "gated ran"
  locked:
    runs-on: ubuntu-latest
    environment: locked
    steps:
      - run: echo "should not run"
`})
	run := f.waitRun(t, head, true)
	jobs := f.jobs(t, run.GetID())
	for name, want := range map[string]string{"plain": "plain hello repo-region []", "deploy": "deploy hello env-region", "stage": "stage repo-region", "gated": "gated ran"} {
		j := jobs[name]
		if j == nil || j.GetConclusion() != "success" {
			t.Fatalf("%s: %+v", name, j)
		}
		if log := f.jobLog(t, j.GetID()); !strings.Contains(log, want) {
			t.Fatalf("%s's log lacks %q:\n%s", name, want, log)
		}
	}
	locked := jobs["locked"]
	if locked.GetConclusion() != "failure" {
		t.Fatalf("locked: %+v", locked)
	}
	if log := f.jobLog(t, locked.GetID()); !strings.Contains(log, `Branch "main" is not allowed to deploy to locked due to environment protection rules.`) {
		t.Fatalf("locked's log:\n%s", log)
	}
	if env, _, err := gh.Repositories.GetEnvironment(ctx, "mona", "app", "staging"); err != nil || env.GetName() != "staging" {
		t.Fatalf("staging was not created: %v %v", env, err)
	}
}
