package outbox_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/outbox"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// A consumer reads every event once, in order, woken by the commits of
// its process; a second consumer has a cursor of its own; a consumer that
// starts at the end skips what came before it; a batch committed by
// another reader first is refused.
func TestConsumers(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := storetest.Open(t)
	appendEvent := func(typ string) {
		t.Helper()
		if err := st.Tx(ctx, func(tx store.Q) error { return tx.AppendEvent(ctx, typ, 0, 0, 0, map[string]any{}) }); err != nil {
			t.Fatal(err)
		}
	}
	appendEvent("before")
	o := outbox.New(st)
	o.Poll = time.Hour // only wakes move the consumers
	var mu sync.Mutex
	seen := map[string][]string{}
	got := make(chan struct{}, 100)
	reader := func(name string, c **outbox.Consumer) outbox.Step {
		return func(ctx context.Context) (int, time.Duration, error) {
			b, err := (*c).Read(ctx, 0, 2)
			if err != nil || !b.Moves() {
				return 0, 0, err
			}
			if err := st.Tx(ctx, func(tx store.Q) error { return b.Commit(ctx, tx) }); err != nil {
				return 0, 0, err
			}
			mu.Lock()
			for _, e := range b.Events {
				seen[name] = append(seen[name], e.Type)
			}
			mu.Unlock()
			got <- struct{}{}
			return len(b.Events), 0, nil
		}
	}
	var all, recent *outbox.Consumer
	all = o.Register("all", true, reader("all", &all))
	recent = o.Register("recent", false, reader("recent", &recent))
	if err := o.Sync(ctx); err != nil { // creates the cursors
		t.Fatal(err)
	}
	all.Start(ctx)
	recent.Start(ctx)
	for _, typ := range []string{"a", "b", "c"} {
		appendEvent(typ)
	}
	deadline := time.After(30 * time.Second)
	for {
		mu.Lock()
		done := len(seen["all"]) == 4 && len(seen["recent"]) == 3
		mu.Unlock()
		if done {
			break
		}
		select {
		case <-got:
		case <-deadline:
			t.Fatalf("not woken: %v", seen)
		}
	}
	mu.Lock()
	if a, r := join(seen["all"]), join(seen["recent"]); a != "before a b c" || r != "a b c" {
		t.Errorf("all read %q, recent %q", a, r)
	}
	mu.Unlock()

	// Two readers of one batch: the second commit is refused.
	cancel()
	o2 := outbox.New(st)
	c := o2.Register("race", true, func(context.Context) (int, time.Duration, error) { return 0, 0, nil })
	if err := c.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx2 := context.Background()
	b1, err := c.Read(ctx2, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := c.Read(ctx2, 0, 10)
	if err != nil || len(b1.Events) != 4 || len(b2.Events) != 4 {
		t.Fatalf("batches %v %v %v", b1, b2, err)
	}
	if err := st.Tx(ctx2, func(tx store.Q) error { return b1.Commit(ctx2, tx) }); err != nil {
		t.Fatal(err)
	}
	if err := st.Tx(ctx2, func(tx store.Q) error { return b2.Commit(ctx2, tx) }); err != store.ErrOutboxMoved {
		t.Fatalf("the second commit of one batch: %v", err)
	}
}

func join(list []string) string { return strings.Join(list, " ") }
