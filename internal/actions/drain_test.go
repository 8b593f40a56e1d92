package actions

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// A failed step's last output that act's pseudo-terminal copy writes only
// after act has reported the step over still lands in that step's group,
// not in the next one's (gh run view --log files lines by group).
func TestFailedStepOutputDrains(t *testing.T) {
	var buf strings.Builder
	lw := &logWriter{out: &buf}
	l := lw.WithJobLogger()
	l.Info("\u2B50 Run Main break")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the copy, behind the process's exit
		defer wg.Done()
		time.Sleep(10 * time.Millisecond)
		l.WithField("raw_output", true).Info("broke-here")
	}()
	l.WithField("stepResult", "failure").Info("  \u274C  Failure - Main break")
	l.Info("\u2B50 Run Complete job")
	wg.Wait()
	out := buf.String()
	at, end, next := strings.Index(out, "broke-here"), strings.Index(out, "##[endgroup]"), strings.Index(out, "##[group]Complete job")
	if at < 0 || end < 0 || next < 0 || at > end || end > next {
		t.Fatalf("the step's output left its group:\n%s", out)
	}
}
