// Package ghcli runs the real GitHub CLI (gh) against a test hubd.
//
// gh speaks HTTPS to enterprise hosts only, sends REST to https://HOST/api/v3/
// and GraphQL to https://HOST/api/graphql. The harness gives each gh an
// isolated HOME and GH_CONFIG_DIR for the host hubd.test, and two ways in:
//
//   - API traffic: gh's http_unix_socket setting. go-gh then dials the socket
//     for every request, https ones included, and speaks plain HTTP/1.1 on it
//     (its transport's DialTLS returns the unix connection as is), so the
//     test server also listens on a unix socket.
//   - git traffic (gh repo clone, gh pr checkout): gh hands git the URL
//     https://hubd.test/OWNER/REPO.git unchanged, with its own credential
//     helper scoped to https://hubd.test. The isolated .gitconfig sends that
//     URL through an HTTP CONNECT proxy of the harness (http.<url>.proxy) to a
//     TLS listener whose certificate for hubd.test is signed by a CA made for
//     the test (http.<url>.sslCAInfo). The URL, and so the credential
//     helper's protocol=https host=hubd.test, stays what gh chose: a rewrite
//     with url.<base>.insteadOf to http://127.0.0.1:PORT would change both,
//     and gh's helper answers only https for hosts it knows. Nothing needs
//     root, port 443 or /etc/hosts.
//
// hubd's own links (Link headers, url fields) name the apitest.Env's
// ExternalURL, http://127.0.0.1:PORT, not https://hubd.test: gh follows them
// over the socket but sends no token to a host it does not know, so
// `gh api --paginate` on a private repository gets 404 from page 2 on.
// An apitest option to build the Env with ExternalURL https://hubd.test
// would remove that difference.
//
// Every request gh (or git) makes is recorded — method, path, status and,
// for GraphQL, the query and variables — and printed when a test fails.
package ghcli

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/apitest"
)

// Version is the gh release scripts/deps.sh builds.
const Version = "2.100.0"

// Host is the host name gh knows the test server by.
const Host = "hubd.test"

// Binary is the path of the gh scripts/deps.sh builds, or an error saying to
// run `make deps` when it is missing. HUBD_GH names another binary.
func Binary() (string, error) {
	p := os.Getenv("HUBD_GH")
	if p == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("gh: no cache directory (%v): run `make deps` with HOME set", err)
		}
		p = filepath.Join(cache, "hubd", "gh-v"+Version, "gh")
	}
	if st, err := os.Stat(p); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return "", fmt.Errorf("gh %s is not built at %s: run `make deps` (scripts/deps.sh builds it)", Version, p)
	}
	return p, nil
}

// Options change a GH.
type Options struct {
	// GraphQL, when set, answers POST /api/graphql in place of hubd (the
	// capture tool records gh's queries with it).
	GraphQL http.Handler
}

// GH is one isolated gh installation talking to an apitest.Env.
type GH struct {
	T         testing.TB
	Env       *apitest.Env
	Bin       string
	Home      string // HOME, with the .gitconfig; the default working directory
	ConfigDir string // GH_CONFIG_DIR
	Socket    string // the unix socket gh's API traffic goes to

	graphql http.Handler
	log     *requestLog // shared by the copies For makes
}

type requestLog struct {
	mu   sync.Mutex
	reqs []Request
}

// For is g reporting to t (a subtest's): Must and Git fail t. The copy
// shares g's servers, configuration and request log.
func (g *GH) For(t testing.TB) *GH {
	c := *g
	c.T = t
	return &c
}

// Request is one request the test server received from gh or git.
type Request struct {
	Method, Path string // Path includes the query string
	Auth         string // the Authorization scheme (token, Basic, bearer), "" without one
	Status       int
	GraphQL      *GraphQL // for POST /api/graphql
}

// GraphQL is the body of a GraphQL request.
type GraphQL struct {
	Query         string          `json:"query"`
	Variables     json.RawMessage `json:"variables,omitempty"`
	OperationName string          `json:"operationName,omitempty"`
}

func (r Request) String() string {
	s := fmt.Sprintf("%s %s -> %d", r.Method, r.Path, r.Status)
	if r.Auth != "" {
		s += " (" + r.Auth + ")"
	}
	if r.GraphQL != nil {
		s += "\n    query: " + r.GraphQL.Query
		if len(r.GraphQL.Variables) > 0 && string(r.GraphQL.Variables) != "null" {
			s += "\n    variables: " + string(r.GraphQL.Variables)
		}
	}
	return s
}

// Start sets up gh against env: a config for Host pointing at a unix socket
// the test server listens on, an isolated HOME whose .gitconfig reaches the
// server's git over TLS, and a request log. It fails the test when gh is
// not built. The servers stop when the test ends.
func Start(t testing.TB, env *apitest.Env, opts ...Options) *GH {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	// A unix socket path is limited to about 100 bytes: keep it short and
	// outside t.TempDir (whose name carries the test's).
	sockDir, err := os.MkdirTemp("", "gh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	home := t.TempDir()
	g := &GH{T: t, Env: env, Bin: bin, Home: home, ConfigDir: filepath.Join(home, ".config", "gh"),
		Socket: filepath.Join(sockDir, "api.sock"), graphql: o.GraphQL, log: &requestLog{}}
	if err := os.MkdirAll(g.ConfigDir, 0o700); err != nil {
		t.Fatal(err)
	}

	handler := http.HandlerFunc(g.serve)
	unixL, err := net.Listen("unix", g.Socket)
	if err != nil {
		t.Fatalf("gh: unix socket: %v", err)
	}
	g.serveOn(unixL, handler)

	caPEM, cert, err := NewCert(Host)
	if err != nil {
		t.Fatalf("gh: certificate: %v", err)
	}
	caFile := filepath.Join(home, "hubd-ca.pem")
	if err := os.WriteFile(caFile, caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	tcpL, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tlsAddr := tcpL.Addr().String()
	g.serveOn(tls.NewListener(tcpL, &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}}), handler)
	proxyL, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g.serveOn(proxyL, connectProxy(Host+":443", tlsAddr))

	g.writeFile(filepath.Join(g.ConfigDir, "config.yml"), fmt.Sprintf(`version: "1"
git_protocol: https
prompt: disabled
pager: cat
telemetry: disabled
http_unix_socket: %s
`, g.Socket))
	g.writeFile(filepath.Join(home, ".gitconfig"), fmt.Sprintf(`[user]
	name = gh test
	email = gh@%[1]s
[init]
	defaultBranch = main
[advice]
	detachedHead = false
[http "https://%[1]s/"]
	proxy = http://%[2]s
	sslCAInfo = %[3]s
`, Host, proxyL.Addr().String(), caFile))

	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("requests gh made:\n%s", formatRequests(g.Requests()))
		}
	})
	return g
}

func (g *GH) writeFile(path, content string) {
	g.T.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		g.T.Fatal(err)
	}
}

// serveOn serves h on l until the test ends.
func (g *GH) serveOn(l net.Listener, h http.Handler) {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
	go srv.Serve(l)
	g.T.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			srv.Close()
		}
	})
}

// serve records the request and hands it to the test server (or to the
// GraphQL stand-in).
func (g *GH) serve(w http.ResponseWriter, r *http.Request) {
	req := Request{Method: r.Method, Path: r.URL.RequestURI()}
	req.Auth, _, _ = strings.Cut(r.Header.Get("Authorization"), " ")
	isGraphQL := r.URL.Path == "/api/graphql"
	if isGraphQL && r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err == nil {
			var q GraphQL
			if json.Unmarshal(body, &q) == nil {
				req.GraphQL = &q
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	if isGraphQL && g.graphql != nil {
		g.graphql.ServeHTTP(sw, r)
	} else {
		g.Env.HTTP.Config.Handler.ServeHTTP(sw, r)
	}
	req.Status = sw.status
	g.log.mu.Lock()
	g.log.reqs = append(g.log.reqs, req)
	g.log.mu.Unlock()
}

type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (s *statusWriter) WriteHeader(code int) {
	if !s.wrote {
		s.status, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(p []byte) (int, error) {
	s.wrote = true
	return s.ResponseWriter.Write(p)
}

func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Requests lists the requests received so far, oldest first.
func (g *GH) Requests() []Request {
	g.log.mu.Lock()
	defer g.log.mu.Unlock()
	return append([]Request(nil), g.log.reqs...)
}

// GraphQLRequests lists the GraphQL requests received so far.
func (g *GH) GraphQLRequests() []Request {
	var out []Request
	for _, r := range g.Requests() {
		if r.GraphQL != nil {
			out = append(out, r)
		}
	}
	return out
}

func formatRequests(rs []Request) string {
	if len(rs) == 0 {
		return "  (none)"
	}
	var b strings.Builder
	for i, r := range rs {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, r)
	}
	return b.String()
}

// LoginAs stores token for login in gh's hosts.yml exactly as
// `gh auth login --hostname hubd.test --with-token --insecure-storage
// --git-protocol https` stores it; that command itself asks GraphQL for the
// viewer's login.
func (g *GH) LoginAs(login, token string) {
	g.T.Helper()
	g.writeFile(filepath.Join(g.ConfigDir, "hosts.yml"), fmt.Sprintf(`%[1]s:
    users:
        %[2]s:
            oauth_token: %[3]s
    git_protocol: https
    oauth_token: %[3]s
    user: %[2]s
`, Host, login, token))
}

// Environ is the environment gh runs with: nothing of the test process's
// but PATH, so no token, host or pager of the machine leaks in.
func (g *GH) Environ() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + g.Home,
		"GH_CONFIG_DIR=" + g.ConfigDir,
		"XDG_CONFIG_HOME=" + filepath.Join(g.Home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(g.Home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(g.Home, ".local", "state"),
		"XDG_DATA_HOME=" + filepath.Join(g.Home, ".local", "share"),
		"GH_HOST=" + Host,
		"GH_PROMPT_DISABLED=1",
		"GH_NO_UPDATE_NOTIFIER=1",
		"GH_NO_EXTENSION_UPDATE_NOTIFIER=1",
		"GH_SPINNER_DISABLED=1",
		"GH_TELEMETRY=false",
		"DO_NOT_TRACK=1",
		"GH_PAGER=cat",
		"NO_COLOR=1",
		"TERM=dumb",
		"TZ=UTC",
		"LANG=C.UTF-8",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_CONFIG_NOSYSTEM=1",
	}
}

// Result is what one gh (or git) command did.
type Result struct {
	Command        string // "gh" or "git"
	Args           []string
	Stdout, Stderr string
	Code           int       // exit code (-1: did not run to an exit)
	Err            error     // nil on exit code 0
	Requests       []Request // the requests the test server got while it ran
}

func (r *Result) String() string {
	return fmt.Sprintf("%s %s: exit %d (%v)\nstdout:\n%s\nstderr:\n%s\nrequests:\n%s",
		r.Command, strings.Join(r.Args, " "), r.Code, r.Err, r.Stdout, r.Stderr, formatRequests(r.Requests))
}

// Timeout bounds one command.
const Timeout = 2 * time.Minute

// Run runs gh with args in the isolated HOME.
func (g *GH) Run(args ...string) *Result { return g.RunIn(g.Home, "", args...) }

// RunIn runs gh with args in dir, with stdin as its standard input.
func (g *GH) RunIn(dir, stdin string, args ...string) *Result {
	g.T.Helper()
	return g.run(g.Bin, dir, stdin, args)
}

// Must runs gh with args in the isolated HOME and fails the test unless it
// exits 0; it returns the standard output.
func (g *GH) Must(args ...string) string {
	g.T.Helper()
	return g.MustIn(g.Home, "", args...)
}

// MustIn is Must in dir with stdin.
func (g *GH) MustIn(dir, stdin string, args ...string) string {
	g.T.Helper()
	r := g.RunIn(dir, stdin, args...)
	if r.Err != nil {
		g.T.Fatalf("%s", r)
	}
	return r.Stdout
}

// RunGit runs git in dir with gh's environment (its HOME and .gitconfig).
func (g *GH) RunGit(dir string, args ...string) *Result {
	g.T.Helper()
	return g.run("git", dir, "", args)
}

// Git is RunGit that fails the test on error; it returns the trimmed
// standard output.
func (g *GH) Git(dir string, args ...string) string {
	g.T.Helper()
	r := g.RunGit(dir, args...)
	if r.Err != nil {
		g.T.Fatalf("%s", r)
	}
	return strings.TrimSpace(r.Stdout)
}

func (g *GH) run(bin, dir, stdin string, args []string) *Result {
	before := len(g.Requests())
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = g.Environ()
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	// gh starts git and itself (the credential helper): end the whole group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	name := "gh"
	if bin != g.Bin {
		name = bin
	}
	res := &Result{Command: name, Args: args, Stdout: out.String(), Stderr: errb.String(), Code: -1, Err: err}
	var ee *exec.ExitError
	switch {
	case err == nil:
		res.Code = 0
	case errors.As(err, &ee):
		res.Code = ee.ExitCode()
	}
	if ctx.Err() != nil {
		res.Err = fmt.Errorf("timed out after %s: %w", Timeout, err)
	}
	res.Requests = g.Requests()[before:]
	return res
}
