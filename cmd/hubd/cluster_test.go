package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/store"
)

// roundRobin is a load balancer in front of the nodes: each request goes to
// the next live node; X-Test-Node tells which one answered.
type roundRobin struct {
	srv   *httptest.Server
	mu    sync.Mutex
	nodes []*url.URL
	dead  map[int]bool
	next  atomic.Int64
}

func newRoundRobin(t *testing.T) *roundRobin {
	p := &roundRobin{dead: map[int]bool{}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		var live []int
		for i := range p.nodes {
			if !p.dead[i] {
				live = append(live, i)
			}
		}
		p.mu.Unlock()
		if len(live) == 0 {
			http.Error(w, "no node", http.StatusBadGateway)
			return
		}
		i := live[int(p.next.Add(1))%len(live)]
		w.Header().Set("X-Test-Node", strconv.Itoa(i))
		rp := httputil.NewSingleHostReverseProxy(p.nodes[i])
		rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) { w.WriteHeader(http.StatusBadGateway) }
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *roundRobin) add(base string) {
	u, _ := url.Parse(base)
	p.mu.Lock()
	p.nodes = append(p.nodes, u)
	p.mu.Unlock()
}

func (p *roundRobin) kill(i int) {
	p.mu.Lock()
	p.dead[i] = true
	p.mu.Unlock()
}

// TestCluster runs three `hubd serve` nodes on one PostgreSQL database and
// one data directory behind a round-robin proxy, and checks that they act
// as one hubd: what one node writes the next request reads on another
// (repositories, issues, comments, labels, pull requests, hooks, tokens and
// their revocation, git pushes and clones); concurrent pushes to one
// repository through two nodes lose nothing and leave it sound; a webhook
// goes out once however many nodes run the dispatcher; a node killed with
// SIGKILL under load loses no acknowledged write, its jobs are taken over
// when their lease ends, and clients retrying on the other nodes succeed;
// a node refuses a database a newer hubd migrated.
//
// On SQLite (the first pass of the test command) there is one server per
// data directory: the node flags are refused there.
func TestCluster(t *testing.T) {
	start := time.Now()
	c := newCLI(t)
	if c.db == "" {
		out, errs, code := c.run("serve", "--addr", "127.0.0.1:0", "--node-name", "a")
		if code != 1 || !strings.Contains(errs, "--node-name and --node-dir are for several nodes on one PostgreSQL database") || strings.Contains(out, "listening") {
			t.Fatalf("serve --node-name on SQLite: exit %d, stdout %q, stderr %q", code, out, errs)
		}
		return
	}
	hooks := newRecorder(t, false)
	p := newRoundRobin(t)
	flags := []string{"--external-url", p.srv.URL, "--actions-workers", "0", "--hook-allow", "127.0.0.0/8", "--job-lease", "3s", "--strict-reads"}
	nodes := []*running{c.serve(append(flags, "--node-name", "n0")...)}
	admin := tokenLine.FindStringSubmatch(strings.Join(nodes[0].before, "\n"))[1]
	c.ok("user", "create", "--login", "mona")
	tok := strings.TrimSpace(c.ok("token", "create", "--user", "mona", "--scopes", "repo,user,admin:repo_hook,delete_repo"))
	for i := 1; i <= 2; i++ {
		nodes = append(nodes, c.serve(append(flags, "--node-name", fmt.Sprintf("n%d", i))...))
	}
	for _, n := range nodes {
		p.add(n.base)
	}
	t.Logf("three nodes up in %v", time.Since(start).Round(time.Millisecond))
	entries, _ := os.ReadDir(filepath.Join(c.data, "nodes"))
	if len(entries) != 3 {
		t.Errorf("node directories: %d, want 3", len(entries))
	}
	lb := &running{base: p.srv.URL}

	// Every write, then reads through each of the other two nodes.
	served := map[string]bool{}
	call := func(method, path, token, body string, want int) map[string]any {
		t.Helper()
		st, h, m := lb.do(t, method, path, token, body)
		if st != want {
			t.Fatalf("%s %s (node %s): %d %v, want %d", method, path, h.Get("X-Test-Node"), st, m, want)
		}
		served[h.Get("X-Test-Node")] = true
		return m
	}
	// Strict read-your-writes: a read on any node right after a write was
	// answered sees it (every request checks the database's write
	// generation before it trusts a cache: store/cluster.go). A stale read
	// is an error; the test counts them to say how many.
	var stale int
	readAll := func(path, token, field string, want any) {
		t.Helper()
		for range 3 { // three reads in a row: every node once
			m := call("GET", path, token, "", 200)
			if want != nil && fmt.Sprint(m[field]) != fmt.Sprint(want) {
				stale++
				t.Errorf("GET %s right after the write: %s %v, want %v", path, field, m[field], want)
			}
		}
	}
	call("POST", "/api/v3/user/repos", tok, `{"name":"shared","auto_init":true}`, 201)
	readAll("/api/v3/repos/mona/shared", tok, "name", "shared")
	call("PATCH", "/api/v3/repos/mona/shared", tok, `{"description":"edited on one node"}`, 200)
	readAll("/api/v3/repos/mona/shared", tok, "description", "edited on one node")
	issue := call("POST", "/api/v3/repos/mona/shared/issues", tok, `{"title":"across nodes"}`, 201)
	readAll("/api/v3/repos/mona/shared/issues/1", tok, "title", "across nodes")
	call("PATCH", "/api/v3/repos/mona/shared/issues/1", tok, `{"state":"closed"}`, 200)
	readAll("/api/v3/repos/mona/shared/issues/1", tok, "state", "closed")
	com := call("POST", "/api/v3/repos/mona/shared/issues/1/comments", tok, `{"body":"hello"}`, 201)
	readAll(fmt.Sprintf("/api/v3/repos/mona/shared/issues/comments/%v", int64(com["id"].(float64))), tok, "body", "hello")
	readAll("/api/v3/repos/mona/shared/issues/1", tok, "comments", 1)
	call("POST", "/api/v3/repos/mona/shared/labels", tok, `{"name":"cluster","color":"ff0000"}`, 201)
	readAll("/api/v3/repos/mona/shared/labels/cluster", tok, "color", "ff0000")
	hook := call("POST", "/api/v3/repos/mona/shared/hooks", tok, fmt.Sprintf(`{"config":{"url":%q,"content_type":"json"},"events":["issues"]}`, hooks.srv.URL), 201)
	readAll(fmt.Sprintf("/api/v3/repos/mona/shared/hooks/%v", int64(hook["id"].(float64))), tok, "active", true)
	main := call("GET", "/api/v3/repos/mona/shared/git/ref/heads/main", tok, "", 200)["object"].(map[string]any)["sha"].(string)
	call("POST", "/api/v3/repos/mona/shared/git/refs", tok, fmt.Sprintf(`{"ref":"refs/heads/topic","sha":%q}`, main), 201)
	readAll("/api/v3/repos/mona/shared/branches/topic", tok, "name", "topic")
	call("PUT", "/api/v3/repos/mona/shared/contents/topic.txt", tok, fmt.Sprintf(`{"message":"topic","branch":"topic","content":%q}`, base64.StdEncoding.EncodeToString([]byte("topic\n"))), 201)
	call("POST", "/api/v3/repos/mona/shared/pulls", tok, `{"title":"a pull","head":"topic","base":"main"}`, 201)
	readAll("/api/v3/repos/mona/shared/pulls/2", tok, "title", "a pull")
	_ = issue

	// Tokens: one minted on a node works on every node at once, and once
	// revoked on one node no node takes it (the authentication caches are
	// flushed everywhere).
	imp := call("POST", "/admin/users/mona/authorizations", admin, `{"scopes":["repo"]}`, 201)["token"].(string)
	readAll("/api/v3/user", imp, "login", "mona")
	call("DELETE", "/admin/users/mona/authorizations", admin, "", 204)
	for range 3 {
		if st, h, _ := lb.do(t, "GET", "/api/v3/user", imp, ""); st != 401 {
			stale++
			t.Errorf("GET /user with a token revoked through another node (node %s): %d, want 401", h.Get("X-Test-Node"), st)
		}
	}
	// Many rounds of a write on one node and reads on the other two, each
	// read's cache warmed by the round before: the repository and the
	// issue (each cached on every node, the rendered object included).
	// (In a repository of their own: the one above has a webhook on
	// issues, whose deliveries are counted below.)
	call("POST", "/api/v3/user/repos", tok, `{"name":"rounds"}`, 201)
	call("POST", "/api/v3/repos/mona/rounds/issues", tok, `{"title":"rounds"}`, 201)
	const rounds = 40
	roundsBegan := time.Now()
	for i := range rounds {
		d := fmt.Sprintf("round %d", i)
		call("PATCH", "/api/v3/repos/mona/rounds", tok, fmt.Sprintf(`{"description":%q}`, d), 200)
		for range 2 {
			if m := call("GET", "/api/v3/repos/mona/rounds", tok, "", 200); m["description"] != d {
				stale++
				t.Errorf("round %d: the repository read on another node right after its edit: description %v", i, m["description"])
			}
		}
		call("PATCH", "/api/v3/repos/mona/rounds/issues/1", tok, fmt.Sprintf(`{"title":%q}`, d), 200)
		for range 2 {
			if m := call("GET", "/api/v3/repos/mona/rounds/issues/1", tok, "", 200); m["title"] != d {
				stale++
				t.Errorf("round %d: the issue read on another node right after its edit: title %v", i, m["title"])
			}
		}
	}
	t.Logf("reads after a write on another node: %d stale (%d write-then-read rounds in %v)", stale, rounds, time.Since(roundsBegan).Round(time.Millisecond))
	if len(served) != 3 {
		t.Fatalf("the proxy reached nodes %v, want all three", served)
	}

	// git: push through one node, clone through another; then two clones
	// push to one branch through two nodes at once.
	gitURL := func(n *running) string {
		u, _ := url.Parse(n.base + "/mona/shared.git")
		u.User = url.UserPassword("mona", tok)
		return u.String()
	}
	work := t.TempDir()
	gitRun(t, work, "clone", "-q", gitURL(nodes[0]), "a")
	gitRun(t, work, "clone", "-q", gitURL(nodes[1]), "b")
	for i, name := range []string{"a", "b"} {
		dir := filepath.Join(work, name)
		gitRun(t, dir, "config", "user.name", "Mona")
		gitRun(t, dir, "config", "user.email", "mona@example.com")
		os.WriteFile(filepath.Join(dir, name+".txt"), []byte(name+"\n"), 0o644)
		gitRun(t, dir, "add", ".")
		gitRun(t, dir, "commit", "-q", "-m", "from "+name)
		_ = i
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, name := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = gitTry(filepath.Join(work, name), "push", "-q", gitURL(nodes[i+1]), "HEAD:main")
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
		}
	}
	if won != 1 {
		t.Fatalf("two pushes of diverging commits to main through two nodes at once: %d succeeded (%v), want exactly one", won, errs)
	}
	loser := "a"
	if errs[0] == nil {
		loser = "b"
	}
	dir := filepath.Join(work, loser)
	gitRun(t, dir, "pull", "-q", "--rebase", gitURL(nodes[2]), "main")
	gitRun(t, dir, "push", "-q", gitURL(nodes[0]), "HEAD:main")
	head, _ := gitOut(dir, "rev-parse", "HEAD")
	gitRun(t, work, "clone", "-q", gitURL(nodes[2]), "c")
	for _, f := range []string{"a.txt", "b.txt", "README.md"} {
		if _, err := os.Stat(filepath.Join(work, "c", f)); err != nil {
			t.Errorf("clone through a third node after both pushes: %v", err)
		}
	}
	for range 3 {
		m := call("GET", "/api/v3/repos/mona/shared/branches/main", tok, "", 200)
		if sha := m["commit"].(map[string]any)["sha"]; sha != head {
			t.Fatalf("main on a node after the push: %v, want %s", sha, head)
		}
	}
	bare, _ := filepath.Glob(filepath.Join(c.data, "git", "repositories", "*", "*.git"))
	for _, b := range bare {
		if out, err := gitOut(b, "fsck", "--full", "--no-dangling", "--no-progress"); err != nil {
			t.Errorf("git fsck --full %s: %v\n%s", b, err, out)
		}
	}

	// Webhooks: each issue's delivery goes out once, whichever node
	// dispatches it.
	const hooked = 9
	for i := range hooked {
		call("POST", "/api/v3/repos/mona/shared/issues", tok, fmt.Sprintf(`{"title":"hooked %d"}`, i), 201)
	}
	hooks.wait(t, "delivery of every issue", func() bool { g, _ := hooks.guids("issues"); return len(g) >= hooked })
	time.Sleep(2 * time.Second) // time for a second delivery, were there one
	if g, n := hooks.guids("issues"); len(g) != hooked || n != hooked {
		t.Fatalf("issues deliveries: %d distinct of %d sent, want %d once each", len(g), n, hooked)
	}

	// A newer schema: a node of this version refuses to start on it.
	admindb, err := store.Open(context.Background(), c.db)
	if err != nil {
		t.Fatal(err)
	}
	defer admindb.Close()
	if err := admindb.ExecRaw(context.Background(), `INSERT INTO schema_migrations (version, applied_at) SELECT MAX(version) + 1, 0 FROM schema_migrations`); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := c.run(append([]string{"serve", "--addr", "127.0.0.1:0", "--node-name", "n3"}, flags...)...)
	if code != 1 || !strings.Contains(stderr, "a newer hubd has upgraded it") || strings.Contains(out, "listening") {
		t.Fatalf("a node on a newer schema: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if err := admindb.ExecRaw(context.Background(), `DELETE FROM schema_migrations WHERE applied_at = 0`); err != nil {
		t.Fatal(err)
	}

	clusterCrash(t, c, p, nodes, tok, admindb)
	t.Logf("cluster test: %v in all", time.Since(start).Round(time.Millisecond))
}

// clusterCrash runs the crash test's write load through the proxy, kills
// one node with SIGKILL in the middle of it and checks every acknowledged
// write on the two that remain; the jobs the dead node held are taken over
// once their lease (3 s) ends.
func clusterCrash(t *testing.T, c *cli, p *roundRobin, nodes []*running, tok string, db *store.Store) {
	cl := &crashClient{t: t, base: p.srv.URL, token: tok}
	st, m := cl.call("POST", "/api/v3/user/repos", map[string]any{"name": "crash", "auto_init": true})
	if st != 201 {
		t.Fatalf("create repository: %d %v", st, m)
	}
	cl.repoID = int64(m["id"].(float64))
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

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var sent atomic.Int64
	for _, load := range []func(context.Context) int{
		func(ctx context.Context) int { return cl.issueLoad(ctx, a, 1, 0) },
		func(ctx context.Context) int { return cl.issueLoad(ctx, a, 1, 1) },
		func(ctx context.Context) int { return cl.commentLoad(ctx, a, 1) },
		func(ctx context.Context) int { return cl.contentsLoad(ctx, a, 1) },
		func(ctx context.Context) int { return cl.pushLoad(ctx, a, 1, clone) },
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sent.Add(int64(load(ctx)))
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	victim := nodes[1]
	pid := victim.cmd.Process.Pid
	flying := cl.inFlight.Load()
	victim.cmd.Process.Kill()
	victim.cmd.Wait()
	p.kill(1)
	held := jobsOf(t, db, pid)
	// The load goes on through the two other nodes for a while: clients
	// that retry succeed.
	time.Sleep(time.Second)
	cancel()
	wg.Wait()
	a.mu.Lock()
	t.Logf("killed node 1 (pid %d) with %d writes in flight, its workers holding jobs: %d; acknowledged: %d issues, %d comments, %d files, %d pushes; %d writes sent",
		pid, flying, held, len(a.issues), len(a.comments), len(a.files), len(a.pushes), sent.Load())
	a.mu.Unlock()
	cl.verify(a, c.data, clone)
	// The dead node's jobs are taken over by the others when their lease
	// ends (3 s here), and run.
	for deadline := time.Now().Add(20 * time.Second); jobsOf(t, db, pid) > 0; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("jobs of the killed node still held after 20 s: %d", jobsOf(t, db, pid))
		}
	}
}

// jobsOf counts the workers of process pid that hold running jobs.
func jobsOf(t *testing.T, db *store.Store, pid int) int {
	t.Helper()
	ws, err := db.RunningJobWorkers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range ws {
		if strings.Contains(w, ":"+strconv.Itoa(pid)+":") {
			n++
		}
	}
	return n
}
