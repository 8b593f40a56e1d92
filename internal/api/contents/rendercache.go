package contents

import (
	"sync"
)

// renderCache keeps the JSON of file answers. A blob id names immutable
// content, and everything else in the answer — the repository's full name
// (URLs), the ref as named, the path — is in the key, so an entry never
// goes stale. Only public repositories' answers are kept: a private one's
// download_url carries a token that expires. Past maxBytes the cache starts
// over (no bookkeeping on the hot path).
type renderCache struct {
	mu       sync.Mutex
	entries  map[renderKey][]byte
	bytes    int
	maxBytes int
}

type renderKey struct {
	repoID              int64
	fullName, ref, path string
	oid                 string
}

func newRenderCache(maxBytes int) *renderCache {
	return &renderCache{entries: map[renderKey][]byte{}, maxBytes: maxBytes}
}

func (c *renderCache) get(k renderKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.entries[k]
	return b, ok
}

func (c *renderCache) put(k renderKey, b []byte) {
	if len(b) > c.maxBytes/16 {
		return
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
