package store_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

func TestParseDSN(t *testing.T) {
	for _, tc := range []struct {
		dsn  string
		want store.DSN
		err  string
	}{
		{dsn: "postgres://u:p@h/db?sslmode=disable", want: store.DSN{Postgres: true, URL: "postgres://u:p@h/db?sslmode=disable"}},
		{dsn: "postgresql://h/db", want: store.DSN{Postgres: true, URL: "postgresql://h/db"}},
		{dsn: "sqlite:hubd.db", want: store.DSN{Path: "hubd.db", Synchronous: "FULL"}},
		{dsn: "sqlite:data/x", want: store.DSN{Path: "data/x", Synchronous: "FULL"}},
		{dsn: "sqlite:/var/lib/hubd/hubd.db", want: store.DSN{Path: "/var/lib/hubd/hubd.db", Synchronous: "FULL"}},
		{dsn: "sqlite:///var/lib/hubd/hubd.db", want: store.DSN{Path: "/var/lib/hubd/hubd.db", Synchronous: "FULL"}},
		{dsn: "sqlite:/d/hubd.db?synchronous=normal", want: store.DSN{Path: "/d/hubd.db", Synchronous: "NORMAL"}},
		{dsn: "sqlite:/d/hubd.db?synchronous=FULL", want: store.DSN{Path: "/d/hubd.db", Synchronous: "FULL"}},
		{dsn: "file:/d/hubd.db", want: store.DSN{Path: "/d/hubd.db", Synchronous: "FULL"}},
		{dsn: "./hubd-data/hubd.db", want: store.DSN{Path: "./hubd-data/hubd.db", Synchronous: "FULL"}},
		{dsn: "/abs/no-extension", want: store.DSN{Path: "/abs/no-extension", Synchronous: "FULL"}},
		{dsn: "hubd.db", want: store.DSN{Path: "hubd.db", Synchronous: "FULL"}},
		{dsn: "x.sqlite3", want: store.DSN{Path: "x.sqlite3", Synchronous: "FULL"}},

		{dsn: "", err: "no database"},
		{dsn: "garbage", err: `database "garbage": not a postgres:// URL`},
		{dsn: "mysql://x", err: `database "mysql://x": unsupported`},
		{dsn: "mysql://root:secret@h/db", err: "mysql://root:xxxxx@h/db"},
		{dsn: "redis:6379", err: "unsupported"},
		{dsn: "sqlite:", err: "names no file"},
		{dsn: "sqlite://host/x.db", err: "absolute path"},
		{dsn: "sqlite:/d/x.db?synchronous=off", err: "synchronous must be full or normal"},
		{dsn: "sqlite:/d/x.db?cache=shared", err: `unknown parameter "cache"`},
	} {
		got, err := store.ParseDSN(tc.dsn)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseDSN(%q) = %+v, %v; want error containing %q", tc.dsn, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseDSN(%q) = %+v, %v; want %+v", tc.dsn, got, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("ParseDSN(%q): the error shows the password: %v", tc.dsn, err)
		}
	}
}

// Open refuses what it cannot read, before creating any file, and names the
// database when it cannot open it.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	wd, _ := os.Getwd()
	before, _ := os.ReadDir(wd)
	for _, dsn := range []string{"garbage", "mysql://x"} {
		if s, err := store.Open(ctx, dsn); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", dsn)
		}
	}
	if after, _ := os.ReadDir(wd); len(after) != len(before) {
		t.Errorf("Open of refused addresses created files in %s", wd)
	}
	// A file where the database's directory should be.
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, []byte("x"), 0o644)
	bad := filepath.Join(blocker, "hubd.db")
	if _, err := store.Open(ctx, bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("Open(%q) = %v; want an error naming the path", bad, err)
	}
	// Not a database at all.
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, []byte(strings.Repeat("not sqlite ", 100)), 0o644)
	if _, err := store.Open(ctx, junk); err == nil || !strings.Contains(err.Error(), junk) {
		t.Errorf("Open(%q) = %v; want an error naming the path", junk, err)
	}
}

// FULL is the default; NORMAL is what the URL parameter asks for.
func TestSynchronous(t *testing.T) {
	ctx := context.Background()
	for dsn, want := range map[string]int{
		filepath.Join(t.TempDir(), "a.db"):                                     2,
		"sqlite:" + filepath.Join(t.TempDir(), "b.db"):                         2,
		"sqlite:" + filepath.Join(t.TempDir(), "c.db") + "?synchronous=normal": 1,
	} {
		s, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		n, err := store.Synchronous(ctx, s)
		s.Close()
		if err != nil || n != want {
			t.Errorf("%s: synchronous = %d, %v; want %d", dsn, n, err, want)
		}
	}
}

// TestPathWithURICharacters: a database path holding '#', '?' or '%' (a
// t.TempDir of a subtest named "x#01") opens that very file, so two such
// paths never share a database.
func TestPathWithURICharacters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for i, name := range []string{"x#01/hubd.db", "x#02/hubd.db", "a?b.db", "c%41d.db"} {
		path := filepath.Join(dir, name)
		s, err := store.Open(ctx, path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		err = s.Tx(ctx, func(tx store.Q) error {
			return tx.CreateAccount(ctx, &model.Account{Login: fmt.Sprintf("u%d", i), Type: model.TypeUser})
		})
		s.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: the database is not at its path: %v", name, err)
		}
	}
}

// BenchmarkWriteTx is the cost of durability: one small write transaction
// (an account and its event) per iteration, committed with synchronous FULL
// (the default) and NORMAL.
func BenchmarkWriteTx(b *testing.B) {
	for _, mode := range []string{"full", "normal"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			s, err := store.Open(ctx, "sqlite:"+filepath.Join(b.TempDir(), "hubd.db")+"?synchronous="+mode)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				err := s.Tx(ctx, func(tx store.Q) error {
					u := &model.Account{Login: fmt.Sprintf("u%d", i), Type: model.TypeUser}
					if err := tx.CreateAccount(ctx, u); err != nil {
						return err
					}
					return tx.AppendEvent(ctx, "user.created", u.ID, 0, 0, map[string]any{"login": u.Login})
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
