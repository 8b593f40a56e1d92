package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// acks are the writes the server acknowledged (answered 2xx, or a git push
// that exited 0): each must survive any crash that follows.
type acks struct {
	mu       sync.Mutex
	issues   map[int]string    // number -> title
	comments map[int64]string  // id -> body
	files    map[string]string // path -> blob sha
	commits  []string          // commits of acknowledged contents writes (on main)
	pushes   []string          // commits of acknowledged pushes (on branch "pushed")
}

// TestCrashRecovery runs a concurrent write load against `hubd serve`
// (issues, comments, contents writes, git pushes with the real git client),
// kills the server with SIGKILL in the middle of it, restarts it on the same
// data directory, and checks, twice over:
//
//   - every acknowledged write is there (issue and title, comment and body,
//     file and blob, contents commit on main, pushed commit on its branch);
//   - issue numbers are dense: the issues that exist are exactly 1..N.
//     GitHub hands out numbers in creation order and never reuses one; hubd
//     takes the number in the transaction that creates the issue, so a
//     creation the crash rolled back gives its number back, and the next
//     issue after the restart gets N+1;
//   - `git fsck --full` finds every repository on disk sound, and no lock
//     file is left behind to refuse the next write;
//   - the server answers normally: new issues, contents writes and pushes
//     succeed after the restart.
func TestCrashRecovery(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is required: %v", err)
	}
	start := time.Now()
	c := newCLI(t)
	c.ok("user", "create", "--login", "mona")
	tok := strings.TrimSpace(c.ok("token", "create", "--user", "mona", "--scopes", "repo,user"))
	s := c.serve()
	cl := &crashClient{t: t, base: s.base, token: tok}
	if st, _ := cl.call("POST", "/api/v3/user/repos", map[string]any{"name": "crash", "auto_init": true}); st != 201 {
		t.Fatalf("create repository: %d", st)
	}
	if st, _ := cl.call("POST", "/api/v3/repos/mona/crash/issues", map[string]any{"title": "comments go here"}); st != 201 {
		t.Fatalf("create issue: %d", st)
	}
	a := &acks{issues: map[int]string{1: "comments go here"}, comments: map[int64]string{}, files: map[string]string{}}
	work := t.TempDir()
	gitRun(t, work, "clone", "-q", cl.gitURL(), "clone")
	clone := filepath.Join(work, "clone")
	gitRun(t, clone, "config", "user.name", "Mona")
	gitRun(t, clone, "config", "user.email", "mona@example.com")
	gitRun(t, clone, "checkout", "-q", "-b", "pushed")

	requests := 0
	var inFlight int64
	for round := 1; round <= 2; round++ {
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		var sent sync.Map
		for _, load := range []func(context.Context) int{
			func(ctx context.Context) int { return cl.issueLoad(ctx, a, round, 0) },
			func(ctx context.Context) int { return cl.issueLoad(ctx, a, round, 1) },
			func(ctx context.Context) int { return cl.commentLoad(ctx, a, round) },
			func(ctx context.Context) int { return cl.contentsLoad(ctx, a, round) },
			func(ctx context.Context) int { return cl.pushLoad(ctx, a, round, clone) },
		} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sent.Store(&load, load(ctx))
			}()
		}
		// Kill in the middle of the load: late enough that every kind of
		// write has been acknowledged a few times, with writes in flight.
		time.Sleep(1500*time.Millisecond + time.Duration(round)*400*time.Millisecond)
		flying := cl.inFlight.Load()
		inFlight += flying
		if err := s.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		s.cmd.Wait()
		cancel()
		wg.Wait()
		sent.Range(func(_, v any) bool { requests += v.(int); return true })

		s = c.serve() // the same data directory (and database)
		cl.base = s.base
		a.mu.Lock()
		t.Logf("round %d: killed with %d writes in flight; acknowledged so far: %d issues, %d comments, %d files, %d pushes", round,
			flying, len(a.issues), len(a.comments), len(a.files), len(a.pushes))
		a.mu.Unlock()
		requests += cl.verify(a, c.data, clone)
	}
	if inFlight == 0 {
		t.Errorf("no write was in flight when the server was killed: the crash tested nothing")
	}
	t.Logf("crash test: %d writes attempted in 2 rounds, %v in all", requests, time.Since(start).Round(time.Millisecond))
}

type crashClient struct {
	t        *testing.T
	base     string
	token    string
	http     http.Client
	inFlight atomic.Int64 // writes sent and not yet answered
	repoID   int64        // mona/crash, when other repositories exist
}

func (cl *crashClient) gitURL() string {
	u, _ := url.Parse(cl.base + "/mona/crash.git")
	u.User = url.UserPassword("mona", cl.token)
	return u.String()
}

// call sends a request; status 0 means no answer (the server is down).
func (cl *crashClient) call(method, path string, body any) (int, map[string]any) {
	return cl.callCtx(context.Background(), method, path, body)
}

func (cl *crashClient) callCtx(ctx context.Context, method, path string, body any) (int, map[string]any) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, cl.base+path, rd)
	if err != nil {
		cl.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+cl.token)
	req.Header.Set("Accept", "application/vnd.github+json")
	cl.inFlight.Add(1)
	defer cl.inFlight.Add(-1)
	resp, err := cl.http.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil // cut off: not acknowledged
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return resp.StatusCode, m
}

// The loads write until the context ends (or the server stops answering)
// and record what was acknowledged; they return how many writes they sent.

func (cl *crashClient) issueLoad(ctx context.Context, a *acks, round, worker int) int {
	n := 0
	for ; ctx.Err() == nil; n++ {
		title := fmt.Sprintf("round %d worker %d issue %d", round, worker, n)
		st, m := cl.callCtx(ctx, "POST", "/api/v3/repos/mona/crash/issues", map[string]any{"title": title, "body": strings.Repeat("load ", 50)})
		if st == 201 {
			a.mu.Lock()
			a.issues[int(m["number"].(float64))] = title
			a.mu.Unlock()
		} else if st == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return n
}

func (cl *crashClient) commentLoad(ctx context.Context, a *acks, round int) int {
	n := 0
	for ; ctx.Err() == nil; n++ {
		body := fmt.Sprintf("round %d comment %d", round, n)
		st, m := cl.callCtx(ctx, "POST", "/api/v3/repos/mona/crash/issues/1/comments", map[string]any{"body": body})
		if st == 201 {
			a.mu.Lock()
			a.comments[int64(m["id"].(float64))] = body
			a.mu.Unlock()
		} else if st == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return n
}

func (cl *crashClient) contentsLoad(ctx context.Context, a *acks, round int) int {
	n := 0
	for ; ctx.Err() == nil; n++ {
		path := fmt.Sprintf("load/r%d-%d.txt", round, n)
		content := base64.StdEncoding.EncodeToString([]byte(path + "\n"))
		st, m := cl.callCtx(ctx, "PUT", "/api/v3/repos/mona/crash/contents/"+path, map[string]any{"message": "add " + path, "content": content})
		if st == 201 {
			a.mu.Lock()
			a.files[path] = m["content"].(map[string]any)["sha"].(string)
			a.commits = append(a.commits, m["commit"].(map[string]any)["sha"].(string))
			a.mu.Unlock()
		} else if st == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return n
}

// pushLoad commits a file and pushes the branch "pushed" with git, again
// and again; a push that exits 0 was acknowledged.
func (cl *crashClient) pushLoad(ctx context.Context, a *acks, round int, clone string) int {
	n := 0
	for ; ctx.Err() == nil; n++ {
		name := fmt.Sprintf("push-r%d-%d.txt", round, n)
		os.WriteFile(filepath.Join(clone, name), bytes.Repeat([]byte(name+"\n"), 200), 0o644)
		if gitTry(clone, "add", name) != nil || gitTry(clone, "commit", "-q", "-m", "add "+name) != nil {
			cl.t.Errorf("commit %s in the clone failed", name)
			return n
		}
		sha, _ := gitOut(clone, "rev-parse", "HEAD")
		pctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		cmd := exec.CommandContext(pctx, "git", "push", "-q", cl.gitURL(), "pushed:pushed")
		cmd.Dir = clone
		cl.inFlight.Add(1)
		err := cmd.Run()
		cl.inFlight.Add(-1)
		cancel()
		if err == nil {
			a.mu.Lock()
			a.pushes = append(a.pushes, sha)
			a.mu.Unlock()
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return n
}

// verify checks the acknowledged writes and the repositories after a
// restart, then that the server takes writes again; it returns the number
// of writes it made.
func (cl *crashClient) verify(a *acks, data, clone string) int {
	t := cl.t
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()

	// Issues: every acknowledged one, with its title, among exactly 1..N.
	var numbers []int
	titles := map[int]string{}
	for page := 1; ; page++ {
		var list []map[string]any
		st := cl.getJSON(fmt.Sprintf("/api/v3/repos/mona/crash/issues?state=all&per_page=100&page=%d", page), &list)
		if st != 200 {
			t.Fatalf("list issues: %d", st)
		}
		for _, is := range list {
			n := int(is["number"].(float64))
			numbers = append(numbers, n)
			titles[n] = is["title"].(string)
		}
		if len(list) < 100 {
			break
		}
	}
	sort.Ints(numbers)
	for i, n := range numbers {
		if n != i+1 {
			t.Fatalf("issue numbers are not 1..%d: position %d holds %d (numbers %v)", len(numbers), i+1, n, numbers)
		}
	}
	for n, title := range a.issues {
		if titles[n] != title {
			t.Errorf("acknowledged issue #%d %q: after the crash %q", n, title, titles[n])
		}
	}

	// Comments.
	for id, body := range a.comments {
		var m map[string]any
		if st := cl.getJSON(fmt.Sprintf("/api/v3/repos/mona/crash/issues/comments/%d", id), &m); st != 200 || m["body"] != body {
			t.Errorf("acknowledged comment %d %q: after the crash %d %v", id, body, st, m["body"])
		}
	}

	// Contents writes: the file with its blob, the commit on main.
	for path, sha := range a.files {
		var m map[string]any
		if st := cl.getJSON("/api/v3/repos/mona/crash/contents/"+path, &m); st != 200 || m["sha"] != sha {
			t.Errorf("acknowledged file %s (blob %s): after the crash %d %v", path, sha, st, m["sha"])
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(data, "git", "repositories", "*", "*.git"))
	if cl.repoID != 0 { // other repositories share the data directory
		dirs = []string{filepath.Join(data, "git", "repositories", strconv.FormatInt(cl.repoID/1000, 10), strconv.FormatInt(cl.repoID, 10)+".git")}
	}
	if len(dirs) != 1 {
		t.Fatalf("repositories on disk: %v", dirs)
	}
	bare := dirs[0]
	for _, sha := range a.commits {
		if err := gitTry(bare, "merge-base", "--is-ancestor", sha, "refs/heads/main"); err != nil {
			t.Errorf("acknowledged contents commit %s is not on main after the crash: %v", sha, err)
		}
	}
	for _, sha := range a.pushes {
		if err := gitTry(bare, "merge-base", "--is-ancestor", sha, "refs/heads/pushed"); err != nil {
			t.Errorf("acknowledged pushed commit %s is not on branch pushed after the crash: %v", sha, err)
		}
	}

	// The repository is sound and no lock is left behind.
	if out, err := gitOut(bare, "fsck", "--full", "--no-dangling", "--no-progress"); err != nil {
		t.Errorf("git fsck --full after the crash: %v\n%s", err, out)
	}
	filepath.WalkDir(bare, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".lock") {
			t.Errorf("lock file left after the crash: %s", p)
		}
		return nil
	})

	// The server answers normally: the next issue is N+1, contents writes
	// and pushes go through.
	title := fmt.Sprintf("after crash %d", len(numbers))
	st, m := cl.call("POST", "/api/v3/repos/mona/crash/issues", map[string]any{"title": title})
	if st != 201 || int(m["number"].(float64)) != len(numbers)+1 {
		t.Fatalf("issue after the restart: %d %v, want 201 and #%d", st, m["number"], len(numbers)+1)
	}
	a.issues[len(numbers)+1] = title
	path := fmt.Sprintf("after/%d.txt", len(numbers))
	st, m = cl.call("PUT", "/api/v3/repos/mona/crash/contents/"+path, map[string]any{"message": "after", "content": base64.StdEncoding.EncodeToString([]byte("ok\n"))})
	if st != 201 {
		t.Fatalf("contents write after the restart: %d %v", st, m)
	}
	a.files[path] = m["content"].(map[string]any)["sha"].(string)
	a.commits = append(a.commits, m["commit"].(map[string]any)["sha"].(string))
	name := fmt.Sprintf("after-%d.txt", len(numbers))
	os.WriteFile(filepath.Join(clone, name), []byte("ok\n"), 0o644)
	gitRun(t, clone, "add", name)
	gitRun(t, clone, "commit", "-q", "-m", "after the crash")
	gitRun(t, clone, "push", "-q", cl.gitURL(), "pushed:pushed")
	sha, _ := gitOut(clone, "rev-parse", "HEAD")
	a.pushes = append(a.pushes, sha)
	return 3
}

func (cl *crashClient) getJSON(path string, v any) int {
	req, _ := http.NewRequest("GET", cl.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+cl.token)
	resp, err := cl.http.Do(req)
	if err != nil {
		cl.t.Fatalf("GET %s after the restart: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == 200 {
		if err := json.Unmarshal(b, v); err != nil {
			cl.t.Fatalf("GET %s: %v: %.200s", path, err, b)
		}
	}
	return resp.StatusCode
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := gitOut(dir, args...); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func gitTry(dir string, args ...string) error {
	_, err := gitOut(dir, args...)
	return err
}

func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}
