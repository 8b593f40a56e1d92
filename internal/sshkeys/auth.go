package sshkeys

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// usedInterval is how often a key's last_used moves: a key used all day
// costs a write an hour, not one per connection.
const usedInterval = time.Hour

// uses holds the last uses not written yet: signing in with a key is a
// read, so its last_used is written off the connection's path, in batches.
type uses struct {
	mu      sync.Mutex
	pending map[int64]time.Time // key id → last use not written yet
	timer   *time.Timer         // the next flush, when one is due
	flushMu sync.Mutex          // one flush at a time
}

// Authenticate finds the key of an SSH client by its SHA256 fingerprint
// (model.ErrNotFound for a key no user or repository has).
func (s *Service) Authenticate(ctx context.Context, fingerprint string) (*model.PublicKey, error) {
	k, err := s.Store.R().PublicKeyByFingerprint(ctx, fingerprint)
	if err != nil {
		return nil, err
	}
	s.overlay([]*model.PublicKey{k})
	return k, nil
}

// Used notes that a key signed in. Its last_used moves at most once an
// interval and is written shortly after, off the caller's path (Flush
// writes what is pending); the key's reads show it meanwhile.
func (s *Service) Used(_ context.Context, k *model.PublicKey) {
	now := s.Store.R().Now()
	u := &s.uses
	u.mu.Lock()
	defer u.mu.Unlock()
	last := k.LastUsed
	if t, ok := u.pending[k.ID]; ok {
		last = &t
	}
	if last != nil && now.Sub(*last) < usedInterval {
		return
	}
	if u.pending == nil {
		u.pending = map[int64]time.Time{}
	}
	u.pending[k.ID] = now
	if u.timer == nil {
		u.timer = time.AfterFunc(s.flushEvery(), s.flushTick)
	}
}

func (s *Service) flushEvery() time.Duration {
	if s.FlushEvery > 0 {
		return s.FlushEvery
	}
	return time.Second
}

func (s *Service) flushTick() {
	s.uses.mu.Lock()
	s.uses.timer = nil
	s.uses.mu.Unlock()
	if err := s.Flush(context.Background()); err != nil {
		slog.Warn("ssh keys last_used", "err", err)
	}
}

// Flush writes the pending last uses in one transaction (those it could
// not write stay pending for the next flush).
func (s *Service) Flush(ctx context.Context) error {
	u := &s.uses
	u.flushMu.Lock()
	defer u.flushMu.Unlock()
	u.mu.Lock()
	batch := make(map[int64]time.Time, len(u.pending))
	for id, t := range u.pending {
		batch[id] = t
	}
	u.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		for id, t := range batch {
			if err := tx.TouchPublicKey(ctx, id, t, usedInterval); err != nil {
				return err
			}
		}
		return nil
	})
	u.mu.Lock()
	defer u.mu.Unlock()
	if err == nil {
		// Written: reads find them in the store now (a use noted during
		// the write stays pending).
		for id, t := range batch {
			if u.pending[id].Equal(t) {
				delete(u.pending, id)
			}
		}
	} else if u.timer == nil {
		u.timer = time.AfterFunc(s.flushEvery(), s.flushTick)
	}
	return err
}

// overlay shows the last uses not written yet on keys just read.
func (s *Service) overlay(keys []*model.PublicKey) []*model.PublicKey {
	u := &s.uses
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, k := range keys {
		if t, ok := u.pending[k.ID]; ok && (k.LastUsed == nil || k.LastUsed.Before(t)) {
			k.LastUsed = &t
		}
	}
	return keys
}

// page shows the pending last uses on a page of keys.
func (s *Service) page(keys []*model.PublicKey, n int, err error) ([]*model.PublicKey, int, error) {
	if err != nil {
		return nil, 0, err
	}
	return s.overlay(keys), n, nil
}
