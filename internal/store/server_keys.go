package store

import (
	"context"
	"database/sql"
	"errors"
)

// ServerKey is the secret kept under name, made from candidate by the first
// call (of any process) that finds none: later calls, and concurrent ones
// that lost the race, get the stored secret.
func (s *Store) ServerKey(ctx context.Context, name, candidate string) (string, error) {
	var secret string
	err := s.R().row(ctx, `SELECT secret FROM server_keys WHERE name = ?`, name).Scan(&secret)
	if err == nil {
		return secret, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	err = s.Tx(ctx, func(tx Q) error {
		if _, err := tx.exec(ctx, `INSERT INTO server_keys (name, secret, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING`,
			name, candidate, s.now().Unix()); err != nil {
			return err
		}
		return tx.row(ctx, `SELECT secret FROM server_keys WHERE name = ?`, name).Scan(&secret)
	})
	return secret, err
}

// StoredServerKey is the secret kept under name, if any: a read that,
// unlike ServerKey, never makes one (the OIDC issuer's endpoints, the
// secrets store's former key).
func (q Q) StoredServerKey(ctx context.Context, name string) (string, bool, error) {
	var secret string
	err := q.row(ctx, `SELECT secret FROM server_keys WHERE name = ?`, name).Scan(&secret)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return secret, err == nil, err
}
