package sandbox

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A delegated cgroup, as Delegate returns it and Config.CgroupRoot takes it:
// under cgroup v2 the group's directory; under v1 the directories of its
// memory, pids and cpu groups joined by ':' (each hierarchy is a tree of
// its own).

// controllersV1 are the v1 hierarchies a job's group lives in.
var controllersV1 = []string{"memory", "pids", "cpu"}

const unifiedRoot = "/sys/fs/cgroup"

// cgroupV2 reports whether the machine runs the unified hierarchy alone.
func cgroupV2() bool {
	_, err := os.Stat(filepath.Join(unifiedRoot, "cgroup.controllers"))
	return err == nil
}

// ownGroups are the directories of the caller's own cgroup: under v2 one,
// under v1 one per controller in controllersV1 (in that order).
func ownGroups() ([]string, error) {
	mounts, err := cgroupMounts()
	if err != nil {
		return nil, err
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	paths := map[string]string{} // controller ("" for v2) → path in its hierarchy
	for _, line := range strings.Split(strings.TrimSpace(string(self)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			paths[c] = parts[2]
		}
	}
	dir := func(controller string) (string, error) {
		m, ok := mounts[controller]
		if !ok {
			return "", fmt.Errorf("sandbox: no %s cgroup hierarchy is mounted", cgroupName(controller))
		}
		p, ok := paths[controller]
		if !ok {
			return "", fmt.Errorf("sandbox: this process is in no %s cgroup", cgroupName(controller))
		}
		rel, err := filepath.Rel(m.root, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			// The mount shows a subtree the process is not in (a
			// container's view): its root is the best place we see.
			rel = "."
		}
		return filepath.Join(m.dir, rel), nil
	}
	if cgroupV2() {
		d, err := dir("")
		if err != nil {
			return nil, err
		}
		return []string{d}, nil
	}
	var dirs []string
	for _, c := range controllersV1 {
		d, err := dir(c)
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, d)
	}
	return dirs, nil
}

func cgroupName(controller string) string {
	if controller == "" {
		return "v2"
	}
	return controller
}

type cgroupMount struct{ dir, root string }

// cgroupMounts maps each mounted controller ("" for the v2 hierarchy) to
// where it is mounted and which path of the hierarchy the mount shows.
func cgroupMounts() (map[string]cgroupMount, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]cgroupMount{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 5 || sep+3 >= len(fields)+1 || sep+3 > len(fields) {
			continue
		}
		m := cgroupMount{dir: unescapeMount(fields[4]), root: unescapeMount(fields[3])}
		switch fields[sep+1] {
		case "cgroup2":
			if _, ok := out[""]; !ok {
				out[""] = m
			}
		case "cgroup":
			if sep+3 >= len(fields) {
				continue
			}
			for _, o := range strings.Split(fields[sep+3], ",") {
				if _, ok := out[o]; !ok {
					out[o] = m
				}
			}
		}
	}
	return out, sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Delegate makes the group hubd/<name> under the caller's own cgroup and
// gives it to uid:gid, so a runner running as that user can make one group
// per job inside it and set the job's limits. hubd serve calls it as root
// before it starts a local runner as an unprivileged user; the runner passes
// the result as Config.CgroupRoot. Under cgroup v2 the runner process itself
// must be placed in a leaf below the returned group (processes may not live
// in a group whose controllers are handed down), e.g. <root>/runner.
func Delegate(uid, gid int, name string) (string, error) {
	if name == "" || strings.ContainsAny(name, "/:") || name == "." || name == ".." {
		return "", fmt.Errorf("sandbox: cgroup name %q", name)
	}
	own, err := ownGroups()
	if err != nil {
		return "", err
	}
	var dirs []string
	for _, base := range own {
		parent := filepath.Join(base, "hubd")
		dir := filepath.Join(parent, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("sandbox: delegate a cgroup: %w", err)
		}
		if cgroupV2() {
			// A v2 group that hands controllers down holds no process:
			// the caller's own processes move to a leaf beside hubd/.
			if err := evacuate(base); err != nil {
				return "", err
			}
			// The controllers a job's limits need, handed down to hubd/
			// and from there to the delegated group.
			for _, d := range []string{base, parent, dir} {
				if err := os.WriteFile(filepath.Join(d, "cgroup.subtree_control"), []byte("+memory +pids +cpu"), 0); err != nil {
					return "", fmt.Errorf("sandbox: enable the memory, pids and cpu controllers in %s: %w", d, err)
				}
			}
			leaf := filepath.Join(dir, runnerLeaf)
			if err := os.MkdirAll(leaf, 0o755); err != nil {
				return "", fmt.Errorf("sandbox: delegate a cgroup: %w", err)
			}
			if err := chownGroup(leaf, uid, gid); err != nil {
				return "", err
			}
		}
		if err := chownGroup(dir, uid, gid); err != nil {
			return "", err
		}
		dirs = append(dirs, dir)
	}
	return strings.Join(dirs, ":"), nil
}

// runnerLeaf is the v2 group of the runner process inside its delegated
// group: v2 moves a process only between groups whose common ancestor the
// mover may write, so the runner must live inside what it was given.
const runnerLeaf = "runner"

// RunnerGroup is the cgroup directory the runner process must be started in
// (e.g. with SysProcAttr.UseCgroupFD) for the delegated group root: a leaf
// inside it under cgroup v2, "" under v1, where a runner moves its jobs
// from wherever it runs.
func RunnerGroup(root string) string {
	if !cgroupV2() || root == "" {
		return ""
	}
	return filepath.Join(root, runnerLeaf)
}

// evacuate moves the processes of the v2 group dir (not the root, which
// may hold processes) into its leaf "serve", so dir can hand controllers
// down.
func evacuate(dir string) error {
	if filepath.Clean(dir) == unifiedRoot {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil || len(strings.TrimSpace(string(b))) == 0 {
		return err
	}
	leaf := filepath.Join(dir, "serve")
	if err := os.MkdirAll(leaf, 0o755); err != nil {
		return fmt.Errorf("sandbox: delegate a cgroup: %w", err)
	}
	for _, pid := range strings.Fields(string(b)) {
		if err := os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(pid), 0); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("sandbox: move process %s to %s: %w", pid, leaf, err)
		}
	}
	return nil
}

// chownGroup gives the group directory and the files a delegate writes to
// uid:gid (cgroup v2's delegation model; v1 needs the same files).
func chownGroup(dir string, uid, gid int) error {
	for _, f := range []string{"", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads", "tasks"} {
		p := filepath.Join(dir, f)
		if err := os.Chown(p, uid, gid); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("sandbox: delegate %s: %w", p, err)
		}
	}
	return nil
}

// Undelegate removes a group Delegate made (it must hold no processes).
func Undelegate(root string) error {
	var errs []error
	for _, dir := range strings.Split(root, ":") {
		if dir == "" {
			continue
		}
		if err := removeGroup(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		// hubd/ goes with its last delegated group (another one keeps
		// it busy).
		syscall.Rmdir(filepath.Dir(dir))
	}
	return errors.Join(errs...)
}

// removeGroup removes a cgroup directory and the groups inside it.
func removeGroup(dir string) error {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			removeGroup(filepath.Join(dir, e.Name()))
		}
	}
	// A group is removable once its last process has been reaped, which
	// may trail the kill by a moment.
	var err error
	for pause, waited := time.Millisecond, time.Duration(0); waited < time.Second; pause = min(2*pause, 50*time.Millisecond) {
		if err = syscall.Rmdir(dir); err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) {
			break
		}
		time.Sleep(pause)
		waited += pause
	}
	return fmt.Errorf("sandbox: remove cgroup %s: %w", dir, err)
}

// jobCgroup is one job's group in each hierarchy.
type jobCgroup struct {
	version string // "v1" or "v2"
	dirs    []string
	limits  Limits
	events  map[string]int64 // counters read when the group was made
}

func newJobCgroup(root string, l Limits) (*jobCgroup, error) {
	var id [6]byte
	rand.Read(id[:])
	return makeCgroup(root, "job-"+hex.EncodeToString(id[:]), l, false)
}

// makeCgroup makes the group name under the delegated root with limits l;
// a parent's processes live in groups of their own inside it (under v2 it
// hands its controllers down to them).
func makeCgroup(root, name string, l Limits, parent bool) (*jobCgroup, error) {
	cg := &jobCgroup{version: "v1", limits: l}
	if cgroupV2() {
		cg.version = "v2"
	}
	for _, base := range strings.Split(root, ":") {
		if base == "" {
			continue
		}
		dir := filepath.Join(base, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			cg.destroy()
			return nil, fmt.Errorf("sandbox: make the job's cgroup under %s: %w (is it delegated to this user?)", base, err)
		}
		cg.dirs = append(cg.dirs, dir)
	}
	if err := cg.setLimits(); err != nil {
		cg.destroy()
		return nil, err
	}
	if parent && cg.version == "v2" {
		if err := os.WriteFile(filepath.Join(cg.dirs[0], "cgroup.subtree_control"), []byte("+memory +pids +cpu"), 0); err != nil {
			cg.destroy()
			return nil, fmt.Errorf("sandbox: hand the controllers of %s down: %w", cg.dirs[0], err)
		}
	}
	return cg, nil
}

// file is the first of the job's group directories holding name.
func (cg *jobCgroup) file(name string) string {
	for _, d := range cg.dirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

func (cg *jobCgroup) setLimits() error {
	l := cg.limits
	mem := strconv.FormatInt(l.MemoryBytes, 10)
	var want []struct{ file, value string }
	optional := map[string]bool{}
	if cg.version == "v2" {
		weight := 1 + ((int64(l.CPUShares)-2)*9999)/262142 // cgroup v1 shares → v2 weight
		weight = min(max(weight, 1), 10000)
		want = []struct{ file, value string }{
			{"memory.max", mem}, {"memory.swap.max", "0"}, {"pids.max", strconv.Itoa(l.Processes)},
			{"cpu.weight", strconv.FormatInt(weight, 10)},
		}
		optional["memory.swap.max"] = true
		if l.CPUs > 0 {
			quota, period := cpuQuota(l)
			want = append(want, struct{ file, value string }{"cpu.max", strconv.FormatInt(quota, 10) + " " + strconv.FormatInt(period, 10)})
		}
	} else {
		want = []struct{ file, value string }{
			{"memory.limit_in_bytes", mem}, {"memory.memsw.limit_in_bytes", mem},
			{"pids.max", strconv.Itoa(l.Processes)}, {"cpu.shares", strconv.Itoa(l.CPUShares)},
		}
		optional["memory.memsw.limit_in_bytes"] = true // without swap accounting
		if l.CPUs > 0 {
			// The period first: the quota is checked against it.
			quota, period := cpuQuota(l)
			want = append(want, struct{ file, value string }{"cpu.cfs_period_us", strconv.FormatInt(period, 10)},
				struct{ file, value string }{"cpu.cfs_quota_us", strconv.FormatInt(quota, 10)})
		}
	}
	for _, w := range want {
		p := cg.file(w.file)
		if p == "" {
			if optional[w.file] {
				continue
			}
			return fmt.Errorf("sandbox: the job's cgroup has no %s (is the controller enabled and delegated?)", w.file)
		}
		if err := os.WriteFile(p, []byte(w.value), 0); err != nil {
			if optional[w.file] {
				continue
			}
			return fmt.Errorf("sandbox: set %s: %w", p, err)
		}
	}
	cg.events = cg.counters()
	return nil
}

// cpuQuota is the CFS bandwidth of l in microseconds: the CPU time its
// processes may take together per period. The kernel takes periods of
// 1 ms to 1 s and quotas of at least 1 ms.
func cpuQuota(l Limits) (quota, period int64) {
	period = min(max(l.CPUPeriod.Microseconds(), 1000), 1_000_000)
	quota = max(int64(l.CPUs*float64(period)), 1000)
	return quota, period
}

// counters are the group's limit events: OOM kills and refused forks.
func (cg *jobCgroup) counters() map[string]int64 {
	out := map[string]int64{}
	read := func(file string, keys ...string) {
		p := cg.file(file)
		if p == "" {
			return
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return
		}
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, " ")
			if !ok {
				continue
			}
			for _, want := range keys {
				if k == want {
					n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
					out[file+":"+k] = n
				}
			}
		}
	}
	if cg.version == "v2" {
		read("memory.events", "oom_kill")
	} else {
		read("memory.oom_control", "oom_kill")
	}
	read("pids.events", "max")
	return out
}

// limitHit names the limit the job ran into since its group was made.
func (cg *jobCgroup) limitHit() string {
	now := cg.counters()
	for k, v := range now {
		if v <= cg.events[k] {
			continue
		}
		switch {
		case strings.HasSuffix(k, ":oom_kill"):
			return "memory limit of " + bytesText(cg.limits.MemoryBytes)
		case strings.HasSuffix(k, ":max"):
			return fmt.Sprintf("process limit of %d", cg.limits.Processes)
		}
	}
	return ""
}

// add moves pid into the job's group in every hierarchy.
func (cg *jobCgroup) add(pid int) error {
	for _, d := range cg.dirs {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			return fmt.Errorf("sandbox: move the job into its cgroup %s: %w", d, err)
		}
	}
	return nil
}

// killAll kills every process in the job's groups and the groups inside
// them, repeating while new ones appear (a process may fork while the list
// is read).
func (cg *jobCgroup) killAll() {
	if cg.version == "v2" && len(cg.dirs) > 0 {
		if os.WriteFile(filepath.Join(cg.dirs[0], "cgroup.kill"), []byte("1"), 0) == nil {
			return
		}
	}
	for round := 0; round < 20; round++ {
		found := false
		for _, top := range cg.dirs {
			filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
				if err != nil || !d.IsDir() {
					return nil
				}
				b, err := os.ReadFile(filepath.Join(p, "cgroup.procs"))
				if err != nil {
					return nil
				}
				for _, f := range strings.Fields(string(b)) {
					if pid, err := strconv.Atoi(f); err == nil {
						found = true
						syscall.Kill(pid, syscall.SIGKILL)
					}
				}
				return nil
			})
		}
		if !found {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// destroy removes the job's groups.
func (cg *jobCgroup) destroy() {
	for _, d := range cg.dirs {
		removeGroup(d)
	}
}
