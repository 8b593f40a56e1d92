package apitest

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/codespaces/ide"
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

// codespaceIDE is the IDE manager of an environment: code-server as
// scripts/deps.sh installs it, shared where the runner user can run it.
func codespaceIDE(t testing.TB, cred *syscall.Credential, dataDir string) *ide.Manager {
	t.Helper()
	bin := ide.DefaultBinary()
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("apitest: code-server is not installed (run scripts/deps.sh): %v", err)
	}
	if cred != nil {
		var err error
		if bin, err = ide.Share(bin, filepath.Join(os.TempDir(), "hubd-code-server")); err != nil {
			t.Fatalf("apitest: share code-server: %v", err)
		}
	}
	return ide.New(ide.Options{Binary: bin, Credential: cred, Hide: []string{dataDir}})
}

// passThrough lets other users pass through dir and its parent (t.TempDir
// makes both 0700), without listing them.
func passThrough(t testing.TB, dir string) {
	t.Helper()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		fi, err := os.Stat(d)
		if err == nil {
			err = os.Chmod(d, fi.Mode().Perm()|0o001)
		}
		if err != nil {
			t.Fatalf("apitest: %v", err)
		}
	}
}

var cgroupSeq atomic.Int64

// codespacesCgroup delegates a cgroup to an environment's codespaces when
// the tests run as root (as hubd serve does), removed with whatever is left
// in it when the test ends; "" when not root.
func codespacesCgroup(t testing.TB) string {
	t.Helper()
	if os.Geteuid() != 0 {
		return ""
	}
	root, err := sandbox.Delegate(0, 0, fmt.Sprintf("test-codespaces-%d-%d", os.Getpid(), cgroupSeq.Add(1)))
	if err != nil {
		t.Fatalf("apitest: a cgroup for the codespaces: %v", err)
	}
	t.Cleanup(func() {
		for _, name := range sandbox.GroupNames(root) {
			if err := sandbox.RemoveGroup(root, name); err != nil {
				t.Errorf("apitest: %v", err)
			}
		}
		if err := sandbox.Undelegate(root); err != nil {
			t.Errorf("apitest: %v", err)
		}
	})
	return root
}
