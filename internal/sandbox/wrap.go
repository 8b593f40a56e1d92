package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// Wrap is the command line to put before a worker's argv for a caller that
// can only prepend to a command line (no extra descriptors, no start gate):
// prlimit(1) sets the rlimits, then bubblewrap as Start makes it, its
// seccomp filter read from a file. It has no cgroup, no disk watchdog and no
// Exit.Limit: Start is the full sandbox. Under ModeNone the prefix only sets
// the rlimits and the note is the warning.
func Wrap(cfg Config) (prefix []string, line string, err error) {
	cfg, err = cfg.normalize()
	if err != nil {
		return nil, "", err
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		return nil, "", errors.New("sandbox: prlimit (util-linux) is not installed")
	}
	inheritNothing()
	prefix = []string{prlimit}
	for _, r := range rlimits(cfg.Limits, false) {
		prefix = append(prefix, fmt.Sprintf("--%s=%d", r.name, r.value))
	}
	prefix = append(prefix, "--")
	if cfg.Mode == ModeNone {
		return prefix, note(cfg, nil, false), nil
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return nil, "", errors.New("sandbox: bubblewrap (bwrap) is not installed: install it (apt-get install bubblewrap) or choose --actions-sandbox none explicitly")
	}
	filter, err := seccompPath()
	if err != nil {
		return nil, "", err
	}
	// The shell opens the filter on descriptor 3 for bubblewrap, which
	// closes it once read.
	prefix = append(prefix, "/bin/sh", "-c", `exec 3<"$0" && exec "$@"`, filter)
	return append(prefix, bwrapArgs(bwrap, cfg, 3, -1)...), note(cfg, nil, false), nil
}

var seccompSaved struct {
	once sync.Once
	path string
	err  error
}

// seccompPath is a file holding the filter, written once per process.
func seccompPath() (string, error) {
	seccompSaved.once.Do(func() {
		code, err := seccompCode()
		if err != nil {
			seccompSaved.err = err
			return
		}
		dir, err := os.MkdirTemp("", "hubd-seccomp-")
		if err == nil {
			err = os.Chmod(dir, 0o755)
		}
		if err != nil {
			seccompSaved.err = fmt.Errorf("sandbox: seccomp filter file: %w", err)
			return
		}
		p := filepath.Join(dir, "filter.bpf")
		if err := os.WriteFile(p, code, 0o444); err != nil {
			seccompSaved.err = fmt.Errorf("sandbox: seccomp filter file: %w", err)
			return
		}
		seccompSaved.path = p
	})
	return seccompSaved.path, seccompSaved.err
}
