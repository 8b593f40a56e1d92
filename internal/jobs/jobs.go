// Package jobs is hubd's one durable background queue. Work that must not
// run on the request path (mergeability, forks, deliveries, statistics) is
// queued as a row in the same transaction as the write that needs it, so it
// exists exactly when that write does and survives a restart. Workers claim
// jobs atomically with a lease; a job whose worker died is claimed again
// when the lease runs out; failures are retried with backoff. Several hubd
// processes on one PostgreSQL database share the queue.
package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Handler runs one job; its payload is the JSON given to Enqueue. An error
// retries the job (with backoff) unless it is Permanent.
type Handler func(ctx context.Context, payload []byte) error

// Job is a job to queue.
type Job struct {
	Kind        string
	Key         string // non-empty: at most one pending job with this key
	Payload     any    // marshalled to JSON
	Delay       time.Duration
	MaxAttempts int // 0: 5
}

type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// Permanent marks an error that retrying cannot fix.
func Permanent(err error) error { return permanent{err} }

// Enqueue queues j inside the caller's transaction tx. Call Queue.Notify
// after the transaction commits to start it without waiting for a poll.
func Enqueue(ctx context.Context, tx store.Q, j Job) error {
	payload, err := json.Marshal(j.Payload)
	if err != nil {
		return fmt.Errorf("jobs: payload of %s: %w", j.Kind, err)
	}
	if j.Payload == nil {
		payload = []byte("{}")
	}
	var at time.Time
	if j.Delay > 0 {
		at = tx.Now().Add(j.Delay)
	}
	_, err = tx.EnqueueJob(ctx, &model.Job{Kind: j.Kind, Key: j.Key, Payload: payload, RunAt: at, MaxAttempts: j.MaxAttempts})
	return err
}

// Queue runs the handlers of the job kinds registered with it.
type Queue struct {
	Store *store.Store
	// Lease is how long a claimed job is a worker's before another may
	// take it (and the handler's deadline).
	Lease time.Duration
	// Poll is how often idle workers look for jobs queued by other
	// processes or come due.
	Poll time.Duration
	// Renew, when set, renews a running job's lease this often, so that
	// a job may run up to MaxRun while a dead worker's job is taken over
	// one Lease after its last renewal (workflow jobs).
	Renew, MaxRun time.Duration
	// OnStart, when set, runs beside the n workers from Start until Stop
	// (internal/runners registers workflow job workers as runners).
	OnStart func(ctx context.Context, n int)

	worker   string
	mu       sync.Mutex
	handlers map[string]Handler
	takeBack []string                 // kinds taken back from stopped processes at Start
	long     map[string]time.Duration // HandleLong kinds' longest runs
	kinds    []string
	wake     chan struct{}
	stop     context.CancelFunc
	wg       sync.WaitGroup
	busy     sync.WaitGroup // jobs running now (Drain)
}

// New makes a queue on s.
func New(s *store.Store) *Queue {
	return &Queue{
		Store:    s,
		Lease:    2 * time.Minute,
		Poll:     time.Second,
		worker:   workerName(),
		handlers: map[string]Handler{},
		wake:     make(chan struct{}, 1),
	}
}

// Handle registers the handler of kind; register before Start.
func (q *Queue) Handle(kind string, h Handler) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.handlers[kind] = h
	q.kinds = append(q.kinds, kind)
	sort.Strings(q.kinds)
}

// HandleLong registers the handler of a kind whose jobs may run longer
// than a lease (a codespace's lifecycle commands): the running job's lease
// is renewed every quarter lease (or every Renew), so that it may run up to
// maxRun while a dead worker's job is still taken over one lease after its
// last renewal.
func (q *Queue) HandleLong(kind string, h Handler, maxRun time.Duration) {
	q.Handle(kind, h)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.long == nil {
		q.long = map[string]time.Duration{}
	}
	q.long[kind] = maxRun
}

// TakeBack makes Start take back at once the jobs of kind that a stopped
// process of this machine was running, instead of waiting for their
// leases: for kinds whose handler starts no process that could outlive
// hubd and still be at work (a workflow job's runner), and that cope with
// a run cut short.
func (q *Queue) TakeBack(kind string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.takeBack = append(q.takeBack, kind)
}

// Enqueue queues j in a transaction of its own and wakes a worker.
func (q *Queue) Enqueue(ctx context.Context, j Job) error {
	err := q.Store.Tx(ctx, func(tx store.Q) error { return Enqueue(ctx, tx, j) })
	if err == nil {
		q.Notify()
	}
	return err
}

// Notify wakes an idle worker (after a transaction that queued jobs).
func (q *Queue) Notify() {
	if q == nil {
		return
	}
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Start runs n workers until Stop. Jobs of the TakeBack kinds that a
// process of this machine that is gone was running (killed, crashed) are
// taken back first.
func (q *Queue) Start(n int) {
	ctx, cancel := context.WithCancel(context.Background())
	q.stop = cancel
	q.releaseDead(ctx)
	if q.OnStart != nil {
		q.wg.Add(1)
		go func() {
			defer q.wg.Done()
			q.OnStart(ctx, n)
		}()
	}
	for range n {
		q.wg.Add(1)
		go func() {
			defer q.wg.Done()
			q.loop(ctx)
		}()
	}
}

// Stop stops the workers and waits for the jobs they run to end. Jobs not
// finished stay in the database for the next start.
func (q *Queue) Stop() {
	if q.stop != nil {
		q.stop()
		q.wg.Wait()
	}
}

func (q *Queue) loop(ctx context.Context) {
	t := time.NewTicker(q.Poll)
	defer t.Stop()
	for ctx.Err() == nil {
		ran, err := q.RunOne(ctx)
		if err != nil && ctx.Err() == nil {
			slog.Warn("job queue", "err", err)
		}
		if ran {
			continue
		}
		select {
		case <-ctx.Done():
		case <-q.wake:
		case <-t.C:
		}
	}
}

// RunOne claims and runs one ready job; it reports whether there was one.
func (q *Queue) RunOne(ctx context.Context) (bool, error) {
	q.mu.Lock()
	kinds := q.kinds
	q.mu.Unlock()
	q.busy.Add(1)
	defer q.busy.Done()
	j, err := q.Store.ClaimJob(ctx, q.worker, q.Lease, kinds)
	if err != nil || j == nil {
		return false, err
	}
	q.mu.Lock()
	h := q.handlers[j.Kind]
	maxRun, long := q.long[j.Kind]
	q.mu.Unlock()
	deadline := q.Lease
	stopRenew := func() {}
	switch {
	case long:
		every := q.Renew
		if every <= 0 {
			every = q.Lease / 4
		}
		deadline = max(maxRun, q.Lease)
		stopRenew = q.renew(j.ID, every)
	case q.Renew > 0:
		deadline = max(q.MaxRun, q.Lease)
		stopRenew = q.renew(j.ID, q.Renew)
	}
	jctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deadline)
	err = run(jctx, h, j.Payload)
	cancel()
	stopRenew()
	// Recording the outcome must not be lost to a stopping worker.
	rctx, rcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer rcancel()
	if err == nil {
		return true, q.Store.CompleteJob(rctx, j.ID, q.worker)
	}
	var p permanent
	var retry *time.Time
	if !errors.As(err, &p) && j.Attempts < j.MaxAttempts {
		at := q.Store.Now().Add(Backoff(j.Attempts))
		retry = &at
	}
	slog.Warn("job failed", "kind", j.Kind, "id", j.ID, "attempt", j.Attempts, "retry", retry != nil, "err", err)
	return true, q.Store.FailJob(rctx, j.ID, q.worker, err.Error(), retry)
}

// renew renews job id's lease every interval until the returned stop.
func (q *Queue) renew(id int64, every time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				if err := q.Store.RenewJob(rctx, id, q.worker, q.Lease); err != nil {
					slog.Warn("job lease", "id", id, "err", err)
				}
				cancel()
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// run calls h, turning a panic into a permanent failure.
func run(ctx context.Context, h Handler, payload []byte) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = Permanent(fmt.Errorf("panic: %v", v))
		}
	}()
	return h(ctx, payload)
}

// Backoff is the wait before attempt n+1: 1s, 4s, 16s, ... up to 10 minutes.
func Backoff(n int) time.Duration {
	d := time.Second
	for i := 1; i < n && d < 10*time.Minute; i++ {
		d *= 4
	}
	return min(d, 10*time.Minute)
}

// Drain runs ready jobs in the calling goroutine until none is left (tests
// and benchmarks; a job that fails and is retried later is not waited for).
func (q *Queue) Drain(ctx context.Context) error {
	for {
		ran, err := q.RunOne(ctx)
		if err != nil || !ran {
			return err
		}
	}
}
