package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// watch kills the job when ctx ends or a limit is exceeded.
func (p *Process) watch(ctx context.Context) {
	defer close(p.watched)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var lastDisk time.Time
	diskEvery := time.Second
	for {
		select {
		case <-p.stop:
			return
		case <-ctx.Done():
			p.Kill()
			return
		case now := <-tick.C:
			if p.cg != nil {
				if l := p.cg.limitHit(); l != "" {
					p.hit(l)
					return
				}
			} else if p.pidns != "" && jobRSS(p.pidns) > p.cfg.Limits.MemoryBytes {
				// Without a cgroup, RLIMIT_DATA bounds each process;
				// the job as a whole is measured here.
				p.hit("memory limit of " + bytesText(p.cfg.Limits.MemoryBytes))
				return
			}
			if now.Sub(lastDisk) >= diskEvery {
				began := time.Now()
				used := diskUse(p.cfg.WorkDir)
				// A very large tree is measured less often, so the
				// watchdog never costs more than a tenth of a core.
				diskEvery = max(time.Second, 10*time.Since(began))
				lastDisk = time.Now()
				if used >= p.cfg.Limits.DiskBytes {
					p.hit("work directory disk limit of " + bytesText(p.cfg.Limits.DiskBytes))
					return
				}
			}
		}
	}
}

func (p *Process) hit(limit string) {
	p.mu.Lock()
	if p.limit == "" {
		p.limit = limit
	}
	p.mu.Unlock()
	p.Kill()
}

// Kill ends every process of the job, daemons included: bubblewrap, and the
// init of the job's pid namespace (through its pidfd; its end takes every
// process in the namespace with it), and every process of the job's cgroup.
// Wait returns once they are gone.
func (p *Process) Kill() {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	if !done {
		// The negative pid is the process group (Setpgid): under mode none
		// that reaches the worker's children that stayed in the group.
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		p.cmd.Process.Kill()
	}
	p.killInit()
	if p.cg != nil {
		p.cg.killAll()
	}
}

// killInit kills the sandbox's init, and with it its pid namespace.
func (p *Process) killInit() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.initFD >= 0 {
		unix.PidfdSendSignal(p.initFD, unix.SIGKILL, nil, 0)
	}
}

// Wait waits for the job to end and releases its cgroup.
func (p *Process) Wait() (Exit, error) {
	p.mu.Lock()
	if p.waited {
		p.mu.Unlock()
		return Exit{}, errors.New("sandbox: Wait called twice")
	}
	p.waited = true
	p.mu.Unlock()
	err := p.cmd.Wait()
	if p.initFD >= 0 {
		// bubblewrap returns as soon as the job's command ends; its init
		// may still hold daemons. Killing it empties the namespace, and
		// its end is reported only once the namespace is empty.
		p.killInit()
		waitPidfd(p.initFD)
		p.mu.Lock()
		unix.Close(p.initFD)
		p.initFD = -1
		p.mu.Unlock()
	}
	if p.cfg.Mode == ModeNone {
		// Whatever stayed in the worker's process group (its number is
		// not reused while a member lives).
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
	p.mu.Lock()
	p.done = true
	p.mu.Unlock()
	close(p.stop)
	<-p.watched
	var ex Exit
	if st := p.cmd.ProcessState; st != nil {
		ex.Code = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			ex.Code = 128 + int(ws.Signal())
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = nil
		}
	}
	if p.cg != nil {
		if l := p.cg.limitHit(); l != "" {
			p.mu.Lock()
			if p.limit == "" {
				p.limit = l
			}
			p.mu.Unlock()
		}
		p.cg.killAll()
		p.cg.destroy()
	}
	p.mu.Lock()
	ex.Limit = p.limit
	p.mu.Unlock()
	return ex, err
}

// Note is one line for the job's log: the isolation and the limits in
// force, and whether the limits come from cgroups or rlimits.
func (p *Process) Note() string { return p.note }

// Pid is the process id of the job's first process (bubblewrap under
// mode bwrap).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// sandboxInit reads bubblewrap's --info-fd report until bubblewrap closes
// it and returns a pidfd of the sandbox's init (-1 when there is none:
// bubblewrap failed before making it) and the job's pid namespace. The
// pidfd is taken while the init is still bubblewrap's child, so it cannot
// name a reused pid.
func sandboxInit(info *os.File, bwrap int) (int, string) {
	var report struct {
		ChildPid int `json:"child-pid"`
	}
	if json.NewDecoder(info).Decode(&report) != nil || report.ChildPid <= 0 {
		return -1, ""
	}
	fd, err := unix.PidfdOpen(report.ChildPid, 0)
	if err != nil {
		return -1, ""
	}
	ns := pidNamespace(report.ChildPid)
	if ppid(report.ChildPid) != bwrap || ns == "" {
		unix.Close(fd)
		return -1, ""
	}
	return fd, ns
}

// pidNamespace names the pid namespace pid lives in ("" when unknown).
func pidNamespace(pid int) string {
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid))
	if err != nil {
		return ""
	}
	return ns
}

// jobRSS is the resident memory of the processes in the pid namespace ns.
func jobRSS(ns string) int64 {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	page := int64(os.Getpagesize())
	var total int64
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pidNamespace(pid) != ns {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
		if err != nil {
			continue
		}
		// size resident shared ...: pages.
		if f := strings.Fields(string(b)); len(f) > 1 {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			total += n * page
		}
	}
	return total
}

// ppid is the parent of pid, 0 when unknown.
func ppid(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// waitPidfd waits until the process of fd has ended, at most a minute (a
// process stuck in the kernel cannot hold Wait forever).
func waitPidfd(fd int) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 1000)
		if n > 0 || (err != nil && err != unix.EINTR) {
			return
		}
	}
}

// inheritNothing marks every descriptor of this process close-on-exec, so
// the job gets exactly its standard streams and extra files: a descriptor
// the runner inherited without the flag (Go sets it on its own) would
// otherwise reach the job.
func inheritNothing() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
			unix.FcntlInt(uintptr(fd), unix.F_SETFD, flags|unix.FD_CLOEXEC)
		}
	}
}
