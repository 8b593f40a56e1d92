package store_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// TestClusterSync: two stores on one database (two nodes). After a write
// or a broadcast of one, the other's Sync moves its write generation (its
// caches) or runs its broadcast topics, with no notification involved; with
// nothing written the caches stay; concurrent Syncs share their checks.
// On SQLite (one server per database) Sync does nothing.
func TestClusterSync(t *testing.T) {
	ctx := context.Background()
	dsn := storetest.DSN(t)
	a, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := store.SyncWithoutListener(ctx, b); err != nil {
		t.Fatal(err)
	}
	pg := b.Postgres()
	var flushed atomic.Int64
	b.OnBroadcast("topic", func() { flushed.Add(1) })

	users := 0
	write := func() {
		t.Helper()
		users++
		if err := a.Tx(ctx, func(tx store.Q) error {
			return tx.CreateAccount(ctx, &model.Account{Login: fmt.Sprintf("node-a-%d", users), Type: model.TypeUser})
		}); err != nil {
			t.Fatal(err)
		}
	}
	g0 := b.WriteGen()
	if err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if g := b.WriteGen(); g != g0 {
		t.Fatalf("Sync with nothing written elsewhere moved the write generation %d → %d (the caches would be emptied for nothing)", g0, g)
	}
	write()
	if g := b.WriteGen(); g != g0 {
		t.Fatalf("another store's write moved this one's generation before Sync: %d → %d (the test needs no listener)", g0, g)
	}
	if err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if moved := b.WriteGen() != g0; moved != pg {
		t.Fatalf("after another node's write, Sync moved the write generation: %v, want %v", moved, pg)
	}
	a.Broadcast(ctx, "topic")
	if err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := flushed.Load(), map[bool]int64{true: 1, false: 0}[pg]; got != want {
		t.Fatalf("after another node's broadcast and Sync, the topic ran %d times, want %d", got, want)
	}

	// Concurrent requests: each waits for a check begun after it came;
	// those that come together share one.
	write()
	g1, checks := b.WriteGen(), b.SyncChecks()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 64 {
		wg.Go(func() { errs <- b.Sync(ctx) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	n := b.SyncChecks() - checks
	if pg && (n < 1 || n > 64 || b.WriteGen() == g1) {
		t.Fatalf("64 concurrent Syncs after a write: %d checks, generation moved %v; want 1 to 64 checks and moved", n, b.WriteGen() != g1)
	}
	if !pg && n != 0 {
		t.Fatalf("Sync on SQLite made %d checks, want none", n)
	}
	t.Logf("64 concurrent Syncs: %d checks", n)
}
