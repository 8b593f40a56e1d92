package codespaces_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/codespaces"
	"github.com/hubd/hubd/internal/sandbox"
)

// limitsDevcontainer spins on three cores until the test says stop (at
// creation), and allocates past the machine's memory at each start.
const limitsDevcontainer = `{
  "postCreateCommand": "for i in 1 2 3; do (while [ ! -e spin.stop ]; do :; done) & done; wait; echo spun > spun.txt",
  "postStartCommand": "head -c 2G /dev/zero | tail > /dev/null"
}
`

// group is codespace name's cgroup as it is now (nil when there is none).
func group(t *testing.T, e *apitest.Env, name string) *sandbox.Group {
	t.Helper()
	if e.CodespacesCgroup == "" {
		t.Fatal("the codespaces have no cgroup: run the tests as root (hubd delegates one to them as root only)")
	}
	return sandbox.FindGroup(e.CodespacesCgroup, name)
}

// groupFile reads one control file of codespace name's cgroup.
func groupFile(t *testing.T, e *apitest.Env, name, file string) string {
	t.Helper()
	g := group(t, e, name)
	if g == nil || g.File(file) == "" {
		t.Fatalf("codespace %s has no cgroup with %s", name, file)
	}
	b, err := os.ReadFile(g.File(file))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func goneGroup(t *testing.T, e *apitest.Env, name string) {
	t.Helper()
	if g := group(t, e, name); g != nil {
		t.Fatalf("codespace %s's cgroup %s is still there", name, g.Root())
	}
}

// A codespace's machine type is a real limit: its processes run in a
// cgroup with the machine's cores as a CPU quota and its memory as a memory
// limit; a command spinning on more cores than the machine has is held by
// the kernel (its throttling counters move: no timing is asserted), one
// allocating past the memory is killed and the codespace's notes say so; a
// PATCHed machine applies at the next start; the group goes with a stop
// and a delete. The quota's period is 1 ms here: on a loaded host the
// codespace may get less than a core on average, but its processes run on
// both cores at once often enough within some 1 ms period to meet the
// quota, where a 100 ms period may never be reached.
func TestCodespaceMachineLimits(t *testing.T) {
	cpus := runtime.NumCPU()
	if cpus < 2 {
		t.Fatal("this test needs a host with two cores or more (a one-core machine is to spin on more than its quota)")
	}
	small := codespaces.NewMachine("smallLinux", 1, 256<<20, 1<<30)
	big := codespaces.NewMachine("bigLinux", 2, 512<<20, 1<<30)
	tooManyCores := codespaces.NewMachine("tooManyCores", cpus+1, 256<<20, 1<<30)
	tooMuchMemory := codespaces.NewMachine("tooMuchMemory", 1, 1<<50, 1<<30)
	e := apitest.New(t, apitest.Options{CodespaceMachines: []codespaces.Machine{small, tooManyCores, big, tooMuchMemory},
		CodespaceCPUPeriod: time.Millisecond})
	ctx := context.Background()
	alice, _ := e.NewUser("alice", false)
	tok := e.Token(alice, "repo,codespace")
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateFile(ctx, "alice", "app", ".devcontainer/devcontainer.json", &github.RepositoryContentFileOptions{
		Message: github.Ptr("devcontainer"), Content: []byte(limitsDevcontainer)}); err != nil {
		t.Fatal(err)
	}

	// Only the machines this host can honour are offered.
	ms, _, err := gh.Codespaces.ListRepositoryMachineTypes(ctx, "alice", "app", nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms.Machines {
		names = append(names, m.GetName())
	}
	if !slices.Equal(names, []string{"smallLinux", "bigLinux"}) || ms.Machines[0].GetCPUs() != 1 || ms.Machines[0].GetMemoryInBytes() != 256<<20 {
		t.Fatalf("machines: %v %+v", names, ms.Machines)
	}
	_, _, err = gh.Codespaces.CreateInRepo(ctx, "alice", "app", github.CreateCodespaceRequest{Machine: github.Ptr("tooManyCores")})
	if apitest.Status(err) != 422 {
		t.Fatalf("a machine the host cannot honour: %v", err)
	}

	_, _, err = gh.Codespaces.CreateInRepo(ctx, "alice", "app", github.CreateCodespaceRequest{Machine: github.Ptr("smallLinux")})
	name := accepted(t, err).GetName()
	work := filepath.Join(e.DataDir, "codespaces", name)

	// postCreateCommand spins in the codespace's group: one core's quota.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if g := group(t, e, name); g != nil && len(g.Pids()) >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("codespace %s's spinners never ran in its cgroup", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if fileIn(e, name, "cpu.cfs_quota_us") {
		if q, p := groupFile(t, e, name, "cpu.cfs_quota_us"), groupFile(t, e, name, "cpu.cfs_period_us"); q != "1000" || p != "1000" {
			t.Fatalf("quota %s per period %s µs, want one core: 1000 per 1000", q, p)
		}
		if m := groupFile(t, e, name, "memory.limit_in_bytes"); m != strconv.Itoa(256<<20) {
			t.Fatalf("memory limit %s", m)
		}
	} else if q := groupFile(t, e, name, "cpu.max"); q != "1000 1000" {
		t.Fatalf("cpu.max %s", q)
	}
	for {
		st, err := group(t, e, name).CPU()
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
	if err := os.WriteFile(filepath.Join(work, "spin.stop"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cs := wait(t, gh, name, "Available")
	if b, _ := os.ReadFile(filepath.Join(work, "spun.txt")); string(b) != "spun\n" {
		t.Fatalf("postCreateCommand did not finish: %q", b)
	}
	notes := cs.GetLastKnownStopNotice()
	for _, want := range []string{"Limits: 1 core (CPU quota), 256 MiB of memory", "postStartCommand was killed: it exceeded the memory limit of 256 MiB"} {
		if !strings.Contains(notes, want) {
			t.Fatalf("notes lack %q: %s", want, notes)
		}
	}
	if cs.GetMachine().GetName() != "smallLinux" || cs.GetMachine().GetCPUs() != 1 {
		t.Fatalf("machine: %+v", cs.GetMachine())
	}

	// Stopped: the group is gone. The machine changes at the next start.
	if _, _, err := gh.Codespaces.Stop(ctx, name); err != nil {
		t.Fatal(err)
	}
	wait(t, gh, name, "Shutdown")
	goneGroup(t, e, name)
	e.Must(200, "PATCH", "/user/codespaces/"+name, tok, map[string]any{"machine": "bigLinux"})
	if _, _, err := gh.Codespaces.Start(ctx, name); err != nil && !isAccepted(err) {
		t.Fatal(err)
	}
	cs = wait(t, gh, name, "Available")
	if fileIn(e, name, "cpu.cfs_quota_us") {
		if q := groupFile(t, e, name, "cpu.cfs_quota_us"); q != "2000" {
			t.Fatalf("quota after the machine change: %s, want two cores (2000 per 1000 µs)", q)
		}
		if m := groupFile(t, e, name, "memory.limit_in_bytes"); m != strconv.Itoa(512<<20) {
			t.Fatalf("memory limit after the machine change: %s", m)
		}
	} else if q := groupFile(t, e, name, "cpu.max"); q != "2000 1000" {
		t.Fatalf("cpu.max after the machine change: %s", q)
	}
	if !strings.Contains(cs.GetLastKnownStopNotice(), "Limits: 2 cores (CPU quota), 512 MiB of memory") || cs.GetMachine().GetName() != "bigLinux" {
		t.Fatalf("after the machine change: %s %+v", cs.GetLastKnownStopNotice(), cs.GetMachine())
	}

	// Deleted: the group is gone.
	if _, err := gh.Codespaces.Delete(ctx, name); err != nil && !isAccepted(err) {
		t.Fatal(err)
	}
	deadline = time.Now().Add(time.Minute)
	for {
		_, _, err := gh.Codespaces.Get(ctx, name)
		if apitest.Status(err) == 404 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("codespace %s never went: %v", name, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	goneGroup(t, e, name)
}

// fileIn reports whether codespace name's cgroup has a control file (the
// cgroup v1 files tell v1 from v2).
func fileIn(e *apitest.Env, name, file string) bool {
	g := sandbox.FindGroup(e.CodespacesCgroup, name)
	return g != nil && g.File(file) != ""
}

func isAccepted(err error) bool {
	var ae *github.AcceptedError
	return errors.As(err, &ae)
}
