package apitest

import (
	"context"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/runner"
	"github.com/hubd/hubd/internal/sandbox"
)

// RunnerUser is the Unix user jobs run as when the tests run as root
// (scripts/deps.sh creates it).
const RunnerUser = "hubd-runner"

// RunnerCredential is the credential a runner started as root drops to:
// RunnerUser's, or nil when the tests do not run as root.
func RunnerCredential(t testing.TB) *syscall.Credential {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup(RunnerUser)
	if err != nil {
		t.Fatalf("apitest: the tests run as root and jobs run as %s: %v (scripts/deps.sh creates the user)", RunnerUser, err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

var workerCopy struct {
	once sync.Once
	path string
	err  error
}

// WorkerCommand is the worker command the runner user can run: the test
// binary lives in a directory only its owner reads, so it is copied once
// to a directory of its own that everyone may read (removed by
// MainWithActionsWorker).
func WorkerCommand(t testing.TB, argv []string) []string {
	t.Helper()
	if os.Geteuid() != 0 || len(argv) == 0 {
		return argv
	}
	workerCopy.once.Do(func() { workerCopy.path, workerCopy.err = runner.InstallWorker(argv[0], "") })
	if workerCopy.err != nil {
		t.Fatalf("apitest: worker copy: %v", workerCopy.err)
	}
	return append([]string{workerCopy.path}, argv[1:]...)
}

// RunnerWorkRoot is a work root the runner user may reach (a test's temp
// directory is its owner's only): removed when the test ends.
func RunnerWorkRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hubd-runner-work-")
	if err == nil {
		err = os.Chmod(dir, 0o711)
	}
	if err != nil {
		t.Fatalf("apitest: runner work root: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// startRunners registers n local runners and runs them in this process
// (the same library as `hubd runner`) until the returned stop.
func (e *Env) startRunners(deps *api.Deps, n int, worker []string, mode string, limits sandbox.Limits) (stop func()) {
	t := e.T
	ctx, cancel := context.WithCancel(context.Background())
	list, err := deps.LocalRunners(ctx, n)
	if err != nil {
		t.Fatalf("apitest: local runners: %v", err)
	}
	iso := &runner.Isolation{Mode: mode, Hide: []string{e.DataDir}, Credential: RunnerCredential(t), Limits: limits}
	worker = WorkerCommand(t, worker)
	e.RunnerWork = RunnerWorkRoot(t)
	var wg sync.WaitGroup
	for _, l := range list {
		r := &runner.Runner{Client: &runner.Client{URL: e.URL, Credential: l.Credential}, Name: l.Name,
			Work: filepath.Join(e.RunnerWork, l.Name), Worker: worker, Isolation: iso}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.Run(ctx); err != nil && ctx.Err() == nil {
				t.Logf("apitest: runner %s: %v", r.Name, err)
			}
		}()
	}
	return func() { cancel(); wg.Wait() }
}
