package actions_test

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
	"github.com/hubd/hubd/internal/runner"
)

// pushRepo creates the repository name of mona with files on main, tagged
// tag, through git.
func (f *fixture) pushRepo(t *testing.T, name string, private bool, files map[string]string, tag string) {
	t.Helper()
	if _, _, err := f.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr(name), Private: github.Ptr(private)}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=Mona", "-c", "user.email=mona@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_ASKPASS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	for p, c := range files {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	u, _ := url.Parse(f.e.URL + "/mona/" + name + ".git")
	u.User = url.UserPassword("mona", f.token)
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "action")
	git("tag", tag)
	git("push", "-q", u.String(), "HEAD:refs/heads/main", "refs/tags/"+tag)
}

const usesWorkflow = `name: Uses
on: push
jobs:
  js:
    runs-on: ubuntu-latest
    steps:
      - id: hello
        uses: mona/tools/hello@v1
        with:
          who: hubd
      - run: echo "said ${{ steps.hello.outputs.said }}"
  composite:
    runs-on: ubuntu-latest
    steps:
      - uses: mona/tools@v1
        with:
          n: "7"
  private:
    runs-on: ubuntu-latest
    steps:
      - uses: mona/secret-tools@main
  missing:
    runs-on: ubuntu-latest
    steps:
      - run: echo never
      - uses: mona/nothing@v1
  badref:
    runs-on: ubuntu-latest
    steps:
      - uses: mona/tools@v9
  dockerimage:
    runs-on: ubuntu-latest
    steps:
      - uses: docker://alpine:3
  dockeraction:
    runs-on: ubuntu-latest
    steps:
      - uses: mona/tools/docker@v1
  container:
    runs-on: ubuntu-latest
    container: node:20
    steps:
      - run: echo never
  services:
    runs-on: ubuntu-latest
    services:
      db:
        image: postgres
    steps:
      - run: echo never
`

var toolFiles = map[string]string{
	// A JavaScript action in a subdirectory, with an input and an output.
	"hello/action.yml": "name: Hello\ninputs:\n  who:\n    required: true\noutputs:\n  said:\n    description: what\nruns:\n  using: node20\n  main: index.js\n",
	"hello/index.js": `const fs = require('fs');
const who = process.env['INPUT_WHO'];
console.log('hello ' + who + ' from a JS action');
fs.appendFileSync(process.env['GITHUB_OUTPUT'], 'said=hi-' + who + '\n');
`,
	// A composite action at the root that uses the JS action itself.
	"action.yml": `name: Composite
inputs:
  n:
    default: "1"
runs:
  using: composite
  steps:
    - run: echo "composite n=${{ inputs.n }}"
      shell: bash
    - uses: mona/tools/hello@v1
      with:
        who: nested
`,
	"docker/action.yml": "name: D\nruns:\n  using: docker\n  image: Dockerfile\n",
	"docker/Dockerfile": "FROM alpine\n",
}

// uses: owner/repo@ref comes from hubd's repositories: a JavaScript action
// in a subdirectory and a composite action (using it in turn) of another
// repository run; a missing repository or ref, an unreadable private
// repository of another owner, Docker actions, container: and services:
// fail their job with GitHub's message before any step runs.
func TestRemoteActions(t *testing.T) {
	f := newFixture(t)
	f.pushRepo(t, "tools", false, toolFiles, "v1")
	// Another user's private repository is not the job's to use.
	_, hubot := f.e.NewUser("hubot", false)
	other := f.e.GitHub(hubot)
	if _, _, err := other.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret-tools"), Private: github.Ptr(true), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	wf := strings.Replace(usesWorkflow, "mona/secret-tools@main", "hubot/secret-tools@main", 1)
	head := f.push(t, "uses", map[string]string{".github/workflows/uses.yml": wf})
	run := f.waitRun(t, head, true)
	jobs := f.jobs(t, run.GetID())
	for name, c := range map[string]struct{ concl, log string }{
		"js":           {"success", "said hi-hubd"},
		"composite":    {"success", "hello nested from a JS action"},
		"private":      {"failure", "Unable to resolve action `hubot/secret-tools@main`, repository not found"},
		"missing":      {"failure", "Unable to resolve action `mona/nothing@v1`, repository not found"},
		"badref":       {"failure", "Unable to resolve action `mona/tools@v9`, unable to find version `v9`"},
		"dockerimage":  {"failure", "uses the Docker image `docker://alpine:3`: hubd runs jobs on its host without containers"},
		"dockeraction": {"failure", "The action `mona/tools/docker@v1` is a Docker container action"},
		"container":    {"failure", "This job uses `container:`"},
		"services":     {"failure", "This job uses `services:`"},
	} {
		j := jobs[name]
		if j == nil {
			t.Errorf("no job %s", name)
			continue
		}
		log := f.jobLog(t, j.GetID())
		if j.GetConclusion() != c.concl || !strings.Contains(log, c.log) {
			t.Errorf("job %s: %s, want %s with %q:\n%s", name, j.GetConclusion(), c.concl, c.log, log)
		}
		if c.concl == "failure" && strings.Contains(log, "never") {
			t.Errorf("job %s ran a step:\n%s", name, log)
		}
	}
	if log := f.jobLog(t, jobs["composite"].GetID()); !strings.Contains(log, "composite n=7") {
		t.Errorf("composite log:\n%s", log)
	}
}

const skipWorkflow = `name: Skips
on: push
jobs:
  gated:
    if: ${{ github.event_name == 'schedule' }}
    runs-on: ubuntu-latest
    steps:
      - run: echo never
  boom:
    runs-on: ubuntu-latest
    steps:
      - run: exit 1
  after:
    needs: boom
    runs-on: ubuntu-latest
    steps:
      - run: echo never
`

// Skipped jobs, by their if: or because a need failed, are check runs of
// the commit with conclusion skipped, as on GitHub.
func TestSkippedJobsChecks(t *testing.T) {
	f := newFixture(t)
	head := f.push(t, "skips", map[string]string{".github/workflows/skips.yml": skipWorkflow})
	run := f.waitRun(t, head, true)
	jobs := f.jobs(t, run.GetID())
	checks, _, err := f.gh.Checks.ListCheckRunsForRef(ctx, "mona", "app", head, nil)
	if err != nil || checks.GetTotal() != 3 {
		t.Fatalf("check runs %+v %v", checks, err)
	}
	want := map[string]string{"gated": "skipped", "boom": "failure", "after": "skipped"}
	for _, c := range checks.CheckRuns {
		j := jobs[c.GetName()]
		if j == nil || c.GetStatus() != "completed" || c.GetConclusion() != want[c.GetName()] || j.GetConclusion() != want[c.GetName()] ||
			j.GetCheckRunURL() != c.GetURL() || c.GetCheckSuite().GetID() != run.GetCheckSuiteID() || c.GetID() != j.GetID() {
			t.Errorf("check run %s: %s %s (job %+v)", c.GetName(), c.GetStatus(), c.GetConclusion(), j)
		}
	}
	// The jobs' tokens are the GitHub Actions app's, which belongs to the
	// system organization "github" (not to the first repository's owner).
	app, _, err := f.gh.Apps.Get(ctx, "github-actions")
	if err != nil || app.GetOwner().GetLogin() != "github" || app.GetOwner().GetType() != "Organization" || app.GetName() != "GitHub Actions" {
		t.Fatalf("app %+v %v", app, err)
	}
	if _, _, err := f.gh.Organizations.Get(ctx, "github"); err != nil {
		t.Fatal(err)
	}
	// The run list's total (a counter of the repository's runs) follows
	// a deletion.
	if runs, _, err := f.gh.Actions.ListRepositoryWorkflowRuns(ctx, "mona", "app", nil); err != nil || runs.GetTotalCount() != 1 || len(runs.WorkflowRuns) != 1 ||
		runs.WorkflowRuns[0].GetRepository().GetFullName() != "mona/app" || runs.WorkflowRuns[0].GetHeadRepository().GetFullName() != "mona/app" {
		t.Fatalf("runs %+v %v", runs, err)
	}
	if _, err := f.gh.Actions.DeleteWorkflowRun(ctx, "mona", "app", run.GetID()); err != nil {
		t.Fatal(err)
	}
	if runs, _, err := f.gh.Actions.ListRepositoryWorkflowRuns(ctx, "mona", "app", nil); err != nil || runs.GetTotalCount() != 0 || len(runs.WorkflowRuns) != 0 {
		t.Fatalf("runs after deletion %+v %v", runs, err)
	}
}

var stampedLine = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z `)

// A running job's log is there while it runs: the job log operation
// answers what the job wrote so far, each line timestamped as GitHub's;
// the job's steps show as they start.
func TestLogStreaming(t *testing.T) {
	f := newFixture(t)
	head := f.push(t, "stream", map[string]string{
		".github/workflows/stream.yml": "name: Stream\non: push\njobs:\n  talk:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo first-words; sleep 120\n",
	})
	run := f.waitRun(t, head, false)
	var job *github.WorkflowJob
	var log string
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if job = f.jobs(t, run.GetID())["talk"]; job.GetStatus() == "in_progress" {
			if log = f.jobLog(t, job.GetID()); strings.Contains(log, "first-words") {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if job.GetStatus() != "in_progress" || !strings.Contains(log, "first-words") {
		t.Fatalf("job %s, log so far:\n%s", job.GetStatus(), log)
	}
	for _, l := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		if !stampedLine.MatchString(l) {
			t.Errorf("line without GitHub's timestamp: %q", l)
		}
	}
	// Its steps show while it runs: the sleeping one in progress.
	running := func() bool {
		for _, st := range f.jobs(t, run.GetID())["talk"].Steps {
			if st.GetStatus() == "in_progress" && strings.Contains(st.GetName(), "sleep 120") {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(10 * time.Second); !running(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("steps of the running job: %+v", f.jobs(t, run.GetID())["talk"].Steps)
		}
	}
	if _, err := f.gh.Actions.CancelWorkflowRunByID(ctx, "mona", "app", run.GetID()); err != nil {
		if _, ok := err.(*github.AcceptedError); !ok {
			t.Fatal(err)
		}
	}
	f.waitRun(t, head, true)
	// The worker stores the log just after the cancellation completed the job.
	final := ""
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if final = f.jobLog(t, job.GetID()); strings.Contains(final, "The operation was canceled.") {
			break
		}
	}
	if !strings.HasPrefix(final, log[:strings.Index(log, "first-words")]) || !strings.Contains(final, "The operation was canceled.") {
		t.Errorf("final log:\n%s", final)
	}
}

// Under bubblewrap a job cannot read hubd's data directory (its database
// file, the repositories), cannot write the system, writes its workspace
// and a /tmp of its own, and reaches hubd's API.
func TestSandbox(t *testing.T) {
	if _, err := runner.CheckSandbox(runner.SandboxAuto); err != nil {
		t.Fatalf("%v (scripts/deps.sh installs bubblewrap)", err)
	}
	f := newFixture(t)
	db := filepath.Join(f.e.DataDir, "hubd.db")
	if err := os.WriteFile(db, []byte("SECRET-DATABASE-CONTENT"), 0o600); err != nil {
		t.Fatal(err)
	}
	wf := `name: Box
on: push
jobs:
  poke:
    runs-on: ubuntu-latest
    steps:
      - run: |
          cat ` + db + ` || echo "no database"
          ls ` + filepath.Join(f.e.DataDir, "git") + ` || echo "no repositories"
          touch /usr/hubd-was-here || echo "system read-only"
          echo hi > /tmp/mine && cat /tmp/mine
          echo kept > kept.txt && cat kept.txt
          curl -sS -o /dev/null -w "api %{http_code}\n" "$GITHUB_API_URL/repos/$GITHUB_REPOSITORY"
`
	head := f.push(t, "box", map[string]string{".github/workflows/box.yml": wf})
	run := f.waitRun(t, head, true)
	log := f.jobLog(t, f.jobs(t, run.GetID())["poke"].GetID())
	for _, want := range []string{"Sandbox: bubblewrap", "no database", "no repositories", "system read-only", "hi", "kept", "api 200"} {
		if !strings.Contains(log, want) {
			t.Errorf("no %q in the log:\n%s", want, log)
		}
	}
	if strings.Contains(log, "SECRET-DATABASE-CONTENT") || run.GetConclusion() != "success" {
		t.Fatalf("run %s, log:\n%s", run.GetConclusion(), log)
	}
	if _, err := os.Stat("/usr/hubd-was-here"); err == nil {
		os.Remove("/usr/hubd-was-here")
		t.Fatal("the job wrote /usr")
	}
}
