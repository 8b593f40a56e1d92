package jobs_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

var ctx = context.Background()

func counts(t *testing.T, s *store.Store) map[string]int {
	t.Helper()
	c, err := s.R().JobCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestQueue(t *testing.T) {
	s := storetest.Open(t)
	now := time.Unix(1_800_000_000, 0).UTC()
	s.SetClock(func() time.Time { return now })

	// Queued in a transaction that rolls back: no job.
	q := jobs.New(s)
	var ran []string
	q.Handle("echo", func(_ context.Context, p []byte) error { ran = append(ran, string(p)); return nil })
	s.Tx(ctx, func(tx store.Q) error {
		jobs.Enqueue(ctx, tx, jobs.Job{Kind: "echo", Payload: "lost"})
		return errors.New("roll back")
	})
	// The same key twice while pending: one job.
	for range 2 {
		if err := q.Enqueue(ctx, jobs.Job{Kind: "echo", Key: "k", Payload: "once"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Enqueue(ctx, jobs.Job{Kind: "echo", Payload: "later", Delay: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if c := counts(t, s); c["pending"] != 2 {
		t.Fatalf("pending %v", c)
	}
	if err := q.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if len(ran) != 1 || ran[0] != `"once"` {
		t.Fatalf("ran %v", ran)
	}
	// The delayed one runs when due; done jobs are deleted.
	now = now.Add(2 * time.Minute)
	q.Drain(ctx)
	if len(ran) != 2 || ran[1] != `"later"` || len(counts(t, s)) != 0 {
		t.Fatalf("ran %v, left %v", ran, counts(t, s))
	}
}

func TestRetryAndPermanent(t *testing.T) {
	s := storetest.Open(t)
	now := time.Unix(1_800_000_000, 0).UTC()
	s.SetClock(func() time.Time { return now })
	q := jobs.New(s)
	var tries atomic.Int32
	q.Handle("flaky", func(context.Context, []byte) error {
		if tries.Add(1) < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	q.Handle("broken", func(context.Context, []byte) error { return jobs.Permanent(errors.New("never")) })
	q.Handle("panics", func(context.Context, []byte) error { panic("boom") })
	for _, k := range []string{"flaky", "broken", "panics"} {
		q.Enqueue(ctx, jobs.Job{Kind: k})
	}
	q.Drain(ctx)
	if tries.Load() != 1 {
		t.Fatalf("first round tried %d", tries.Load())
	}
	// Retries wait for their backoff.
	for range 3 {
		now = now.Add(time.Hour)
		q.Drain(ctx)
	}
	if tries.Load() != 3 {
		t.Fatalf("tries %d", tries.Load())
	}
	if c := counts(t, s); c["failed"] != 2 || c["pending"] != 0 {
		t.Fatalf("counts %v", c)
	}
}

// A job claimed by a worker that died is claimed again when its lease runs
// out; a restarted queue finds jobs queued before.
func TestLeaseAndRestart(t *testing.T) {
	s := storetest.Open(t)
	now := time.Unix(1_800_000_000, 0).UTC()
	s.SetClock(func() time.Time { return now })
	q := jobs.New(s)
	q.Enqueue(ctx, jobs.Job{Kind: "work", Key: "w"})
	// A dead worker: claims, never finishes.
	j, err := s.ClaimJob(ctx, "dead", time.Minute, []string{"work"})
	if err != nil || j == nil {
		t.Fatalf("claim: %v %v", j, err)
	}
	// While it holds the lease, the same key may be queued again, but
	// jobs of one key run one at a time: the new one waits.
	q.Enqueue(ctx, jobs.Job{Kind: "work", Key: "w"})
	q2 := jobs.New(s) // a new process
	n := 0
	q2.Handle("work", func(context.Context, []byte) error { n++; return nil })
	q2.Drain(ctx)
	if n != 0 {
		t.Fatalf("before the lease ran out: %d runs", n)
	}
	now = now.Add(2 * time.Minute)
	q2.Drain(ctx)
	if n != 2 || len(counts(t, s)) != 0 {
		t.Fatalf("after the lease: %d runs, left %v", n, counts(t, s))
	}
	// The dead worker's late completion changes nothing.
	if err := s.CompleteJob(ctx, j.ID, "dead"); err != nil {
		t.Fatal(err)
	}
}

// Workers started with Start run what is queued and stop cleanly.
func TestWorkers(t *testing.T) {
	s := storetest.Open(t)
	q := jobs.New(s)
	q.Poll = 10 * time.Millisecond
	done := make(chan struct{}, 10)
	q.Handle("w", func(context.Context, []byte) error { done <- struct{}{}; return nil })
	q.Start(2)
	defer q.Stop()
	for range 5 {
		q.Enqueue(ctx, jobs.Job{Kind: "w"})
	}
	for range 5 {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("workers did not run the jobs")
		}
	}
}

// TestKeyedEnqueueHoldsThePendingJob: queueing work whose key is already
// pending touches that job, and no worker may claim it before the queueing
// transaction commits — otherwise the job would run without the writes
// made for it and the work would be lost (PostgreSQL lets a claim run
// beside the open transaction; SQLite serializes the two).
func TestKeyedEnqueueHoldsThePendingJob(t *testing.T) {
	s := storetest.Open(t)
	job := jobs.Job{Kind: "k", Key: "k:1", Payload: map[string]int{"n": 1}}
	if err := s.Tx(ctx, func(tx store.Q) error { return jobs.Enqueue(ctx, tx, job) }); err != nil {
		t.Fatal(err)
	}
	inside, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free() // a failed check must not leave the transaction open
	done := make(chan error, 1)
	go func() {
		done <- s.Tx(ctx, func(tx store.Q) error {
			if err := jobs.Enqueue(ctx, tx, job); err != nil {
				return err
			}
			close(inside)
			<-release
			return nil
		})
	}()
	<-inside
	// While the second queueing is open, a claim gets nothing: PostgreSQL
	// skips the locked row, SQLite waits for the writer and times out.
	cctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	early, err := s.ClaimJob(cctx, "w", time.Minute, []string{"k"})
	cancel()
	if err == nil && early != nil {
		t.Fatalf("claimed job %d before the transaction that queued its work committed", early.ID)
	}
	free()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	j, err := s.ClaimJob(ctx, "w", time.Minute, []string{"k"})
	if err != nil || j == nil {
		t.Fatalf("after the commit: job %v, err %v", j, err)
	}
	counts, err := s.R().JobCounts(ctx)
	if err != nil || counts["pending"] != 0 || counts["running"] != 1 {
		t.Fatalf("one job for the work of both: %v %v", counts, err)
	}
}

// A job whose queue renews its lease keeps it past the first lease while
// its handler runs: no other worker takes it over.
func TestRenewKeepsLease(t *testing.T) {
	s := storetest.Open(t)
	var mu sync.Mutex
	now := time.Unix(1_800_000_000, 0).UTC()
	s.SetClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	q := jobs.New(s)
	q.Lease, q.Renew, q.MaxRun = time.Minute, 5*time.Millisecond, time.Hour
	release := make(chan struct{})
	started := make(chan struct{})
	q.Handle("long", func(ctx context.Context, _ []byte) error { close(started); <-release; return nil })
	if err := q.Enqueue(ctx, jobs.Job{Kind: "long"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := q.RunOne(ctx); done <- err }()
	<-started
	for range 5 { // five leases later, renewed all along
		mu.Lock()
		now = now.Add(50 * time.Second)
		mu.Unlock()
		time.Sleep(30 * time.Millisecond)
	}
	if j, err := s.ClaimJob(ctx, "other", time.Minute, []string{"long"}); err != nil || j != nil {
		t.Fatalf("taken over: %+v %v", j, err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if c := counts(t, s); c["running"]+c["pending"] != 0 {
		t.Fatalf("left %v", c)
	}
}

// A kind registered with HandleLong keeps its lease while it runs on a
// queue that renews nothing else, and is cut off at its own longest run;
// the other kinds keep the lease as their deadline.
func TestHandleLong(t *testing.T) {
	s := storetest.Open(t)
	var mu sync.Mutex
	now := time.Unix(1_800_000_000, 0).UTC()
	s.SetClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	q := jobs.New(s)
	q.Lease = 40 * time.Millisecond // renewed every 10 ms
	release := make(chan struct{})
	started := make(chan struct{})
	q.HandleLong("lifecycle", func(ctx context.Context, _ []byte) error {
		close(started)
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}, time.Hour)
	if err := q.Enqueue(ctx, jobs.Job{Kind: "lifecycle"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := q.RunOne(ctx); done <- err }()
	<-started
	for range 5 { // many leases later (the clock's and the deadline's)
		mu.Lock()
		now = now.Add(30 * time.Millisecond)
		mu.Unlock()
		time.Sleep(30 * time.Millisecond)
	}
	if j, err := s.ClaimJob(ctx, "other", time.Minute, []string{"lifecycle"}); err != nil || j != nil {
		t.Fatalf("taken over: %+v %v", j, err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if c := counts(t, s); c["running"]+c["pending"]+c["failed"] != 0 {
		t.Fatalf("left %v", c)
	}

	// Cut off at its longest run.
	q.HandleLong("stuck", func(ctx context.Context, _ []byte) error { <-ctx.Done(); return jobs.Permanent(ctx.Err()) }, 100*time.Millisecond)
	if err := q.Enqueue(ctx, jobs.Job{Kind: "stuck"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := q.RunOne(ctx); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 100*time.Millisecond {
		t.Fatalf("cut off after %v, before its longest run", took)
	}
}
