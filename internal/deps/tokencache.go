package deps

import (
	"context"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

// TokenCache remembers recent authentications for a short time so that a
// busy client costs no query per request. Any write that changes a user or
// revokes a token flushes it.
type TokenCache struct {
	// Publish, when set, tells the other nodes on the database to flush
	// theirs too (Flush calls it; server.Build sets it).
	Publish func()

	mu      sync.Mutex
	ttl     time.Duration
	entries map[string]tokenEntry
}

type tokenEntry struct {
	caller  *authz.Caller
	ok      bool
	expires time.Time
}

// NewTokenCache makes a cache; ttl 0 disables it.
func NewTokenCache(ttl time.Duration) *TokenCache {
	return &TokenCache{ttl: ttl, entries: map[string]tokenEntry{}}
}

// Get authenticates tok through the cache. An entry lasts the cache's TTL
// and never past its token's expiry (the store's clock decides both).
func (tc *TokenCache) Get(ctx context.Context, tok string, st *store.Store) (*authz.Caller, bool, error) {
	now := st.Now()
	if tc.ttl > 0 {
		tc.mu.Lock()
		e, hit := tc.entries[tok]
		tc.mu.Unlock()
		if hit && now.Before(e.expires) {
			return e.caller, e.ok, nil
		}
	}
	c, ok, err := st.R().Authenticate(ctx, tok)
	if err != nil || tc.ttl == 0 {
		return c, ok, err
	}
	tc.mu.Lock()
	if len(tc.entries) > 10000 {
		tc.entries = map[string]tokenEntry{}
	}
	until := now.Add(tc.ttl)
	if c != nil && !c.ExpiresAt.IsZero() && c.ExpiresAt.Before(until) {
		until = c.ExpiresAt
	}
	tc.entries[tok] = tokenEntry{caller: c, ok: ok, expires: until}
	tc.mu.Unlock()
	return c, ok, nil
}

// Flush forgets every cached authentication, here and on the other nodes.
func (tc *TokenCache) Flush() {
	tc.FlushLocal()
	if tc.Publish != nil {
		tc.Publish()
	}
}

// FlushLocal forgets this process's cached authentications (another node
// flushed its cache).
func (tc *TokenCache) FlushLocal() {
	tc.mu.Lock()
	tc.entries = map[string]tokenEntry{}
	tc.mu.Unlock()
}
