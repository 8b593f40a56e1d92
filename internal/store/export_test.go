package store

import (
	"context"
	"fmt"
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
// On PostgreSQL it is the count of files (code_trigrams) and of
// repositories above which the index job's counts call a trigram common.
func SetRareTrigramCap(n int) func() {
	old, oldFiles, oldRepos := rareTrigramCap, rareTrigramFiles, rareTrigramRepos
	rareTrigramCap, rareTrigramFiles, rareTrigramRepos = n, n, n
	return func() { rareTrigramCap, rareTrigramFiles, rareTrigramRepos = old, oldFiles, oldRepos }
}

// CodeTrigramDrift compares PostgreSQL's trigram counts (code_trigrams)
// with a count of the indexed files made now: the rows that differ, as
// "trigram repo kept counted" (none on SQLite, which keeps no counts).
func (q Q) CodeTrigramDrift(ctx context.Context) ([]string, error) {
	if !q.s.pg {
		return nil, nil
	}
	rows, err := q.searchRows(ctx, `WITH now AS (SELECT t.t AS trigram, f.repo_id, COUNT(*) AS files FROM code_files f,
 LATERAL (SELECT DISTINCT x FROM unnest(public.show_trgm(f.content) || public.show_trgm(f.path)) x) t(t) GROUP BY t.t, f.repo_id)
 SELECT COALESCE(k.trigram, n.trigram), COALESCE(k.repo_id, n.repo_id), COALESCE(k.files, 0), COALESCE(n.files, 0)
 FROM code_trigrams k FULL JOIN now n ON n.trigram = k.trigram AND n.repo_id = k.repo_id
 WHERE k.files IS DISTINCT FROM n.files ORDER BY 1, 2`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		var repo, kept, counted int64
		if err := rows.Scan(&t, &repo, &kept, &counted); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("%q %d %d %d", t, repo, kept, counted))
	}
	return out, rows.Err()
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
