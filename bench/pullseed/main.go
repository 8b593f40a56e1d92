// Command pullseed fills a repository that already has git content (a base
// branch and a few pushed head branches) with pull requests straight
// through the store, for the pull requests benchmark (bench/pulls.sh): see
// pullbench.SeedPulls for what the rows and refs look like.
//
//	pullseed -data DIR -repo acme/big -base main -n 10000
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/hubd/hubd/bench/pullbench"
	"github.com/hubd/hubd/bench/seedrepo"
	"github.com/hubd/hubd/internal/gitrepo"
)

func main() {
	data := flag.String("data", "./hubd-data", "hubd's data directory (SQLite and git)")
	database := flag.String("database", os.Getenv("HUBD_DATABASE"), "postgres:// URL instead of SQLite")
	repoName := flag.String("repo", "acme/big", "OWNER/NAME of an existing repository with pushed branches")
	baseRef := flag.String("base", "main", "base branch of every pull request")
	n := flag.Int("n", 10000, "pull requests to create")
	batch := flag.Int("batch", 5000, "pull requests per transaction")
	flag.Parse()
	ctx := context.Background()
	st, v := seedrepo.Open(ctx, *data, *database, *repoName)
	defer st.Close()
	mgr, err := gitrepo.New(filepath.Join(*data, "git"))
	if err != nil {
		log.Fatal(err)
	}
	defer mgr.Close()
	start := time.Now()
	heads, err := pullbench.SeedPulls(ctx, st, v.Repo, mgr.Path(v.Repo.ID), *baseRef, *n, *batch)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("seeded %d pull requests into %s from %d head commits in %s\n", *n, v.Repo.FullName(), heads, time.Since(start).Round(time.Millisecond))
}
