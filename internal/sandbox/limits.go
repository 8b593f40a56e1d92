package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// rlimit is one resource limit a job's first process gets.
type rlimit struct {
	name     string // as prlimit(1) names it
	resource int
	value    uint64
}

// rlimits are the job's rlimits. The open-file, file-size and core limits
// always apply; processes and memory come from rlimits only without a
// cgroup. RLIMIT_DATA rather than RLIMIT_AS bounds memory: node and Java
// reserve far more address space than they use. RLIMIT_NPROC is counted
// per user (in the job's user namespace and, above it, for the runner's
// user as a whole) and does not bind root.
func rlimits(l Limits, cgroup bool) []rlimit {
	set := []rlimit{
		{"nofile", unix.RLIMIT_NOFILE, uint64(l.OpenFiles)},
		{"fsize", unix.RLIMIT_FSIZE, uint64(l.DiskBytes)},
		{"core", unix.RLIMIT_CORE, 0},
	}
	if !cgroup {
		set = append(set, rlimit{"nproc", unix.RLIMIT_NPROC, uint64(l.Processes)},
			rlimit{"data", unix.RLIMIT_DATA, uint64(l.MemoryBytes)})
	}
	return set
}

// setRlimits sets the job's rlimits on its first process, which holds at
// the start gate, so every process of the job inherits them.
func setRlimits(pid int, l Limits, cgroup bool) error {
	for _, s := range rlimits(l, cgroup) {
		lim := unix.Rlimit{Cur: s.value, Max: s.value}
		if err := unix.Prlimit(pid, s.resource, &lim, nil); err != nil {
			return fmt.Errorf("sandbox: set the %s limit: %w", s.name, err)
		}
	}
	return nil
}

// diskUse is the disk space the files under dir take, each hard-linked file
// counted once. The walk stays inside dir (os.Root): the job may swap a
// directory for a symbolic link while it runs. A directory the job made
// unreadable is opened up first (it belongs to the job's user, which is the
// caller's or one the caller may change): hiding files must not hide their
// size.
func diskUse(dir string) int64 {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0
	}
	defer root.Close()
	fsys := root.FS()
	var total int64
	seen := map[[2]uint64]bool{}
	var walk func(start string)
	walk = func(start string) {
		fs.WalkDir(fsys, start, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if d != nil && d.IsDir() && path != start && errors.Is(err, fs.ErrPermission) && root.Chmod(path, 0o700) == nil {
					walk(path)
				}
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			st, ok := fi.Sys().(*syscall.Stat_t)
			if !ok {
				return nil
			}
			if st.Nlink > 1 && !d.IsDir() {
				key := [2]uint64{uint64(st.Dev), st.Ino}
				if seen[key] {
					return nil
				}
				seen[key] = true
			}
			total += st.Blocks * 512
			return nil
		})
	}
	walk(".")
	return total
}
