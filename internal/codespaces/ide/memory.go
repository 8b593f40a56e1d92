package ide

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Memory is the memory of one IDE's processes.
type Memory struct {
	Processes int
	RSS       int64 // resident set sizes added up (pages shared between the processes count more than once)
	PSS       int64 // proportional set sizes added up (a shared page split between its users): what the IDE costs
	Each      []ProcessMemory
}

// ProcessMemory is one process of an IDE.
type ProcessMemory struct {
	Pid      int
	Command  string // its command line, arguments separated by spaces
	RSS, PSS int64
}

// Memory measures the processes of the IDE of codespace name (code-server,
// its extension host, file watcher, terminals, and the sandbox around
// them); ok is false when it does not run.
func (m *Manager) Memory(name string) (Memory, bool) {
	in := m.lookup(name)
	if in == nil {
		return Memory{}, false
	}
	var mem Memory
	for _, pid := range descendants(in.proc.Pid()) {
		rss, pss := smapsRollup(pid)
		mem.Processes++
		mem.RSS += rss
		mem.PSS += pss
		cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		mem.Each = append(mem.Each, ProcessMemory{Pid: pid, Command: strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " ")), RSS: rss, PSS: pss})
	}
	return mem, true
}

// descendants are root and every process below it.
func descendants(root int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := parentOf(pid); pp > 0 {
			children[pp] = append(children[pp], pid)
		}
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// parentOf reads a process's parent from /proc/PID/stat (0 when gone).
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	pp, _ := strconv.Atoi(f[1])
	return pp
}

// smapsRollup is a process's Rss and Pss in bytes.
func smapsRollup(pid int) (rss, pss int64) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fs := strings.Fields(v)
		if len(fs) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(fs[0], 10, 64)
		switch k {
		case "Rss":
			rss = n << 10
		case "Pss":
			pss = n << 10
		}
	}
	return rss, pss
}
