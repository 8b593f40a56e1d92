// Command permseed fills a hubd database with an organization whose
// repositories are reached through teams, for the permission benchmark
// (bench/perms.sh): see permbench.Seed for the rows. It prints a classic
// token (repo, read:org, user) of each bench user:
//
//	permseed -data DIR
//	token-teamster: ghp_...
//	token-deep: ghp_...
//	token-owner: ghp_...
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/hubd/hubd/bench/permbench"
	"github.com/hubd/hubd/internal/store"
)

func main() {
	o := permbench.Defaults
	data := flag.String("data", "./hubd-data", "hubd's data directory (SQLite)")
	database := flag.String("database", os.Getenv("HUBD_DATABASE"), "postgres:// URL instead of SQLite")
	flag.IntVar(&o.Teams, "teams", o.Teams, "teams teamster is a member of (a multiple of 5)")
	flag.IntVar(&o.Repos, "repos", o.Repos, "acme repositories teamster reaches through teams (even)")
	flag.IntVar(&o.Hidden, "hidden", o.Hidden, "acme repositories teamster does not reach")
	flag.IntVar(&o.Nested, "nested", o.Nested, "repositories granted to gg, which deep reaches through gp and gc")
	flag.IntVar(&o.Others, "others", o.Others, "other teams of acme, granted on hidden repositories")
	flag.IntVar(&o.Members, "members", o.Members, "other members of acme, each in 5 teams")
	flag.IntVar(&o.Noise, "noise", o.Noise, "repositories of 20 other organizations")
	flag.IntVar(&o.Users, "users", o.Users, "other users, in no organization")
	flag.IntVar(&o.Issues, "issues", o.Issues, "open issues in each acme repository")
	flag.Parse()
	ctx := context.Background()
	dsn := *database
	if dsn == "" {
		dsn = filepath.Join(*data, "hubd.db")
	}
	st, err := store.Open(ctx, dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	s, err := permbench.Seed(ctx, st, o)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("seeded acme: %d teams for teamster, %d reachable and %d hidden repositories, %d grants, %d noise repositories, %d more users in %s",
		o.Teams, o.Repos, o.Hidden, s.Grants, o.Noise, o.Users, time.Since(start).Round(time.Millisecond))
	fmt.Printf("token-teamster: %s\ntoken-deep: %s\ntoken-owner: %s\n", s.TeamsterTok, s.DeepTok, s.OwnerTok)
}
