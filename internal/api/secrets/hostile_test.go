package secrets_test

import (
	"bytes"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/sandbox"
)

// hostileWorkflow is what a user with write access to one repository
// pushes to reach beyond its job. DATA and DECOY are filled in.
const hostileWorkflow = `name: hostile
on: push
jobs:
  peek:
    runs-on: ubuntu-latest
    steps:
      - env:
          S: ${{ secrets.S }}
        run: |
          test -r DATA/hubd.db && echo "LE""AK database" || echo "no database"
          ls DATA/git 2>/dev/null | grep -q . && echo "LE""AK repositories" || echo "no repositories"
          cat DECOY 2>/dev/null && echo "LE""AK other job" || echo "no other job"
          cat /proc/*/environ 2>/dev/null | tr '\0' '\n' | grep -q HUBD_HOSTILE_MARKER && echo "LE""AK environ" || echo "no environ"
          touch /usr/hubd-hostile 2>/dev/null && echo "LE""AK wrote /usr" || echo "system read-only"
          touch DATA/hubd-hostile 2>/dev/null && echo "LE""AK wrote data" || echo "data unreachable"
          mkdir -p "$RUNNER_TEMP/r" && mount --bind / "$RUNNER_TEMP/r" 2>/dev/null && echo "LE""AK mounted" || echo "mount refused"
          unshare -U true 2>/dev/null && echo "LE""AK unshared" || echo "unshare refused"
          grep CapEff /proc/self/status
          echo "uid $(id -u)"
          setsid sh -c 'sleep 300; echo' HOSTILE_DAEMON >/dev/null 2>&1 </dev/null &
          echo "secret $S"
  bomb:
    runs-on: ubuntu-latest
    steps:
      - shell: sh
        run: |
          i=0
          while [ $i -lt 400 ]; do sleep 23.417 & i=$((i+1)); done
          echo "LE""AK forked $i"
  hog:
    runs-on: ubuntu-latest
    steps:
      - run: perl -e '$x = "a" x (1024*1024*1024); print "LE"."AK allocated\n"; sleep 5'
  fill:
    runs-on: ubuntu-latest
    steps:
      - run: |
          head -c 100M /dev/zero > /tmp/big || echo "tmp full"
          rm -f /tmp/big
          head -c 200M /dev/zero > big && echo "LE""AK filled"
`

// TestHostileWorkflow runs a workflow that tries, as a hostile user
// would, to read hubd's database and repositories, another job's
// directory and hubd's environment, to write outside its work directory,
// to mount and make namespaces, to fork, allocate and write without end,
// and to leave a daemon behind: each is refused or contained, the job runs
// as the runner's user without capabilities, and the repository's secret
// appears in no log.
func TestHostileWorkflow(t *testing.T) {
	t.Setenv("HUBD_HOSTILE_MARKER", "hubd's own environment")
	const value = "hostile-4242-secret-value"
	e, gh := secretRepo(t, apitest.Options{JobLimits: sandbox.Limits{Processes: 64, MemoryBytes: 512 << 20, DiskBytes: 64 << 20, TmpBytes: 32 << 20}}, value)
	// Another job's directory on the same runner.
	runnerRoots, err := filepath.Glob(filepath.Join(e.RunnerWork, "*"))
	if err != nil || len(runnerRoots) != 1 {
		t.Fatalf("runner work roots %v: %v", runnerRoots, err)
	}
	decoy := filepath.Join(runnerRoots[0], "job-999-other", "secret.txt")
	if err := os.MkdirAll(filepath.Dir(decoy), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(decoy, []byte("LEAK another job's file"), 0o644); err != nil {
		t.Fatal(err)
	}
	wf := strings.NewReplacer("DATA", e.DataDir, "DECOY", decoy).Replace(hostileWorkflow)
	res, _, err := gh.Repositories.CreateFile(ctx, "mona", "app", ".github/workflows/hostile.yml", &github.RepositoryContentFileOptions{
		Message: github.Ptr("hostile"), Content: []byte(wf)})
	if err != nil {
		t.Fatal(err)
	}
	run := waitCompleted(t, gh, "mona", "app", res.Commit.GetSHA())
	jobs, _, err := gh.Actions.ListWorkflowJobs(ctx, "mona", "app", run.GetID(), nil)
	if err != nil || len(jobs.Jobs) != 4 {
		t.Fatalf("jobs %+v: %v", jobs, err)
	}
	logs, conclusions := map[string]string{}, map[string]string{}
	for _, j := range jobs.Jobs {
		logs[j.GetName()], conclusions[j.GetName()] = jobLog(t, gh, "mona", "app", j.GetID()), j.GetConclusion()
	}
	for name, log := range logs {
		if strings.Contains(log, "LEAK") || strings.Contains(log, value) {
			t.Errorf("job %s reached beyond its sandbox or showed the secret:\n%s", name, log)
		}
	}
	runner, err := user.Lookup(apitest.RunnerUser)
	if os.Geteuid() == 0 && err != nil {
		t.Fatal(err)
	}
	peek := logs["peek"]
	want := []string{"Sandbox: bubblewrap", "no database", "no repositories", "no other job", "no environ", "system read-only", "data unreachable",
		"mount refused", "unshare refused", "CapEff:\t0000000000000000", "secret ***"}
	if os.Geteuid() == 0 {
		want = append(want, "uid "+runner.Uid)
	}
	for _, w := range want {
		if !strings.Contains(peek, w) {
			t.Errorf("no %q in the peek job's log:\n%s", w, peek)
		}
	}
	if conclusions["peek"] != "success" {
		t.Errorf("peek: %s", conclusions["peek"])
	}
	// The limits: each job over one failed, contained.
	for name, signs := range map[string][]string{
		"bomb": {"Cannot fork", "Resource temporarily unavailable", "process limit"},
		"hog":  {"Out of memory", "memory limit"},
		"fill": {"File size limit exceeded", "disk limit"},
	} {
		if conclusions[name] != "failure" {
			t.Errorf("%s: %s, want failure:\n%s", name, conclusions[name], logs[name])
		}
		found := false
		for _, s := range signs {
			found = found || strings.Contains(logs[name], s)
		}
		if !found {
			t.Errorf("the %s job's log names none of %q:\n%s", name, signs, logs[name])
		}
	}
	if !strings.Contains(logs["fill"], "tmp full") {
		t.Errorf("the job's /tmp was not size-limited:\n%s", logs["fill"])
	}
	// Nothing outlives the run: no process, no file, no job directory.
	for _, p := range []string{"/usr/hubd-hostile", filepath.Join(e.DataDir, "hubd-hostile")} {
		if _, err := os.Stat(p); err == nil {
			os.Remove(p)
			t.Errorf("the job wrote %s", p)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		left := hostProcesses(t, "HOSTILE_DAEMON", "23.417")
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the job outlived it: %q", left)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(runnerRoots[0], "job-*")); len(left) != 1 || left[0] != filepath.Dir(decoy) {
		t.Errorf("job directories left: %q", left)
	}
}

// waitCompleted waits for the run of head in owner/repo to complete.
func waitCompleted(t *testing.T, gh *github.Client, owner, repo, head string) *github.WorkflowRun {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		runs, _, err := gh.Actions.ListRepositoryWorkflowRuns(ctx, owner, repo, &github.ListWorkflowRunsOptions{HeadSHA: head})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs.WorkflowRuns) > 0 && runs.WorkflowRuns[0].GetStatus() == "completed" {
			return runs.WorkflowRuns[0]
		}
	}
	t.Fatal("the run did not complete")
	return nil
}

// hostProcesses are the command lines of this machine's processes holding
// any of marks.
func hostProcesses(t *testing.T, marks ...string) []string {
	t.Helper()
	list, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range list {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, m := range marks {
			if bytes.Contains(b, []byte(m)) {
				out = append(out, string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
				break
			}
		}
	}
	return out
}
