package activity

import (
	"context"
	"log/slog"
	"time"

	"github.com/hubd/hubd/internal/jobs"
	"github.com/hubd/hubd/internal/store"
)

// Events older than Window are never listed; a job of the durable queue
// deletes them (never the request path). The consumer queues it once
// PruneEvery while it runs, the first time PruneAfter after it starts.

// JobPrune is the pruning job's kind (and its key: one pending at most).
const JobPrune = "activity.prune"

const (
	PruneEvery = time.Hour
	PruneAfter = 5 * time.Minute
	pruneBatch = 1000
)

// UseJobs registers the pruning job on q; the consumer queues it.
func (s *Service) UseJobs(q *jobs.Queue) {
	if q == nil {
		return
	}
	s.jobs = q
	s.nextPrune = time.Now().Add(PruneAfter)
	q.Handle(JobPrune, func(ctx context.Context, _ []byte) error {
		_, err := s.Prune(ctx)
		return err
	})
}

// QueuePrune queues the pruning job now.
func (s *Service) QueuePrune(ctx context.Context) error {
	return s.jobs.Enqueue(ctx, jobs.Job{Kind: JobPrune, Key: JobPrune, MaxAttempts: 3})
}

// maybePrune queues the pruning job when it is due (called by the
// consumer's steps).
func (s *Service) maybePrune(ctx context.Context) {
	if s.jobs == nil || time.Now().Before(s.nextPrune) {
		return
	}
	s.nextPrune = time.Now().Add(PruneEvery)
	if err := s.QueuePrune(ctx); err != nil {
		slog.Warn("activity: queue pruning", "err", err)
	}
}

// Prune deletes the events older than Window, a batch per transaction,
// and reports how many it deleted.
func (s *Service) Prune(ctx context.Context) (int, error) {
	total := 0
	for {
		var n int
		err := s.Store.Tx(ctx, func(tx store.Q) error {
			var err error
			n, err = tx.PruneActivityEvents(ctx, tx.Now().Add(-Window), pruneBatch)
			return err
		})
		total += n
		if err != nil || n < pruneBatch {
			return total, err
		}
	}
}
