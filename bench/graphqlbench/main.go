// Command graphqlbench serves GraphQL requests in-process (the whole
// middleware chain, no network) on a data directory bench/graphql.sh
// seeded, after the server stopped, and reports per request: the SQL
// queries it runs (store.Store.Reads() before and after, on a warm server,
// as the requests wrk measures are, and cold, right after a commit emptied
// the read cache), the time it takes on one goroutine (wall and CPU), its
// allocations and the response size. With -cpuprofile each request is also run in a loop for
// -profiletime under the CPU profiler, one profile per request
// (FILE.NAME), for go tool pprof.
//
//	graphqlbench -data DIR -token TOKEN [-cpuprofile cpu.out] NAME=BODY.json... GET:NAME=/api/v3/PATH...
//
// A NAME=FILE argument POSTs FILE (a JSON GraphQL request) to /api/graphql;
// GET:NAME=PATH gets a REST path, for comparison.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/server"
	"github.com/hubd/hubd/internal/store"
)

type request struct {
	name, method, path string
	body               []byte
}

func main() {
	data := flag.String("data", "./hubd-data", "hubd's data directory (SQLite)")
	database := flag.String("database", os.Getenv("HUBD_DATABASE"), "postgres:// URL instead of SQLite")
	token := flag.String("token", "", "token of the user the requests are made as")
	n := flag.Int("n", 200, "timed requests per query")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of each request to FILE.NAME")
	profileTime := flag.Duration("profiletime", 5*time.Second, "how long each request runs under the profiler")
	memprofile := flag.String("memprofile", "", "write an allocation profile of each request's timed runs to FILE.NAME")
	flag.Parse()
	if *token == "" {
		log.Fatal("-token is required")
	}
	var reqs []request
	for _, arg := range flag.Args() {
		name, val, ok := strings.Cut(arg, "=")
		if !ok {
			log.Fatalf("argument %q is not NAME=FILE or GET:NAME=PATH", arg)
		}
		if rest, ok := strings.CutPrefix(name, "GET:"); ok {
			reqs = append(reqs, request{name: rest, method: "GET", path: val})
			continue
		}
		b, err := os.ReadFile(val)
		if err != nil {
			log.Fatal(err)
		}
		reqs = append(reqs, request{name: name, method: "POST", path: "/api/graphql", body: b})
	}

	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400) // as hubd serve runs
	}
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
	limits := ratelimit.DefaultLimits()
	limits.Authenticated = 1 << 30
	srv, deps, err := server.Build(server.Config{Store: st, ExternalURL: "http://127.0.0.1:18480", Limits: limits,
		TokenTTL: 5 * time.Second, GitRoot: filepath.Join(*data, "git")})
	if err != nil {
		log.Fatal(err)
	}
	defer deps.Git.Close()

	serve := func(q request) (int, []byte) {
		r := httptest.NewRequest(q.method, q.path, bytes.NewReader(q.body))
		r.Header.Set("Authorization", "token "+*token)
		if q.body != nil {
			r.Header.Set("Content-Type", "application/json")
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		return w.Code, w.Body.Bytes()
	}
	check := func(q request) []byte {
		code, body := serve(q)
		if code != http.StatusOK {
			log.Fatalf("%s: %d %s", q.name, code, body)
		}
		if q.method == "POST" {
			var resp struct {
				Data   json.RawMessage
				Errors []json.RawMessage
			}
			if err := json.Unmarshal(body, &resp); err != nil || len(resp.Errors) > 0 || len(resp.Data) == 0 || string(resp.Data) == "null" {
				log.Fatalf("%s: not a clean answer: %.500s", q.name, body)
			}
		}
		return body
	}

	// ms/request is wall time on one goroutine; cpu ms/request adds the
	// garbage collector's work on other threads and is steadier on a
	// shared machine.
	fmt.Printf("%-22s %7s %7s %11s %11s %10s %8s %8s\n", "request (in-process)", "queries", "(cold)", "ms/request", "cpu ms/req", "bytes", "allocs", "KiB")
	for _, q := range reqs {
		check(q) // warm: token cache, prepared statements, read cache
		check(q)
		before := st.Reads()
		body := check(q)
		queries := st.Reads() - before
		// Cold: after a commit, which empties the read cache (the token
		// cache of the middleware stays warm).
		if err := st.Tx(ctx, func(store.Q) error { return nil }); err != nil {
			log.Fatal(err)
		}
		before = st.Reads()
		check(q)
		cold := st.Reads() - before
		check(q)
		if *memprofile != "" {
			runtime.MemProfileRate = 512
			runtime.GC()
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		cpu0 := cpuTime()
		start := time.Now()
		for i := 0; i < *n; i++ {
			// Timed: the server's work alone (the answer was checked above).
			if code, _ := serve(q); code != http.StatusOK {
				log.Fatalf("%s: %d", q.name, code)
			}
		}
		ms := float64(time.Since(start).Microseconds()) / 1000 / float64(*n)
		cpuMS := float64((cpuTime() - cpu0).Microseconds()) / 1000 / float64(*n)
		runtime.ReadMemStats(&m1)
		allocs := (m1.Mallocs - m0.Mallocs) / uint64(*n)
		kb := float64(m1.TotalAlloc-m0.TotalAlloc) / 1024 / float64(*n)
		fmt.Printf("%-22s %7d %7d %11.3f %11.3f %10d %8d %8.1f\n", q.name, queries, cold, ms, cpuMS, len(body), allocs, kb)
		if *memprofile != "" {
			runtime.GC()
			f, err := os.Create(*memprofile + "." + q.name)
			if err != nil {
				log.Fatal(err)
			}
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				log.Fatal(err)
			}
			f.Close()
			runtime.MemProfileRate = 0
			runtime.GC()
		}
	}

	if *cpuprofile != "" {
		for _, q := range reqs {
			f, err := os.Create(*cpuprofile + "." + q.name)
			if err != nil {
				log.Fatal(err)
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				log.Fatal(err)
			}
			runs := 0
			for start := time.Now(); time.Since(start) < *profileTime; runs++ {
				serve(q)
			}
			pprof.StopCPUProfile()
			f.Close()
			fmt.Printf("profile of %s (%d requests): %s\n", q.name, runs, f.Name())
		}
	}
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
