// Package seedrepo opens what the bench seed programs (issueseed,
// pullseed, runseed) fill: hubd's store in a data directory (or the
// database given) and an existing repository in it.
package seedrepo

import (
	"context"
	"log"
	"path/filepath"
	"strings"

	"github.com/hubd/hubd/internal/store"
)

// Open opens the store of data (SQLite in data/hubd.db unless database
// names another) and finds the repository OWNER/NAME; it exits the
// program on failure, as the seed programs do.
func Open(ctx context.Context, data, database, repoName string) (*store.Store, *store.RepoView) {
	dsn := database
	if dsn == "" {
		dsn = filepath.Join(data, "hubd.db")
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		log.Fatal(err)
	}
	owner, name, _ := strings.Cut(repoName, "/")
	v, err := st.R().RepoByName(ctx, owner, name, 0)
	if err != nil {
		st.Close()
		log.Fatalf("repository %s: %v", repoName, err)
	}
	return st, v
}
