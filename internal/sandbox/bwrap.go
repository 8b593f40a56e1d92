package sandbox

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// bwrapArgs is the bubblewrap command line (without the job's command) for
// cfg, with the seccomp program on descriptor seccompFD; bubblewrap writes
// the host pid of the sandbox's init on infoFD (none when -1).
func bwrapArgs(bwrap string, cfg Config, seccompFD, infoFD int) []string {
	size := strconv.FormatInt(cfg.Limits.TmpBytes, 10)
	args := []string{bwrap,
		"--unshare-user", "--disable-userns", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup",
		"--cap-drop", "ALL", "--die-with-parent", "--new-session",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--size", size, "--tmpfs", "/tmp",
		"--size", size, "--tmpfs", "/dev/shm",
		// /run holds the host's service sockets (a database with trust
		// authentication, a container engine, the system bus): a read-only
		// file system still lets a process connect to a socket. Only the
		// resolver's directory comes back (/etc/resolv.conf may point there).
		"--size", "65536", "--tmpfs", "/run",
		"--ro-bind-try", "/run/systemd/resolve", "/run/systemd/resolve",
	}
	hidden := outermost(cfg.Hide)
	for _, h := range hidden {
		args = append(args, "--size", "65536", "--tmpfs", h)
	}
	for _, r := range cfg.ReadOnly {
		if r = existing(r); r != "" {
			args = append(args, "--ro-bind", r, r)
		}
	}
	args = append(args, "--bind", cfg.WorkDir, cfg.WorkDir)
	// The empty file systems over hidden trees turn read-only once the
	// work directory and the read-only paths have their mount points.
	for _, h := range hidden {
		args = append(args, "--remount-ro", h)
	}
	args = append(args, "--remount-ro", "/run",
		// /dev itself is a small tmpfs bubblewrap fills with device
		// nodes; read-only, it is no place to store data.
		"--remount-ro", "/dev",
		"--seccomp", strconv.Itoa(seccompFD))
	if infoFD >= 0 {
		args = append(args, "--info-fd", strconv.Itoa(infoFD))
	}
	return append(args, "--chdir", cfg.WorkDir, "--")
}

// outermost are the existing directories of paths (links resolved), without
// those inside another: covering a directory hides everything below it.
func outermost(paths []string) []string {
	var abs []string
	for _, p := range paths {
		if p = existing(p); p != "" {
			// The directory itself, wherever a link to it points.
			if real, err := filepath.EvalSymlinks(p); err == nil {
				p = real
			}
			abs = append(abs, p)
		}
	}
	sort.Strings(abs)
	var out []string
next:
	for _, p := range abs {
		for _, o := range out {
			if p == o || strings.HasPrefix(p, strings.TrimSuffix(o, "/")+"/") {
				continue next
			}
		}
		out = append(out, p)
	}
	return out
}

// existing is the absolute, clean form of path when it exists, else "".
func existing(path string) string {
	if path == "" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	if _, err := os.Stat(abs); err != nil {
		return ""
	}
	return abs
}
