package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Group is a long-lived cgroup whose limits several sandboxed processes
// share: a codespace's lifecycle commands and its IDE, started one after
// the other or side by side, together within its machine's cores, memory
// and processes. Each process started with Config.CgroupRoot = g.Root()
// gets its own group inside it (with its own Limits, under the Group's):
// the kernel counts the subtree against the Group's limits.
//
// The caller makes it (NewGroup) under a delegated root it keeps to
// itself: whoever may write the root may move processes out of the group.
type Group struct {
	cg *jobCgroup
}

// NewGroup makes the group name under the delegated root (as Delegate
// returns it) with limits l; a group of that name left by a process that
// died is removed first, with whatever still runs in it.
func NewGroup(root, name string, l Limits) (*Group, error) {
	if root == "" {
		return nil, errors.New("sandbox: no delegated cgroup")
	}
	if name == "" || strings.ContainsAny(name, "/:") || name == "." || name == ".." {
		return nil, fmt.Errorf("sandbox: cgroup name %q", name)
	}
	if err := RemoveGroup(root, name); err != nil {
		return nil, err
	}
	cg, err := makeCgroup(root, name, l.withDefaults(), true)
	if err != nil {
		return nil, err
	}
	return &Group{cg: cg}, nil
}

// Root is the group as Config.CgroupRoot takes it.
func (g *Group) Root() string { return strings.Join(g.cg.dirs, ":") }

// Version is the cgroup version of the group: "v1" or "v2".
func (g *Group) Version() string { return g.cg.version }

// Limits are the limits the group was made with (zero for a group
// FindGroup found).
func (g *Group) Limits() Limits { return g.cg.limits }

// File is the path of one of the group's control files ("" when no
// hierarchy of the group has it), e.g. cpu.cfs_quota_us or memory.max.
func (g *Group) File(name string) string { return g.cg.file(name) }

// Pids are the processes in the group and the groups inside it.
func (g *Group) Pids() []int {
	var out []int
	seen := map[int]bool{}
	for _, top := range g.cg.dirs {
		filepath.WalkDir(top, func(p string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(filepath.Join(p, "cgroup.procs"))
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil && !seen[pid] {
					seen[pid] = true
					out = append(out, pid)
				}
			}
			return nil
		})
	}
	return out
}

// CPUStat is the kernel's account of a group's CPU quota.
type CPUStat struct {
	Periods       int64         // quota periods in which the group ran
	Throttled     int64         // periods in which it used up its quota and was held
	ThrottledTime time.Duration // time its processes were held, all together
}

// CPU reads the group's cpu.stat.
func (g *Group) CPU() (CPUStat, error) {
	p := g.cg.file("cpu.stat")
	if p == "" {
		return CPUStat{}, errors.New("sandbox: the group has no cpu.stat (is the cpu controller enabled?)")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return CPUStat{}, err
	}
	var st CPUStat
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, " ")
		n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		switch k {
		case "nr_periods":
			st.Periods = n
		case "nr_throttled":
			st.Throttled = n
		case "throttled_time": // v1: nanoseconds
			st.ThrottledTime = time.Duration(n)
		case "throttled_usec": // v2
			st.ThrottledTime = time.Duration(n) * time.Microsecond
		}
	}
	return st, nil
}

// Remove kills every process of the group and removes it.
func (g *Group) Remove() error {
	g.cg.killAll()
	var errs []error
	for _, d := range g.cg.dirs {
		if err := removeGroup(d); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// FindGroup is the group name under root as it is now (nil when there is
// none): what another process made there, to read or remove.
func FindGroup(root, name string) *Group {
	g := &Group{cg: &jobCgroup{version: "v1"}}
	if cgroupV2() {
		g.cg.version = "v2"
	}
	for _, base := range strings.Split(root, ":") {
		if base == "" {
			continue
		}
		dir := filepath.Join(base, name)
		if _, err := os.Stat(dir); err == nil {
			g.cg.dirs = append(g.cg.dirs, dir)
		}
	}
	if len(g.cg.dirs) == 0 {
		return nil
	}
	return g
}

// RemoveGroup removes the group name under root, killing what runs in it
// (nothing when there is no such group).
func RemoveGroup(root, name string) error {
	if g := FindGroup(root, name); g != nil {
		return g.Remove()
	}
	return nil
}

// GroupNames are the names of the groups under root (in any of its
// hierarchies): what a process that keeps groups there finds at its start.
func GroupNames(root string) []string {
	seen := map[string]bool{}
	var out []string
	for _, base := range strings.Split(root, ":") {
		if base == "" {
			continue
		}
		entries, _ := os.ReadDir(base)
		for _, e := range entries {
			if e.IsDir() && !seen[e.Name()] && e.Name() != runnerLeaf {
				seen[e.Name()] = true
				out = append(out, e.Name())
			}
		}
	}
	return out
}
