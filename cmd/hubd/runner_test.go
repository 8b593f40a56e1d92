package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/actions"
	"github.com/hubd/hubd/internal/runner"
)

// runnerFixture is a `hubd serve` with a user mona, her token and her
// repository mona/ci.
type runnerFixture struct {
	t     *testing.T
	c     *cli
	s     *running
	token string
}

func newRunnerFixture(t *testing.T, serveArgs ...string) *runnerFixture {
	c := newCLI(t)
	c.ok("user", "create", "--login", "mona")
	f := &runnerFixture{t: t, c: c, token: strings.TrimSpace(c.ok("token", "create", "--user", "mona", "--scopes", "repo,workflow"))}
	f.s = c.serve(serveArgs...)
	if st, _, _ := f.s.do(t, "POST", "/api/v3/user/repos", f.token, `{"name":"ci","auto_init":true}`); st != 201 {
		t.Fatalf("create repository: %d", st)
	}
	return f
}

// json calls the API and decodes its answer into out.
func (f *runnerFixture) json(method, path, body string, out any) int {
	f.t.Helper()
	req, _ := http.NewRequest(method, f.s.base+"/api/v3"+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+f.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil {
		if s, ok := out.(*string); ok {
			*s = string(b)
		} else {
			json.Unmarshal(b, out)
		}
	}
	return resp.StatusCode
}

// workflow adds a workflow file on main: a push run starts.
func (f *runnerFixture) workflow(name, text string) {
	f.t.Helper()
	body, _ := json.Marshal(map[string]string{"message": "add " + name, "content": base64.StdEncoding.EncodeToString([]byte(text))})
	if st := f.json("PUT", "/repos/mona/ci/contents/.github/workflows/"+name, string(body), nil); st != 201 {
		f.t.Fatalf("add workflow %s: %d", name, st)
	}
}

type jobView struct {
	ID         int64  `json:"id"`
	Status     string `json:"status"`
	Conclusion string `json:"conclusion"`
	RunnerName string `json:"runner_name"`
}

// job waits until the job of the run of workflow name satisfies ok.
func (f *runnerFixture) job(name string, within time.Duration, ok func(jobView, string) bool) (jobView, string) {
	f.t.Helper()
	var j jobView
	log := ""
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var runs struct {
			Runs []struct {
				ID   int64  `json:"id"`
				Path string `json:"path"`
			} `json:"workflow_runs"`
		}
		f.json("GET", "/repos/mona/ci/actions/runs", "", &runs)
		for _, r := range runs.Runs {
			if r.Path != ".github/workflows/"+name {
				continue
			}
			var jobs struct {
				Jobs []jobView `json:"jobs"`
			}
			f.json("GET", fmt.Sprintf("/repos/mona/ci/actions/runs/%d/jobs", r.ID), "", &jobs)
			if len(jobs.Jobs) == 1 {
				j = jobs.Jobs[0]
				log = ""
				f.json("GET", fmt.Sprintf("/repos/mona/ci/actions/jobs/%d/logs", j.ID), "", &log)
				if ok(j, log) {
					return j, log
				}
			}
		}
	}
	f.t.Fatalf("job of %s: %+v, log:\n%s", name, j, log)
	return j, log
}

// tokenOf reads the token a job printed reversed (the log masks it as
// it is; the step's script is in the log too).
func tokenOf(log string) string {
	for _, l := range strings.Split(log, "\n") {
		if _, rev, ok := strings.Cut(l, "reversed token: "); ok && !strings.Contains(rev, "$(") {
			b := []rune(strings.TrimSpace(rev))
			for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
				b[i], b[j] = b[j], b[i]
			}
			return string(b)
		}
	}
	return ""
}

// tokenStatus is what the API answers a job's token.
func (f *runnerFixture) tokenStatus(tok string) int {
	req, _ := http.NewRequest("GET", f.s.base+"/api/v3/repos/mona/ci", nil)
	req.Header.Set("Authorization", "token "+tok)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// runnerUser is the user runners started by hand run as: the tests run as
// root and jobs never do.
func runnerUser(t *testing.T) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("the runner tests start `hubd runner` as another user: they run as root (as in CI)")
	}
	cred, err := lookupCredential(defaultRunnerUser)
	if err != nil {
		t.Fatalf("%s: %v (scripts/deps.sh creates it)", defaultRunnerUser, err)
	}
	return cred
}

// startRunner starts `hubd runner` (this test binary, copied where the
// runner user may run it) as that user.
func startRunner(t *testing.T, cred *syscall.Credential, exe, work string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := runnerCommand(cred, exe, work, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() })
	return cmd
}

// runnerCommand is `hubd runner` as the runner user.
func runnerCommand(cred *syscall.Credential, exe, work string, args ...string) *exec.Cmd {
	cmd := exec.Command(exe, append([]string{"runner", "--work", work}, args...)...)
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + work, "LANG=C.UTF-8"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
	return cmd
}

// installed copies this test binary where every user may run it.
func installed(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err == nil {
		exe, err = runner.InstallWorker(exe, "")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(exe)) })
	return exe
}

// ownedDir is a directory the runner user owns, outside the test's
// private temporary directory.
func ownedDir(t *testing.T, cred *syscall.Credential) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hubd-runner-test-")
	if err == nil {
		err = os.Chown(dir, int(cred.Uid), int(cred.Gid))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// jobDirs are the job directories under a runner's work root.
func jobDirs(t *testing.T, work string) []string {
	m, _ := filepath.Glob(filepath.Join(work, "job-*"))
	m2, _ := filepath.Glob(filepath.Join(work, "*", "job-*"))
	return append(m, m2...)
}

// TestRunnerByHand: `hubd runner` started by hand as another user with a
// repository's registration token shows online, takes a job (busy while
// it runs), runs it end to end and leaves nothing in its work root. Then
// the runner is SIGKILLed mid-job: the job fails with GitHub's
// lost-communication message once the runner is silent for
// --runner-offline, and its token stops working; a new runner start
// removes what the dead one left.
func TestRunnerByHand(t *testing.T) {
	cred := runnerUser(t)
	f := newRunnerFixture(t, "--actions-workers", "0", "--runner-offline", "3s")
	var reg struct {
		Token string `json:"token"`
	}
	if st := f.json("POST", "/repos/mona/ci/actions/runners/registration-token", "", &reg); st != 201 || reg.Token == "" {
		t.Fatalf("registration token: %d", st)
	}
	exe, work := installed(t), ownedDir(t, cred)
	r := startRunner(t, cred, exe, work, "--url", f.s.base, "--token", reg.Token, "--name", "by-hand", "--labels", "self-hosted,Linux,X64,hand")
	type runnerView struct {
		Name   string `json:"name"`
		Status string `json:"status"`
		Busy   bool   `json:"busy"`
	}
	runnerState := func() runnerView {
		var list struct {
			Runners []runnerView `json:"runners"`
		}
		f.json("GET", "/repos/mona/ci/actions/runners", "", &list)
		if len(list.Runners) != 1 {
			return runnerView{}
		}
		return list.Runners[0]
	}
	for deadline := time.Now().Add(20 * time.Second); runnerState().Status != "online"; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("runner %+v, want online", runnerState())
		}
	}
	f.workflow("hand.yml", "name: hand\non: push\njobs:\n  build:\n    runs-on: [self-hosted, hand]\n    steps:\n"+
		"      - run: echo \"runs as $(id -un) in $PWD\"; sleep 2\n")
	f.job("hand.yml", 30*time.Second, func(j jobView, _ string) bool { return j.Status == "in_progress" })
	if st := runnerState(); !st.Busy || st.Status != "online" || st.Name != "by-hand" {
		t.Errorf("runner while its job runs: %+v", st)
	}
	j, log := f.job("hand.yml", 30*time.Second, func(j jobView, _ string) bool { return j.Status == "completed" })
	if j.Conclusion != "success" || j.RunnerName != "by-hand" || !strings.Contains(log, "runs as "+defaultRunnerUser+" in "+work) {
		t.Fatalf("job %+v, log:\n%s", j, log)
	}
	if st := runnerState(); st.Busy {
		t.Errorf("runner after its job: %+v", st)
	}
	if d := jobDirs(t, work); len(d) > 0 {
		t.Errorf("left behind: %v", d)
	}

	// SIGKILL the runner mid-job.
	f.workflow("killed.yml", "name: killed\non: push\njobs:\n  nap:\n    runs-on: [self-hosted, hand]\n    steps:\n"+
		"      - run: |\n          echo \"reversed token: $(printf %s '${{ github.token }}' | rev)\"\n          sleep 300\n")
	_, log = f.job("killed.yml", 30*time.Second, func(j jobView, log string) bool { return tokenOf(log) != "" })
	tok := tokenOf(log)
	if st := f.tokenStatus(tok); st != 200 {
		t.Fatalf("the running job's token: %d", st)
	}
	killed := time.Now()
	syscall.Kill(-r.Process.Pid, syscall.SIGKILL)
	r.Wait()
	j, log = f.job("killed.yml", 60*time.Second, func(j jobView, _ string) bool { return j.Status == "completed" })
	want := actions.LostCommunication("by-hand")
	if j.Conclusion != "failure" || !strings.Contains(log, want) {
		t.Fatalf("job %+v after its runner died, log:\n%s", j, log)
	}
	t.Logf("the job failed %v after its runner was killed", time.Since(killed).Round(100*time.Millisecond))
	if st := f.tokenStatus(tok); st != 401 {
		t.Errorf("the failed job's token: %d, want 401", st)
	}
	// A runner started again on the work root removes the dead one's job.
	startRunner(t, cred, exe, work, "--url", f.s.base, "--token", reg.Token, "--name", "by-hand", "--labels", "self-hosted,hand")
	for deadline := time.Now().Add(20 * time.Second); len(jobDirs(t, work)) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("left behind: %v", jobDirs(t, work))
		}
	}
}

// marked lists the processes whose command line holds marker.
func marked(marker string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range dirs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), marker) {
			out = append(out, p)
		}
	}
	return out
}

// TestServeKilledMidJob: hubd serve is SIGKILLed while its local runner
// (a child running as the runner user) runs a job. None of the job's
// processes survive; after the restart the job is failed, its token
// answers 401 and its work directory is gone.
func TestServeKilledMidJob(t *testing.T) {
	work := filepath.Join(ownedDir(t, runnerUser(t)), "runners")
	f := newRunnerFixture(t, "--actions-workers", "1", "--runner-work", work)
	f.workflow("nap.yml", "name: nap\non: push\njobs:\n  nap:\n    runs-on: ubuntu-latest\n    steps:\n"+
		"      - run: |\n          echo \"reversed token: $(printf %s '${{ github.token }}' | rev)\"\n          echo \"runs as $(id -un)\"\n          sleep 3217\n")
	_, log := f.job("nap.yml", 30*time.Second, func(j jobView, log string) bool { return tokenOf(log) != "" && strings.Contains(log, "Z runs as ") })
	tok := tokenOf(log)
	if !strings.Contains(log, "runs as "+defaultRunnerUser) {
		t.Errorf("the job does not run as %s:\n%s", defaultRunnerUser, log)
	}
	if len(marked("sleep 3217")) == 0 || len(jobDirs(t, work)) == 0 {
		t.Fatalf("the job runs nowhere: processes %v, directories %v", marked("sleep 3217"), jobDirs(t, work))
	}
	if st := f.tokenStatus(tok); st != 200 {
		t.Fatalf("the running job's token: %d", st)
	}
	f.s.cmd.Process.Kill()
	f.s.cmd.Wait()
	for deadline := time.Now().Add(10 * time.Second); len(marked("sleep 3217")) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the job's processes outlive hubd: %v", marked("sleep 3217"))
		}
	}
	f.s = f.c.serve("--actions-workers", "1", "--runner-work", work)
	if st := f.tokenStatus(tok); st != 401 {
		t.Errorf("the job's token after the restart: %d, want 401", st)
	}
	j, log := f.job("nap.yml", 10*time.Second, func(j jobView, _ string) bool { return j.Status == "completed" })
	if j.Conclusion != "failure" || !strings.Contains(log, "its hubd process ended") {
		t.Errorf("job %+v after the restart, log:\n%s", j, log)
	}
	for deadline := time.Now().Add(10 * time.Second); len(jobDirs(t, work)) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("left behind: %v", jobDirs(t, work))
		}
	}
}

// TestServeKilledRemoteRunner: hubd serve is SIGKILLed while a runner
// started by hand (which hubd's death does not kill) runs a job. At the
// restart the job is failed at once — its credential lived in the dead
// process, so no runner could finish it — not a lease later, its token
// answers 401, and the runner, refused at its next heartbeat, kills the
// job and removes its directory.
func TestServeKilledRemoteRunner(t *testing.T) {
	cred := runnerUser(t)
	f := newRunnerFixture(t, "--actions-workers", "0")
	var reg struct {
		Token string `json:"token"`
	}
	if st := f.json("POST", "/repos/mona/ci/actions/runners/registration-token", "", &reg); st != 201 || reg.Token == "" {
		t.Fatalf("registration token: %d", st)
	}
	exe, work := installed(t), ownedDir(t, cred)
	startRunner(t, cred, exe, work, "--url", f.s.base, "--token", reg.Token, "--name", "remote", "--labels", "self-hosted,Linux,X64,remote")
	f.workflow("far.yml", "name: far\non: push\njobs:\n  nap:\n    runs-on: [self-hosted, remote]\n    steps:\n"+
		"      - run: |\n          echo \"reversed token: $(printf %s '${{ github.token }}' | rev)\"\n          sleep 3221\n")
	_, log := f.job("far.yml", 30*time.Second, func(j jobView, log string) bool { return tokenOf(log) != "" })
	tok := tokenOf(log)
	if st := f.tokenStatus(tok); st != 200 {
		t.Fatalf("the running job's token: %d", st)
	}
	addr := strings.TrimPrefix(f.s.base, "http://")
	f.s.cmd.Process.Kill()
	f.s.cmd.Wait()
	if len(marked("sleep 3221")) == 0 {
		t.Fatal("the remote runner's job died with hubd: the test shows nothing")
	}
	f.s = f.c.serve("--actions-workers", "0", "--addr", addr) // where the runner looks for it
	// Well within the minute a lease would take.
	j, log := f.job("far.yml", 15*time.Second, func(j jobView, _ string) bool { return j.Status == "completed" })
	if j.Conclusion != "failure" || !strings.Contains(log, "its hubd process ended") {
		t.Errorf("job %+v after the restart, log:\n%s", j, log)
	}
	if st := f.tokenStatus(tok); st != 401 {
		t.Errorf("the job's token after the restart: %d, want 401", st)
	}
	for deadline := time.Now().Add(15 * time.Second); len(marked("sleep 3221")) > 0 || len(jobDirs(t, work)) > 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the runner kept the dead hubd's job: processes %v, directories %v", marked("sleep 3221"), jobDirs(t, work))
		}
	}
}
