package activity_test

import (
	"context"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/activity"
	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/outbox"
	"github.com/hubd/hubd/internal/store"
)

// TestPrune: the pruning job of the durable queue deletes the events past
// GitHub's 90 days, in batches, and keeps the newer ones.
func TestPrune(t *testing.T) {
	ctx := context.Background()
	e := apitest.New(t, apitest.Options{ManualJobs: true})
	q := jobs.New(e.Store)
	s := activity.New(e.Store, e.Deps.URLs, outbox.New(e.Store))
	s.UseJobs(q)
	now := e.Store.Now()
	var rows []*store.ActivityEvent
	for i := range 2500 {
		rows = append(rows, &store.ActivityEvent{EventID: int64(i + 1), Type: "WatchEvent", ActorID: 1, RepoID: 1, Public: true,
			Body: []byte(`{"type":"WatchEvent"}`), CreatedAt: now.Add(-activity.Window - time.Hour)})
	}
	for i := range 3 {
		rows = append(rows, &store.ActivityEvent{EventID: int64(3000 + i), Type: "WatchEvent", ActorID: 1, RepoID: 1, Public: true,
			Body: []byte(`{"type":"WatchEvent"}`), CreatedAt: now.Add(-activity.Window + time.Hour)})
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.InsertActivityEvents(ctx, rows) }); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		t.Helper()
		_, total, err := e.Store.R().ListActivityEvents(ctx, store.ActivityQuery{}, 1, 0, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		return total
	}
	if n := count(); n != 2503 {
		t.Fatalf("%d events stored", n)
	}
	if err := s.QueuePrune(ctx); err != nil {
		t.Fatal(err)
	}
	if err := q.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 3 {
		t.Errorf("%d events after pruning, want the 3 within 90 days", n)
	}
	counts, err := e.Store.R().JobCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if counts["pending"] != 0 || counts["running"] != 0 {
		t.Errorf("jobs left %v", counts)
	}
}
