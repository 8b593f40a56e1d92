package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The hostile suite runs as whoever runs the tests (root here) and, through
// TestHostileUnprivileged, again as the unprivileged user a runner runs as.

// cgroupEnv carries the delegated cgroup to the unprivileged run.
const cgroupEnv = "HUBD_SANDBOX_TEST_CGROUP"

// fixture is a data directory the job may not see (a database, a secrets
// key, another repository, another job) with the job's work directory
// inside it, as hubd lays them out.
type fixture struct {
	data, work, other string
	cgroup            string // delegated cgroup, "" when none
}

const secret = "TOP-SECRET-7f3a"

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{data: filepath.Join(root, "data")}
	f.work = filepath.Join(f.data, "actions", "job-1")
	f.other = filepath.Join(f.data, "actions", "job-2")
	for path, body := range map[string]string{
		"hubd.db":                 secret,
		"secrets.key":             secret,
		"git/1/2.git/config":      secret,
		"actions/job-2/spec.json": secret,
		"actions/job-1/.keep":     "",
	} {
		p := filepath.Join(f.data, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f.cgroup = os.Getenv(cgroupEnv)
	if f.cgroup == "" && os.Geteuid() == 0 {
		root, err := Delegate(0, 0, fmt.Sprintf("test-%d-%d", os.Getpid(), time.Now().UnixNano()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := Undelegate(root); err != nil {
				t.Error(err)
			}
		})
		f.cgroup = root
	}
	return f
}

func (f *fixture) config() Config {
	return Config{WorkDir: f.work, Hide: []string{f.data}, CgroupRoot: f.cgroup,
		Limits: Limits{Processes: 64, MemoryBytes: 256 << 20, DiskBytes: 64 << 20, TmpBytes: 8 << 20}}
}

// run runs a bash script in the sandbox cfg describes and returns how it
// ended and what it wrote.
func run(t *testing.T, cfg Config, script string, env ...string) (Exit, string) {
	t.Helper()
	var out bytes.Buffer
	env = append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + cfg.WorkDir, "LANG=C.UTF-8"}, env...)
	p, err := Start(context.Background(), cfg, []string{"/bin/bash", "-c", script}, env, nil, &out, &out, nil)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return ex, out.String()
}

func TestHostile(t *testing.T) {
	f := newFixture(t)
	cfg := f.config()

	t.Run("hidden data", func(t *testing.T) {
		// The data directory named through a link: hidden all the same.
		link := filepath.Join(filepath.Dir(f.data), "link")
		if err := os.Symlink(f.data, link); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(link)
		cfg := cfg
		cfg.Hide = []string{link}
		_, out := run(t, cfg, fmt.Sprintf(`
cat %[1]s/hubd.db %[1]s/secrets.key %[1]s/git/1/2.git/config %[2]s/spec.json 2>/dev/null
ls -A %[1]s %[1]s/actions
find %[1]s; echo listed`, f.data, f.other))
		if strings.Contains(out, secret) || strings.Contains(out, "secrets.key\n") || strings.Contains(out, "/git") || strings.Contains(out, "job-2\n") || !strings.Contains(out, "listed") {
			t.Fatalf("the job saw hidden data:\n%s", out)
		}
	})

	t.Run("host sockets", func(t *testing.T) {
		// /run/postgresql, /run/dbus, /run/docker.sock: a socket on a
		// read-only file system still accepts connections.
		_, out := run(t, cfg, `ls -A /run; echo listed; echo x > /run/x && echo WROTE`)
		if listed := strings.Fields(strings.Split(out, "listed")[0]); len(listed) > 1 || len(listed) == 1 && listed[0] != "systemd" || strings.Contains(out, "WROTE") {
			t.Fatalf("the job sees the host's /run:\n%s", out)
		}
	})

	t.Run("host processes", func(t *testing.T) {
		host := exec.Command("sleep", "60")
		host.Env = []string{"HOST_ONLY=" + secret}
		if err := host.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { host.Process.Kill(); host.Wait() }()
		_, out := run(t, cfg, fmt.Sprintf(`
cat /proc/%d/environ; cat /proc/1/environ | tr '\0' '\n'
grep -al %s /proc/[0-9]*/environ
echo "pids: $(ls -d /proc/[0-9]* | wc -l)"`, host.Process.Pid, secret))
		if strings.Contains(out, secret) {
			t.Fatalf("the job read a host process's environment:\n%s", out)
		}
		// Only the sandbox's init, bash, and the shell's children.
		if n := fieldAfter(out, "pids:"); n == 0 || n > 6 {
			t.Fatalf("the job sees %d processes:\n%s", n, out)
		}
	})

	t.Run("writes outside the work directory", func(t *testing.T) {
		targets := []string{"/usr/hubd-sandbox-test", "/etc/hubd-sandbox-test", "/var/tmp/hubd-sandbox-test"}
		if home, err := os.UserHomeDir(); err == nil && existing(home) != "" {
			targets = append(targets, filepath.Join(home, "hubd-sandbox-test"))
		}
		for _, target := range targets {
			_, out := run(t, cfg, fmt.Sprintf(`echo x > %q && echo WROTE`, target))
			if _, err := os.Stat(target); err == nil || strings.Contains(out, "WROTE") {
				os.Remove(target)
				t.Errorf("the job wrote %s:\n%s", target, out)
			}
		}
		if _, out := run(t, cfg, `echo ok > kept && echo tmp > /tmp/mine && cat kept /tmp/mine`); !strings.Contains(out, "ok\ntmp") {
			t.Errorf("the work directory or /tmp is not writable:\n%s", out)
		}
		if b, err := os.ReadFile(filepath.Join(f.work, "kept")); err != nil || string(b) != "ok\n" {
			t.Errorf("the work directory kept %q, %v", b, err)
		}
	})

	t.Run("mounts and namespaces", func(t *testing.T) {
		_, out := run(t, cfg, fmt.Sprintf(`
mkdir -p r
mount --bind / r && echo "BREACH bind" && ls r%[1]s
mount -o remount,bind,rw / && echo "BREACH remount"
mount -t tmpfs x r && echo "BREACH tmpfs"
umount %[1]s && echo "BREACH umount"
unshare -U true && echo "BREACH unshare -U"
unshare -m true && echo "BREACH unshare -m"
unshare -r mount --bind / r && echo "BREACH unshare -r"
setarch $(uname -m) -R true && echo "BREACH personality"
echo done`, f.data))
		if strings.Contains(out, "BREACH") || !strings.Contains(out, "done") {
			t.Fatalf("a mount or namespace escape worked:\n%s", out)
		}
	})

	t.Run("capabilities and seccomp", func(t *testing.T) {
		_, out := run(t, cfg, `grep -E '^(CapEff|CapPrm|CapBnd|Seccomp|NoNewPrivs):' /proc/self/status`)
		for _, want := range []string{"CapEff:\t0000000000000000", "CapPrm:\t0000000000000000", "Seccomp:\t2", "NoNewPrivs:\t1"} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in\n%s", want, out)
			}
		}
		// Raw system calls, as a hostile program makes them (x86_64 numbers).
		_, out = run(t, cfg, `perl -e '
my %calls = (ptrace => [101, 16, 1, 0, 0], bpf => [321, 0, 0, 0], keyctl => [250, 0, 0], perf_event_open => [298, 0, 0, 0, 0, 0],
  userfaultfd => [323, 0], init_module => [175, 0, 0, 0], process_vm_readv => [310, 1, 0, 0, 0, 0, 0],
  setns => [308, 0, 0], unshare => [272, 0x10000000], open_by_handle_at => [304, 0, 0, 0], clone3 => [435, 0, 0]);
for my $n (sort keys %calls) { my @a = @{$calls{$n}}; $! = 0; my $r = syscall($a[0], @a[1..$#a]); printf "%s %d %d\n", $n, $r, $!+0 }'`)
		for _, want := range []string{"ptrace -1 1", "bpf -1 1", "keyctl -1 1", "perf_event_open -1 1", "userfaultfd -1 1",
			"init_module -1 1", "process_vm_readv -1 1", "setns -1 1", "unshare -1 1", "open_by_handle_at -1 1", "clone3 -1 38"} {
			if !strings.Contains(out, want+"\n") {
				t.Errorf("no %q in\n%s", want, out)
			}
		}
	})

	t.Run("a 32-bit system call kills the process", func(t *testing.T) {
		if _, err := exec.LookPath("gcc"); err != nil {
			t.Fatal("gcc is not installed")
		}
		// int $0x80 is the i386 calling convention: syscall 1 (exit) there
		// would end cleanly if the filter let it through.
		_, out := run(t, cfg, `cat > x.c <<'EOF'
int main(void) { int r; __asm__ volatile ("int $0x80" : "=a"(r) : "a"(1), "b"(7)); return 0; }
EOF
gcc -o x x.c && ./x; echo "status $?"`)
		if !strings.Contains(out, "status 159") { // 128 + SIGSYS
			t.Fatalf("the i386 system call was not killed:\n%s", out)
		}
	})

	t.Run("fork bomb", func(t *testing.T) {
		c := cfg
		c.Limits.Processes = 32
		// dash, not bash: bash retries a refused fork for seconds.
		ex, out := run(t, c, `exec sh -c 'i=0; while [ $i -lt 2000 ]; do sleep 30 & i=$((i+1)); done 2>/dev/null; set -- /proc/[0-9]*; echo "processes: $#"'`)
		if n := fieldAfter(out, "processes:"); n > 32 {
			t.Fatalf("%d processes:\n%s", n, out)
		}
		if f.cgroup != "" && ex.Limit != "process limit of 32" {
			t.Fatalf("exit %+v:\n%s", ex, out)
		}
	})

	t.Run("memory hog", func(t *testing.T) {
		c := cfg
		c.Limits.MemoryBytes = 64 << 20
		ex, out := run(t, c, `head -c 1G /dev/zero | tail > /dev/null; echo "tail $?"; [ -z "$LIMITED" ] || sleep 30`, "LIMITED="+f.cgroup)
		if f.cgroup == "" {
			// RLIMIT_DATA: the allocation fails; or, when the watchdog
			// looks while tail's buffer is near the limit, the job's
			// resident memory (tail's data, its code and the shells')
			// is past it and the job is killed for it.
			if !strings.Contains(out, "tail 1") && ex.Limit != "memory limit of 64 MiB" {
				t.Fatalf("exit %+v:\n%s", ex, out)
			}
			// Several processes, each under RLIMIT_DATA, over it together:
			// the watchdog sums their resident memory.
			ex, out = run(t, c, `for i in 1 2 3 4 5; do perl -e '$x = "a" x 20e6; print "held\n"; sleep 30' & done; wait`)
		}
		if ex.Limit != "memory limit of 64 MiB" {
			t.Fatalf("exit %+v:\n%s", ex, out)
		}
	})

	t.Run("disk filler", func(t *testing.T) {
		c := cfg
		c.Limits.DiskBytes = 8 << 20
		ex, out := run(t, c, `for i in $(seq 16); do head -c 1M /dev/zero > f$i; done; echo written; sleep 30`)
		if ex.Limit != "work directory disk limit of 8 MiB" {
			t.Fatalf("exit %+v:\n%s", ex, out)
		}
		reset := func() {
			exec.Command("chmod", "-R", "u+rwx", f.work).Run()
			os.RemoveAll(f.work)
			os.Mkdir(f.work, 0o700)
		}
		reset()
		// Hidden in a directory nobody may read, beside a link to /.
		ex, out = run(t, c, `ln -s / escape; mkdir h; for i in $(seq 16); do head -c 1M /dev/zero > h/f$i; done; chmod 000 h; echo written; sleep 30`)
		if ex.Limit != "work directory disk limit of 8 MiB" {
			t.Fatalf("exit %+v:\n%s", ex, out)
		}
		reset()
		// One file over the limit: RLIMIT_FSIZE stops it at the limit.
		ex, out = run(t, c, `head -c 32M /dev/zero > big; echo "head $?"; stat -c "size %s" big`)
		if n := fieldAfter(out, "size"); n > 8<<20 || !strings.Contains(out, "head 153") {
			t.Fatalf("exit %+v:\n%s", ex, out)
		}
		os.Remove(filepath.Join(f.work, "big"))
	})

	t.Run("tmp is bounded", func(t *testing.T) {
		_, out := run(t, cfg, `head -c 16M /dev/zero > /tmp/big; echo "head $?"; head -c 16M /dev/zero > /dev/shm/big; echo "shm $?"; echo x > /dev/new; echo "dev $?"`)
		for _, want := range []string{"No space left on device", "head 1", "shm 1", "dev 1"} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in\n%s", want, out)
			}
		}
	})

	t.Run("descriptors", func(t *testing.T) {
		// A descriptor the runner holds without close-on-exec, and one
		// the caller hands the job on purpose.
		leak, err := syscall.Open(filepath.Join(f.data, "hubd.db"), syscall.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Close(leak)
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("handed over\n"))
		w.Close()
		defer r.Close()
		var out bytes.Buffer
		p, err := Start(context.Background(), cfg, []string{"/bin/sh", "-c", `ls /proc/$$/fd > fds; echo fds $(cat fds); cat <&3; cat <&` + strconv.Itoa(leak)},
			[]string{"PATH=/usr/bin:/bin"}, nil, &out, &out, []*os.File{r})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "handed over") || strings.Contains(out.String(), secret) {
			t.Fatalf("the job's descriptors:\n%s", out.String())
		}
		// 0-2, the extra file, and where dash keeps stdout during a
		// redirection (10).
		fds := strings.Fields(strings.SplitN(strings.TrimPrefix(out.String(), "fds "), "\n", 2)[0])
		for _, fd := range fds {
			if fd != "0" && fd != "1" && fd != "2" && fd != "3" && fd != "10" {
				t.Fatalf("the job holds descriptor %s:\n%s", fd, out.String())
			}
		}
	})

	t.Run("a daemon dies with the job", func(t *testing.T) {
		mark := strconv.FormatInt(time.Now().UnixNano()%100000, 10)
		// The job ends at once; its daemon would sleep on.
		ex, out := run(t, cfg, `setsid sleep 4242.`+mark+` </dev/null >/dev/null 2>&1 & echo started`)
		if ex.Code != 0 || !strings.Contains(out, "started") {
			t.Fatalf("exit %+v:\n%s", ex, out)
		}
		if pids := processesWith("4242." + mark); len(pids) > 0 {
			for _, p := range pids {
				b, _ := os.ReadFile("/proc/" + p + "/status")
				c, _ := os.ReadFile("/proc/" + p + "/cmdline")
				t.Logf("%s %q\n%s", p, c, b)
			}
			t.Fatalf("the daemon survived the job: %v\n%s", pids, out)
		}
		// Killed while running.
		var buf syncBuffer
		p, err := Start(context.Background(), cfg, []string{"/bin/bash", "-c", `setsid sleep 4343.` + mark + ` </dev/null >/dev/null 2>&1 & echo started; sleep 600`},
			[]string{"PATH=/usr/bin:/bin"}, nil, &buf, &buf, nil)
		if err != nil {
			t.Fatal(err)
		}
		for !strings.Contains(buf.String(), "started") || len(processesWith("4343."+mark)) == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		p.Kill()
		if _, err := p.Wait(); err != nil {
			t.Fatal(err)
		}
		if pids := processesWith("4343." + mark); len(pids) > 0 {
			t.Fatalf("the daemon survived Kill: %v", pids)
		}
	})
}

// syncBuffer is a buffer the job writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fieldAfter is the number after the last "label " in out (0 when none).
func fieldAfter(out, label string) int64 {
	i := strings.LastIndex(out, label)
	if i < 0 {
		return 0
	}
	f := strings.Fields(out[i+len(label):])
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.ParseInt(f[0], 10, 64)
	return n
}

// processesWith are the host's processes whose command line holds s.
func processesWith(s string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && strings.Contains(string(b), s) && !strings.Contains(string(b), "bash") {
			out = append(out, filepath.Base(d))
		}
	}
	return out
}

// Normal CI work keeps working: git, node, a C compile, curl to a server
// outside the sandbox.
func TestNormalWork(t *testing.T) {
	f := newFixture(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello from the host") }))
	defer srv.Close()
	ex, out := run(t, f.config(), `set -e
git init -q repo && cd repo
git -c user.name=a -c user.email=a@b commit -q --allow-empty -m first && git log --format=%s
node -e 'console.log("node", 6*7)'
printf '#include <stdio.h>\nint main(void){puts("compiled");return 0;}\n' > m.c && gcc -o m m.c && ./m
curl -sS "$URL"; echo
tar czf a.tgz m.c && tar tzf a.tgz`, "URL="+srv.URL)
	for _, want := range []string{"first", "node 42", "compiled", "hello from the host", "m.c"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if ex.Code != 0 || ex.Limit != "" {
		t.Errorf("exit %+v:\n%s", ex, out)
	}
}

// Check proves the sandbox before any job runs; without bubblewrap it fails
// with the fix, and mode none is a loud warning.
func TestCheck(t *testing.T) {
	f := newFixture(t)
	r, err := Check(Config{Hide: []string{f.data}, CgroupRoot: f.cgroup})
	if err != nil {
		t.Fatal(err)
	}
	if r.Mode != ModeBwrap || !strings.HasPrefix(r.Note, "Sandbox: bubblewrap") {
		t.Errorf("report %+v", r)
	}
	if f.cgroup != "" && (r.Cgroup == "" || !strings.Contains(r.Note, "enforced by cgroup")) {
		t.Errorf("report %+v", r)
	}
	r, err = Check(Config{Mode: ModeNone})
	if err != nil || !strings.HasPrefix(r.Note, "WARNING") {
		t.Errorf("none: %+v %v", r, err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := Check(Config{}); err == nil || !strings.Contains(err.Error(), "install") {
		t.Errorf("without bubblewrap: %v", err)
	}
	if _, err := Start(context.Background(), Config{WorkDir: f.work}, []string{"/bin/true"}, nil, nil, nil, nil, nil); err == nil {
		t.Error("a job started without bubblewrap")
	}
}

// The same hostile suite as the unprivileged user a runner runs as, with a
// cgroup hubd serve delegated to it, and again with rlimits only.
func TestHostileUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("this test starts the suite as another user: run it as root")
	}
	uid, gid := runnerUser(t)
	// The test binary, where that user can run it.
	dir := t.TempDir()
	for d := dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	bin := filepath.Join(dir, "sandbox.test")
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := Delegate(uid, gid, fmt.Sprintf("test-runner-%d", os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := Undelegate(root); err != nil {
			t.Error(err)
		}
	}()
	for _, cg := range []string{root, ""} {
		cmd := exec.Command(bin, "-test.run", "^(TestHostile|TestNormalWork|TestCheck|TestNone)$", "-test.count=1")
		cmd.Dir = "/"
		cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "TMPDIR=/tmp", cgroupEnv + "=" + cg}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("as uid %d, cgroup %q: %v\n%s", uid, cg, err, out)
		}
	}
}

// runnerUser is the system user local runners run as, made when missing.
func runnerUser(t *testing.T) (int, int) {
	t.Helper()
	if _, err := exec.Command("id", "-u", "hubd-runner").Output(); err != nil {
		if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "hubd-runner").CombinedOutput(); err != nil {
			t.Fatalf("useradd hubd-runner: %v %s", err, out)
		}
	}
	var ids [2]int
	for i, flag := range []string{"-u", "-g"} {
		out, err := exec.Command("id", flag, "hubd-runner").Output()
		if err != nil {
			t.Fatal(err)
		}
		ids[i], _ = strconv.Atoi(strings.TrimSpace(string(out)))
	}
	return ids[0], ids[1]
}

// Mode none isolates nothing and says so, but its limits hold and, with a
// cgroup, nothing outlives the job.
func TestNone(t *testing.T) {
	f := newFixture(t)
	cfg := f.config()
	cfg.Mode = ModeNone
	cfg.Limits.OpenFiles = 100
	var out syncBuffer
	mark := strconv.FormatInt(time.Now().UnixNano()%100000, 10)
	p, err := Start(context.Background(), cfg, []string{"/bin/sh", "-c", `ulimit -n; setsid sleep 4444.` + mark + ` </dev/null >/dev/null 2>&1 & echo started`},
		[]string{"PATH=/usr/bin:/bin"}, nil, &out, &out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Note(), "WARNING: Sandbox: none") {
		t.Errorf("note %q", p.Note())
	}
	if ex, err := p.Wait(); err != nil || ex.Code != 0 || !strings.Contains(out.String(), "100\nstarted") {
		t.Fatalf("exit %+v %v:\n%s", ex, err, out.String())
	}
	if pids := processesWith("4444." + mark); f.cgroup != "" && len(pids) > 0 {
		t.Fatalf("the daemon survived: %v", pids)
	}
	for _, pid := range processesWith("4444." + mark) {
		n, _ := strconv.Atoi(pid)
		syscall.Kill(n, syscall.SIGKILL)
	}
}

// A runner running as root starts its jobs as its runner user.
func TestCredential(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("this test drops from root: run it as root")
	}
	uid, gid := runnerUser(t)
	f := newFixture(t)
	if err := os.Chown(f.work, uid, gid); err != nil {
		t.Fatal(err)
	}
	// The way to the work directory (the test's temporary directories
	// are root's alone).
	for d := filepath.Dir(f.work); d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o711)
	}
	cfg := f.config()
	cfg.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	ex, out := run(t, cfg, `echo "uid $(id -u)"; grep CapEff /proc/self/status; echo x > mine && echo wrote; cat /etc/shadow >/dev/null || echo "no shadow"`)
	for _, want := range []string{fmt.Sprintf("uid %d\n", uid), "CapEff:\t0000000000000000", "wrote", "no shadow"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if ex.Code != 0 {
		t.Errorf("exit %+v", ex)
	}
}

// Where user namespaces cannot be made, Check fails and names the fix
// rather than letting jobs run unisolated. The test runs itself inside a
// sandbox whose user namespaces are disabled.
func TestCheckFailsClosed(t *testing.T) {
	if os.Getenv("HUBD_SANDBOX_TEST_NOUSERNS") != "" {
		_, err := Check(Config{})
		if err == nil || !strings.Contains(err.Error(), "enable unprivileged user namespaces") {
			t.Fatalf("Check without user namespaces: %v", err)
		}
		t.Log(err)
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bwrap", "--unshare-user", "--disable-userns", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		"--tmpfs", "/tmp", "--ro-bind", self, self, "--",
		self, "-test.run", "^TestCheckFailsClosed$", "-test.count=1", "-test.v")
	cmd.Env = []string{"PATH=/usr/bin:/bin:/usr/sbin:/sbin", "HUBD_SANDBOX_TEST_NOUSERNS=1"}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestCheckFailsClosed") {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("%s", out)
}
