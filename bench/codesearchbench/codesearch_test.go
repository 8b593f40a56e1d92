// Package codesearchbench holds the code search benchmarks, run by
// bench/codesearch.sh:
//
//   - BenchmarkSearchCode: GET /search/code (in-process, middleware
//     included) over REPOS repositories of FILES files each (default 2,000
//     x 500), the index seeded straight through the store; it reports the
//     median and p95 latency of a selective query (one file in the whole
//     index) and of a query matching one file per repository.
//   - BenchmarkIndexPush: the index job after a push that changes one file
//     of a 500-file repository (real git objects, a real diff), reported
//     as pushes indexed per second.
package codesearchbench

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/codeindex"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// file is the content of file f of repository r: a small Go source file,
// the same template everywhere with identifiers that vary.
func file(r, f int) string {
	return fmt.Sprintf(`package pkg%[2]d

import "fmt"

// Handler%[2]d serves requests of module %[1]d.
func Handler%[2]d(name string) string {
	total := 0
	for i := 0; i < %[2]d; i++ {
		total += i
	}
	return fmt.Sprintf("repo%[1]d file%[2]d %%s %%d", name, total)
}
`, r, f)
}

func BenchmarkSearchCode(b *testing.B) {
	repos, files := envInt("REPOS", 2000), envInt("FILES", 500)
	l := ratelimit.DefaultLimits()
	l.Authenticated, l.Search = 1_000_000_000, 1_000_000_000
	e := apitest.New(b, apitest.Options{NoVerify: true, ManualJobs: true, Limits: &l})
	mona, tok := e.NewUser("mona", false)
	start := time.Now()
	for r := 0; r < repos; r++ {
		err := e.Store.Tx(ctx, func(tx store.Q) error {
			repo := &model.Repo{OwnerID: mona.ID, Owner: mona, Name: fmt.Sprintf("repo%d", r), Visibility: model.Public}
			if err := tx.CreateRepo(ctx, repo); err != nil {
				return err
			}
			u := store.CodeIndexUpdate{RepoID: repo.ID, Branch: "main", Commit: fmt.Sprintf("%040x", r+1)}
			for f := 0; f < files; f++ {
				content := file(r, f)
				if r == repos/2 && f == files/2 {
					content += "// zanzibarquux marks one file of the whole index.\n"
				}
				u.Files = append(u.Files, store.CodeFile{RepoID: repo.ID, Path: fmt.Sprintf("pkg%d/handler%d.go", f%20, f),
					Name: fmt.Sprintf("handler%d.go", f), Extension: "go", Language: "Go", SHA: fmt.Sprintf("%040x", r*files+f),
					Size: int64(len(content)), Content: content})
			}
			return tx.ApplyCodeIndex(ctx, u)
		})
		if err != nil {
			b.Fatal(err)
		}
		if (r+1)%200 == 0 {
			b.Logf("seeded %d repositories (%d files) in %s", r+1, (r+1)*files, time.Since(start).Round(time.Second))
		}
	}
	b.Logf("seeded %d files in %s", repos*files, time.Since(start).Round(time.Second))
	queries := []struct{ name, q string }{
		{"one-file", "zanzibarquux"},
		{"one-repo", fmt.Sprintf(`"repo%d file7 %%s"`, repos/3)},
		{"scoped", fmt.Sprintf("Handler42( repo:mona/repo%d", repos/4)},
	}
	for _, qq := range queries {
		b.Run(qq.name, func(b *testing.B) {
			var times []time.Duration
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				r := httptest.NewRequest("GET", "/api/v3/search/code?q="+url.QueryEscape(qq.q), nil)
				r.Header.Set("Authorization", "token "+tok)
				w := httptest.NewRecorder()
				e.Server.ServeHTTP(w, r)
				times = append(times, time.Since(t0))
				if w.Code != 200 || !bytes.Contains(w.Body.Bytes(), []byte(`"total_count":1,`)) {
					b.Fatalf("%s: %d %.300s", qq.q, w.Code, w.Body.String())
				}
			}
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
			b.ReportMetric(float64(times[len(times)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}

// BenchmarkIndexPush indexes, one push at a time, commits that each change
// one file of a 500-file repository: the ref moves as a push moves it
// (untimed), then the index job runs (diff old..new, read the changed
// blob, write the file and the commit in one transaction).
func BenchmarkIndexPush(b *testing.B) {
	files := envInt("FILES", 500)
	e := apitest.New(b, apitest.Options{NoVerify: true, ManualJobs: true})
	mona, _ := e.NewUser("mona", false)
	repo := &model.Repo{OwnerID: mona.ID, Owner: mona, Name: "pushed", Visibility: model.Public}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateRepo(ctx, repo) }); err != nil {
		b.Fatal(err)
	}
	g, err := e.Deps.Git.Init(ctx, repo.ID, "main")
	if err != nil {
		b.Fatal(err)
	}
	// One fast-import stream: the 500-file first commit, then b.N commits
	// changing one file each.
	var in bytes.Buffer
	in.WriteString("commit refs/heads/main\nmark :1\ncommitter Mona <mona@example.com> 1700000000 +0000\ndata 7\ninitial\n")
	for f := 0; f < files; f++ {
		c := file(1, f)
		fmt.Fprintf(&in, "M 100644 inline pkg%d/handler%d.go\ndata %d\n%s\n", f%20, f, len(c), c)
	}
	for i := 0; i < b.N; i++ {
		c := file(2, i) + fmt.Sprintf("// change %d\n", i)
		msg := fmt.Sprintf("change %d", i)
		fmt.Fprintf(&in, "commit refs/heads/c%d\nmark :%d\ncommitter Mona <mona@example.com> %d +0000\ndata %d\n%s\nfrom :%d\n",
			i, i+2, 1700000001+i, len(msg), msg, i+1)
		fmt.Fprintf(&in, "M 100644 inline pkg%d/handler%d.go\ndata %d\n%s\n", i%20, i%files, len(c), c)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Stdin = g.Path, &in
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v %s", err, out)
	}
	x := codeindex.New(e.Store, e.Deps.Git, nil)
	if err := x.Index(ctx, repo.ID); err != nil { // the first push: 500 files
		b.Fatal(err)
	}
	heads := make([]string, b.N)
	for i := range heads {
		if heads[i], err = g.ResolveRef(ctx, fmt.Sprintf("refs/heads/c%d", i)); err != nil {
			b.Fatal(err)
		}
	}
	old, _ := g.ResolveRef(ctx, "refs/heads/main")
	// Only the index job is timed: the ref moves stand for receive-pack's.
	b.ResetTimer()
	var spent time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if err := g.UpdateRef(ctx, "refs/heads/main", heads[i], old); err != nil {
			b.Fatal(err)
		}
		old = heads[i]
		b.StartTimer()
		t0 := time.Now()
		if err := x.Index(ctx, repo.ID); err != nil {
			b.Fatal(err)
		}
		spent += time.Since(t0)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/spent.Seconds(), "pushes/s")
	nf, nc, err := e.Store.R().CodeIndexSize(ctx, repo.ID)
	if err != nil || nf != files || nc != b.N+1 {
		b.Fatalf("index: %d files, %d commits (%v), want %d and %d", nf, nc, err, files, b.N+1)
	}
}
