// Package store holds all of hubd's SQL. One schema and one set of queries
// serve SQLite (the embedded default) and PostgreSQL; queries are written
// with ? placeholders and rebound for PostgreSQL. Every write runs in one
// transaction and appends its domain event in that same transaction.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx"
	_ "modernc.org/sqlite"             // SQLite driver "sqlite"

	"github.com/hubd/hubd/internal/model"
)

// Store is the database. Reads go to a pool; on SQLite writes go through a
// single connection so that writers queue in Go instead of failing busy.
type Store struct {
	read  *sql.DB
	write *sql.DB
	pg    bool
	now   func() time.Time

	rebound sync.Map // query -> rebound query (PostgreSQL)
	stmts   sync.Map // stmtKey -> *sql.Stmt
	cache   *readCache
}

// Open connects to dsn: a postgres:// or postgresql:// URL selects PostgreSQL,
// anything else is a SQLite file path (optionally prefixed "sqlite:").
// Migrations are applied before it returns.
func Open(ctx context.Context, dsn string) (*Store, error) {
	s := &Store{now: func() time.Time { return time.Now().UTC().Truncate(time.Second) }, cache: newReadCache(2 * time.Second)}
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		db, err := sql.Open("pgx", dsn)
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(32)
		db.SetMaxIdleConns(32)
		db.SetConnMaxIdleTime(5 * time.Minute)
		s.read, s.write, s.pg = db, db, true
	} else {
		path := strings.TrimPrefix(dsn, "sqlite:")
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
		}
		pragmas := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
		w, err := sql.Open("sqlite", "file:"+path+"?"+pragmas+"&_txlock=immediate")
		if err != nil {
			return nil, err
		}
		w.SetMaxOpenConns(1)
		w.SetConnMaxIdleTime(0)
		r, err := sql.Open("sqlite", "file:"+path+"?"+pragmas+"&_pragma=query_only(1)")
		if err != nil {
			return nil, err
		}
		r.SetMaxOpenConns(8)
		r.SetMaxIdleConns(8)
		s.read, s.write = r, w
	}
	if err := s.write.PingContext(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close releases the connections.
func (s *Store) Close() error {
	s.stmts.Range(func(k, v any) bool {
		v.(*sql.Stmt).Close()
		return true
	})
	err := s.write.Close()
	if s.read != s.write {
		err = errors.Join(err, s.read.Close())
	}
	return err
}

// Postgres reports whether the store runs on PostgreSQL.
func (s *Store) Postgres() bool { return s.pg }

// SetClock replaces the clock (tests).
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// Now is the store's clock, truncated to seconds like GitHub's timestamps.
func (s *Store) Now() time.Time { return s.now() }

// rebind turns ? placeholders into $n for PostgreSQL.
func (s *Store) rebind(q string) string {
	if !s.pg {
		return q
	}
	if v, ok := s.rebound.Load(q); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	inStr := false
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c == '\'' {
			inStr = !inStr
		}
		if c == '?' && !inStr {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	out := b.String()
	s.rebound.Store(q, out)
	return out
}

// Q runs queries on a pool or inside a transaction. Statements are prepared
// once per pool and connection and reused (SQLite spends most of a simple
// query parsing it otherwise).
type Q struct {
	s  *Store
	db *sql.DB
	tx *sql.Tx
}

type stmtKey struct {
	db    *sql.DB
	query string
}

// stmt returns the prepared statement of query, bound to the transaction when
// there is one.
func (q Q) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	key := stmtKey{q.db, query}
	v, ok := q.s.stmts.Load(key)
	if !ok && q.tx != nil {
		// Preparing on the pool could wait for the connection this very
		// transaction holds (SQLite has one writer): prepare on the
		// transaction, for this transaction only.
		return q.tx.PrepareContext(ctx, q.s.rebind(query))
	}
	if !ok {
		st, err := q.db.PrepareContext(ctx, q.s.rebind(query))
		if err != nil {
			return nil, err
		}
		if prev, loaded := q.s.stmts.LoadOrStore(key, st); loaded {
			st.Close()
			v = prev
		} else {
			v = st
		}
	}
	st := v.(*sql.Stmt)
	if q.tx != nil {
		return q.tx.StmtContext(ctx, st), nil
	}
	return st, nil
}

func (q Q) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := q.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (q Q) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := q.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// row runs a one-row query; a preparation error surfaces from Scan.
func (q Q) row(ctx context.Context, query string, args ...any) rowScanner {
	st, err := q.stmt(ctx, query)
	if err != nil {
		return errRow{err}
	}
	return st.QueryRowContext(ctx, args...)
}

type rowScanner interface{ Scan(...any) error }

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// execRaw runs a statement without caching its preparation (DDL in
// migrations).
func (q Q) execRaw(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if q.tx != nil {
		return q.tx.ExecContext(ctx, q.s.rebind(query), args...)
	}
	return q.db.ExecContext(ctx, q.s.rebind(query), args...)
}

// insert runs an INSERT ... RETURNING id and gives the new id.
func (q Q) insert(ctx context.Context, query string, args ...any) (int64, error) {
	var id int64
	err := q.row(ctx, query+" RETURNING id", args...).Scan(&id)
	return id, err
}

// Now is the store's clock.
func (q Q) Now() time.Time { return q.s.now() }

// R is the read side of the store.
func (s *Store) R() Q { return Q{s: s, db: s.read} }

// Tx runs fn in one write transaction; it commits when fn returns nil.
func (s *Store) Tx(ctx context.Context, fn func(tx Q) error) error {
	t, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(Q{s: s, db: s.write, tx: t}); err != nil {
		t.Rollback()
		return err
	}
	err = t.Commit()
	s.cache.invalidate()
	return err
}

// notFound maps sql.ErrNoRows to model.ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return model.ErrNotFound
	}
	return err
}

// isUnique reports whether err is a unique-constraint violation.
func isUnique(err error) bool {
	if err == nil {
		return false
	}
	m := err.Error()
	return strings.Contains(m, "UNIQUE constraint failed") || strings.Contains(m, "SQLSTATE 23505")
}

// ErrDuplicate is returned when a unique name is already taken.
var ErrDuplicate = errors.New("already exists")

func unix(t time.Time) int64 { return t.Unix() }

func fromUnix(v int64) time.Time { return time.Unix(v, 0).UTC() }

func fromNullUnix(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromUnix(v.Int64)
	return &t
}

func nullUnix(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.Unix()
}

// ExecRaw runs a statement outside any transaction (test setup: schemas).
func (s *Store) ExecRaw(ctx context.Context, stmt string) error {
	_, err := s.write.ExecContext(ctx, stmt)
	return err
}
