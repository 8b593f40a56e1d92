package store

import (
	"context"
	"strings"
)

// Synchronous reads SQLite's synchronous pragma on the write connection
// (1 NORMAL, 2 FULL), for tests.
func Synchronous(ctx context.Context, s *Store) (int, error) {
	var n int
	err := s.write.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&n)
	return n, err
}

// SetRareTrigramCap sets the count of rows above which a trigram is too
// common to find a word's rows, for tests; it returns the undo.
func SetRareTrigramCap(n int) func() {
	old := rareTrigramCap
	rareTrigramCap = n
	return func() { rareTrigramCap = old }
}

// SetCodeKeysCap sets how many matches a code search reads the keys of
// before it counts and pages in SQL instead, for tests; it returns the
// undo.
func SetCodeKeysCap(n int) func() {
	old := codeKeysCap
	codeKeysCap = n
	return func() { codeKeysCap = old }
}

// OpenMigratedTo opens dsn applying only the first n migrations (a test
// then writes what an older hubd wrote and opens it again with all).
func OpenMigratedTo(ctx context.Context, dsn string, n int) (*Store, error) {
	all := migrations
	migrations = all[:n]
	defer func() { migrations = all }()
	return Open(ctx, dsn)
}

// MigrationCount is how many migrations there are.
func MigrationCount() int { return len(migrations) }

// Exec runs a statement on the write side, for tests that set up rows an
// older hubd wrote.
func Exec(ctx context.Context, s *Store, query string, args ...any) error {
	_, err := s.write.ExecContext(ctx, s.rebind(query), args...)
	return err
}

// MigrationWith is the number of the first migration whose text holds s.
func MigrationWith(s string) int {
	for i, m := range migrations {
		if strings.Contains(m, s) {
			return i + 1
		}
	}
	return 0
}

// SyncWithoutListener makes s check the cluster's generations in Sync as a
// listening node does, but with no listener: what Sync does is then all
// that moves s's caches on the other stores' writes (tests).
func SyncWithoutListener(ctx context.Context, s *Store) error {
	if !s.pg {
		return nil
	}
	w, b, err := s.readGenerations(ctx)
	if err != nil {
		return err
	}
	s.cl.sync.writes, s.cl.sync.bcasts = w, b
	s.cl.started.Store(true)
	return nil
}
