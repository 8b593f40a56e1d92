package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/sandbox"
)

// jobLimitFlags are the limits of each workflow job a runner runs (hubd
// runner's flags; hubd serve takes the same and hands them to its local
// runners).
type jobLimitFlags struct {
	processes, openFiles, cpuShares int
	memory, disk, tmp               string
}

func (j *jobLimitFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&j.processes, "job-processes", sandbox.DefaultProcesses, "processes (tasks) a workflow job may have at once")
	fs.StringVar(&j.memory, "job-memory", "4G", "memory a workflow job may use (bytes, or with K, M, G)")
	fs.IntVar(&j.cpuShares, "job-cpu-shares", sandbox.DefaultCPUShares, "a workflow job's relative CPU share (cgroups only)")
	fs.StringVar(&j.disk, "job-disk", "10G", "disk a workflow job's work directory may use (bytes, or with K, M, G)")
	fs.IntVar(&j.openFiles, "job-open-files", sandbox.DefaultOpenFiles, "open files per process of a workflow job")
	fs.StringVar(&j.tmp, "job-tmp", "1G", "size of a workflow job's private /tmp (bytes, or with K, M, G)")
}

// limits are the flags' values, checked.
func (j *jobLimitFlags) limits() (sandbox.Limits, error) {
	l := sandbox.Limits{Processes: j.processes, OpenFiles: j.openFiles, CPUShares: j.cpuShares}
	for _, f := range []struct {
		name, v string
		dst     *int64
	}{{"job-memory", j.memory, &l.MemoryBytes}, {"job-disk", j.disk, &l.DiskBytes}, {"job-tmp", j.tmp, &l.TmpBytes}} {
		n, err := parseSize(f.v)
		if err != nil {
			return l, fmt.Errorf("--%s: %w", f.name, err)
		}
		*f.dst = n
	}
	if l.Processes <= 0 || l.OpenFiles <= 0 || l.CPUShares <= 0 {
		return l, fmt.Errorf("--job-processes, --job-open-files and --job-cpu-shares must be positive")
	}
	return l, nil
}

// args are the flags as a child runner's command line takes them.
func (j *jobLimitFlags) args() []string {
	return []string{"--job-processes", strconv.Itoa(j.processes), "--job-memory", j.memory, "--job-cpu-shares", strconv.Itoa(j.cpuShares),
		"--job-disk", j.disk, "--job-open-files", strconv.Itoa(j.openFiles), "--job-tmp", j.tmp}
}

// parseSize reads a byte count: a number, or one ending in K, M or G
// (powers of 1024).
func parseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSuffix(strings.TrimSpace(s), "B"))
	shift := 0
	switch {
	case strings.HasSuffix(t, "K"):
		shift = 10
	case strings.HasSuffix(t, "M"):
		shift = 20
	case strings.HasSuffix(t, "G"):
		shift = 30
	}
	if shift > 0 {
		t = t[:len(t)-1]
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)>>shift {
		return 0, fmt.Errorf("%q is not a size (e.g. 512M, 4G)", s)
	}
	return n << shift, nil
}
