package store

import (
	"context"
	"fmt"
	"hash/maphash"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Fingerprint digests every table of the schema: its row count and a hash
// of its rows that does not depend on their order (PostgreSQL moves a row
// that an UPDATE rewrites). Tests compare two fingerprints to prove that a
// refused request changed nothing; it reads whole tables, so it is meant
// for the small databases of tests, not for production.
//
// The first call installs change tracking: triggers on every ordinary
// table note, in the writing transaction, that the table was written (in
// _fp_changes). Later calls take the notes (deleting them) before they
// digest, and digest again only the tables noted (and those without
// triggers: SQLite's virtual tables and their shadow tables); the others
// keep the digest of the last call. A write committed after the notes were
// taken leaves its note for the next call, so no change is missed; the
// conformance suite takes thousands of fingerprints of a hundred and fifty
// tables of which a request touches a few.
func (s *Store) Fingerprint(ctx context.Context) (map[string]string, error) {
	s.fp.mu.Lock()
	defer s.fp.mu.Unlock()
	list := `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
	if s.pg {
		list = `SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`
	}
	rows, err := s.read.QueryContext(ctx, list)
	if err != nil {
		return nil, err
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return nil, err
		}
		if t != fpChanges {
			tables = append(tables, t)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.Strings(tables)
	if s.fp.digests == nil {
		if err := s.trackChanges(ctx, tables); err != nil {
			return nil, fmt.Errorf("store: fingerprint tracking: %w", err)
		}
		s.fp.digests = map[string]string{}
	}
	changed, err := s.takeChanges(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: fingerprint changes: %w", err)
	}
	var stale []string
	for _, t := range tables {
		if _, ok := s.fp.digests[t]; !ok || changed[t] || !s.fp.tracked[t] {
			stale = append(stale, t)
		}
	}
	var fresh map[string]string
	if s.pg {
		fresh, err = s.digestTablesPG(ctx, stale)
		if err != nil {
			return nil, err
		}
	} else {
		fresh = make(map[string]string, len(stale))
		for _, t := range stale {
			d, err := s.digestTable(ctx, t)
			if err != nil {
				return nil, fmt.Errorf("store: fingerprint %s: %w", t, err)
			}
			fresh[t] = d
		}
	}
	out := make(map[string]string, len(tables))
	for _, t := range tables {
		if d, ok := fresh[t]; ok {
			s.fp.digests[t] = d
		}
		out[t] = s.fp.digests[t]
	}
	return out, nil
}

// fpChanges is the table the tracking triggers write the names of written
// tables to (never in a fingerprint).
const fpChanges = "_fp_changes"

// fingerprints is a store's change tracking for Fingerprint.
type fingerprints struct {
	mu      sync.Mutex
	tracked map[string]bool   // tables with triggers
	digests map[string]string // the last digest of each table
}

// trackChanges creates _fp_changes and the triggers that write to it.
// SQLite has row triggers only, so a note is written only when the table
// has none yet (one writer: no race); PostgreSQL's statement triggers
// append, so two transactions never wait for each other's note.
func (s *Store) trackChanges(ctx context.Context, tables []string) error {
	s.fp.tracked = map[string]bool{}
	if s.pg {
		for _, stmt := range []string{
			`CREATE TABLE IF NOT EXISTS ` + fpChanges + ` (tbl text NOT NULL)`,
			`CREATE OR REPLACE FUNCTION _fp_note() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO ` + fpChanges + ` (tbl) VALUES (TG_TABLE_NAME); RETURN NULL; END $$`,
		} {
			if _, err := s.write.ExecContext(ctx, stmt); err != nil {
				return err
			}
		}
		for _, t := range tables {
			q := quoteIdent(t)
			if _, err := s.write.ExecContext(ctx, `CREATE OR REPLACE TRIGGER _fp_note AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON `+q+` FOR EACH STATEMENT EXECUTE FUNCTION _fp_note()`); err != nil {
				return fmt.Errorf("%s: %w", t, err)
			}
			s.fp.tracked[t] = true
		}
		return nil
	}
	// No unique key: the conflict clause of an outer upsert or INSERT OR
	// REPLACE would override the trigger's OR IGNORE and fail the write.
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS ` + fpChanges + ` (tbl TEXT NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS ` + fpChanges + `_tbl ON ` + fpChanges + ` (tbl)`,
	} {
		if _, err := s.write.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	// Virtual tables take no triggers, and their shadow tables are
	// written by the module: both are digested on every call.
	rows, err := s.read.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'`)
	if err != nil {
		return err
	}
	var virtual []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return err
		}
		virtual = append(virtual, v)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, t := range tables {
		skip := false
		for _, v := range virtual {
			if t == v || strings.HasPrefix(t, v+"_") {
				skip = true
			}
		}
		if skip {
			continue
		}
		for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
			name := quoteIdent("_fp_" + strings.ToLower(op[:1]) + "_" + t)
			lit := `'` + strings.ReplaceAll(t, "'", "''") + `'`
			if _, err := s.write.ExecContext(ctx, `CREATE TRIGGER IF NOT EXISTS `+name+` AFTER `+op+` ON `+quoteIdent(t)+
				` BEGIN INSERT INTO `+fpChanges+` (tbl) SELECT `+lit+` WHERE NOT EXISTS (SELECT 1 FROM `+fpChanges+` WHERE tbl = `+lit+`); END`); err != nil {
				return fmt.Errorf("%s: %w", t, err)
			}
		}
		s.fp.tracked[t] = true
	}
	return nil
}

// takeChanges deletes the notes and answers the tables they name.
func (s *Store) takeChanges(ctx context.Context) (map[string]bool, error) {
	rows, err := s.write.QueryContext(ctx, `DELETE FROM `+fpChanges+` RETURNING tbl`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		out[t] = true
	}
	return out, rows.Err()
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// fingerprintSeed keys the rows' hashes: digests are compared within one
// process only.
var fingerprintSeed = maphash.MakeSeed()

// digestTable is "count:sum of the rows' 64-bit hashes".
func (s *Store) digestTable(ctx context.Context, table string) (string, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT * FROM `+quoteIdent(table))
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var n int
	var sum uint64
	var buf []byte
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		buf = buf[:0]
		for _, v := range vals {
			buf = appendValue(buf, v)
			buf = append(buf, 0x1f)
		}
		sum += maphash.Bytes(fingerprintSeed, buf)
		n++
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	return fmt.Sprintf("%d:%016x", n, sum), nil
}

// appendValue appends v as fmt's %v prints it (the digest is the same as
// formatting every value with fmt, without its reflection per value: the
// conformance suite takes thousands of fingerprints).
func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "<nil>"...)
	case []byte:
		return append(b, x...)
	case string:
		return append(b, x...)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case float64:
		return strconv.AppendFloat(b, x, 'g', -1, 64)
	case bool:
		return strconv.AppendBool(b, x)
	}
	return fmt.Append(b, v)
}

// digestTablesPG digests every table in one statement that PostgreSQL
// evaluates on its side: per table "count:sum of the first 64 bits of each
// row's MD5", so no row crosses the connection (a row-by-row scan costs a
// round trip per table and the rows' transfer, which made the conformance
// suite's thousands of fingerprints take minutes).
func (s *Store) digestTablesPG(ctx context.Context, tables []string) (map[string]string, error) {
	out := make(map[string]string, len(tables))
	if len(tables) == 0 {
		return out, nil
	}
	var q strings.Builder
	for i, t := range tables {
		if i > 0 {
			q.WriteString(" UNION ALL ")
		}
		quoted := quoteIdent(t)
		fmt.Fprintf(&q, `SELECT %d, count(*), coalesce(sum(('x' || substr(md5(r::text), 1, 16))::bit(64)::bigint::numeric), 0)::text FROM %s r`, i, quoted)
	}
	rows, err := s.read.QueryContext(ctx, q.String())
	if err != nil {
		return nil, fmt.Errorf("store: fingerprint: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var i, n int
		var sum string
		if err := rows.Scan(&i, &n, &sum); err != nil {
			return nil, err
		}
		if i < 0 || i >= len(tables) {
			return nil, fmt.Errorf("store: fingerprint: table index %d", i)
		}
		out[tables[i]] = fmt.Sprintf("%d:%s", n, sum)
	}
	return out, rows.Err()
}
