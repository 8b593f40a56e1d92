package sshkeys

import (
	"context"
	"log/slog"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// usedInterval is how often a key's last_used moves: a key used all day
// costs a write an hour, not one per connection.
const usedInterval = time.Hour

// Authenticate finds the key of an SSH client by its SHA256 fingerprint
// (model.ErrNotFound for a key no user or repository has).
func (s *Service) Authenticate(ctx context.Context, fingerprint string) (*model.PublicKey, error) {
	return s.Store.R().PublicKeyByFingerprint(ctx, fingerprint)
}

// Used records that a key signed in (last_used), at most once an interval.
func (s *Service) Used(ctx context.Context, k *model.PublicKey) {
	now := s.Store.R().Now()
	if k.LastUsed != nil && now.Sub(*k.LastUsed) < usedInterval {
		return
	}
	err := s.Store.Tx(ctx, func(tx store.Q) error { return tx.TouchPublicKey(ctx, k.ID, now, usedInterval) })
	if err != nil {
		slog.Warn("ssh key last_used", "key", k.ID, "err", err)
	}
}
