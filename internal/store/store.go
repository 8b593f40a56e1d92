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
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx"
	_ "modernc.org/sqlite"             // SQLite driver "sqlite"

	"github.com/hubd/hubd/internal/model"
)

// Store is the database. Reads go to a pool; on SQLite writes go through a
// single connection so that writers queue in Go instead of failing busy.
type Store struct {
	// reads counts the queries run (tests bound a request's query count
	// with it; see Reads).
	reads atomic.Int64
	// writes counts the write transactions begun (tests assert that a
	// read does not write; see Writes).
	writes atomic.Int64
	read   *sql.DB
	write  *sql.DB
	pg     bool
	now    func() time.Time

	rebound sync.Map // query -> rebound query (PostgreSQL)
	stmts   sync.Map // stmtKey -> *sql.Stmt
	cache   *readCache

	// committed are told when a write transaction that appended domain
	// events commits (the outbox consumers of this process wake on it).
	committedMu sync.Mutex
	committed   []func()

	fp fingerprints // Fingerprint's change tracking (tests)

	cl *cluster // other nodes on the same PostgreSQL database (cluster.go)
}

// Open connects to dsn and applies the migrations before it returns. It is
// the one place that reads a database address (see ParseDSN for the forms).
func Open(ctx context.Context, dsn string) (*Store, error) {
	d, err := ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	s := &Store{now: func() time.Time { return time.Now().UTC().Truncate(time.Second) }, cache: newReadCache(2 * time.Second)}
	if d.Postgres {
		db, err := sql.Open("pgx", d.URL)
		if err != nil {
			return nil, fmt.Errorf("store: PostgreSQL %s: %w", d, err)
		}
		db.SetMaxOpenConns(32)
		db.SetMaxIdleConns(32)
		db.SetConnMaxIdleTime(5 * time.Minute)
		s.read, s.write, s.pg = db, db, true
	} else {
		if dir := filepath.Dir(d.Path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("store: SQLite database %s: %w", d.Path, err)
			}
		}
		pragmas := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(" + d.Synchronous + ")"
		// A file: URI: the path's own '%', '?' and '#' are escaped, or a
		// directory like "x#01" would cut the path short.
		uri := "file:" + strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(d.Path)
		w, err := sql.Open("sqlite", uri+"?"+pragmas+"&_txlock=immediate")
		if err != nil {
			return nil, fmt.Errorf("store: SQLite database %s: %w", d.Path, err)
		}
		w.SetMaxOpenConns(1)
		w.SetConnMaxIdleTime(0)
		r, err := sql.Open("sqlite", uri+"?"+pragmas+"&_pragma=query_only(1)")
		if err != nil {
			return nil, fmt.Errorf("store: SQLite database %s: %w", d.Path, err)
		}
		r.SetMaxOpenConns(8)
		r.SetMaxIdleConns(8)
		s.read, s.write = r, w
	}
	if err := s.write.PingContext(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: open %s: %w", d, err)
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: migrate %s: %w", d, err)
	}
	if err := s.initCluster(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// DSN is a parsed database address.
type DSN struct {
	Postgres bool
	URL      string // PostgreSQL: the URL as given
	Path     string // SQLite: the database file
	// Synchronous is SQLite's synchronous pragma: FULL (the default) syncs
	// the write-ahead log on every commit, so an acknowledged write survives
	// a power loss; NORMAL syncs only at checkpoints, faster but a power
	// loss may drop the last commits (a process crash loses nothing).
	Synchronous string
}

// String names the database for messages, without a password.
func (d DSN) String() string {
	if !d.Postgres {
		return "SQLite database " + d.Path
	}
	if u, err := url.Parse(d.URL); err == nil {
		return "PostgreSQL database " + u.Redacted()
	}
	return "PostgreSQL database"
}

// ParseDSN reads a database address. The accepted forms are
//
//	postgres://... or postgresql://...   PostgreSQL (pgx's URL parameters)
//	sqlite:PATH or sqlite:///ABS/PATH     SQLite; "?synchronous=normal|full"
//	file:PATH                             SQLite, the same as sqlite:PATH
//	PATH                                  SQLite, when PATH contains a "/"
//	                                      or ends in .db, .sqlite or .sqlite3
//
// Anything else (another scheme such as mysql://, or a bare word) is refused:
// taking it for a file name would quietly create a database in the working
// directory.
func ParseDSN(dsn string) (DSN, error) {
	lower := strings.ToLower(dsn)
	if strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://") {
		return DSN{Postgres: true, URL: dsn}, nil
	}
	d := DSN{Synchronous: "FULL"}
	var query string
	switch {
	case strings.HasPrefix(lower, "sqlite:") || strings.HasPrefix(lower, "file:"):
		rest := dsn[strings.Index(dsn, ":")+1:]
		rest, query, _ = strings.Cut(rest, "?")
		if r, ok := strings.CutPrefix(rest, "//"); ok {
			// sqlite:///abs/path: an empty host, then an absolute path.
			if !strings.HasPrefix(r, "/") {
				return DSN{}, fmt.Errorf("store: database %q: a sqlite: URL with // takes an absolute path (sqlite:///var/lib/hubd/hubd.db) or use sqlite:relative/path.db", dsn)
			}
			rest = r
		}
		if rest == "" {
			return DSN{}, fmt.Errorf("store: database %q names no file", dsn)
		}
		d.Path = rest
	case dsn == "":
		return DSN{}, errors.New("store: no database given")
	case hasScheme(dsn):
		return DSN{}, fmt.Errorf("store: database %q: unsupported; use a postgres:// URL, sqlite:PATH, or the path of a SQLite file", redact(dsn))
	case strings.ContainsRune(dsn, '/') || strings.HasSuffix(lower, ".db") || strings.HasSuffix(lower, ".sqlite") || strings.HasSuffix(lower, ".sqlite3"):
		d.Path = dsn
	default:
		return DSN{}, fmt.Errorf("store: database %q: not a postgres:// URL, a sqlite:PATH, or a SQLite file path (a path contains a / or ends in .db)", dsn)
	}
	if query != "" {
		q, err := url.ParseQuery(query)
		if err != nil {
			return DSN{}, fmt.Errorf("store: database %q: %v", dsn, err)
		}
		for k, v := range q {
			switch k {
			case "synchronous":
				switch m := strings.ToUpper(v[len(v)-1]); m {
				case "FULL", "NORMAL":
					d.Synchronous = m
				default:
					return DSN{}, fmt.Errorf("store: database %q: synchronous must be full or normal", dsn)
				}
			default:
				return DSN{}, fmt.Errorf("store: database %q: unknown parameter %q (known: synchronous)", dsn, k)
			}
		}
	}
	return d, nil
}

// hasScheme reports whether s starts like a URL ("mysql://", "redis:").
func hasScheme(s string) bool {
	i := strings.Index(s, ":")
	if i < 1 {
		return false
	}
	for j, c := range s[:i] {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// redact hides a URL's password in messages.
func redact(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	return s
}

// Close releases the connections.
func (s *Store) Close() error {
	s.stopListening()
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
// Reads is how many queries the store has run so far: tests take the
// difference around a request to bound its number of queries.
func (s *Store) Reads() int64 { return s.reads.Load() }

type readCounterKey struct{}

// countingReads is set once any context counts its reads, so a server that
// never does pays no context lookup per query.
var countingReads atomic.Bool

// CountReads returns a context under which every query the store runs for it
// (and for contexts derived from it) is also added to n. Unlike Reads, which
// counts the whole process's queries, this counts one request's, whatever
// jobs and other requests run meanwhile.
func CountReads(ctx context.Context, n *atomic.Int64) context.Context {
	countingReads.Store(true)
	return context.WithValue(ctx, readCounterKey{}, n)
}

// counted records one query run for ctx.
func (q Q) counted(ctx context.Context) {
	if q.quiet {
		return
	}
	q.s.reads.Add(1)
	if countingReads.Load() {
		if n, ok := ctx.Value(readCounterKey{}).(*atomic.Int64); ok {
			n.Add(1)
		}
	}
}

type Q struct {
	s  *Store
	db *sql.DB
	tx *sql.Tx
	// appended is set when the transaction appends a domain event.
	appended *bool
	// quiet reads are not counted by Reads (background readers).
	quiet bool
	// at, when set, is the clock of this Q (At).
	at time.Time
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
	q.counted(ctx)
	st, err := q.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// row runs a one-row query; a preparation error surfaces from Scan.
func (q Q) row(ctx context.Context, query string, args ...any) rowScanner {
	q.counted(ctx)
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

// Now is the store's clock, or the time set by At.
func (q Q) Now() time.Time {
	if !q.at.IsZero() {
		return q.at
	}
	return q.s.now()
}

// At is q with its clock stopped at t: the rows it writes carry t as their
// creation time. Imports write archived records with their own times.
func (q Q) At(t time.Time) Q {
	q.at = t.UTC().Truncate(time.Second)
	return q
}

// R is the read side of the store.
func (s *Store) R() Q { return Q{s: s, db: s.read} }

// Background is the read side for work off the request path (the outbox
// consumers polling the log): its queries are not counted by Reads, which
// bounds what a request costs.
func (s *Store) Background() Q { return Q{s: s, db: s.read, quiet: true} }

// Writes is how many write transactions the store has begun so far.
func (s *Store) Writes() int64 { return s.writes.Load() }

// Tx runs fn in one write transaction; it commits when fn returns nil.
func (s *Store) Tx(ctx context.Context, fn func(tx Q) error) error {
	return s.tx(ctx, true, fn)
}

// tx is Tx; with invalidate false the commit leaves the read cache alone
// (for writes to tables the cache never holds, such as counters).
func (s *Store) tx(ctx context.Context, invalidate bool, fn func(tx Q) error) error {
	s.writes.Add(1)
	t, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	var appended bool
	if err := fn(Q{s: s, db: s.write, tx: t, appended: &appended}); err != nil {
		t.Rollback()
		return err
	}
	err = t.Commit()
	if invalidate {
		s.cache.invalidate()
		if err == nil {
			s.notifyCommitted(ctx, appended) // the other nodes' caches
		}
	}
	if err == nil && appended {
		s.committedMu.Lock()
		fns := s.committed
		s.committedMu.Unlock()
		for _, f := range fns {
			f()
		}
	}
	return err
}

// OnEventsCommitted registers f, called (it must not block) after every
// write transaction of this process that appended domain events commits.
func (s *Store) OnEventsCommitted(f func()) {
	s.committedMu.Lock()
	defer s.committedMu.Unlock()
	s.committed = append(s.committed, f)
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
	s.writes.Add(1)
	_, err := s.write.ExecContext(ctx, stmt)
	return err
}
