package markdown

import (
	"container/list"
	"crypto/sha256"
	"sync"
)

// cacheBytes bounds the memory of rendered documents kept for reuse.
const cacheBytes = 32 << 20

// cacheKey names a prepared document: the hash of its source and the
// options that change what is prepared. Nothing about the reader is in it
// because nothing about the reader is in what is cached: references are
// linked after the cache, for each reader.
type cacheKey struct {
	sum      [sha256.Size]byte
	comment  bool // gfm mode: hard line breaks
	refs     bool // references are looked for
	contexty bool // #N and bare SHAs mean something
	links    AutolinkSet
}

func keyOf(src string, o *Options) cacheKey {
	return cacheKey{
		sum:      sha256.Sum256([]byte(src)),
		comment:  o.Comment,
		refs:     o.Comment && o.Resolver != nil,
		contexty: o.Context != "",
		links:    o.Autolinks,
	}
}

// lru is a least-recently-used cache of prepared documents bounded in
// bytes: every body_html, page and POST /markdown of the same text and
// mode renders once.
type lru struct {
	mu    sync.Mutex
	max   int
	used  int
	order *list.List // of *cacheEntry, most recent first
	items map[cacheKey]*list.Element
}

type cacheEntry struct {
	key  cacheKey
	doc  *prepared
	size int
}

func newLRU(max int) *lru {
	return &lru{max: max, order: list.New(), items: map[cacheKey]*list.Element{}}
}

func (c *lru) get(k cacheKey) *prepared {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok {
		return nil
	}
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry).doc
}

func (c *lru) put(k cacheKey, doc *prepared) {
	size := doc.size() + 128
	if size > c.max/8 {
		return // one huge document would flush all the others
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.order.MoveToFront(e)
		return
	}
	c.items[k] = c.order.PushFront(&cacheEntry{key: k, doc: doc, size: size})
	c.used += size
	for c.used > c.max {
		last := c.order.Back()
		ent := last.Value.(*cacheEntry)
		c.order.Remove(last)
		delete(c.items, ent.key)
		c.used -= ent.size
	}
}

func (c *lru) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

var cache = newLRU(cacheBytes)
