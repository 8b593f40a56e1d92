package jobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

// A worker's name says where it runs: host:pid:start@machine, machine
// naming this kernel's boot and process namespace (machineID), so that a
// process may tell whether another worker's process ran beside it and is
// gone.

// workerName names a new worker of this process.
func workerName() string {
	host, _ := os.Hostname()
	return host + ":" + strconv.Itoa(os.Getpid()) + ":" + strconv.FormatInt(time.Now().UnixNano(), 36) + "@" + machineID()
}

// machineID identifies the kernel boot and process namespace this process
// runs in ("" where that cannot be known: no worker is then taken for dead).
func machineID() string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	host, _ := os.Hostname()
	sum := sha256.Sum256([]byte(strings.TrimSpace(string(boot)) + "|" + ns + "|" + host))
	return hex.EncodeToString(sum[:8])
}

// deadWorker reports whether worker ran in this machine's process
// namespace and its process is gone (a hubd killed here: its jobs need not
// wait for their leases to run out).
func deadWorker(worker, self string) bool {
	name, machine, ok := strings.Cut(worker, "@")
	_, me, _ := strings.Cut(self, "@")
	if !ok || machine == "" || machine != me {
		return false
	}
	parts := strings.Split(name, ":")
	if len(parts) < 3 {
		return false
	}
	pid, err := strconv.Atoi(parts[len(parts)-2])
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return !processAlive(pid)
}

// releaseDead ends the leases of the running jobs of the TakeBack kinds
// of workers whose process is gone, so that they are claimed again now
// rather than when their leases run out.
func (q *Queue) releaseDead(ctx context.Context) {
	q.mu.Lock()
	kinds := q.takeBack
	q.mu.Unlock()
	if len(kinds) == 0 {
		return
	}
	workers, err := q.Store.RunningJobWorkers(ctx)
	if err != nil {
		slog.Warn("job queue: running jobs", "err", err)
		return
	}
	for _, w := range workers {
		if !deadWorker(w, q.worker) {
			continue
		}
		n, err := q.Store.ReleaseJobs(ctx, w, kinds)
		if err != nil {
			slog.Warn("job queue: release the jobs of a stopped process", "worker", w, "err", err)
			continue
		}
		slog.Info("job queue: took back the jobs of a stopped process", "worker", w, "jobs", n)
	}
}
