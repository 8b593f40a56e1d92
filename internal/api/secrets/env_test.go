package secrets_test

import (
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

const envWorkflow = `name: deploy
on: push
jobs:
  deploy:
    runs-on: ubuntu-latest
    environment: production
    steps:
      - env:
          SHARED: ${{ secrets.SHARED }}
          REPO_ONLY: ${{ secrets.REPO_ONLY }}
        run: |
          echo "shared sha256 $(printf %s "$SHARED" | sha256sum | cut -d' ' -f1)"
          echo "repo only sha256 $(printf %s "$REPO_ONLY" | sha256sum | cut -d' ' -f1)"
  plain:
    runs-on: ubuntu-latest
    steps:
      - env:
          SHARED: ${{ secrets.SHARED }}
        run: echo "plain shared sha256 $(printf %s "$SHARED" | sha256sum | cut -d' ' -f1)"
`

// TestEnvironmentSecrets: the five operations on an environment's
// secrets through go-github, and a job in the environment seeing them
// over the repository's (a job outside it does not).
func TestEnvironmentSecrets(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.New(t, apitest.Options{ActionsWorker: []string{exe}})
	_, tok := e.NewUser("mona", false)
	_, otherTok := e.NewUser("hubot", false)
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateUpdateEnvironment(ctx, "mona", "app", "Production", nil); err != nil {
		t.Fatal(err)
	}
	// No such environment: 404.
	if _, _, err := gh.Actions.GetEnvPublicKey(ctx, "mona", "app", "staging"); status(err) != http.StatusNotFound {
		t.Fatalf("public key of a missing environment: %v", err)
	}
	key, _, err := gh.Actions.GetEnvPublicKey(ctx, "mona", "app", "Production")
	if err != nil || key.GetKeyID() == "" {
		t.Fatalf("environment public key: %v %+v", err, key)
	}
	rk, _, err := gh.Actions.GetRepoPublicKey(ctx, "mona", "app")
	if err != nil {
		t.Fatal(err)
	}
	if rk.GetKeyID() == key.GetKeyID() {
		t.Errorf("the environment shares the repository's key %s", key.GetKeyID())
	}
	resp, err := gh.Actions.CreateOrUpdateEnvSecret(ctx, "mona", "app", "Production", "shared", github.SecretRequest{KeyID: key.GetKeyID(), EncryptedValue: seal(t, key, "from-the-environment")})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v", err)
	}
	resp, err = gh.Actions.CreateOrUpdateEnvSecret(ctx, "mona", "app", "production", "SHARED", github.SecretRequest{KeyID: key.GetKeyID(), EncryptedValue: seal(t, key, "from-the-environment")})
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("update (environment names are case-insensitive): %v", err)
	}
	if _, err := gh.Actions.CreateOrUpdateEnvSecret(ctx, "mona", "app", "Production", "GONE", github.SecretRequest{KeyID: key.GetKeyID(), EncryptedValue: seal(t, key, "x")}); err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Actions.CreateOrUpdateEnvSecret(ctx, "mona", "app", "Production", "BAD", github.SecretRequest{KeyID: rk.GetKeyID(), EncryptedValue: seal(t, rk, "x")}); status(err) != http.StatusUnprocessableEntity {
		t.Errorf("a box sealed for the repository's key: %v", err)
	}
	list, _, err := gh.Actions.ListEnvSecrets(ctx, "mona", "app", "Production", &github.ListOptions{PerPage: 1})
	if err != nil || list.TotalCount != 2 || len(list.Secrets) != 1 || list.Secrets[0].Name != "GONE" {
		t.Fatalf("list: %v %+v", err, list)
	}
	s, _, err := gh.Actions.GetEnvSecret(ctx, "mona", "app", "Production", "shared")
	if err != nil || s.Name != "SHARED" {
		t.Fatalf("get: %v %+v", err, s)
	}
	if _, err := gh.Actions.DeleteEnvSecret(ctx, "mona", "app", "Production", "GONE"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Actions.GetEnvSecret(ctx, "mona", "app", "Production", "GONE"); status(err) != http.StatusNotFound {
		t.Errorf("deleted secret: %v", err)
	}
	// Another user may not see them.
	if _, _, err := e.GitHub(otherTok).Actions.ListEnvSecrets(ctx, "mona", "app", "Production", nil); status(err) != http.StatusNotFound && status(err) != http.StatusForbidden {
		t.Errorf("a stranger lists them: %v", err)
	}

	for name, v := range map[string]string{"SHARED": "from-the-repository", "REPO_ONLY": "repository-value"} {
		if _, err := gh.Actions.CreateOrUpdateRepoSecret(ctx, "mona", "app", name, github.SecretRequest{KeyID: rk.GetKeyID(), EncryptedValue: seal(t, rk, v)}); err != nil {
			t.Fatal(err)
		}
	}
	res, _, err := gh.Repositories.CreateFile(ctx, "mona", "app", ".github/workflows/deploy.yml", &github.RepositoryContentFileOptions{
		Message: github.Ptr("deploy"), Content: []byte(envWorkflow)})
	if err != nil {
		t.Fatal(err)
	}
	var run *github.WorkflowRun
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		runs, _, err := gh.Actions.ListRepositoryWorkflowRuns(ctx, "mona", "app", &github.ListWorkflowRunsOptions{HeadSHA: res.Commit.GetSHA()})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs.WorkflowRuns) > 0 && runs.WorkflowRuns[0].GetStatus() == "completed" {
			run = runs.WorkflowRuns[0]
			break
		}
	}
	if run == nil {
		t.Fatal("the run did not complete")
	}
	jobs, _, err := gh.Actions.ListWorkflowJobs(ctx, "mona", "app", run.GetID(), nil)
	if err != nil || len(jobs.Jobs) != 2 {
		t.Fatalf("jobs %+v: %v", jobs, err)
	}
	logs := ""
	for _, j := range jobs.Jobs {
		u, _, err := gh.Actions.GetWorkflowJobLogs(ctx, "mona", "app", j.GetID(), 0)
		if err != nil {
			t.Fatal(err)
		}
		r, err := http.Get(u.String())
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		logs += string(b)
	}
	if run.GetConclusion() != "success" {
		t.Fatalf("run %s:\n%s", run.GetConclusion(), logs)
	}
	for _, want := range []string{
		"Z shared sha256 " + sum("from-the-environment"),
		"repo only sha256 " + sum("repository-value"),
		"plain shared sha256 " + sum("from-the-repository"),
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
}
