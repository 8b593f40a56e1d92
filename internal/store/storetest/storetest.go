// Package storetest opens a fresh store for a test: SQLite in a temp dir, or
// a throwaway database next to the PostgreSQL database named by
// HUBD_TEST_DATABASE.
//
// Running the migrations for every test costs more than most tests do (on
// PostgreSQL seconds under load), so each fresh database is a copy of a
// migrated template: on SQLite a file under the temp dir, on PostgreSQL a
// database (CREATE DATABASE ... TEMPLATE). Both are keyed on
// store.MigrationsDigest, so a changed migration builds a new template, and
// store.Open still runs over the copy (it finds every migration applied).
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/store"
)

// Open returns a migrated store that is closed (and dropped) when t ends.
func Open(t testing.TB) *store.Store {
	t.Helper()
	dsn := DSN(t)
	s, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("storetest: open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// DSN makes a fresh migrated database for t and returns its address (a
// SQLite file path, or a postgres:// URL); it is removed when t ends.
func DSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv("HUBD_TEST_DATABASE")
	if base == "" {
		tpl, err := sqliteTemplate()
		if err != nil {
			t.Fatalf("storetest: sqlite template: %v", err)
		}
		path := filepath.Join(t.TempDir(), "hubd.db")
		if err := copyFile(tpl, path); err != nil {
			t.Fatalf("storetest: %v", err)
		}
		return path
	}
	pg, err := postgres(base)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	name := pg.db + "_" + randHex(6)
	ctx := context.Background()
	if _, err := pg.admin.ExecContext(ctx, "CREATE DATABASE "+quote(name)+" TEMPLATE "+quote(pg.template)); err != nil {
		t.Fatalf("storetest: create database from template %s: %v", pg.template, err)
	}
	// A test's commits need not wait for the server's WAL flush: that
	// guards against a crash of PostgreSQL's machine, which no test makes
	// (the crash tests kill hubd, whose acknowledged writes PostgreSQL
	// keeps either way). It saves a few milliseconds per commit.
	if _, err := pg.admin.ExecContext(ctx, "ALTER DATABASE "+quote(name)+" SET synchronous_commit = off"); err != nil {
		t.Fatalf("storetest: %v", err)
	}
	t.Cleanup(func() {
		pg.admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+quote(name)+" WITH (FORCE)")
	})
	return withDatabase(pg.url, name)
}

var sqliteTpl struct {
	once sync.Once
	path string
	err  error
}

// sqliteTemplate returns the migrated template file, building it once per
// migration set: under a private name, then renamed into place, so a test
// process that stops halfway leaves no half-migrated template.
func sqliteTemplate() (string, error) {
	sqliteTpl.once.Do(func() {
		dir := filepath.Join(os.TempDir(), "hubd-storetest")
		path := filepath.Join(dir, "migrated-"+store.MigrationsDigest()+".db")
		sqliteTpl.path = path
		if _, err := os.Stat(path); err == nil {
			return
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			sqliteTpl.err = err
			return
		}
		tmp, err := os.MkdirTemp(dir, "build-")
		if err != nil {
			sqliteTpl.err = err
			return
		}
		defer os.RemoveAll(tmp)
		db := filepath.Join(tmp, "hubd.db")
		s, err := store.Open(context.Background(), db)
		if err != nil {
			sqliteTpl.err = err
			return
		}
		if err := s.Close(); err != nil {
			sqliteTpl.err = err
			return
		}
		// Closing the last connection checkpoints the write-ahead log into
		// the file; a log left over would hold part of the schema.
		if fi, err := os.Stat(db + "-wal"); err == nil && fi.Size() > 0 {
			sqliteTpl.err = fmt.Errorf("%s-wal not checkpointed on close", db)
			return
		}
		sqliteTpl.err = os.Rename(db, path)
	})
	return sqliteTpl.path, sqliteTpl.err
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// pgServer is the PostgreSQL server of HUBD_TEST_DATABASE, shared by the
// tests of one process.
type pgServer struct {
	url      string  // HUBD_TEST_DATABASE
	db       string  // its database name
	template string  // the migrated template database
	admin    *sql.DB // connected to url's database: creates and drops
}

var pgTpl struct {
	once sync.Once
	srv  *pgServer
	err  error
}

func postgres(base string) (*pgServer, error) {
	pgTpl.once.Do(func() { pgTpl.srv, pgTpl.err = newPGServer(base) })
	return pgTpl.srv, pgTpl.err
}

// newPGServer finds or builds the template database "<db>_tpl_<digest>":
// built under a private name and renamed when migrated, so concurrent test
// processes never copy a half-migrated template (the loser of a rename race
// drops its own).
func newPGServer(base string) (*pgServer, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, fmt.Errorf("HUBD_TEST_DATABASE %q is not a postgres:// URL", base)
	}
	db := strings.TrimPrefix(u.Path, "/")
	if db == "" {
		return nil, fmt.Errorf("HUBD_TEST_DATABASE names no database (postgres://host/DB)")
	}
	// Identifiers past 63 bytes are cut short by PostgreSQL, which would
	// make two names one.
	if len(db) > 34 {
		return nil, fmt.Errorf("HUBD_TEST_DATABASE database name %q is too long for the names derived from it (at most 34 bytes)", db)
	}
	p := &pgServer{url: base, db: db, template: db + "_tpl" + store.MigrationsDigest()}
	if p.admin, err = sql.Open("pgx", base); err != nil {
		return nil, err
	}
	p.admin.SetMaxOpenConns(4)
	ctx := context.Background()
	var n int
	if err := p.admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM pg_database WHERE datname = $1", p.template).Scan(&n); err != nil {
		return nil, fmt.Errorf("postgres %s: %w", db, err)
	}
	if n > 0 {
		return p, nil
	}
	build := p.template + "_" + randHex(4)
	if _, err := p.admin.ExecContext(ctx, "CREATE DATABASE "+quote(build)); err != nil {
		return nil, fmt.Errorf("create template: %w", err)
	}
	s, err := store.Open(ctx, withDatabase(base, build))
	if err == nil {
		err = s.Close()
	}
	if err == nil {
		err = renameDatabase(ctx, p.admin, build, p.template)
	}
	if err != nil {
		p.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quote(build)+" WITH (FORCE)")
		// Another process may have renamed its build into place first.
		if p.admin.QueryRowContext(ctx, "SELECT COUNT(*) FROM pg_database WHERE datname = $1", p.template).Scan(&n) == nil && n > 0 {
			return p, nil
		}
		return nil, fmt.Errorf("build template %s: %w", p.template, err)
	}
	return p, nil
}

// renameDatabase renames from to to. The closed store's server processes
// exit asynchronously and a rename refuses a database anyone is still
// connected to, so a refusal is retried while they go.
func renameDatabase(ctx context.Context, admin *sql.DB, from, to string) error {
	var err error
	for range 100 {
		if _, err = admin.ExecContext(ctx, "ALTER DATABASE "+quote(from)+" RENAME TO "+quote(to)); err == nil || !strings.Contains(err.Error(), "being accessed by other users") {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
	return err
}

func withDatabase(base, db string) string {
	u, _ := url.Parse(base)
	u.Path = "/" + db
	return u.String()
}

func quote(ident string) string {
	return `"` + strings.ReplaceAll(ident, `"`, `""`) + `"`
}

func randHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(errors.New("storetest: no randomness"))
	}
	return hex.EncodeToString(b)
}

// Empty makes a fresh database with no migrations applied (for tests of a
// migration over earlier data) and returns its address; it is removed when
// t ends.
func Empty(t testing.TB) string {
	t.Helper()
	base := os.Getenv("HUBD_TEST_DATABASE")
	if base == "" {
		return filepath.Join(t.TempDir(), "hubd.db")
	}
	pg, err := postgres(base)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	name := pg.db + "_" + randHex(6)
	if _, err := pg.admin.ExecContext(context.Background(), "CREATE DATABASE "+quote(name)); err != nil {
		t.Fatalf("storetest: create database: %v", err)
	}
	t.Cleanup(func() {
		pg.admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+quote(name)+" WITH (FORCE)")
	})
	return withDatabase(pg.url, name)
}
