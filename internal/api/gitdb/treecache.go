package gitdb

import (
	"sync"
)

// treeCache keeps rendered tree listings. A tree id names immutable content,
// so an entry never goes stale; the key carries the repository's full name
// because the listing's URLs do (a rename makes new entries). Memory is
// bounded: past maxBytes the cache starts over.
type treeCache struct {
	mu       sync.Mutex
	entries  map[treeKey][]byte
	bytes    int
	maxBytes int
}

type treeKey struct {
	repoID    int64
	fullName  string
	oid       string
	recursive bool
	limits    [2]int // the truncation limits the listing was made under
}

func newTreeCache(maxBytes int) *treeCache {
	return &treeCache{entries: map[treeKey][]byte{}, maxBytes: maxBytes}
}

func (c *treeCache) get(k treeKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.entries[k]
	return b, ok
}

func (c *treeCache) put(k treeKey, b []byte) {
	if len(b) > c.maxBytes/8 {
		return // one huge listing would evict everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes+len(b) > c.maxBytes {
		clear(c.entries)
		c.bytes = 0
	}
	c.entries[k] = b
	c.bytes += len(b)
}
