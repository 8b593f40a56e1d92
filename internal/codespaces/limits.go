package codespaces

import (
	"fmt"
	"log/slog"

	"github.com/hubd/hubd/internal/sandbox"
)

// Processes bounds the tasks (processes and threads) of one codespace:
// code-server alone runs some sixty threads, each terminal and extension
// host more.
const Processes = 4096

// group makes the cgroup of a codespace being brought up, with its
// machine's limits; nil without a delegated cgroup. A group of the same
// name (a start that died) goes first.
func (s *Service) group(name string, m Machine) (*sandbox.Group, error) {
	if s.Cgroups == "" {
		return nil, nil
	}
	// Codespaces competing for the host weigh as their cores.
	g, err := sandbox.NewGroup(s.Cgroups, name, sandbox.Limits{CPUs: float64(m.CPUs), CPUPeriod: s.CPUPeriod,
		CPUShares: sandbox.DefaultCPUShares * max(m.CPUs, 1), MemoryBytes: m.Memory, Processes: Processes})
	if err != nil {
		return nil, fmt.Errorf("the codespace's cgroup: %v", err)
	}
	return g, nil
}

// dropGroup removes a codespace's cgroup and whatever still runs in it (its
// IDE is stopped first).
func (s *Service) dropGroup(name string) {
	if s.Cgroups == "" {
		return
	}
	if err := sandbox.RemoveGroup(s.Cgroups, name); err != nil {
		slog.Warn("codespaces: remove a codespace's cgroup", "codespace", name, "err", err)
	}
}

// SweepGroups removes the cgroups under Cgroups that a hubd which stopped
// left (its codespaces' processes ended with it): hubd serve calls it at
// start, before any codespace runs.
func (s *Service) SweepGroups() {
	if s.Cgroups == "" {
		return
	}
	for _, name := range sandbox.GroupNames(s.Cgroups) {
		s.dropGroup(name)
	}
}

// limitsNote is what the notes of a running codespace say of its limits.
func limitsNote(m Machine, g *sandbox.Group) string {
	if g == nil {
		return fmt.Sprintf("Limits: %s of memory per process and %s of storage (rlimits: hubd has no delegated cgroup, so the machine's %d cores are not enforced).",
			gib(m.Memory), gib(m.Storage), m.CPUs)
	}
	core := "cores"
	if m.CPUs == 1 {
		core = "core"
	}
	return fmt.Sprintf("Limits: %d %s (CPU quota), %s of memory, %d processes, %s of storage, enforced by cgroup %s.",
		m.CPUs, core, gib(m.Memory), Processes, gib(m.Storage), g.Version())
}

// gib writes a size in GiB (MiB below 1 GiB).
func gib(n int64) string {
	if n < 1<<30 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n%(1<<30) == 0 {
		return fmt.Sprintf("%d GiB", n>>30)
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}
