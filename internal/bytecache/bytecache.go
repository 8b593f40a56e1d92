// Package bytecache keeps rendered answers (JSON bytes) of immutable
// content under a comparable key, bounded in bytes. Past the bound it starts
// over rather than keep recency bookkeeping on the hot path: the entries are
// cheap to render again, and a busy key comes back at once.
package bytecache

import "sync"

// Cache maps keys to byte slices. Callers must not modify what they put or
// get.
type Cache[K comparable] struct {
	mu       sync.Mutex
	entries  map[K][]byte
	bytes    int
	maxBytes int
	maxEntry int
}

// New makes a cache of at most maxBytes; an entry over maxEntry bytes is not
// kept (one huge answer would evict everything else).
func New[K comparable](maxBytes, maxEntry int) *Cache[K] {
	return &Cache[K]{entries: map[K][]byte{}, maxBytes: maxBytes, maxEntry: maxEntry}
}

// Get returns the entry of k.
func (c *Cache[K]) Get(k K) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.entries[k]
	return b, ok
}

// Put keeps b under k.
func (c *Cache[K]) Put(k K, b []byte) {
	if len(b) > c.maxEntry {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes+len(b) > c.maxBytes {
		clear(c.entries)
		c.bytes = 0
	}
	if old, ok := c.entries[k]; ok {
		c.bytes -= len(old)
	}
	c.entries[k] = b
	c.bytes += len(b)
}
