package pullbench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/pulls"
)

// The pull request benchmarks, run by bench/pulls.sh. Each reports ms/op
// and, where a bare equivalent makes sense, x-bare: hubd's time per
// operation over the time of the bare git commands doing the same work on
// the same commits in the same run (the machine is noisy: compare ratios).

var ctx = context.Background()

// bench is one benchmark's hubd with one repository of mona's.
type bench struct {
	e     *apitest.Env
	token string
	repo  *model.Repo
	dir   string // the repository's git directory
}

func newBench(b *testing.B, name string) *bench {
	b.Helper()
	e := apitest.New(b, apitest.Options{NoVerify: true, ManualJobs: true})
	_, tok := e.NewUser("mona", false)
	x := &bench{e: e, token: tok}
	x.must(b, 201, "POST", "/user/repos", map[string]any{"name": name})
	v, err := e.Store.R().RepoByName(ctx, "mona", name, 0)
	if err != nil {
		b.Fatal(err)
	}
	x.repo = v.Repo
	if _, err := e.Deps.Git.Init(ctx, x.repo.ID, "main"); err != nil {
		b.Fatal(err)
	}
	x.dir = e.Deps.Git.Path(x.repo.ID)
	return x
}

// must serves one API request in-process (middleware included, no
// network) and fails unless it answers want.
func (x *bench) must(b *testing.B, want int, method, path string, body any) []byte {
	var rd *bytes.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	} else {
		rd = bytes.NewReader(nil)
	}
	r := httptest.NewRequest(method, "/api/v3"+path, rd)
	r.Header.Set("Authorization", "token "+x.token)
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	x.e.Server.ServeHTTP(w, r)
	if w.Code != want {
		b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body.String())
	}
	return w.Body.Bytes()
}

func (x *bench) git(b *testing.B, stdin []byte, args ...string) string {
	out, err := Git(x.dir, stdin, args...)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// open opens a pull request from head into main and returns its number.
func (x *bench) open(b *testing.B, head string) int64 {
	var p struct{ Number int64 }
	json.Unmarshal(x.must(b, 201, "POST", "/repos/mona/"+x.repo.Name+"/pulls",
		map[string]any{"title": "Change " + head, "body": "Please merge.", "head": head, "base": "main"}), &p)
	return p.Number
}

// perOp records the time per operation of the benchmark that just ran
// (the last call of a benchmark function has the final b.N) and reports
// it in ms, with its ratio to each baseline measured before it (unit
// "x-" + the baseline's name).
func perOp(b *testing.B, bases ...baseline) float64 {
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(ns/1e6, "ms/op")
	for _, x := range bases {
		if x.ns > 0 {
			b.ReportMetric(ns/x.ns, "x-"+x.name)
		}
	}
	return ns
}

// baseline is a bare measurement's time per operation.
type baseline struct {
	name string
	ns   float64
}

// gitEnv runs git in dir with extra environment.
func (x *bench) gitEnv(b *testing.B, env []string, stdin []byte, args ...string) string {
	cmd := exec.Command("git", append([]string{"-C", x.dir}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// commit writes one commit of a fast-import stream: files maps path to
// content ("" deletes nothing: every entry is written).
func commit(w *bytes.Buffer, ref, from string, when int, msg string, files map[string]string) {
	fmt.Fprintf(w, "commit %s\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s\n", ref, 1_700_000_000+when, len(msg), msg)
	if from != "" {
		fmt.Fprintf(w, "from %s\n", from)
	}
	for path, content := range files {
		fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n%s\n", path, len(content), content)
	}
	w.WriteString("\n")
}

// text is a small source file's content, version v.
func text(path string, v int) string {
	var s strings.Builder
	for l := 1; l <= 20; l++ {
		fmt.Fprintf(&s, "%s line %d\n", path, l)
	}
	fmt.Fprintf(&s, "version %d\n", v)
	return s.String()
}

// BenchmarkMergeability1000Files: the background check of a pull request
// whose one head commit changes 1,000 files (in 20 directories) while the
// base changed another file: `git merge-tree`, the test merge commit and
// refs/pull/N/merge, the rebase check (the head replayed onto the base)
// and the mergeable state. Target: under 200 ms.
func BenchmarkMergeability1000Files(b *testing.B) {
	x := newBench(b, "wide")
	var s bytes.Buffer
	files := map[string]string{"README.md": "# wide\n"}
	for i := 0; i < 1000; i++ {
		p := fmt.Sprintf("dir%02d/file%04d.txt", i%20, i)
		files[p] = text(p, 1)
	}
	commit(&s, "refs/heads/main", "", 1, "initial", files)
	base := map[string]string{"README.md": "# wide\n\nA repository with 1,000 files.\n"}
	head := map[string]string{}
	for p := range files {
		if p != "README.md" {
			head[p] = text(p, 2)
		}
	}
	commit(&s, "refs/heads/feature", "refs/heads/main", 2, "change every file", head)
	commit(&s, "refs/heads/main", "", 3, "readme", base)
	x.git(b, s.Bytes(), "fast-import", "--quiet")
	n := x.open(b, "feature")
	svc := pulls.New(&pulls.Service{Store: x.e.Store, Git: x.e.Deps.Git})
	p, err := x.e.Store.R().PullByNumber(ctx, x.repo.ID, n)
	if err != nil {
		b.Fatal(err)
	}
	if p.ChangedFiles != 1000 {
		b.Fatalf("the pull request changes %d files", p.ChangedFiles)
	}
	mergeTree := baseline{name: "mergetree"}
	b.Run("bare-merge-tree", func(b *testing.B) {
		for b.Loop() {
			x.git(b, nil, "merge-tree", "--write-tree", "--no-messages", "--name-only", p.BaseSHA, p.HeadSHA)
		}
		mergeTree.ns = perOp(b)
	})
	// The git commands Mergeability runs, straight: the test merge and its
	// commit and ref, then the head's one commit replayed onto the base on
	// a temporary index.
	bareGit := baseline{name: "baregit"}
	b.Run("bare-git", func(b *testing.B) {
		idx := filepath.Join(b.TempDir(), "index")
		env := []string{"GIT_INDEX_FILE=" + idx}
		for b.Loop() {
			out := x.git(b, nil, "merge-tree", "--write-tree", "--no-messages", "--name-only", p.BaseSHA, p.HeadSHA)
			tree, _, _ := strings.Cut(out, "\n")
			c := x.git(b, nil, "-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit-tree", tree, "-p", p.BaseSHA, "-p", p.HeadSHA, "-m", "Merge")
			x.git(b, nil, "update-ref", "refs/pull/1/merge", c)
			os.Remove(idx)
			x.gitEnv(b, env, nil, "read-tree", p.BaseSHA)
			patch := x.gitEnv(b, env, nil, "diff-tree", "-p", "--binary", "--full-index", p.HeadSHA+"^", p.HeadSHA)
			x.gitEnv(b, env, []byte(patch+"\n"), "apply", "--cached", "--3way", "--allow-empty")
			t := x.gitEnv(b, env, nil, "write-tree")
			x.git(b, nil, "-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit-tree", t, "-p", p.BaseSHA, "-m", "change every file")
		}
		bareGit.ns = perOp(b, mergeTree)
	})
	b.Run("mergeability", func(b *testing.B) {
		for b.Loop() {
			m, err := svc.Mergeability(ctx, x.repo, p)
			if err != nil {
				b.Fatal(err)
			}
			if m.Mergeable == nil || !*m.Mergeable || m.Rebaseable == nil || !*m.Rebaseable {
				b.Fatalf("not mergeable: %+v", m)
			}
		}
		perOp(b, mergeTree, bareGit)
	})
	b.Run("sync", func(b *testing.B) {
		for b.Loop() {
			if err := svc.Sync(ctx, p.IssueID, 0); err != nil {
				b.Fatal(err)
			}
		}
		perOp(b, mergeTree, bareGit)
	})
}

// BenchmarkMerge2000Commits: PUT /repos/{o}/{r}/pulls/{n}/merge of a fresh
// three-commit pull request (opened outside the timer) into a main with a
// 2,000-commit history that earlier merges keep moving, by each method;
// bare-merge is the git a minimal merge needs on the same kind of branch
// (merge-tree, commit-tree, update-ref), bare-rebase the git of a rebase
// merge. Target: under 300 ms each.
func BenchmarkMerge2000Commits(b *testing.B) {
	x := newBench(b, "long")
	var s bytes.Buffer
	for i := 1; i <= 2000; i++ {
		p := fmt.Sprintf("src/file%03d.txt", i%400)
		commit(&s, "refs/heads/main", "", i*60, fmt.Sprintf("commit %d", i), map[string]string{p: text(p, i)})
	}
	x.git(b, s.Bytes(), "fast-import", "--quiet")
	// branches writes b.N fresh three-commit branches off main's tip.
	branches := func(b *testing.B, prefix string) []string {
		tip := x.git(b, nil, "rev-parse", "refs/heads/main")
		var s bytes.Buffer
		names := make([]string, b.N)
		for k := range names {
			names[k] = fmt.Sprintf("%s-%d", prefix, k)
			for c := 1; c <= 3; c++ {
				from := ""
				if c == 1 {
					from = tip
				}
				p := fmt.Sprintf("%s/%d/part%d.txt", prefix, k, c)
				commit(&s, "refs/heads/"+names[k], from, 200_000+c, fmt.Sprintf("%s %d: part %d\n\nDetails of part %d.", prefix, k, c, c),
					map[string]string{p: text(p, c)})
			}
		}
		x.git(b, s.Bytes(), "fast-import", "--quiet")
		return names
	}
	bare := baseline{name: "bare"}
	round := 0
	b.Run("bare-merge", func(b *testing.B) {
		round++
		names := branches(b, fmt.Sprintf("bare%d", round))
		b.ResetTimer()
		for _, name := range names {
			old := x.git(b, nil, "rev-parse", "refs/heads/main")
			out := x.git(b, nil, "merge-tree", "--write-tree", "--no-messages", "--name-only", old, "refs/heads/"+name)
			tree, _, _ := strings.Cut(out, "\n")
			c := x.git(b, nil, "-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit-tree", tree, "-p", old, "-p", "refs/heads/"+name, "-m", "Merge "+name)
			x.git(b, nil, "update-ref", "refs/heads/main", c, old)
		}
		bare.ns = perOp(b)
	})
	// The git a rebase merge needs: each of the three commits replayed onto
	// the new base on a temporary index (diff-tree, apply, write-tree,
	// commit-tree), then the base moved.
	bareRebase := baseline{name: "barerebase"}
	b.Run("bare-rebase", func(b *testing.B) {
		round++
		names := branches(b, fmt.Sprintf("rbare%d", round))
		idx := filepath.Join(b.TempDir(), "index")
		env := []string{"GIT_INDEX_FILE=" + idx}
		b.ResetTimer()
		for _, name := range names {
			old := x.git(b, nil, "rev-parse", "refs/heads/main")
			list := strings.Fields(x.git(b, nil, "rev-list", "--reverse", old+"..refs/heads/"+name))
			os.Remove(idx)
			x.gitEnv(b, env, nil, "read-tree", old)
			parent := old
			for _, c := range list {
				patch := x.gitEnv(b, env, nil, "diff-tree", "-p", "--binary", "--full-index", c+"^", c)
				x.gitEnv(b, env, []byte(patch+"\n"), "apply", "--cached", "--3way", "--allow-empty")
				t := x.gitEnv(b, env, nil, "write-tree")
				parent = x.git(b, nil, "-c", "user.name=Bench", "-c", "user.email=bench@example.com", "commit-tree", t, "-p", parent, "-m", "part")
			}
			x.git(b, nil, "update-ref", "refs/heads/main", parent, old)
		}
		bareRebase.ns = perOp(b, bare)
	})
	for _, method := range []string{"merge", "squash", "rebase"} {
		b.Run(method, func(b *testing.B) {
			round++
			names := branches(b, fmt.Sprintf("%s%d", method, round))
			b.ResetTimer()
			for _, name := range names {
				b.StopTimer()
				n := x.open(b, name)
				b.StartTimer()
				x.must(b, 200, "PUT", fmt.Sprintf("/repos/mona/long/pulls/%d/merge", n), map[string]any{"merge_method": method})
			}
			if method == "rebase" {
				perOp(b, bare, bareRebase)
			} else {
				perOp(b, bare)
			}
		})
	}
}

// BenchmarkListPulls: GET /repos/{o}/{r}/pulls?per_page=30, page 1 and a
// deep page, in-process, on PULLS (10,000) seeded pull requests (the
// profile of what bench/pulls.sh measures over the network).
func BenchmarkListPulls(b *testing.B) {
	x := newBench(b, "big")
	var s bytes.Buffer
	for i := 1; i <= 100; i++ {
		p := fmt.Sprintf("src/file%02d.txt", i%40)
		commit(&s, "refs/heads/main", "", i*60, fmt.Sprintf("commit %d", i), map[string]string{p: text(p, i)})
	}
	for h := 1; h <= 20; h++ {
		p := fmt.Sprintf("feature/%d.txt", h)
		commit(&s, fmt.Sprintf("refs/heads/feature-%d", h), "refs/heads/main", 10_000+h, fmt.Sprintf("feature %d", h), map[string]string{p: text(p, h)})
	}
	x.git(b, s.Bytes(), "fast-import", "--quiet")
	n := 10000
	if v := os.Getenv("PULLS"); v != "" {
		fmt.Sscan(v, &n)
	}
	if _, err := SeedPulls(ctx, x.e.Store, x.repo, x.dir, "main", n, 5000); err != nil {
		b.Fatal(err)
	}
	deep := n * 9 / 10 / 30 * 4 / 5
	for _, page := range []int{1, deep} {
		b.Run(fmt.Sprint("page", page), func(b *testing.B) {
			path := fmt.Sprintf("/repos/mona/big/pulls?per_page=30&page=%d", page)
			for b.Loop() {
				x.must(b, 200, "GET", path, nil)
			}
			perOp(b)
		})
	}
	// 32 requests at a time, as wrk sends them in bench/pulls.sh: ms/op is
	// then wall time over requests served (the inverse of throughput).
	b.Run("page1-32conns", func(b *testing.B) {
		b.SetParallelism(16) // x GOMAXPROCS 2
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				r := httptest.NewRequest("GET", "/api/v3/repos/mona/big/pulls?per_page=30", nil)
				r.Header.Set("Authorization", "token "+x.token)
				w := httptest.NewRecorder()
				x.e.Server.ServeHTTP(w, r)
				if w.Code != 200 {
					b.Errorf("list: %d %s", w.Code, w.Body.String()) // not Fatal: not the benchmark's goroutine
					return
				}
			}
		})
		perOp(b)
	})
}
