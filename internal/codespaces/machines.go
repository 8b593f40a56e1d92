package codespaces

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// Machine is a machine type: a share of this host's real resources.
type Machine struct {
	Name    string
	Display string
	CPUs    int
	Memory  int64 // bytes, enforced through the sandbox
	Storage int64 // bytes of the workspace, enforced through the sandbox
}

// DefaultMachine is the machine of a codespace that names none.
const DefaultMachine = "hostLinux"

// Machines are this host's machine types: the whole host and, when it has
// more than one core, half of it.
func Machines(root string) []Machine {
	cpus, mem, disk := runtime.NumCPU(), memTotal(), diskTotal(root)
	out := []Machine{machine(DefaultMachine, cpus, mem, disk)}
	if cpus > 1 {
		out = append(out, machine("halfHostLinux", cpus/2, mem/2, disk/2))
	}
	return out
}

// NewMachine is a machine type of cpus cores, mem bytes of memory and disk
// bytes of workspace storage (its display name says so).
func NewMachine(name string, cpus int, mem, disk int64) Machine {
	return machine(name, cpus, mem, disk)
}

// Machines are the machine types the service offers: the operator's
// (MachineTypes) or the host's defaults, less those the host cannot honour
// (more cores, memory or storage than it has).
func (s *Service) Machines() []Machine {
	list := s.MachineTypes
	if list == nil {
		return Machines(s.Root)
	}
	cpus, mem, disk := runtime.NumCPU(), memTotal(), diskTotal(s.Root)
	var out []Machine
	for _, m := range list {
		if m.CPUs >= 1 && m.CPUs <= cpus && m.Memory > 0 && m.Memory <= mem && m.Storage > 0 && m.Storage <= disk {
			out = append(out, m)
		}
	}
	return out
}

// Machine finds one of the machine types the service offers.
func (s *Service) Machine(name string) (Machine, bool) {
	for _, m := range s.Machines() {
		if m.Name == name {
			return m, true
		}
	}
	return Machine{}, false
}

// defaultMachine is the machine of a codespace that names none: DefaultMachine
// when offered, else the first offered.
func (s *Service) defaultMachine() string {
	list := s.Machines()
	for _, m := range list {
		if m.Name == DefaultMachine {
			return m.Name
		}
	}
	if len(list) > 0 {
		return list[0].Name
	}
	return DefaultMachine
}

func machine(name string, cpus int, mem, disk int64) Machine {
	core := "cores"
	if cpus == 1 {
		core = "core"
	}
	return Machine{Name: name, CPUs: cpus, Memory: mem, Storage: disk,
		Display: fmt.Sprintf("%d %s, %d GB RAM, %d GB storage", cpus, core, mem>>30, disk>>30)}
}

func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 4 << 30
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 4 << 30
}

func diskTotal(root string) int64 {
	dir := root
	for dir != "" {
		var st syscall.Statfs_t
		if syscall.Statfs(dir, &st) == nil {
			return int64(st.Blocks) * int64(st.Bsize)
		}
		next := dir[:max(0, strings.LastIndex(dir, "/"))]
		if next == dir {
			break
		}
		dir = next
	}
	var st syscall.Statfs_t
	if syscall.Statfs("/", &st) == nil {
		return int64(st.Blocks) * int64(st.Bsize)
	}
	return 32 << 30
}
