package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
)

// bwrapArgs is the bubblewrap command line (without the job's command) for
// cfg, with the seccomp program on descriptor seccompFD.
func bwrapArgs(bwrap string, cfg Config, seccompFD int) []string {
	size := strconv.FormatInt(cfg.Limits.TmpBytes, 10)
	args := []string{bwrap,
		"--unshare-user", "--disable-userns", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup",
		"--cap-drop", "ALL", "--die-with-parent", "--new-session",
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
		"--size", size, "--tmpfs", "/tmp",
		"--size", size, "--tmpfs", "/dev/shm",
	}
	var hidden []string
	for _, h := range cfg.Hide {
		if h = existing(h); h != "" {
			hidden = append(hidden, h)
			args = append(args, "--size", "65536", "--tmpfs", h)
		}
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
	args = append(args,
		// /dev itself is a small tmpfs bubblewrap fills with device
		// nodes; read-only, it is no place to store data.
		"--remount-ro", "/dev",
		"--seccomp", strconv.Itoa(seccompFD),
		"--chdir", cfg.WorkDir, "--")
	return args
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
