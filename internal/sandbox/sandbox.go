// Package sandbox runs one workflow job's worker in an isolation it has
// verified, under limits, and kills every process of the job at the end.
//
// Mode "bwrap" (the default) wraps the worker in bubblewrap: a new user
// namespace with every capability dropped, its own pid, ipc, uts and cgroup
// namespaces, a seccomp filter refusing the system calls that reach beyond
// the job (mount, unshare, ptrace, bpf, module loading, ...), the machine
// read-only, hidden directories covered by empty file systems, and the work
// directory and a size-limited /tmp as the only writable places; the network
// stays (the job talks to hubd's API). Mode "none" is an explicit operator
// choice that isolates nothing; Check and Note say so loudly.
//
// Limits come from a delegated cgroup (v1 or v2, see Delegate) when the
// caller has one, else from rlimits set on the job's first process before it
// runs; a watchdog measures the work directory's disk use every second.
// A job that exceeds a limit is killed and Exit.Limit names the limit.
//
// Use: hubd serve, as root, calls Delegate for each local runner's user
// (under cgroup v2 it starts the runner in RunnerGroup) and Undelegate when
// it stops; a runner calls Check once at start and takes no job when it
// fails, then per job Start (its Note goes into the job's log), Wait, and
// Kill on cancellation.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Modes.
const (
	ModeBwrap = "bwrap" // bubblewrap, verified by Check
	ModeNone  = "none"  // no isolation: only ever an explicit operator choice
)

// Limits bound one job. Zero fields take the defaults below.
type Limits struct {
	Processes   int   // tasks of the job, default 512
	MemoryBytes int64 // default 4 GiB
	CPUShares   int   // relative CPU share (cgroup only), default 1024
	DiskBytes   int64 // the work directory's disk use, default 10 GiB
	OpenFiles   int   // per process, default 4096
	TmpBytes    int64 // size of the job's private /tmp (and /dev/shm), default 1 GiB
	// CPUs caps the CPU time the job's processes take together, in cores
	// (a CFS bandwidth quota: CPUs × CPUPeriod of CPU time per period;
	// cgroup only); 0: no cap.
	CPUs float64
	// CPUPeriod is the quota's accounting period, default 100 ms (the
	// kernel's): a shorter one spreads the throttling more evenly.
	CPUPeriod time.Duration
}

// Default limits.
const (
	DefaultProcesses   = 512
	DefaultMemoryBytes = 4 << 30
	DefaultCPUShares   = 1024
	DefaultDiskBytes   = 10 << 30
	DefaultOpenFiles   = 4096
	DefaultTmpBytes    = 1 << 30
	DefaultCPUPeriod   = 100 * time.Millisecond
)

func (l Limits) withDefaults() Limits {
	if l.Processes <= 0 {
		l.Processes = DefaultProcesses
	}
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = DefaultMemoryBytes
	}
	if l.CPUShares <= 0 {
		l.CPUShares = DefaultCPUShares
	}
	if l.DiskBytes <= 0 {
		l.DiskBytes = DefaultDiskBytes
	}
	if l.OpenFiles <= 0 {
		l.OpenFiles = DefaultOpenFiles
	}
	if l.TmpBytes <= 0 {
		l.TmpBytes = DefaultTmpBytes
	}
	if l.CPUPeriod <= 0 {
		l.CPUPeriod = DefaultCPUPeriod
	}
	return l
}

// Config is one job's sandbox.
type Config struct {
	Mode       string   // ModeBwrap ("" means bwrap) or ModeNone
	WorkDir    string   // the only writable directory besides the private /tmp, bound read-write at the same path
	Hide       []string // directories made empty inside (hubd's data directory, other jobs' roots)
	ReadOnly   []string // extra paths bound read-only (the worker binary when it lives under a hidden tree)
	Limits     Limits
	CgroupRoot string // delegated cgroup (as Delegate returns it) where the job's group is made; "" → rlimits only
	// Credential, when set, is the user and group the job runs as (a
	// runner running as root drops to its runner user; WorkDir must be
	// theirs).
	Credential *syscall.Credential
}

func (c Config) normalize() (Config, error) {
	switch c.Mode {
	case "":
		c.Mode = ModeBwrap
	case ModeBwrap, ModeNone:
	default:
		return c, fmt.Errorf("sandbox mode %q: want bwrap or none", c.Mode)
	}
	if c.WorkDir == "" || !filepath.IsAbs(c.WorkDir) {
		return c, fmt.Errorf("sandbox: work directory %q is not an absolute path", c.WorkDir)
	}
	if fi, err := os.Stat(c.WorkDir); err != nil || !fi.IsDir() {
		return c, fmt.Errorf("sandbox: work directory %s is not a directory", c.WorkDir)
	}
	c.WorkDir = filepath.Clean(c.WorkDir)
	c.Limits = c.Limits.withDefaults()
	return c, nil
}

// Exit is how a job ended.
type Exit struct {
	Code  int    // the worker's exit status; 128+n when a signal n ended it
	Limit string // the limit the job hit and was killed for ("" when none), e.g. "memory limit of 4 GiB"
}

// Process is one running job.
type Process struct {
	cmd     *exec.Cmd
	cfg     Config
	cg      *jobCgroup
	note    string
	stop    chan struct{}
	watched chan struct{}

	// initFD is a pidfd of the sandbox's init (-1 when unknown): its
	// end is the end of every process in the job's pid namespace.
	initFD int
	pidns  string // the job's pid namespace, as /proc/PID/ns/pid names it

	mu     sync.Mutex
	limit  string
	waited bool
	done   bool // the first process has been reaped: its pid may be reused
}

// maxExtraFiles bounds the caller's extra files: the start gate must sit on
// a one-digit descriptor for /bin/sh.
const maxExtraFiles = 6

// gateScript holds the job's first process until its limits are in force:
// Start writes "go" on the gate once the rlimits are set and the process is
// in its cgroup, so nothing the job starts escapes them.
const gateScript = `read -r g <&%d || exit 125; [ "$g" = go ] || exit 125; exec %d<&-; exec "$@"`

// Start runs argv in the sandbox cfg describes, with exactly env as its
// environment. Entry i of extra becomes descriptor 3+i of the worker.
// The job runs in its work directory. ctx ending kills the job.
func Start(ctx context.Context, cfg Config, argv, env []string, stdin io.Reader, stdout, stderr io.Writer, extra []*os.File) (*Process, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	if len(argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	if len(extra) > maxExtraFiles {
		return nil, fmt.Errorf("sandbox: at most %d extra files", maxExtraFiles)
	}
	// What the job's command runs under, outermost first: setpriv (a
	// job run as another user), then bubblewrap.
	var setpriv, bwrap string
	if cfg.Credential != nil {
		if setpriv, err = exec.LookPath("setpriv"); err != nil {
			return nil, errors.New("sandbox: running a job as another user needs setpriv (util-linux)")
		}
	}
	if cfg.Mode == ModeBwrap {
		if bwrap, err = exec.LookPath("bwrap"); err != nil {
			return nil, errors.New("sandbox: bubblewrap (bwrap) is not installed: install it (apt-get install bubblewrap) or choose --actions-sandbox none explicitly")
		}
	}

	// Descriptors: the caller's extra files, the start gate, and for
	// bubblewrap the seccomp filter and its --info-fd.
	var closeAfterStart, closeOnFail []*os.File
	defer func() {
		for _, f := range closeAfterStart {
			f.Close()
		}
	}()
	fail := func(err error) (*Process, error) {
		for _, f := range closeOnFail {
			f.Close()
		}
		return nil, err
	}
	files := append([]*os.File{}, extra...)
	gateFD := 3 + len(files)
	gateR, gateW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	closeAfterStart = append(closeAfterStart, gateR)
	closeOnFail = append(closeOnFail, gateW)
	files = append(files, gateR)
	inner := argv
	var infoR, infoW *os.File
	if bwrap != "" {
		filter, err := seccompFile()
		if err != nil {
			return fail(err)
		}
		closeAfterStart = append(closeAfterStart, filter)
		if infoR, infoW, err = os.Pipe(); err != nil {
			return fail(err)
		}
		closeAfterStart = append(closeAfterStart, infoW)
		closeOnFail = append(closeOnFail, infoR)
		files = append(files, filter, infoW)
		inner = append(bwrapArgs(bwrap, cfg, 3+len(files)-2, 3+len(files)-1), argv...)
	}
	if c := cfg.Credential; c != nil {
		// The user changes after the start gate, once the rlimits are
		// set (setting them on another user's process would take
		// CAP_SYS_RESOURCE, which a container's root often lacks).
		groups := "--clear-groups"
		if len(c.Groups) > 0 {
			var ids []string
			for _, g := range c.Groups {
				ids = append(ids, strconv.FormatUint(uint64(g), 10))
			}
			groups = "--groups=" + strings.Join(ids, ",")
		}
		inner = append([]string{setpriv, fmt.Sprintf("--reuid=%d", c.Uid), fmt.Sprintf("--regid=%d", c.Gid), groups,
			"--pdeathsig=KILL", "--"}, inner...)
	}

	var cg *jobCgroup
	if cfg.CgroupRoot != "" {
		if cg, err = newJobCgroup(cfg.CgroupRoot, cfg.Limits); err != nil {
			return fail(err)
		}
		failFiles := fail
		fail = func(err error) (*Process, error) {
			cg.destroy()
			return failFiles(err)
		}
	}

	inheritNothing()
	script := fmt.Sprintf(gateScript, gateFD, gateFD)
	cmd := exec.Command("/bin/sh", append([]string{"-c", script, "sandbox"}, inner...)...)
	cmd.Env = env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Dir = cfg.WorkDir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.ExtraFiles = files
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fail(fmt.Errorf("sandbox: start: %w", err))
	}
	pid := cmd.Process.Pid
	held := func(err error) (*Process, error) {
		cmd.Process.Kill()
		cmd.Wait()
		return fail(err)
	}
	if err := setRlimits(pid, cfg.Limits, cg != nil); err != nil {
		return held(err)
	}
	if cg != nil {
		if err := cg.add(pid); err != nil {
			return held(err)
		}
	}
	if _, err := gateW.Write([]byte("go\n")); err != nil {
		return held(fmt.Errorf("sandbox: release the job: %w", err))
	}
	gateW.Close()

	p := &Process{cmd: cmd, cfg: cfg, cg: cg, stop: make(chan struct{}), watched: make(chan struct{}), initFD: -1}
	if infoR != nil {
		// bubblewrap reports its init, or closes the descriptor failing.
		infoW.Close()
		p.initFD, p.pidns = sandboxInit(infoR, pid)
		if p.pidns == pidNamespace(os.Getpid()) {
			p.pidns = "" // never measure the host as the job
		}
		infoR.Close()
	}
	p.note = note(cfg, cg)
	go p.watch(ctx)
	return p, nil
}

func note(cfg Config, cg *jobCgroup) string {
	var b strings.Builder
	if cfg.Mode == ModeNone {
		b.WriteString(noneWarning)
	} else {
		b.WriteString("Sandbox: bubblewrap (own user, pid, ipc, uts and cgroup namespaces, no capabilities, seccomp filter, read-only system, writable work directory and private /tmp, hubd's data directory hidden, network kept)")
	}
	l := cfg.Limits
	fmt.Fprintf(&b, "; limits: %d processes, %s memory, %s work directory disk, %d open files", l.Processes, bytesText(l.MemoryBytes), bytesText(l.DiskBytes), l.OpenFiles)
	if cfg.Mode == ModeBwrap {
		fmt.Fprintf(&b, ", %s /tmp", bytesText(l.TmpBytes))
	}
	if cg != nil {
		fmt.Fprintf(&b, ", CPU share %d", l.CPUShares)
		if l.CPUs > 0 {
			fmt.Fprintf(&b, ", %s CPU", cpusText(l.CPUs))
		}
		fmt.Fprintf(&b, ", enforced by cgroup %s", cg.version)
		return b.String()
	}
	b.WriteString(", enforced by rlimits (no CPU share or cap; the process limit counts all processes of the runner's user")
	if runsAsRoot(cfg) {
		b.WriteString(" and does not bind root")
	}
	b.WriteString("; memory per process")
	if cfg.Mode == ModeBwrap {
		b.WriteString(", and the job's resident memory watched")
	}
	b.WriteString(")")
	return b.String()
}

const noneWarning = "WARNING: Sandbox: none, chosen by the operator (--actions-sandbox none): the job runs unisolated as the runner's user and can read and change everything that user can"

// cpusText writes a CPU quota in cores: "2 cores", "1 core", "0.5 cores".
func cpusText(n float64) string {
	if n == 1 {
		return "1 core"
	}
	return strconv.FormatFloat(n, 'f', -1, 64) + " cores"
}

// bytesText writes n the way limits are named: "4 GiB", "512 MiB".
func bytesText(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// runsAsRoot reports whether the job's processes belong to root, whom the
// process rlimit does not bind.
func runsAsRoot(cfg Config) bool {
	if cfg.Credential != nil {
		return cfg.Credential.Uid == 0
	}
	return os.Geteuid() == 0
}
