// Package storetest opens a fresh store for a test: SQLite in a temp dir, or
// a throwaway schema of the PostgreSQL database named by HUBD_TEST_DATABASE.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/store"
)

// Open returns a migrated store that is closed (and dropped) when t ends.
func Open(t testing.TB) *store.Store {
	t.Helper()
	ctx := context.Background()
	dsn := os.Getenv("HUBD_TEST_DATABASE")
	if dsn == "" {
		s, err := store.Open(ctx, filepath.Join(t.TempDir(), "hubd.db"))
		if err != nil {
			t.Fatalf("storetest: open sqlite: %v", err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	b := make([]byte, 8)
	rand.Read(b)
	schema := "t_" + hex.EncodeToString(b)
	// A plain connection creates and drops the schema: opening a store on
	// the shared public schema would migrate it, and test binaries running
	// at the same time would race there.
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatalf("storetest: open postgres: %v", err)
	}
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("storetest: create schema: %v", err)
	}
	s, err := store.Open(ctx, withParam(dsn, "search_path="+schema))
	if err != nil {
		t.Fatalf("storetest: open postgres schema: %v", err)
	}
	t.Cleanup(func() {
		s.Close()
		admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close()
	})
	return s
}

func withParam(dsn, kv string) string {
	if strings.Contains(dsn, "?") {
		return dsn + "&" + kv
	}
	return dsn + "?" + kv
}
