package runner

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
)

// Sandbox modes (--actions-sandbox).
const (
	SandboxAuto  = "auto"  // bubblewrap when bwrap is installed and works, else none
	SandboxBwrap = "bwrap" // bubblewrap, or the job fails
	SandboxNone  = "none"  // the worker runs as a plain child process
)

// ValidSandbox checks a --actions-sandbox value.
func ValidSandbox(mode string) error {
	switch mode {
	case "", SandboxAuto, SandboxBwrap, SandboxNone:
		return nil
	}
	return fmt.Errorf("actions sandbox %q: want auto, bwrap or none", mode)
}

var bwrapProbe struct {
	once sync.Once
	path string
	err  error
}

// bwrapPath is the bwrap binary when it can make a sandbox on this machine
// (it needs user namespaces or its setuid bit).
func bwrapPath() (string, error) {
	bwrapProbe.once.Do(func() {
		p, err := exec.LookPath("bwrap")
		if err != nil {
			bwrapProbe.err = fmt.Errorf("bubblewrap (bwrap) is not installed")
			return
		}
		if out, err := exec.Command(p, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--die-with-parent", "true").CombinedOutput(); err != nil {
			bwrapProbe.err = fmt.Errorf("bubblewrap cannot make a sandbox here: %v %s", err, out)
			return
		}
		bwrapProbe.path = p
	})
	return bwrapProbe.path, bwrapProbe.err
}

// SandboxInUse is the sandbox jobs get with this mode: "bwrap" or "none".
func SandboxInUse(mode string) string {
	if mode == SandboxNone {
		return SandboxNone
	}
	if _, err := bwrapPath(); err == nil || mode == SandboxBwrap {
		return SandboxBwrap
	}
	return SandboxNone
}

// Isolation is how a runner isolates its jobs' workers.
type Isolation struct {
	Mode string // --actions-sandbox: auto (""), bwrap, none
	// Hide are directories a job may not see (hubd's data directory for
	// a local runner; the runner's work root but for the job's own
	// directory is hidden always).
	Hide []string
	// Credential, when set, is the Unix user and group the worker runs as
	// (a root runner drops to its runner user).
	Credential *syscall.Credential
}

// process is a job's worker, started by isolate.
type process struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// Kill kills the worker and everything it started (its process group;
// under bubblewrap its pid namespace dies with it).
func (p *process) Kill() { _ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) }

// Wait waits for the worker to end.
func (p *process) Wait() error {
	<-p.done
	return p.err
}

// isolate starts the worker argv for the job whose directory is dir (the
// only place it may write besides a /tmp of its own), reading stdin and
// writing its output to stdout; it is the one way a runner starts a job's
// code. It returns the line the job's log says of the isolation.
//
// Under bubblewrap the job sees the machine read-only, writes only its own
// directory and its own /tmp, cannot see the hidden directories or the
// other jobs, has its own process, IPC and host name namespaces, keeps the
// network (it talks to hubd's API) and dies with the runner.
func isolate(iso Isolation, root, dir string, argv, env []string, stdin io.Reader, stdout io.Writer) (*process, string, error) {
	var box []string
	note := "Sandbox: none (the job runs as a child process of the runner)"
	if SandboxInUse(iso.Mode) == SandboxBwrap {
		bwrap, err := bwrapPath()
		if err != nil {
			return nil, "", fmt.Errorf("--actions-sandbox bwrap: %v", err)
		}
		box = []string{bwrap, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
			"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"}
		for _, h := range append([]string{root}, iso.Hide...) {
			if h == "" {
				continue
			}
			if abs, err := filepath.Abs(h); err == nil {
				if _, err := os.Stat(abs); err == nil {
					box = append(box, "--tmpfs", abs)
				}
			}
		}
		box = append(box, "--bind", dir, dir)
		if filepath.IsAbs(argv[0]) {
			// The worker binary, wherever it is (a test binary lives in /tmp).
			box = append(box, "--ro-bind", argv[0], argv[0])
		}
		box = append(box, "--chdir", dir, "--")
		note = "Sandbox: bubblewrap (read-only system, writable job directory and /tmp, hubd's data directory hidden, network kept)"
	}
	uid := os.Getuid()
	if iso.Credential != nil {
		uid = int(iso.Credential.Uid)
	}
	note += fmt.Sprintf("; the job runs as uid %d", uid)
	full := append(box, argv...)
	cmd := exec.Command(full[0], full[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, env, stdin, stdout, stdout
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: iso.Credential}
	if err := cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("worker: %v", err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	return p, note, nil
}

// InstallWorker copies the worker binary exe into dir (made, or a new
// temporary directory when ""), which every user may read, and returns the
// copy: a runner that drops to another user needs a binary that user can
// run (a test binary, or hubd in its owner's home, is not). The caller
// removes a temporary filepath.Dir(copy).
func InstallWorker(exe, dir string) (string, error) {
	var err error
	if dir == "" {
		dir, err = os.MkdirTemp("", "hubd-worker-")
	} else {
		err = os.MkdirAll(dir, 0o755)
	}
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, filepath.Base(exe))
	tmp := out + ".new"
	src, err := os.Open(exe)
	if err != nil {
		return "", err
	}
	defer src.Close()
	dst, err := os.OpenFile(tmp, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return "", err
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, out) // a running copy is replaced, not rewritten
	}
	if err != nil {
		os.Remove(tmp)
	}
	return out, err
}
