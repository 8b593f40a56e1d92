package store

import (
	"sync"
	"sync/atomic"
	"time"
)

// readCache remembers results of hot single-row reads (the repository
// lookup every /repos/... request starts with). An entry is valid while no
// write transaction has committed since it was loaded, and for at most
// maxAge, which bounds staleness from writes by other processes (the CLI on
// the same SQLite file, other instances on the same PostgreSQL database).
type readCache struct {
	gen atomic.Uint64 // bumped by every committed write transaction
	// off: the cache answers nothing (a node that may miss other nodes'
	// writes: its listener is not connected; see cluster.go).
	off atomic.Bool
	// uncached: the cache answers nothing, set by tests that count a
	// request's queries (Store.Uncached), so that what they count does not
	// depend on what an earlier request left cached or how long ago.
	uncached atomic.Bool
	maxAge   time.Duration

	mu      sync.Mutex
	entries map[any]cacheEntry
}

type cacheEntry struct {
	gen    uint64
	loaded time.Time
	val    any
}

const cacheMaxEntries = 20000

func newReadCache(maxAge time.Duration) *readCache {
	return &readCache{maxAge: maxAge, entries: map[any]cacheEntry{}}
}

// get returns a cached value and the generation to store a fresh load with.
func (c *readCache) get(key any) (any, uint64, bool) {
	gen := c.gen.Load()
	if c.answersNothing() {
		return nil, c.gen.Add(1), false
	}
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && e.gen == gen && time.Since(e.loaded) < c.maxAge {
		return e.val, gen, true
	}
	return nil, gen, false
}

// put stores a value loaded at generation gen (a write that committed while
// it was loading makes it stale at once).
func (c *readCache) put(key any, gen uint64, val any) {
	c.mu.Lock()
	if len(c.entries) >= cacheMaxEntries {
		clear(c.entries)
	}
	c.entries[key] = cacheEntry{gen: gen, loaded: time.Now(), val: val}
	c.mu.Unlock()
}

// invalidate is called after every committed write.
func (c *readCache) invalidate() {
	c.gen.Add(1)
}

func (c *readCache) answersNothing() bool { return c.off.Load() || c.uncached.Load() }

// Uncached turns this process's read caches (the store's and those kept by
// WriteGen) off while on is true. Tests that bound a request's queries use
// it: with caches on, the count depends on timing (entries expire after
// maxAge, and any committed write empties them), so it can differ between
// two runs of the same request.
func (s *Store) Uncached(on bool) { s.cache.uncached.Store(on) }
