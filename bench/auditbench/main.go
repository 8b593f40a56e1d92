// Command auditbench times audit log searches (internal/audit) over a
// large log: it seeds N entries (200 actors, 50 organizations, 40 actions,
// spread over a year) into a fresh database and times GitHub's phrase
// search with actor: and created: — the enterprise's log and an
// organization's — against a baseline in the same run (one row by primary
// key, the cheapest query the store answers). Median and p90 of -runs.
//
//	go run ./bench/auditbench                     # SQLite in a temp dir, 1,000,000 entries
//	go run ./bench/auditbench -database 'postgres://postgres@127.0.0.1:5432/EMPTYDB?sslmode=disable'
//	go run ./bench/auditbench -n 200000
//
// Goal (issue 29): under 100 ms at 1,000,000 entries.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hubd/hubd/internal/audit"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

func main() {
	n := flag.Int("n", 1_000_000, "entries to seed")
	runs := flag.Int("runs", 50, "timed runs of each search")
	database := flag.String("database", "", "postgres:// URL of an empty database instead of SQLite")
	flag.Parse()
	ctx := context.Background()
	dsn := *database
	if dsn == "" {
		dir, err := os.MkdirTemp("", "auditbench")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
		dsn = filepath.Join(dir, "hubd.db")
	}
	opened := time.Now()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	log.Printf("opened and migrated in %s", time.Since(opened).Round(time.Millisecond))

	start := time.Now()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	step := (365 * 24 * time.Hour) / time.Duration(*n)
	const batch = 5000
	actions := []string{"repo.create", "repo.destroy", "org.add_member", "org.remove_member", "hook.create", "protected_branch.update", "user.login", "oauth_access.create"}
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < *n; i += batch {
		list := make([]model.AuditEntry, 0, batch)
		for j := i; j < min(i+batch, *n); j++ {
			a := rnd.IntN(200)
			actor := fmt.Sprintf("user%d", a)
			org := rnd.IntN(50)
			list = append(list, model.AuditEntry{
				Action: actions[rnd.IntN(len(actions))], ActorID: int64(a + 1), Actor: actor,
				OrgID: int64(org + 1000), Org: fmt.Sprintf("org%d", org), RepoID: int64(j % 5000), Repo: fmt.Sprintf("org%d/r%d", org, j%100),
				Data: []byte(`{"n":1}`), CreatedAt: base.Add(time.Duration(j) * step),
			})
		}
		if err := st.Tx(ctx, func(tx store.Q) error { return tx.InsertAuditEntries(ctx, list) }); err != nil {
			log.Fatal(err)
		}
	}
	log.Printf("seeded %d entries in %s", *n, time.Since(start).Round(time.Millisecond))
	if err := st.Tx(ctx, func(tx store.Q) error { return tx.AnalyzeAudit(ctx) }); err != nil {
		log.Fatal(err)
	}

	svc := audit.New(st)
	search := func(orgID int64, phrase string) func() int {
		return func() int {
			q := model.AuditQuery{OrgID: orgID, Limit: 30}
			if err := audit.ParsePhrase(phrase, &q); err != nil {
				log.Fatal(err)
			}
			p, err := svc.Search(ctx, q)
			if err != nil {
				log.Fatal(err)
			}
			return len(p.Entries)
		}
	}
	baseline := func() int {
		list, err := st.R().AuditEntriesAfter(ctx, int64(*n/2), 1)
		if err != nil {
			log.Fatal(err)
		}
		return len(list)
	}
	cases := []struct {
		name string
		f    func() int
	}{
		{"baseline: one entry by id", baseline},
		{"enterprise actor:user42 created:2026-03-01..2026-03-31", search(0, "actor:user42 created:2026-03-01..2026-03-31")},
		{"enterprise actor:user42 created:>=2026-06-01", search(0, "actor:user42 created:>=2026-06-01")},
		{"enterprise actor:user42 created:<2026-02-01 action:repo.create", search(0, "actor:user42 created:<2026-02-01 action:repo.create")},
		{"enterprise actor:nobody created:2026-05-05", search(0, "actor:nobody created:2026-05-05")},
		{"org1007 actor:user42 created:2026-03-01..2026-03-31", search(1007, "actor:user42 created:2026-03-01..2026-03-31")},
		{"org1007 (no phrase)", search(1007, "")},
	}
	var baseMed time.Duration
	for _, c := range cases {
		c.f() // warm
		var ds []time.Duration
		got := 0
		for range *runs {
			t := time.Now()
			got = c.f()
			ds = append(ds, time.Since(t))
		}
		slices.Sort(ds)
		med, p90 := ds[len(ds)/2], ds[len(ds)*9/10]
		if baseMed == 0 {
			baseMed = med
		}
		fmt.Printf("%-62s %3d rows  median %8s  p90 %8s  %6.1fx baseline\n", c.name, got, med.Round(time.Microsecond), p90.Round(time.Microsecond), float64(med)/float64(baseMed))
	}
}
