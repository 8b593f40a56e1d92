package server_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
)

// An authenticated read writes nothing to the database while it is
// served: its count waits in memory for the next flush, which writes the
// counts of many requests in one transaction.
func TestReadDoesNotWrite(t *testing.T) {
	e := apitest.New(t, apitest.Options{ManualJobs: true})
	e.Deps.Limiter.FlushEvery = time.Hour // no timed flush during the test
	e.Must(201, "POST", "/user/repos", e.AdminToken, map[string]any{"name": "quiet"})
	ctx := context.Background()
	// The repository's creation is passed on in the background (outbox
	// consumers): let that end first.
	if err := e.Deps.Outbox.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Deps.Limiter.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	before := e.Store.Writes()
	const reads = 5
	var used string
	for i := range reads {
		r := e.Must(200, "GET", fmt.Sprintf("/repos/hubadmin/quiet?n=%d", i), e.AdminToken, nil)
		used = r.Header.Get("X-RateLimit-Used")
	}
	e.Must(200, "GET", "/user", e.AdminToken, nil)
	if w := e.Store.Writes(); w != before {
		t.Fatalf("%d authenticated reads began %d write transactions", reads+1, w-before)
	}
	if err := e.Deps.Limiter.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if w := e.Store.Writes(); w != before+1 {
		t.Fatalf("the flush of %d reads' counts took %d write transactions, want 1", reads+1, w-before)
	}
	got, err := e.Store.RateCounts(ctx, []string{fmt.Sprintf("core|user:%d", e.Admin.ID)}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if c := got[fmt.Sprintf("core|user:%d", e.Admin.ID)]; fmt.Sprint(c.Used-1) != used {
		t.Fatalf("stored count %d after the reads; the last read but one answered X-RateLimit-Used %s", c.Used, used)
	}
}
