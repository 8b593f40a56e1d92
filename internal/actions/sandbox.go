package actions

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/hubd/hubd/internal/sandbox"
)

// Sandbox modes (--actions-sandbox). There is no silent fallback: a job
// runs unisolated only when the operator chose none.
const (
	SandboxAuto  = "auto"  // bubblewrap; where it does not work, jobs fail with a message naming the fix
	SandboxBwrap = "bwrap" // bubblewrap; hubd refuses to start where it does not work
	SandboxNone  = "none"  // the worker runs as a plain child process (an explicit, loudly logged choice)
)

// ValidSandbox checks a --actions-sandbox value.
func ValidSandbox(mode string) error {
	switch mode {
	case "", SandboxAuto, SandboxBwrap, SandboxNone:
		return nil
	}
	return fmt.Errorf("actions sandbox %q: want auto, bwrap or none", mode)
}

// SandboxInUse is the sandbox jobs get with this mode: "bwrap" or "none".
func SandboxInUse(mode string) string {
	if mode == SandboxNone {
		return SandboxNone
	}
	return SandboxBwrap
}

var sandboxProbe struct {
	once sync.Once
	note string
	err  error
}

// SandboxCheck verifies once that the sandbox of mode works on this
// machine (internal/sandbox's probe). The note is the line hubd prints at
// start (a warning under none); the error names the fix.
func SandboxCheck(mode string) (note string, err error) {
	if SandboxInUse(mode) == SandboxNone {
		r, err := sandbox.Check(sandbox.Config{Mode: sandbox.ModeNone})
		return r.Note, err
	}
	sandboxProbe.once.Do(func() {
		r, err := sandbox.Check(sandbox.Config{Mode: sandbox.ModeBwrap})
		sandboxProbe.note, sandboxProbe.err = r.Note, err
	})
	return sandboxProbe.note, sandboxProbe.err
}

// sandbox is the command line that wraps the worker of the job whose
// directory is dir (internal/sandbox), and the line the job's log says of
// it. Under bubblewrap the job runs in its own user namespace without
// capabilities, under a seccomp filter, sees the machine read-only, writes
// only its own directory and a /tmp of its own, cannot see hubd's data
// directory (the database, the git repositories, the other jobs), and keeps
// the network (it talks to hubd's API); it dies with hubd.
func (e *Executor) sandbox(dir string) ([]string, string, error) {
	if len(e.Sandbox) > 0 {
		return e.Sandbox, "", nil
	}
	mode := SandboxInUse(e.SandboxMode)
	if mode == SandboxBwrap {
		if _, err := SandboxCheck(e.SandboxMode); err != nil {
			return nil, "", err
		}
	}
	cfg := sandbox.Config{Mode: mode, WorkDir: dir, Hide: append([]string{e.Root}, e.Hidden...)}
	if len(e.Command) > 0 && filepath.IsAbs(e.Command[0]) {
		// The worker binary, wherever it is (a test binary lives in /tmp).
		cfg.ReadOnly = []string{e.Command[0]}
	}
	return sandbox.Wrap(cfg)
}
