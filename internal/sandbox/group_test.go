package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestGroup runs jobs in a shared group with a CPU quota and a memory
// limit: a job spinning on more cores than the quota is held by the kernel
// (its throttling counters move), a job allocating past the memory limit is
// killed and says so, and the group is gone once removed. It asserts on the
// kernel's counters, never on how long anything took: on a loaded host the
// quota binds whenever the group's processes run on two cores at once
// within a period, which a 1 ms period makes frequent.
func TestGroup(t *testing.T) {
	f := newFixture(t)
	if f.cgroup == "" {
		t.Fatal("TestGroup needs a delegated cgroup: run the tests as root (or with " + cgroupEnv + ")")
	}
	lim := Limits{CPUs: 1, CPUPeriod: time.Millisecond, MemoryBytes: 64 << 20, Processes: 64}
	g, err := NewGroup(f.cgroup, "group-test", lim)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Remove()
	want := map[string]string{"cpu.cfs_period_us": "1000", "cpu.cfs_quota_us": "1000", "memory.limit_in_bytes": "67108864", "pids.max": "64"}
	if g.Version() == "v2" {
		want = map[string]string{"cpu.max": "1000 1000", "memory.max": "67108864", "pids.max": "64"}
	}
	for file, v := range want {
		p := g.File(file)
		b, err := os.ReadFile(p)
		if err != nil || strings.TrimSpace(string(b)) != v {
			t.Fatalf("%s (%s) = %q %v, want %s", file, p, b, err, v)
		}
	}

	cfg := f.config()
	cfg.CgroupRoot = g.Root()
	cfg.Limits.MemoryBytes = lim.MemoryBytes

	// Three spinners against a quota of one core.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := Start(ctx, cfg, []string{"/bin/sh", "-c", "for i in 1 2 3; do (while :; do :; done) & done; wait"}, nil, nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st, err := g.CPU()
		if err != nil {
			t.Fatal(err)
		}
		if st.Throttled > 0 && st.ThrottledTime > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never throttled: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !slices.Contains(g.Pids(), p.Pid()) {
		t.Fatalf("the job's process %d is not in the group: %v", p.Pid(), g.Pids())
	}
	p.Kill()
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}

	// Past the group's memory: killed, and the limit named.
	ex, out := run(t, cfg, `head -c 1G /dev/zero | tail > /dev/null; echo "tail $?"; sleep 30`)
	if ex.Limit != "memory limit of 64 MiB" {
		t.Fatalf("exit %+v:\n%s", ex, out)
	}

	dirs := strings.Split(g.Root(), ":")
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Fatalf("%s is still there: %v", d, err)
		}
	}
	if n := GroupNames(f.cgroup); len(n) != 0 {
		t.Fatalf("groups left: %v", n)
	}
}

// TestRemoveStaleGroup removes a group left with a process in it, as a
// process that keeps groups does at its start.
func TestRemoveStaleGroup(t *testing.T) {
	f := newFixture(t)
	if f.cgroup == "" {
		t.Fatal("TestRemoveStaleGroup needs a delegated cgroup: run the tests as root (or with " + cgroupEnv + ")")
	}
	g, err := NewGroup(f.cgroup, "stale", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := f.config()
	cfg.CgroupRoot = g.Root()
	p, err := Start(context.Background(), cfg, []string{"/bin/sleep", "600"}, nil, nil, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if names := GroupNames(f.cgroup); !slices.Contains(names, "stale") {
		t.Fatalf("groups: %v", names)
	}
	// A group of the same name replaces it, and what ran there ends.
	g2, err := NewGroup(f.cgroup, "stale", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	if len(g2.Pids()) != 0 {
		t.Fatalf("processes in the new group: %v", g2.Pids())
	}
	if err := RemoveGroup(f.cgroup, "stale"); err != nil {
		t.Fatal(err)
	}
	for _, d := range strings.Split(f.cgroup, ":") {
		if _, err := os.Stat(filepath.Join(d, "stale")); !os.IsNotExist(err) {
			t.Fatalf("stale group still there: %v", err)
		}
	}
}
