package batch

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestMergeBack: a batch whose write fails is merged with what was added
// since and written whole by the next flush; Close writes what is left
// and later additions arm no write.
func TestMergeBack(t *testing.T) {
	fail := true
	var written []map[string]int
	b := &Buffer[string, int]{Every: time.Hour, Merge: func(a, c int) int { return a + c },
		Write: func(_ context.Context, m map[string]int) error {
			if fail {
				return errors.New("refused")
			}
			written = append(written, m)
			return nil
		}}
	b.Add("a", 1)
	b.Add("a", 2)
	b.Add("b", 1)
	if err := b.Flush(context.Background()); err == nil {
		t.Fatal("the failed write was not reported")
	}
	fail = false
	b.Add("a", 4)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b.Add("c", 1) // arms no timer
	if b.timer != nil {
		t.Error("a write is due after Close")
	}
	if len(written) != 1 || written[0]["a"] != 7 || written[0]["b"] != 1 || len(written[0]) != 2 {
		t.Fatalf("written: %v", written)
	}
}
