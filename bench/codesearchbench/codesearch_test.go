// Package codesearchbench holds the code search benchmarks, run by
// bench/codesearch.sh:
//
//   - BenchmarkSearchCode: GET /search/code (in-process, middleware
//     included) over REPOS repositories of FILES files each (default 2,000
//     x 500, owned by 100 accounts), indexed by the index job itself
//     (repositories share a template commit's objects; see seedIndex); it
//     reports the median and p95 latency of each query shape users send:
//     a plain word, one file in the whole index, no hit, repo:, user:,
//     path:, language:, extension:, filename:, and several combined.
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
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
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

// owners is how many accounts own the benchmark's repositories (REPOS/owners each).
const owners = 100

// seedIndex makes repos repositories of files files each. The
// repositories share one template commit's objects (git alternates), and
// each adds a commit of its own on top: a README naming it, and in the
// middle repository a file holding a word found nowhere else. The first
// repository is indexed whole by the index job (codeindex.Indexer.Index:
// ls-tree, blob reads, batched index writes); each other one starts from
// a copy of the template's rows in SQL (as though the index job had
// indexed the template commit there), and the index job then indexes its
// own commit as it indexes a push (a diff, the changed blobs). A full
// index job per repository made 2,000 repositories a 15-minute seed.
func seedIndex(b *testing.B, e *apitest.Env, repos, files int) {
	tmpl, err := e.Deps.Git.Init(ctx, 0, "main")
	if err != nil {
		b.Fatal(err)
	}
	var in bytes.Buffer
	in.WriteString("commit refs/heads/main\ncommitter Mona <mona@example.com> 1700000000 +0000\ndata 8\ntemplate\n")
	for f := 0; f < files; f++ {
		c := file(1, f)
		fmt.Fprintf(&in, "M 100644 inline pkg%d/handler%d.go\ndata %d\n%s\n", f%20, f, len(c), c)
	}
	fastImport(b, tmpl.Path, &in)
	base, err := tmpl.ResolveRef(ctx, "refs/heads/main")
	if err != nil {
		b.Fatal(err)
	}
	accounts := make([]*model.Account, owners)
	for i := range accounts {
		accounts[i] = &model.Account{Login: fmt.Sprintf("owner%d", i), Type: model.TypeUser}
		if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateAccount(ctx, accounts[i]) }); err != nil {
			b.Fatal(err)
		}
	}
	x := codeindex.New(e.Store, e.Deps.Git, nil)
	start := time.Now()
	var gitTime, indexTime time.Duration
	var first int64 // the repository the template's rows are copied from
	for r := 0; r < repos; r++ {
		owner := accounts[r%owners]
		repo := &model.Repo{OwnerID: owner.ID, Owner: owner, Name: fmt.Sprintf("repo%d", r), Visibility: model.Public}
		if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateRepo(ctx, repo) }); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		g, err := e.Deps.Git.Init(ctx, repo.ID, "main")
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(g.Path, "objects", "info", "alternates"), []byte(filepath.Join(tmpl.Path, "objects")+"\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		var own bytes.Buffer
		readme := fmt.Sprintf("# repo%d\n\nThe module of repository %d.\n", r, r)
		fmt.Fprintf(&own, "commit refs/heads/main\ncommitter Mona <mona@example.com> %d +0000\ndata 6\nreadme\nfrom %s\n", 1700000001+r, base)
		fmt.Fprintf(&own, "M 100644 inline README.md\ndata %d\n%s\n", len(readme), readme)
		if r == repos/2 {
			marker := "// zanzibarquux marks one file of the whole index.\n"
			fmt.Fprintf(&own, "M 100644 inline marker.go\ndata %d\n%s\n", len(marker), marker)
		}
		fastImport(b, g.Path, &own)
		t1 := time.Now()
		if r > 0 {
			copyTemplate(b, e, first, repo.ID, base)
		} else {
			first = repo.ID
		}
		if err := x.Index(ctx, repo.ID); err != nil {
			b.Fatal(err)
		}
		if r == 0 {
			b.Logf("index job, first index of %d files: %s", files+1, time.Since(t1).Round(time.Millisecond))
		}
		gitTime, indexTime = gitTime+t1.Sub(t0), indexTime+time.Since(t1)
		if (r+1)%200 == 0 {
			b.Logf("seeded %d repositories in %s (git %s, index job %s)", r+1, time.Since(start).Round(time.Second),
				gitTime.Round(time.Second), indexTime.Round(time.Second))
		}
	}
	b.Logf("seeded %d repositories, %d files in %s: index %.1f repositories/s", repos, repos*(files+1)+1,
		time.Since(start).Round(time.Second), float64(repos)/indexTime.Seconds())
	// PostgreSQL plans from statistics: ANALYZE, as autovacuum would
	// within a minute of such a bulk load (without them its planner reads
	// every repository's files in a search for a word: seconds).
	if e.Store.Postgres() {
		if err := e.Store.ExecRaw(ctx, "ANALYZE"); err != nil {
			b.Fatal(err)
		}
	}
}

// copyTemplate gives repository id the index of the template commit base
// that repository from holds: its files (not its own README.md and
// marker.go) and the commit, and base as the commit indexed.
func copyTemplate(b *testing.B, e *apitest.Env, from, id int64, base string) {
	for _, stmt := range []string{
		fmt.Sprintf(`INSERT INTO code_files (repo_id, path, name, extension, language, sha, size, content)
 SELECT %d, path, name, extension, language, sha, size, content FROM code_files
 WHERE repo_id = %d AND path NOT IN ('README.md', 'marker.go') ORDER BY id`, id, from),
		fmt.Sprintf(`INSERT INTO code_commits (repo_id, sha, tree_sha, parents, parent_count, message, author_name, author_email,
 author_date, author_tz, committer_name, committer_email, committer_date, committer_tz, author_id, committer_id)
 SELECT %d, sha, tree_sha, parents, parent_count, message, author_name, author_email, author_date, author_tz,
 committer_name, committer_email, committer_date, committer_tz, author_id, committer_id FROM code_commits
 WHERE repo_id = %d AND sha = '%s'`, id, from, base),
		fmt.Sprintf(`INSERT INTO code_index (repo_id, branch, commit_sha, indexed_at) VALUES (%d, 'main', '%s', 1700000000)`, id, base),
	} {
		if strings.HasPrefix(stmt, "INSERT INTO code_index") && e.Store.Postgres() {
			// PostgreSQL's trigram counts of the copied files, as the
			// index job keeps them (store.ApplyCodeIndex).
			if err := e.Store.ExecRaw(ctx, fmt.Sprintf(`INSERT INTO code_trigrams (trigram, repo_id, files)
 SELECT t.t, %d, COUNT(*) FROM code_files f,
 LATERAL (SELECT DISTINCT x FROM unnest(public.show_trgm(f.content) || public.show_trgm(f.path)) x) t(t)
 WHERE f.repo_id = %d GROUP BY t.t`, id, id)); err != nil {
				b.Fatal(err)
			}
		}
		if err := e.Store.ExecRaw(ctx, stmt); err != nil {
			b.Fatal(err)
		}
	}
}

func fastImport(b *testing.B, dir string, in *bytes.Buffer) {
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir, cmd.Stdin = dir, in
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v %s", err, out)
	}
}

// owned is how many of repos repositories owner i owns.
func owned(repos, i int) int {
	n := 0
	for r := i; r < repos; r += owners {
		n++
	}
	return n
}

func BenchmarkSearchCode(b *testing.B) {
	repos, files := envInt("REPOS", 2000), envInt("FILES", 500)
	l := ratelimit.DefaultLimits()
	l.Authenticated, l.Search = 1_000_000_000, 1_000_000_000
	e := apitest.New(b, apitest.Options{NoVerify: true, ManualJobs: true, Limits: &l})
	_, tok := e.NewUser("mona", false)
	seedIndex(b, e, repos, files)
	perRepo := 0 // the files holding Handler42( (handler42.go: Handler420( and the like do not)
	for f := 0; f < files; f++ {
		if strings.Contains(fmt.Sprintf("Handler%d(", f), "Handler42(") {
			perRepo++
		}
	}
	all := min(repos*perRepo, store.SearchCountCap)
	mid, quarter := repos/2, repos/4
	queries := []struct {
		name, q string
		total   int
	}{
		{"plain", "Handler42(", all},
		{"one-file", "zanzibarquux", 1},
		{"no-hit", "quxzanzibar", 0},
		{"repo", fmt.Sprintf("Handler42( repo:owner%d/repo%d", quarter%owners, quarter), perRepo},
		{"repo-readme", fmt.Sprintf(`"repository %d." repo:owner%d/repo%d`, mid, mid%owners, mid), 1},
		{"user", "Handler42( user:owner7", min(perRepo*owned(repos, 7), store.SearchCountCap)},
		{"path", "Handler42( path:pkg2", min(repos, store.SearchCountCap)},
		{"language", "zanzibarquux language:go", 1},
		{"extension", "module extension:md", min(repos, store.SearchCountCap)},
		{"filename", fmt.Sprintf("filename:handler%d.go", files/3), min(repos, store.SearchCountCap)},
		{"combined", fmt.Sprintf("Handler42( repo:owner%d/repo%d language:go path:pkg2 extension:go", quarter%owners, quarter), 1},
	}
	for _, qq := range queries {
		b.Run(qq.name, func(b *testing.B) {
			// On PostgreSQL every other search finds its words without the
			// index job's trigram counts (all of a word's trigrams), as
			// before they were kept: both on one index, under one load.
			alternate := e.Store.Postgres()
			var times, before []time.Duration
			cpu0 := cpuTime(b)
			for i := 0; i < b.N; i++ {
				if alternate {
					store.NoCodeTrigramCounts = i%2 == 1
				}
				t0 := time.Now()
				r := httptest.NewRequest("GET", "/api/v3/search/code?q="+url.QueryEscape(qq.q), nil)
				r.Header.Set("Authorization", "token "+tok)
				w := httptest.NewRecorder()
				e.Server.ServeHTTP(w, r)
				if store.NoCodeTrigramCounts {
					before = append(before, time.Since(t0))
				} else {
					times = append(times, time.Since(t0))
				}
				if w.Code != 200 || !bytes.Contains(w.Body.Bytes(), []byte(fmt.Sprintf(`"total_count":%d,`, qq.total))) {
					b.Fatalf("%s: want %d: %d %.300s", qq.q, qq.total, w.Code, w.Body.String())
				}
			}
			// The process's CPU time per search (hubd's side: SQLite runs in
			// process, PostgreSQL's work is not counted): on a machine
			// shared with other work the latencies include waits for a CPU.
			b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			store.NoCodeTrigramCounts = false
			report := func(times []time.Duration, prefix string) {
				if len(times) == 0 {
					return
				}
				sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
				b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, prefix+"median-ms")
				b.ReportMetric(float64(times[len(times)*95/100].Microseconds())/1000, prefix+"p95-ms")
			}
			report(times, "")
			report(before, "nocounts-")
		})
	}
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
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
	first := time.Now()
	if err := x.Index(ctx, repo.ID); err != nil { // the first push: 500 files
		b.Fatal(err)
	}
	firstPush := time.Since(first)
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
	b.ReportMetric(float64(firstPush.Microseconds())/1000, "first-push-ms")
	nf, nc, err := e.Store.R().CodeIndexSize(ctx, repo.ID)
	if err != nil || nf != files || nc != b.N+1 {
		b.Fatalf("index: %d files, %d commits (%v), want %d and %d", nf, nc, err, files, b.N+1)
	}
}
