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

// The jobs of a TakeBack kind of a worker whose process ran on this
// machine and is gone are taken back at once; those of other kinds, of a
// live process, of another machine (or process namespace) and of a worker
// named the old way wait for their leases.
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
	workers["other kind"] = workers["dead"]
	q := New(s)
	var ran []string
	for _, kind := range []string{"t", "u"} {
		q.Handle(kind, func(_ context.Context, p []byte) error { ran = append(ran, string(p)); return nil })
	}
	q.TakeBack("t")
	for _, name := range []string{"dead", "alive", "elsewhere", "old", "other kind"} {
		kind := "t"
		if name == "other kind" {
			kind = "u"
		}
		if err := q.Enqueue(ctx, Job{Kind: kind, Payload: name}); err != nil {
			t.Fatal(err)
		}
		if j, err := s.ClaimJob(ctx, workers[name], time.Hour, []string{kind}); err != nil || string(j.Payload) != strconv.Quote(name) {
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
