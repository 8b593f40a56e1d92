package actions

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
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

// sandbox is the command line that wraps the worker of the job whose
// directory is dir (nil: none), and the line the job's log says of it.
// Under bubblewrap the job sees the machine read-only, writes only its own
// directory and a /tmp of its own, cannot see hubd's data directory (the
// database, the git repositories, the other jobs), has its own process,
// IPC and host name namespaces, and keeps the network (it talks to hubd's
// API); it dies with hubd.
func (e *Executor) sandbox(dir string) ([]string, string, error) {
	if len(e.Sandbox) > 0 {
		return e.Sandbox, "", nil
	}
	if SandboxInUse(e.SandboxMode) == SandboxNone {
		return nil, "Sandbox: none (the job runs as a child process of hubd, as hubd's user)", nil
	}
	bwrap, err := bwrapPath()
	if err != nil {
		return nil, "", fmt.Errorf("--actions-sandbox bwrap: %v", err)
	}
	args := []string{bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"}
	hidden := append([]string{e.Root}, e.Hidden...)
	for _, h := range hidden {
		if h == "" {
			continue
		}
		if abs, err := filepath.Abs(h); err == nil {
			if _, err := os.Stat(abs); err == nil {
				args = append(args, "--tmpfs", abs)
			}
		}
	}
	args = append(args, "--bind", dir, dir)
	if len(e.Command) > 0 && filepath.IsAbs(e.Command[0]) {
		// The worker binary, wherever it is (a test binary lives in /tmp).
		args = append(args, "--ro-bind", e.Command[0], e.Command[0])
	}
	args = append(args, "--chdir", dir, "--")
	return args, "Sandbox: bubblewrap (read-only system, writable job directory and /tmp, hubd's data directory hidden, network kept)", nil
}
