// Package batch holds counters in memory and writes them in batches, so
// that what a request counts (a page view, an API request for insights)
// never waits for the database: adding is a map update under a mutex, and
// a timer writes what was added, Every after the first addition (sooner
// when At keys wait). A batch whose write fails is merged back and tried
// again, up to three times.
package batch

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// maxFailures is how many writes of the same counters are tried before
// they are given up (the database is gone or refuses them).
const maxFailures = 3

// Buffer holds the counters added since the last write. Set its fields
// before the first Add.
type Buffer[K comparable, V any] struct {
	Name  string        // for the log
	Every time.Duration // the longest counters wait (0: a second)
	At    int           // this many keys start a write at once (0: never)
	// Merge adds b to a (a counted first).
	Merge func(a, b V) V
	// Write writes a batch (in one transaction); calls do not overlap.
	Write func(ctx context.Context, batch map[K]V) error

	mu       sync.Mutex
	pending  map[K]V
	timer    *time.Timer
	closed   bool
	flushing sync.Mutex // one write at a time, in order
	failures int
}

func (b *Buffer[K, V]) every() time.Duration {
	if b.Every > 0 {
		return b.Every
	}
	return time.Second
}

// Add counts v under k.
func (b *Buffer[K, V]) Add(k K, v V) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending == nil {
		b.pending = map[K]V{}
	}
	if p, ok := b.pending[k]; ok {
		v = b.Merge(p, v)
	}
	b.pending[k] = v
	switch {
	case b.closed:
		// Counted after shutdown began: written by nobody.
	case b.At > 0 && len(b.pending) >= b.At:
		if b.timer != nil {
			b.timer.Stop()
			b.timer = nil
		}
		go b.tick()
	case b.timer == nil:
		b.timer = time.AfterFunc(b.every(), b.tick)
	}
}

func (b *Buffer[K, V]) tick() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b.Flush(ctx)
}

// Flush writes the counters waiting in memory. A batch that fails is kept
// for the next write.
func (b *Buffer[K, V]) Flush(ctx context.Context) error {
	b.flushing.Lock()
	defer b.flushing.Unlock()
	b.mu.Lock()
	batch := b.pending
	b.pending = map[K]V{}
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	b.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	err := b.Write(ctx, batch)
	if err == nil {
		b.failures = 0
		return nil
	}
	b.failures++
	slog.Error(b.Name+": write counters", "counters", len(batch), "attempt", b.failures, "err", err)
	if b.failures >= maxFailures {
		b.failures = 0
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, v := range batch {
		if p, ok := b.pending[k]; ok {
			v = b.Merge(v, p)
		}
		b.pending[k] = v
	}
	if b.timer == nil && !b.closed {
		b.timer = time.AfterFunc(b.every(), b.tick)
	}
	return err
}

// Close writes what is left; what is added later is not written.
func (b *Buffer[K, V]) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return b.Flush(ctx)
}
