package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/runner"
	"github.com/hubd/hubd/internal/runners"
	"github.com/hubd/hubd/internal/sandbox"
)

// localRunners are hubd serve's own runners: `hubd runner` children, one
// per --actions-workers, running as --runner-user (never as root, never
// as hubd's user), registered directly as the enterprise runners
// hubd-HOST-N with their credentials written to a pipe. They die with
// hubd (Pdeathsig); one that dies is started again.
type localRunners struct {
	URL, Sandbox, DataDir, Work string
	Node                        string // --node-name ("": the host name)
	User                        string
	Limits                      []string // the job limit flags (joblimits.go)
	Cred                        *syscall.Credential
	exe                         string   // hubd's binary where the runner user can run it
	cgroups                     []string // the runners' delegated cgroups, removed after them
	wg                          sync.WaitGroup
}

// newLocalRunners checks that local runners can run: hubd is root (it
// switches to the runner user). Otherwise the error says how to run
// runners by hand.
func newLocalRunners(userName string) (*localRunners, error) {
	if os.Geteuid() != 0 {
		me, _ := user.Current()
		who := "this user"
		if me != nil {
			who = me.Username
		}
		return nil, fmt.Errorf("no local runners: hubd runs as %s, not root, so it cannot start jobs as --runner-user %s, and it never runs jobs as its own user. "+
			"Run runners by hand as another user: take a registration token (POST /enterprises/{enterprise}/actions/runners/registration-token) "+
			"and start `hubd runner --url URL --token TOKEN` (docs/runner-protocol.md)", who, userName)
	}
	cred, err := lookupCredential(userName)
	if err != nil {
		return nil, fmt.Errorf("no local runners: --runner-user %s: %v (scripts/deps.sh creates hubd-runner)", userName, err)
	}
	return &localRunners{User: userName, Cred: cred}, nil
}

// start registers n local runners, recovers the jobs a dead hubd left on
// them, and starts them; they run until ctx ends.
func (l *localRunners) start(ctx context.Context, deps *api.Deps, n int) error {
	names := runners.LocalRunnerNames(l.Node, n)
	if err := deps.RecoverJobs(ctx, names); err != nil {
		return fmt.Errorf("recover the jobs of the local runners: %w", err)
	}
	list, err := deps.LocalRunners(ctx, n)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(l.Work, 0o711); err != nil {
		return err
	}
	if err := os.Chmod(l.Work, 0o711); err != nil {
		return err
	}
	if err := l.install(); err != nil {
		return fmt.Errorf("local runners: %w", err)
	}
	for _, r := range list {
		dir := filepath.Join(l.Work, r.Name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		if err := os.Chown(dir, int(l.Cred.Uid), int(l.Cred.Gid)); err != nil {
			return err
		}
		// Each runner gets a cgroup of its own to make its jobs' groups
		// in; without one its jobs' limits are rlimits.
		cg, err := sandbox.Delegate(int(l.Cred.Uid), int(l.Cred.Gid), r.Name)
		if err != nil {
			slog.Warn("local runner: no delegated cgroup, its jobs' limits are rlimits", "runner", r.Name, "err", err)
			cg = ""
		} else {
			l.cgroups = append(l.cgroups, cg)
		}
		l.wg.Add(1)
		go l.supervise(ctx, r, dir, cg)
	}
	return nil
}

// install copies hubd's binary where the runner user may run it (hubd's
// own may sit in a directory only its owner reads): the work root's bin,
// replaced at each start.
func (l *localRunners) install() error {
	exe, err := os.Executable()
	if err == nil {
		l.exe, err = runner.InstallWorker(exe, filepath.Join(l.Work, "bin"))
	}
	return err
}

// wait waits for the children to end (after ctx).
func (l *localRunners) wait() {
	l.wg.Wait()
	for _, cg := range l.cgroups {
		if err := sandbox.Undelegate(cg); err != nil {
			slog.Warn("local runners: remove a delegated cgroup", "cgroup", cg, "err", err)
		}
	}
}

// supervise keeps one local runner's child running until ctx ends. The
// goroutine keeps its thread: Pdeathsig follows the thread that started
// the child.
func (l *localRunners) supervise(ctx context.Context, r runners.LocalRunner, work, cgroup string) {
	defer l.wg.Done()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for ctx.Err() == nil {
		start := time.Now()
		err := l.run(ctx, r, work, cgroup)
		if ctx.Err() != nil {
			return
		}
		slog.Warn("local runner ended; starting it again", "runner", r.Name, "err", err)
		if time.Since(start) < 5*time.Second {
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
			}
		}
	}
}

// run starts the child and waits for it; its credential goes over a pipe.
func (l *localRunners) run(ctx context.Context, r runners.LocalRunner, work, cgroup string) error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command(l.exe, "runner", "--url", l.URL, "--credential-fd", "3", "--name", r.Name, "--work", work,
		"--sandbox", l.Sandbox, "--hide", l.DataDir+","+l.Work, // the other local runners' jobs too
		"--cgroup-root", cgroup)
	cmd.Args = append(cmd.Args, l.Limits...)
	cmd.ExtraFiles = []*os.File{pr}
	// A clean environment: never the server's (its secrets key).
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + work, "LANG=C.UTF-8"}
	cmd.Dir = work
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: l.Cred, Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if leaf := sandbox.RunnerGroup(cgroup); leaf != "" {
		// cgroup v2: the runner lives in a leaf of its delegated group,
		// where it may move its jobs.
		f, err := os.Open(leaf)
		if err != nil {
			pr.Close()
			pw.Close()
			return err
		}
		defer f.Close()
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, int(f.Fd())
	}
	err = cmd.Start()
	pr.Close()
	if err != nil {
		pw.Close()
		return err
	}
	_, werr := io.WriteString(pw, r.Credential)
	pw.Close()
	if werr != nil {
		cmd.Process.Kill()
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
		return err
	case <-ctx.Done():
		cmd.Process.Signal(syscall.SIGTERM) // it says goodbye and stops its job
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			err = <-done
		}
		return err
	}
}
