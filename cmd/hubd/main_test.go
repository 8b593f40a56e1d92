package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/store"
)

// The test binary doubles as hubd: with HUBD_TEST_MAIN=1 it runs main with
// its arguments, so the tests exec the real command line without a separate
// build.
//
// The local runners hubd serve starts (`hubd runner`) and the workers they
// start (`hubd actions-worker`) run with a clean environment: the
// command is enough to tell them (go test never passes these arguments).
func TestMain(m *testing.M) {
	if os.Getenv("HUBD_TEST_MAIN") == "1" || (len(os.Args) > 1 && (os.Args[1] == "runner" || os.Args[1] == "actions-worker")) {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// cli runs hubd commands against one data directory (and, when
// HUBD_TEST_DATABASE is a postgres:// URL, a throwaway schema of it).
type cli struct {
	t        *testing.T
	data, db string
}

func newCLI(t *testing.T) *cli {
	c := &cli{t: t, data: t.TempDir()}
	dsn := os.Getenv("HUBD_TEST_DATABASE")
	if dsn == "" {
		return c
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	b := make([]byte, 8)
	rand.Read(b)
	schema := "cli_" + hex.EncodeToString(b)
	ctx := context.Background()
	admin, err := store.Open(ctx, dsn+sep+"search_path=public")
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.ExecRaw(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.ExecRaw(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close()
	})
	c.db = dsn + sep + "search_path=" + schema
	return c
}

func (c *cli) command(args ...string) *exec.Cmd {
	if len(args) > 0 && args[0] != "version" && args[0] != "nope" {
		args = append(args, "--data", c.data)
		if c.db != "" {
			args = append(args, "--database", c.db)
		}
	}
	cmd := exec.Command(os.Args[0], args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HUBD_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HUBD_TEST_MAIN=1")
	return cmd
}

// run executes a command to its end: stdout, stderr and the exit code.
func (c *cli) run(args ...string) (string, string, int) {
	c.t.Helper()
	return runCmd(c.t, c.command(args...), args)
}

// runCmd runs a prepared hubd command to its end.
func runCmd(t *testing.T, cmd *exec.Cmd, args []string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errb.String(), 0
	case errors.As(err, &ee):
		return out.String(), errb.String(), ee.ExitCode()
	}
	t.Fatalf("hubd %v: %v", args, err)
	return "", "", -1
}

// ok runs a command that must succeed.
func (c *cli) ok(args ...string) string {
	c.t.Helper()
	out, errs, code := c.run(args...)
	if code != 0 {
		c.t.Fatalf("hubd %v: exit %d: %s%s", args, code, out, errs)
	}
	return out
}

// running is a `hubd serve` process.
type running struct {
	cmd    *exec.Cmd
	base   string   // http://127.0.0.1:PORT
	before []string // stdout lines up to and including "listening on"
	stderr *bytes.Buffer
}

var listening = regexp.MustCompile(`listening on (\S+)`)

// serve starts `hubd serve` on a free port and waits until it listens; the
// server is stopped when the test ends if stop was not called.
func (c *cli) serve(extra ...string) *running {
	c.t.Helper()
	cmd := c.command(append([]string{"serve", "--addr", "127.0.0.1:0"}, extra...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		c.t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	s := &running{cmd: cmd, stderr: &errb}
	c.t.Cleanup(func() { s.stop(c.t) })
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, stdout)
	}()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case l, open := <-lines:
			if !open {
				c.t.Fatalf("hubd serve exited before listening: %s\n%s", strings.Join(s.before, "\n"), errb.String())
			}
			s.before = append(s.before, l)
			if m := listening.FindStringSubmatch(l); m != nil {
				s.base = "http://" + m[1]
				go func() {
					for range lines {
					}
				}()
				return s
			}
		case <-deadline:
			c.t.Fatalf("hubd serve did not listen in time: %s\n%s", strings.Join(s.before, "\n"), errb.String())
		}
	}
}

// stop interrupts the server like Ctrl-C and waits for it to exit cleanly.
func (s *running) stop(t *testing.T) {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("hubd serve exited with %v; its log:\n%s", err, s.stderr)
		}
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-done
		t.Errorf("hubd serve did not stop on interrupt; its log:\n%s", s.stderr)
	}
}

// get calls the API with a token and decodes the JSON object it answers.
func (s *running) get(t *testing.T, path, token string) (int, http.Header, map[string]any) {
	t.Helper()
	return s.do(t, "GET", path, token, "")
}

func (s *running) do(t *testing.T, method, path, token, body string) (int, http.Header, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	b, _ := io.ReadAll(resp.Body)
	if len(b) > 0 {
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
	return resp.StatusCode, resp.Header, m
}

var (
	tokenLine = regexp.MustCompile(`(?m)^token: (ghp_[A-Za-z0-9]{36})$`)
	classic   = regexp.MustCompile(`^ghp_[A-Za-z0-9]{36}$`)
)

func TestServeBootstrap(t *testing.T) {
	c := newCLI(t)

	// First start: the site administrator and its token, printed once.
	s := c.serve()
	out := strings.Join(s.before, "\n")
	m := tokenLine.FindStringSubmatch(out)
	if !strings.Contains(out, "login: hubadmin") || m == nil {
		t.Fatalf("first start printed:\n%s", out)
	}
	admin := m[1]
	st, h, me := s.get(t, "/api/v3/user", admin)
	if st != 200 || me["login"] != "hubadmin" || me["site_admin"] != true {
		t.Fatalf("GET /api/v3/user: %d %v", st, me)
	}
	if !strings.Contains(h.Get("X-OAuth-Scopes"), "site_admin") {
		t.Fatalf("X-OAuth-Scopes = %q", h.Get("X-OAuth-Scopes"))
	}
	// The root of both bases names this server.
	if st, _, root := s.get(t, "/api/v3/", ""); st != 200 || root["current_user_url"] != s.base+"/api/v3/user" {
		t.Fatalf("GET /api/v3/: %d %v", st, root)
	}
	s.stop(t)

	// Second start: nothing is created or printed, the token still works.
	s = c.serve()
	if out := strings.Join(s.before, "\n"); strings.Contains(out, "token:") || strings.Contains(out, "login:") {
		t.Fatalf("second start printed credentials:\n%s", out)
	}
	if st, _, me := s.get(t, "/user", admin); st != 200 || me["login"] != "hubadmin" {
		t.Fatalf("GET /user after restart: %d %v", st, me)
	}
	s.stop(t)
}

func TestProvisioning(t *testing.T) {
	c := newCLI(t)

	if out := c.ok("user", "create", "--login", "mona", "--email", "mona@example.com", "--name", "Mona Lisa"); !regexp.MustCompile(`^created user mona \(id \d+\)\n$`).MatchString(out) {
		t.Fatalf("user create printed %q", out)
	}
	c.ok("user", "create", "--login", "boss", "--site-admin")
	if out := c.ok("org", "create", "--login", "octo-org", "--admin", "mona", "--name", "Octo"); !strings.HasPrefix(out, "created organization octo-org (id ") || !strings.HasSuffix(out, "admin mona\n") {
		t.Fatalf("org create printed %q", out)
	}
	tok := strings.TrimSpace(c.ok("token", "create", "--user", "mona", "--scopes", "repo,read:org", "--note", "ci"))
	if !classic.MatchString(tok) {
		t.Fatalf("token create printed %q", tok)
	}
	bossTok := strings.TrimSpace(c.ok("token", "create", "--user", "boss", "--scopes", "site_admin,user", "--expires-in", "1h"))
	fine, errs, code := c.run("token", "create", "--fine-grained", "--user", "mona", "--owner", "octo-org", "--all-repos",
		"--permissions", "issues:write,contents:read", "--expires-in", "30d", "--name", "ci")
	if code != 0 || !regexp.MustCompile(`^github_pat_[0-9A-Za-z]{22}_[0-9A-Za-z]{59}\n$`).MatchString(fine) || !strings.Contains(errs, "waits for an owner of octo-org") {
		t.Fatalf("fine-grained token create: exit %d, %q, %q", code, fine, errs)
	}
	fineTok := strings.TrimSpace(fine)
	// OAuth apps: create, list (the GitHub CLI's app ships with hubd), delete.
	created := c.ok("oauth-app", "create", "--owner", "mona", "--name", "Octo Tool", "--callback-url", "https://tool.example/cb")
	clientID := regexp.MustCompile(`client id: (Ov23li\w{14})`).FindStringSubmatch(created)
	if clientID == nil {
		t.Fatalf("oauth-app create printed %q", created)
	}
	if out := c.ok("oauth-app", "list"); !strings.Contains(out, "178c6fc778ccc68e1d6a\t(hubd)\tGitHub CLI") || !strings.Contains(out, clientID[1]+"\tmona\tOcto Tool\n") {
		t.Fatalf("oauth-app list printed %q", out)
	}
	if out := c.ok("oauth-app", "delete", "--client-id", clientID[1]); out != "deleted OAuth app "+clientID[1]+"\n" {
		t.Fatalf("oauth-app delete printed %q", out)
	}
	if out := c.ok("oauth-app", "list"); strings.Contains(out, clientID[1]) {
		t.Fatalf("oauth-app list after delete printed %q", out)
	}

	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"user", "create", "--login", "mona"}, 1, `login "mona" is already taken`},
		{[]string{"user", "create", "--login", "MONA"}, 1, "already taken"},
		{[]string{"user", "create", "--login", "bad_name"}, 1, "login may only contain"},
		{[]string{"user", "create", "--login", ""}, 1, "login is required"},
		{[]string{"org", "create", "--login", "octo-org", "--admin", "mona"}, 1, "already taken"},
		{[]string{"org", "create", "--login", "other-org", "--admin", "nobody"}, 1, `no user "nobody"`},
		{[]string{"org", "create", "--login", "other-org", "--admin", "octo-org"}, 1, `no user "octo-org"`},
		{[]string{"token", "create", "--user", "nobody"}, 1, `no user "nobody"`},
		{[]string{"token", "create", "--user", "mona", "--scopes", "everything"}, 1, `unknown scope "everything"`},
		{[]string{"token", "create", "--fine-grained", "--user", "mona", "--name", "ci"}, 1, "already_exists"},
		{[]string{"token", "create", "--fine-grained", "--user", "mona", "--name", "x", "--expires-in", "400d"}, 1, "expires_at"},
		{[]string{"token", "create", "--fine-grained", "--user", "mona", "--name", "y", "--scopes", "repo"}, 1, "--scopes is for classic tokens"},
		{[]string{"token", "create", "--user", "mona", "--expires-in", "soon"}, 1, "--expires-in"},
		{[]string{"user"}, 1, "usage"},
		{[]string{"oauth-app", "delete", "--client-id", "Ov23linope0000000000"}, 1, `no OAuth app with client id "Ov23linope0000000000"`},
		{[]string{"oauth-app", "rename"}, 1, `unknown subcommand "rename"`},
		{[]string{"nope"}, 2, "unknown command"},
	} {
		out, errs, code := c.run(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.err) {
			t.Errorf("hubd %v: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, out, errs, tc.code, tc.err)
		}
	}
	if out := c.ok("version"); !strings.HasPrefix(out, "hubd ") {
		t.Fatalf("version printed %q", out)
	}

	// Users already exist, so serve bootstraps nothing; the provisioned
	// accounts and tokens work over HTTP.
	s := c.serve()
	if out := strings.Join(s.before, "\n"); strings.Contains(out, "token:") {
		t.Fatalf("serve bootstrapped over existing users:\n%s", out)
	}
	st, h, me := s.get(t, "/api/v3/user", tok)
	if st != 200 || me["login"] != "mona" || me["name"] != "Mona Lisa" || me["email"] != "mona@example.com" || h.Get("X-OAuth-Scopes") != "read:org, repo" {
		t.Fatalf("GET /user as mona: %d %v %q", st, me, h.Get("X-OAuth-Scopes"))
	}
	// The fine-grained token works as mona, for public resources until an
	// owner of octo-org approves it.
	if st, _, me := s.get(t, "/api/v3/user", fineTok); st != 200 || me["login"] != "mona" {
		t.Fatalf("GET /user with the fine-grained token: %d %v", st, me)
	}
	if st, _, org := s.get(t, "/api/v3/users/octo-org", ""); st != 200 || org["type"] != "Organization" {
		t.Fatalf("GET /users/octo-org: %d %v", st, org)
	}
	// The site administrator made with --site-admin can use the admin API.
	st, _, u := s.do(t, "POST", "/api/v3/admin/users", bossTok, `{"login":"hubot"}`)
	if st != 201 || u["login"] != "hubot" {
		t.Fatalf("POST /admin/users: %d %v", st, u)
	}
	if st, _, _ := s.do(t, "POST", "/api/v3/admin/users", tok, `{"login":"x"}`); st != 403 {
		t.Fatalf("POST /admin/users as mona: %d", st)
	}
	s.stop(t)
}

// runIn executes hubd with exactly args (no --data or --database added) in
// dir: stdout, stderr and the exit code.
func runIn(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	c := &cli{t: t}
	cmd := c.command("nope") // the environment, without flags
	cmd.Args = append([]string{os.Args[0]}, args...)
	cmd.Dir = dir
	return runCmd(t, cmd, args)
}

// entries lists a directory's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range des {
		names = append(names, d.Name())
	}
	return names
}

// A second server on the same data directory is refused; provisioning
// beside a running server works; a killed server leaves no stale lock.
//
// On PostgreSQL several nodes share the data directory (TestCluster), but
// two processes may not be one node: the second with the first's
// --node-name is refused.
func TestServeLock(t *testing.T) {
	c := newCLI(t)
	var node []string
	if c.db != "" {
		node = []string{"--node-name", "one"}
	}
	s := c.serve(node...)
	admin := tokenLine.FindStringSubmatch(strings.Join(s.before, "\n"))[1]

	out, errs, code := c.run(append([]string{"serve", "--addr", "127.0.0.1:0"}, node...)...)
	if code != 1 || !strings.Contains(errs, "is in use by another hubd serve (pid ") || strings.Contains(out, "listening") {
		t.Fatalf("second serve: exit %d, stdout %q, stderr %q", code, out, errs)
	}

	// Provisioning commands run beside the server, and it sees their work.
	c.ok("user", "create", "--login", "mona")
	c.ok("org", "create", "--login", "acme", "--admin", "mona")
	tok := strings.TrimSpace(c.ok("token", "create", "--user", "mona", "--scopes", "repo"))
	if st, _, me := s.get(t, "/api/v3/user", tok); st != 200 || me["login"] != "mona" {
		t.Fatalf("GET /user with a token made beside the server: %d %v", st, me)
	}
	if st, _, org := s.get(t, "/api/v3/orgs/acme", admin); st != 200 || org["login"] != "acme" {
		t.Fatalf("GET /orgs/acme: %d %v", st, org)
	}

	// SIGKILL: no clean shutdown, and the next start works all the same.
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s = c.serve(node...)
	if st, _, me := s.get(t, "/user", tok); st != 200 || me["login"] != "mona" {
		t.Fatalf("after a killed server: %d %v", st, me)
	}
	s.stop(t)
}

// A bad listen address fails before anything is created: no data
// directory, no administrator, no token printed.
func TestServeBadAddr(t *testing.T) {
	c := newCLI(t)
	c.data = filepath.Join(c.data, "new")
	for _, addr := range []string{"bad", "127.0.0.1:99999"} {
		out, errs, code := c.run("serve", "--addr", addr)
		if code != 1 || !strings.Contains(errs, "--addr "+addr) || strings.Contains(out, "token:") {
			t.Fatalf("serve --addr %s: exit %d, stdout %q, stderr %q", addr, code, out, errs)
		}
	}
	if _, err := os.Stat(c.data); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("serve with a bad address created %s: %v", c.data, err)
	}
	// So the first good start is still the first start.
	s := c.serve()
	if out := strings.Join(s.before, "\n"); !tokenLine.MatchString(out) {
		t.Fatalf("first good start printed:\n%s", out)
	}
	s.stop(t)
}

// Database addresses: what is not PostgreSQL or SQLite is refused before any
// file is made, in the data directory or the working directory.
func TestDatabaseFlag(t *testing.T) {
	wd := t.TempDir()
	data := filepath.Join(wd, "data")
	os.Mkdir(data, 0o755)
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--database", "mysql://x"}, `database "mysql://x": unsupported`},
		{[]string{"--database", "garbage"}, `database "garbage": not a postgres:// URL`},
		{[]string{"--database", "sqlite:x.db?synchronous=off"}, "synchronous must be full or normal"},
		{[]string{"--sqlite-synchronous", "sometimes"}, `--sqlite-synchronous "sometimes": want full or normal`},
		{[]string{"--database", "postgres://127.0.0.1:1/x", "--sqlite-synchronous", "normal"}, "applies to SQLite"},
	} {
		args := append([]string{"user", "create", "--login", "mona", "--data", data}, tc.args...)
		_, errs, code := runIn(t, wd, args...)
		if code != 1 || !strings.Contains(errs, tc.err) {
			t.Errorf("hubd %v: exit %d, stderr %q; want %q", args, code, errs, tc.err)
		}
		_, errs, code = runIn(t, wd, append([]string{"serve", "--addr", "127.0.0.1:0", "--data", data}, tc.args...)...)
		if code != 1 || !strings.Contains(errs, tc.err) {
			t.Errorf("hubd serve %v: exit %d, stderr %q; want %q", tc.args, code, errs, tc.err)
		}
	}
	if got := entries(t, wd); len(got) != 1 || len(entries(t, data)) != 0 {
		t.Fatalf("refused addresses created files: %v %v", got, entries(t, data))
	}

	// sqlite:PATH and the faster synchronous setting work.
	db := filepath.Join(wd, "elsewhere", "hubd.db")
	runOK := func(args ...string) string {
		t.Helper()
		out, errs, code := runIn(t, wd, args...)
		if code != 0 {
			t.Fatalf("hubd %v: exit %d: %s%s", args, code, out, errs)
		}
		return errs
	}
	errs := runOK("user", "create", "--login", "mona", "--data", data, "--database", "sqlite:"+db, "--sqlite-synchronous", "normal")
	if !strings.Contains(errs, "SQLite database "+db) {
		t.Errorf("stderr does not name the database: %q", errs)
	}
	runOK("token", "create", "--user", "mona", "--data", data, "--database", db)

	// A database that cannot be opened is named.
	os.Mkdir(filepath.Join(wd, "dir.db"), 0o755)
	_, errs, code := runIn(t, wd, "user", "create", "--login", "x", "--data", data, "--database", "dir.db")
	if code != 1 || !strings.Contains(errs, "dir.db") {
		t.Errorf("unopenable database: exit %d, stderr %q", code, errs)
	}
}

// Which data directory a command uses is printed; only serve creates one;
// read-only commands create nothing at all.
func TestDataDirectory(t *testing.T) {
	wd := t.TempDir()
	for _, args := range [][]string{
		{"catalogue", "--status", "never"},
		{"version"},
		{"help"},
	} {
		if _, errs, code := runIn(t, wd, args...); code != 0 {
			t.Fatalf("hubd %v: exit %d: %s", args, code, errs)
		}
	}
	if got := entries(t, wd); len(got) != 0 {
		t.Fatalf("read-only commands created %v", got)
	}

	// Provisioning refuses a data directory that does not exist.
	for _, args := range [][]string{
		{"user", "create", "--login", "mona"},
		{"org", "create", "--login", "acme", "--admin", "mona"},
		{"token", "create", "--user", "mona"},
	} {
		_, errs, code := runIn(t, wd, args...)
		if code != 1 || !strings.Contains(errs, filepath.Join(wd, "hubd-data")+" does not exist") {
			t.Errorf("hubd %v in an empty directory: exit %d, stderr %q", args, code, errs)
		}
	}
	if got := entries(t, wd); len(got) != 0 {
		t.Fatalf("refused provisioning created %v", got)
	}

	// Missing required flags are usage errors, not lookups of "".
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"token", "create"}, "--user is required"},
		{[]string{"org", "create", "--login", "acme"}, "--admin is required"},
	} {
		_, errs, code := runIn(t, wd, tc.args...)
		if code != 1 || !strings.Contains(errs, tc.err) || !strings.Contains(errs, "Usage of hubd") || strings.Contains(errs, `no user ""`) {
			t.Errorf("hubd %v: exit %d, stderr %q", tc.args, code, errs)
		}
	}

	// An existing directory is used, and named on stderr (one line).
	data := filepath.Join(wd, "data")
	os.Mkdir(data, 0o755)
	out, errs, code := runIn(t, wd, "user", "create", "--login", "mona", "--data", "data")
	if code != 0 || errs != "hubd: data directory "+data+"\n" || !strings.HasPrefix(out, "created user mona") {
		t.Fatalf("user create: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// git clones and pushes through the timeouts: the transfers are streamed
// through wrappers that move the deadlines (see server.stream).
func TestServeGitWithTimeouts(t *testing.T) {
	c := newCLI(t)
	s := c.serve("--read-timeout", "2s", "--write-timeout", "2s", "--idle-timeout", "2s")
	admin := tokenLine.FindStringSubmatch(strings.Join(s.before, "\n"))[1]
	if st, _, repo := s.do(t, "POST", "/api/v3/user/repos", admin, `{"name":"r","auto_init":true}`); st != 201 {
		t.Fatalf("create repository: %d %v", st, repo)
	}
	dir := t.TempDir()
	remote := strings.Replace(s.base, "http://", "http://hubadmin:"+admin+"@", 1) + "/hubadmin/r.git"
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("clone", remote, "r")
	dir = filepath.Join(dir, "r")
	big := make([]byte, 4<<20)
	rand.Read(big)
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "big.bin")
	git("commit", "-m", "big")
	git("push", "origin", "HEAD")
	git("fetch", "origin")
	if st, _, f := s.get(t, "/api/v3/repos/hubadmin/r/contents/big.bin", admin); st != 200 || f["size"] != float64(len(big)) {
		t.Fatalf("pushed file: %d %v", st, f["size"])
	}
	s.stop(t)
}
