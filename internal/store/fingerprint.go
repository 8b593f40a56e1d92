package store

import (
	"context"
	"fmt"
	"hash/maphash"
	"sort"
	"strconv"
	"strings"
)

// Fingerprint digests every table of the schema: its row count and a hash
// of its rows that does not depend on their order (PostgreSQL moves a row
// that an UPDATE rewrites). Tests compare two fingerprints to prove that a
// refused request changed nothing; it reads whole tables, so it is meant
// for the small databases of tests, not for production.
func (s *Store) Fingerprint(ctx context.Context) (map[string]string, error) {
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
		tables = append(tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sort.Strings(tables)
	if s.pg {
		return s.digestTablesPG(ctx, tables)
	}
	out := make(map[string]string, len(tables))
	for _, t := range tables {
		d, err := s.digestTable(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("store: fingerprint %s: %w", t, err)
		}
		out[t] = d
	}
	return out, nil
}

// fingerprintSeed keys the rows' hashes: digests are compared within one
// process only.
var fingerprintSeed = maphash.MakeSeed()

// digestTable is "count:sum of the rows' 64-bit hashes".
func (s *Store) digestTable(ctx context.Context, table string) (string, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT * FROM "`+strings.ReplaceAll(table, `"`, `""`)+`"`)
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
		quoted := `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
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
