package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/hubd/hubd/internal/sandbox"
)

// Sandbox modes (--actions-sandbox, hubd runner --sandbox). There is no
// silent fallback: a job runs unisolated only when the operator chose none.
const (
	SandboxAuto  = "auto"  // bubblewrap; where it does not work, jobs fail with a message naming the fix
	SandboxBwrap = "bwrap" // bubblewrap; hubd and hubd runner refuse to start where it does not work
	SandboxNone  = "none"  // no isolation: an explicit choice, warned at start and in every job's log
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

// Isolation is how a runner isolates its jobs' workers (internal/sandbox).
type Isolation struct {
	Mode string // --actions-sandbox: auto (""), bwrap, none
	// Hide are directories a job may not see (hubd's data directory for
	// a local runner; the runner's work root but for the job's own
	// directory is hidden always).
	Hide []string
	// Credential, when set, is the Unix user and group the worker runs as
	// (a root runner drops to its runner user).
	Credential *syscall.Credential
	// Limits bound each job (zero fields: internal/sandbox's defaults).
	Limits sandbox.Limits
	// CgroupRoot is the runner's delegated cgroup (sandbox.Delegate):
	// each job's limits come from a group made there; "" → rlimits.
	CgroupRoot string

	check sync.Once
	note  string
	err   error
}

// config is the sandbox of the job whose directory is dir under the work
// root root.
func (iso *Isolation) config(root, dir string, argv []string) sandbox.Config {
	cfg := sandbox.Config{Mode: SandboxInUse(iso.Mode), WorkDir: dir, Hide: append([]string{root}, iso.Hide...),
		Limits: iso.Limits, CgroupRoot: iso.CgroupRoot, Credential: iso.Credential}
	if filepath.IsAbs(argv[0]) {
		// The worker binary, wherever it is (a test binary lives in /tmp).
		cfg.ReadOnly = []string{argv[0]}
	}
	return cfg
}

// Check verifies, once, that the isolation works here (a probe sandbox
// with the runner's hidden directories, user and cgroup): a runner runs a
// job only inside an isolation it has verified. The note is the line every
// job's log gets (a loud warning under none); the error names the fix.
func (iso *Isolation) Check(root string) (string, error) {
	iso.check.Do(func() {
		probe, err := os.MkdirTemp(root, "probe-")
		if err != nil {
			iso.err = fmt.Errorf("the job sandbox could not be checked: %v", err)
			return
		}
		defer os.RemoveAll(probe)
		if c := iso.Credential; c != nil {
			if err := os.Chown(probe, int(c.Uid), int(c.Gid)); err != nil {
				iso.err = fmt.Errorf("the job sandbox could not be checked: %v", err)
				return
			}
		}
		cfg := iso.config(root, probe, []string{"/bin/sh"})
		cfg.ReadOnly = nil
		r, err := sandbox.Check(cfg)
		iso.note, iso.err = r.Note, err
	})
	return iso.note, iso.err
}

// process is a job's worker, started by isolate.
type process struct{ p *sandbox.Process }

// Kill kills the worker and everything the job started (its pid
// namespace and cgroup, daemons included).
func (p *process) Kill() { p.p.Kill() }

// Wait waits for every process of the job to end; limit names the limit
// the job was killed for ("" when none).
func (p *process) Wait() (limit string, err error) {
	ex, err := p.p.Wait()
	if err == nil && ex.Code != 0 && ex.Limit == "" {
		err = fmt.Errorf("exit status %d", ex.Code)
	}
	return ex.Limit, err
}

// isolate starts the worker argv for the job whose directory is dir (the
// only place it may write besides a /tmp of its own), reading stdin and
// writing its output to stdout; it is the one way a runner starts a job's
// code, inside the isolation the runner verified (Check). It returns the
// line the job's log says of the isolation (or the warning of none) and
// the limits in force.
func isolate(ctx context.Context, iso *Isolation, root, dir string, argv, env []string, stdin io.Reader, stdout io.Writer) (*process, string, error) {
	if _, err := iso.Check(root); err != nil {
		return nil, "", fmt.Errorf("This job was not run: %v", err)
	}
	p, err := sandbox.Start(ctx, iso.config(root, dir, argv), argv, env, stdin, stdout, stdout, nil)
	if err != nil {
		return nil, "", fmt.Errorf("worker: %v", err)
	}
	uid := os.Getuid()
	if iso.Credential != nil {
		uid = int(iso.Credential.Uid)
	}
	note := fmt.Sprintf("%s; the job runs as uid %d", p.Note(), uid)
	return &process{p: p}, note, nil
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

// CheckSandbox verifies, for hubd's start, that mode's sandbox works on
// this machine (as this process's user, without the runners' own hidden
// directories): the note is the line to print (a loud warning under none),
// the error names the fix. Each runner checks its own isolation again
// before its first job.
func CheckSandbox(mode string) (string, error) {
	r, err := sandbox.Check(sandbox.Config{Mode: SandboxInUse(mode)})
	if err != nil {
		return "Sandbox: bubblewrap does not work here: " + err.Error(), err
	}
	return r.Note, nil
}
