package jobs

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/store/storetest"
)

// The jobs of a worker whose process ran on this machine and is gone are
// taken back at once; those of a live process, of another machine (or
// process namespace) and of a worker named the old way wait for their
// leases.
func TestReleaseDead(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	here := "@" + machineID()
	if here == "@" {
		t.Fatal("no machine id on this system (/proc)")
	}
	workers := map[string]string{
		"dead":      host + ":" + strconv.Itoa(gone.ProcessState.Pid()) + ":x" + here,
		"alive":     host + ":" + strconv.Itoa(os.Getppid()) + ":x" + here,
		"elsewhere": host + ":" + strconv.Itoa(gone.ProcessState.Pid()) + ":x@0123456789abcdef",
		"old":       host + ":" + strconv.Itoa(gone.ProcessState.Pid()) + ":x",
	}
	q := New(s)
	var ran []string
	q.Handle("t", func(_ context.Context, p []byte) error { ran = append(ran, string(p)); return nil })
	for _, name := range []string{"dead", "alive", "elsewhere", "old"} {
		if err := q.Enqueue(ctx, Job{Kind: "t", Payload: name}); err != nil {
			t.Fatal(err)
		}
		if j, err := s.ClaimJob(ctx, workers[name], time.Hour, []string{"t"}); err != nil || string(j.Payload) != strconv.Quote(name) {
			t.Fatalf("claim %s: %v %v", name, j, err)
		}
	}
	q.releaseDead(ctx)
	if err := q.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if len(ran) != 1 || ran[0] != `"dead"` {
		t.Fatalf("ran %v, want the dead worker's job only", ran)
	}
}
