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
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/store"
)

// The test binary doubles as hubd: with HUBD_TEST_MAIN=1 it runs main with
// its arguments, so the tests exec the real command line without a separate
// build.
func TestMain(m *testing.M) {
	if os.Getenv("HUBD_TEST_MAIN") == "1" {
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
	cmd := c.command(args...)
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
	c.t.Fatalf("hubd %v: %v", args, err)
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
}

var listening = regexp.MustCompile(`listening on (\S+)`)

// serve starts `hubd serve` on a free port and waits until it listens; the
// server is stopped when the test ends if stop was not called.
func (c *cli) serve() *running {
	c.t.Helper()
	cmd := c.command("serve", "--addr", "127.0.0.1:0")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		c.t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	s := &running{cmd: cmd}
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
			t.Errorf("hubd serve exited with %v", err)
		}
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-done
		t.Errorf("hubd serve did not stop on interrupt")
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
		{[]string{"user"}, 1, "usage"},
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
