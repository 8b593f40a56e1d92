package store

import "context"

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
