package secrets_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

const echoWorkflow = `name: echo
on: push
jobs:
  echo:
    runs-on: ubuntu-latest
    steps:
      - id: h
        env:
          TOKEN: ${{ secrets.DEPLOY_KEY }}
          SHARED: ${{ secrets.SHARED }}
          ORG_ONLY: ${{ secrets.ORG_ONLY }}
          HIDDEN: ${{ secrets.HIDDEN }}
          MULTI: ${{ secrets.MULTI }}
        run: |
          echo "value is ${{ secrets.DEPLOY_KEY }} and $TOKEN"
          echo "digest=$(printf %s "$TOKEN" | sha256sum | cut -d' ' -f1)" >> "$GITHUB_OUTPUT"
          echo "token sha256 $(printf %s "$TOKEN" | sha256sum | cut -d' ' -f1)"
          echo "shared sha256 $(printf %s "$SHARED" | sha256sum | cut -d' ' -f1)"
          echo "org sha256 $(printf %s "$ORG_ONLY" | sha256sum | cut -d' ' -f1)"
          echo "hidden is [$HIDDEN]"
          echo "multi is $MULTI"
          echo "whole multi: $(printf %s "$MULTI" | tr '\n' ' ')"
          echo "base64 is $(printf %s "$TOKEN" | base64)"
`

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestJobSeesSecrets: a pushed workflow's job gets the secrets of its
// repository and those of its organization that it may use (the
// repository's winning a shared name), `${{ secrets.NAME }}` resolves
// them, and the job's log shows *** where a value was printed.
func TestJobSeesSecrets(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.New(t, apitest.Options{ActionsWorker: []string{exe}})
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	e.Must(http.StatusCreated, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	_, _, err = gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	const value = "s3cr3t-value-for-the-job"
	const multi = "first-line-of-it\nsecond-line-of-it"
	rk, _, err := gh.Actions.GetRepoPublicKey(ctx, "acme", "app")
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{"DEPLOY_KEY": value, "SHARED": "from-the-repository", "MULTI": multi} {
		if _, err := gh.Actions.CreateOrUpdateRepoSecret(ctx, "acme", "app", name, github.SecretRequest{KeyID: rk.GetKeyID(), EncryptedValue: seal(t, rk, v)}); err != nil {
			t.Fatal(err)
		}
	}
	ok, _, err := gh.Actions.GetOrgPublicKey(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	orgPut := func(name, v, vis string, ids []int64) {
		if _, err := gh.Actions.CreateOrUpdateOrgSecret(ctx, "acme", name, github.SecretOrgRequest{KeyID: ok.GetKeyID(), EncryptedValue: seal(t, ok, v), Visibility: vis, SelectedRepositoryIDs: ids}); err != nil {
			t.Fatal(err)
		}
	}
	orgPut("SHARED", "from-the-organization", "all", nil)
	orgPut("ORG_ONLY", "organization-wide-value", "all", nil)
	orgPut("HIDDEN", "for-private-repositories", "private", nil) // app is public
	// The agents' secrets are not Actions secrets.
	ak, _, _ := gh.Agents.GetRepoPublicKey(ctx, "acme", "app")
	if _, err := gh.Agents.CreateOrUpdateRepoSecret(ctx, "acme", "app", "HIDDEN", github.SecretRequest{KeyID: ak.GetKeyID(), EncryptedValue: seal(t, ak, "agents-only")}); err != nil {
		t.Fatal(err)
	}

	res, _, err := gh.Repositories.CreateFile(ctx, "acme", "app", ".github/workflows/echo.yml", &github.RepositoryContentFileOptions{
		Message: github.Ptr("echo a secret"), Content: []byte(echoWorkflow)})
	if err != nil {
		t.Fatal(err)
	}
	run, log := completedRun(t, gh, "acme", "app", res.Commit.GetSHA())
	if run.GetConclusion() != "success" {
		t.Fatalf("run %s:\n%s", run.GetConclusion(), log)
	}
	for _, want := range []string{
		"value is *** and ***",
		"token sha256 " + sum(value),
		"shared sha256 " + sum("from-the-repository"),
		"org sha256 " + sum("organization-wide-value"),
		"hidden is []",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	for _, secret := range []string{value, "from-the-repository", "organization-wide-value", "first-line-of-it", "second-line-of-it",
		strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(value)), "=")} {
		if strings.Contains(log, secret) {
			t.Errorf("the log shows %q:\n%s", secret, log)
		}
	}
}

// completedRun waits for the run of a commit to complete and reads its
// one job's log.
func completedRun(t *testing.T, gh *github.Client, owner, repo, head string) (*github.WorkflowRun, string) {
	t.Helper()
	run := waitCompleted(t, gh, owner, repo, head)
	jobs, _, err := gh.Actions.ListWorkflowJobs(ctx, owner, repo, run.GetID(), nil)
	if err != nil || len(jobs.Jobs) != 1 {
		t.Fatalf("jobs %+v: %v", jobs, err)
	}
	return run, jobLog(t, gh, owner, repo, jobs.Jobs[0].GetID())
}

// jobLog is a job's log, through the download URL its log operation gives.
func jobLog(t *testing.T, gh *github.Client, owner, repo string, id int64) string {
	t.Helper()
	u, _, err := gh.Actions.GetWorkflowJobLogs(ctx, owner, repo, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return string(b)
}

// TestSecretsOffDiskAndMasked: a step that writes a secret into every
// process's standard output it can reach through /proc (the worker's, the
// runner's) puts only *** into the log, and neither the runner's work
// root nor hubd's data directory holds the secret after the job (the
// spec travels in memory and the worker reads it from its standard
// input).
func TestSecretsOffDiskAndMasked(t *testing.T) {
	const value = "never-on-disk-4711-secret"
	e, gh := secretRepo(t, apitest.Options{}, value)
	wf := `name: fd
on: push
jobs:
  fd:
    runs-on: ubuntu-latest
    steps:
      - env:
          S: ${{ secrets.S }}
        run: |
          n=0
          for p in $(ps -eo pid=); do
            if [ -w /proc/$p/fd/1 ] && echo "through fd of $p: $S" > /proc/$p/fd/1; then n=$((n+1)); fi
          done 2>/dev/null
          echo "wrote to $n processes"
`
	res, _, err := gh.Repositories.CreateFile(ctx, "mona", "app", ".github/workflows/fd.yml", &github.RepositoryContentFileOptions{
		Message: github.Ptr("write a secret through /proc"), Content: []byte(wf)})
	if err != nil {
		t.Fatal(err)
	}
	run, log := completedRun(t, gh, "mona", "app", res.Commit.GetSHA())
	if run.GetConclusion() != "success" || !strings.Contains(log, "through fd of") || strings.Contains(log, "wrote to 0 processes") {
		t.Fatalf("run %s (no write through /proc?):\n%s", run.GetConclusion(), log)
	}
	if strings.Contains(log, value) || !strings.Contains(log, ": ***") {
		t.Fatalf("the secret is in the log:\n%s", log)
	}
	for _, root := range []string{e.RunnerWork, e.DataDir} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(value)) {
				t.Errorf("%s holds the secret", p)
			}
			return nil
		})
	}
}

// secretRepo starts hubd with a local runner (o.ActionsWorker is this
// test binary) and makes mona/app with the repository secret S = value.
func secretRepo(t *testing.T, o apitest.Options, value string) (*apitest.Env, *github.Client) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o.ActionsWorker = []string{exe}
	e := apitest.New(t, o)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	rk, _, err := gh.Actions.GetRepoPublicKey(ctx, "mona", "app")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gh.Actions.CreateOrUpdateRepoSecret(ctx, "mona", "app", "S", github.SecretRequest{KeyID: rk.GetKeyID(), EncryptedValue: seal(t, rk, value)}); err != nil {
		t.Fatal(err)
	}
	return e, gh
}
