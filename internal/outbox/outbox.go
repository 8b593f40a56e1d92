// Package outbox runs the consumers of the domain events log (webhooks,
// activity events, notifications, ...). Each consumer registers by name and
// owns a cursor in the log; it reads a batch, acts on it and commits the
// batch in the transaction that records what it made of the events, so a
// restart neither loses nor repeats an event and several hubd processes
// never consume one twice. Ids the batch passed that were not committed
// yet (PostgreSQL hands out ids before commit) are remembered as gaps and
// handed over when they show up. Consumers wake as soon as a write
// transaction of this process that appended events commits, and poll
// slowly for the events other processes append.
package outbox

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// GapLife is how long a consumer waits for an event id it passed to
// commit: longer than any write transaction runs.
const GapLife = 10 * time.Minute

// Outbox is the log's consumers in this process.
type Outbox struct {
	Store *store.Store
	// Poll is how often an idle consumer looks at the log for events of
	// other processes (the events of this one wake it at once).
	Poll time.Duration

	mu        sync.Mutex
	consumers []*Consumer
}

// New makes the outbox of st and wakes its consumers after st's commits.
func New(st *store.Store) *Outbox {
	o := &Outbox{Store: st, Poll: time.Second}
	st.OnEventsCommitted(o.Wake)
	return o
}

// Step is one pass of a consumer: it handles what it can and reports how
// many events it handled (more than none: it is called again at once) and
// how long to wait otherwise (0: the outbox's Poll). It returns
// store.ErrOutboxMoved when Commit found another process ahead.
type Step func(ctx context.Context) (handled int, wait time.Duration, err error)

// Consumer is one registered reader of the log.
type Consumer struct {
	Name string
	o    *Outbox
	step Step

	wake      chan struct{}
	running   sync.Mutex // one pass at a time (the loop and Sync)
	startOnce sync.Once
	ensure    sync.Once
	fromStart bool
	lastGC    time.Time
}

// Register adds consumer name running step. fromStart: a consumer seen
// for the first time reads the log from its beginning (otherwise from its
// end: it acts on events from now on).
func (o *Outbox) Register(name string, fromStart bool, step Step) *Consumer {
	c := &Consumer{Name: name, o: o, step: step, wake: make(chan struct{}, 1), fromStart: fromStart}
	o.mu.Lock()
	o.consumers = append(o.consumers, c)
	o.mu.Unlock()
	return c
}

// Wake makes every consumer look at the log now.
func (o *Outbox) Wake() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range o.consumers {
		c.Wake()
	}
}

// Sync runs every consumer until it has nothing left (tests, admin).
func (o *Outbox) Sync(ctx context.Context) error {
	o.mu.Lock()
	list := append([]*Consumer(nil), o.consumers...)
	o.mu.Unlock()
	for _, c := range list {
		if err := c.Sync(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Wake makes the consumer look at the log now.
func (c *Consumer) Wake() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Start runs the consumer in the background until ctx ends or the store
// is closed.
func (c *Consumer) Start(ctx context.Context) {
	c.startOnce.Do(func() { go c.loop(ctx) })
}

// Sync runs passes until one handles nothing.
func (c *Consumer) Sync(ctx context.Context) error {
	for i := 0; i < 10000; i++ {
		n, _, err := c.pass(ctx)
		if errors.Is(err, store.ErrOutboxMoved) {
			continue
		}
		if err != nil || n == 0 {
			return err
		}
	}
	return nil
}

func (c *Consumer) pass(ctx context.Context) (int, time.Duration, error) {
	c.running.Lock()
	defer c.running.Unlock()
	var err error
	c.ensure.Do(func() {
		err = c.o.Store.Tx(ctx, func(tx store.Q) error { return tx.EnsureOutboxCursor(ctx, c.Name, c.fromStart) })
	})
	if err != nil {
		c.ensure = sync.Once{}
		return 0, 0, err
	}
	if time.Since(c.lastGC) > time.Minute {
		c.lastGC = time.Now()
		err := c.o.Store.Tx(ctx, func(tx store.Q) error { return tx.ExpireOutboxGaps(ctx, tx.Now().Add(-GapLife)) })
		if err != nil {
			return 0, 0, err
		}
	}
	return c.step(ctx)
}

func (c *Consumer) loop(ctx context.Context) {
	for ctx.Err() == nil {
		n, wait, err := c.pass(ctx)
		if wait == 0 {
			wait = c.o.Poll
		}
		switch {
		case err != nil && (ctx.Err() != nil || strings.Contains(err.Error(), "is closed")):
			return
		case errors.Is(err, store.ErrOutboxMoved):
			continue // another process consumed these: read on
		case err != nil:
			slog.Warn("outbox consumer", "consumer", c.Name, "err", err)
			wait = 5 * c.o.Poll
		case n > 0:
			continue
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-c.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// Batch is the events of one read: gaps that committed since, then the
// next events after the cursor, in id order each.
type Batch struct {
	Events []model.Event

	name          string
	cur, to       int64
	late, missing []int64
}

// Read reads the next batch of at most limit events after the cursor, or
// after floor when that is further (events up to floor concern nobody).
func (c *Consumer) Read(ctx context.Context, floor int64, limit int) (*Batch, error) {
	q := c.o.Store.Background()
	cur, err := q.OutboxCursor(ctx, c.Name)
	if err != nil {
		return nil, err
	}
	from := max(cur, floor)
	events, err := q.EventsAfter(ctx, from, limit)
	if err != nil {
		return nil, err
	}
	late, err := q.OutboxGapEvents(ctx, c.Name)
	if err != nil {
		return nil, err
	}
	b := &Batch{name: c.Name, cur: cur, to: from}
	prev := from
	for _, e := range events {
		for id := prev + 1; id < e.ID && len(b.missing) < 1000; id++ {
			b.missing = append(b.missing, id)
		}
		prev, b.to = e.ID, e.ID
	}
	for _, e := range late {
		b.late = append(b.late, e.ID)
	}
	b.Events = append(late, events...)
	return b, nil
}

// Moves reports whether committing the batch changes anything (it has
// events or skips past a floor).
func (b *Batch) Moves() bool { return len(b.Events) > 0 || b.to != b.cur }

// Commit moves the cursor past the batch, takes its late events and
// remembers the ids it passed, in tx, the transaction that records what
// the consumer made of the batch. store.ErrOutboxMoved: another process
// consumed it (roll back).
func (b *Batch) Commit(ctx context.Context, tx store.Q) error {
	if b.to != b.cur {
		ok, err := tx.MoveOutboxCursor(ctx, b.name, b.cur, b.to)
		if err != nil {
			return err
		}
		if !ok {
			return store.ErrOutboxMoved
		}
	}
	for _, id := range b.late {
		took, err := tx.TakeOutboxGap(ctx, b.name, id)
		if err != nil {
			return err
		}
		if !took {
			return store.ErrOutboxMoved
		}
	}
	return tx.AddOutboxGaps(ctx, b.name, b.missing)
}
