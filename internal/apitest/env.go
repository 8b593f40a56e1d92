// Package apitest is the test harness: an in-process hubd over real HTTP on
// a fresh database (SQLite in a temp dir, or a throwaway PostgreSQL schema
// when HUBD_TEST_DATABASE is a postgres:// URL), real clients, and schema
// validation of every response the tests receive against GitHub's
// description.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/codespaces"
	"github.com/hubd/hubd/internal/gitssh"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/sandbox"
	"github.com/hubd/hubd/internal/server"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
	"github.com/hubd/hubd/internal/wire"
)

// Env is one test's hubd.
type Env struct {
	T          testing.TB
	Store      *store.Store
	Server     *server.Server
	Deps       *api.Deps
	HTTP       *httptest.Server
	URL        string // http://127.0.0.1:PORT (no trailing slash)
	API        string // URL + "/api/v3"
	DataDir    string
	RunnerWork string // the local runners' work root (Options.ActionsWorker)
	Admin      *model.Account
	AdminToken string
	SSHAddr    string // host:port of the SSH transport (Options.SSH)
	// CodespacesURL is the IDEs' own origin (Options.CodespaceIDE).
	CodespacesURL string
	// CodespacesCgroup is the cgroup delegated to the codespaces (as hubd
	// serve delegates one when it runs as root; "" otherwise): each
	// running codespace's group is <dir>/<name> in each hierarchy.
	CodespacesCgroup string

	mu      sync.Mutex
	covered map[string]bool

	reads, serving atomic.Int64
}

// Reads is how many queries the store has run for the requests this
// environment served (not for jobs or other background work), once no request
// is being served: tests take the difference around a request to bound its
// number of queries.
func (e *Env) Reads() int64 {
	for deadline := time.Now().Add(10 * time.Second); e.serving.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	return e.reads.Load()
}

// LeastReads is the fewest queries the requests f makes ran, over three
// runs, each after the jobs then due ran, with the read caches off (so every
// load counts, whatever an earlier request cached and however long ago; a
// job running beside the request counts in its own context, not the
// request's). The least of three leaves out a query some other work might
// add to a request (none is known).
func (e *Env) LeastReads(f func()) int64 {
	e.T.Helper()
	e.Store.Uncached(true)
	defer e.Store.Uncached(false)
	least := int64(-1)
	for range 3 {
		if err := e.Deps.Jobs.Drain(context.Background()); err != nil {
			e.T.Fatalf("apitest: jobs: %v", err)
		}
		before := e.Reads()
		f()
		if n := e.Reads() - before; least < 0 || n < least {
			least = n
		}
	}
	return least
}

// readCounter counts the queries of every request into Env.reads.
type readCounter struct {
	e    *Env
	next http.Handler
}

func (c readCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.e.serving.Add(1)
	defer c.e.serving.Add(-1)
	c.next.ServeHTTP(w, r.WithContext(store.CountReads(r.Context(), &c.e.reads)))
}

// Options change the environment.
type Options struct {
	Limits   *ratelimit.Limits
	MaxBody  int64
	MaxPush  int64 // largest git push pack (0: no limit)
	MaxAsset int64 // largest release asset (0: GitHub's limit)
	NoVerify bool  // skip schema validation (only for raw-protocol tests)
	// ManualJobs starts no job workers: the test runs queued jobs itself
	// (Env.RunJobs), e.g. to see a pull request before its mergeability.
	ManualJobs bool
	// ActionsWorker is the command running one workflow job (a test binary
	// that calls actions.Work); set, one local runner runs jobs (in this
	// process, its workers as RunnerUser when the tests run as root).
	ActionsWorker []string
	// ActionsSandbox is the jobs' sandbox: "" (auto: bubblewrap where it
	// works), "bwrap" or "none".
	ActionsSandbox string
	// JobLimits bound each job of the local runner (zero fields:
	// internal/sandbox's defaults).
	JobLimits sandbox.Limits
	// SSH starts the SSH transport on a free port (Env.SSHAddr); ssh_url
	// points at it.
	SSH bool
	// CodespaceIDE runs codespaces' browser IDE (code-server, installed by
	// scripts/deps.sh) behind web_url, on an origin of its own
	// (Env.CodespacesURL).
	CodespaceIDE bool
	// TokenTTL keeps authentications that long, as hubd serve does for 5 s
	// (0: every request authenticates against the store, so that a revoked
	// token fails at once). Benchmarks of the served path set it.
	TokenTTL time.Duration
	// CodespaceMachines are the machine types offered (nil: the host's).
	CodespaceMachines []codespaces.Machine
	// CodespaceCPUPeriod is the period of the codespaces' CPU quota (0:
	// the kernel's 100 ms).
	CodespaceCPUPeriod time.Duration
}

// New starts an environment; it is torn down when the test ends.
func New(t testing.TB, opts ...Options) *Env {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	sp, err := LoadSpecs()
	if err != nil {
		t.Fatalf("apitest: %v", err)
	}
	e := &Env{T: t, DataDir: t.TempDir(), covered: map[string]bool{}}
	e.Store = storetest.Open(t)
	limits := ratelimit.DefaultLimits()
	limits.Anonymous = 1_000_000 // tests share 127.0.0.1
	limits.Authenticated = 1_000_000
	if o.Limits != nil {
		limits = *o.Limits
	}
	e.HTTP = httptest.NewUnstartedServer(nil)
	e.URL = "http://" + e.HTTP.Listener.Addr().String()
	e.API = e.URL + "/api/v3"
	var sshLn net.Listener
	var sshBase string
	if o.SSH {
		if sshLn, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatalf("apitest: ssh listen: %v", err)
		}
		e.SSHAddr = sshLn.Addr().String()
		host, port, _ := net.SplitHostPort(e.SSHAddr)
		sshBase = wire.SSHBaseFor(host, port)
	}
	cs := server.CodespacesConfig{Credential: RunnerCredential(t)} // as hubd serve: never root's
	if cs.Credential != nil {
		// The runner user must pass through to its workspaces in
		// <DataDir>/codespaces (as hubd serve opens its data directory).
		passThrough(t, e.DataDir)
	}
	cs.Machines, cs.CPUPeriod = o.CodespaceMachines, o.CodespaceCPUPeriod
	cs.Cgroups = codespacesCgroup(t)
	e.CodespacesCgroup = cs.Cgroups
	var ideHTTP *httptest.Server
	if o.CodespaceIDE {
		cs.IDE = codespaceIDE(t, cs.Credential, e.DataDir)
		// The IDEs' origin: another port of the same host, as hubd serve
		// --codespaces-addr makes it.
		ideHTTP = httptest.NewUnstartedServer(nil)
		e.CodespacesURL = "http://" + ideHTTP.Listener.Addr().String()
		cs.URL = e.CodespacesURL
	}
	srv, deps, err := server.Build(server.Config{Store: e.Store, ExternalURL: e.URL, Limits: limits, MaxBody: o.MaxBody, Version: "test",
		GitRoot: filepath.Join(e.DataDir, "git"), MaxPush: o.MaxPush, MaxAsset: o.MaxAsset, SSHBase: sshBase, Codespaces: cs, TokenTTL: o.TokenTTL})
	if err != nil {
		t.Fatalf("apitest: build: %v", err)
	}
	e.Server, e.Deps = srv, deps
	var h http.Handler = srv
	if !o.NoVerify {
		h = &validator{env: e, specs: sp, next: srv}
	}
	e.HTTP.Config.Handler = readCounter{e, h}
	e.HTTP.Start()
	if ideHTTP != nil {
		ideHTTP.Config.Handler = srv.CodespacesHandler()
		ideHTTP.Start()
	}
	stopSSH := func() {}
	if sshLn != nil {
		hostKey, err := gitssh.HostKey(filepath.Join(e.DataDir, "ssh_host_ed25519_key"))
		if err != nil {
			t.Fatalf("apitest: ssh host key: %v", err)
		}
		ssh := srv.SSH()
		done := make(chan struct{})
		go func() { defer close(done); ssh.Serve(sshLn, hostKey) }()
		stopSSH = func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ssh.Shutdown(ctx)
			sshLn.Close()
			<-done
		}
	}
	if !o.ManualJobs {
		deps.Jobs.Poll = 50 * time.Millisecond
		deps.Jobs.Start(2)
	}
	stopRunners := func() {}
	if len(o.ActionsWorker) > 0 {
		deps.Runner.Poll = 50 * time.Millisecond
		deps.Runner.Start(1)
		stopRunners = e.startRunners(deps, 1, o.ActionsWorker, o.ActionsSandbox, o.JobLimits)
	}
	t.Cleanup(func() {
		if cs.IDE != nil {
			cs.IDE.StopAll()
		}
		stopRunners() // before the server closes: it waits for their polls
		stopSSH()
		if ideHTTP != nil {
			ideHTTP.Close()
		}
		e.HTTP.Close()
		deps.Runner.Stop()
		deps.Jobs.Stop()
		deps.Limiter.Close()
		deps.Insights.Close()
		if deps.Metrics != nil {
			deps.Metrics.Close()
		}
		deps.Git.Close()
		e.flushCoverage()
	})
	e.Admin, e.AdminToken = e.NewUser("hubadmin", true)
	return e
}

// AllScopes are the scopes of tokens made by NewUser.
const AllScopes = "repo,user,admin:org,delete_repo,admin:public_key,admin:repo_hook,admin:org_hook,gist,notifications,workflow,site_admin,admin:gpg_key,admin:ssh_signing_key"

// NewUser creates a user straight in the store with a classic token that
// carries AllScopes.
func (e *Env) NewUser(login string, siteAdmin bool) (*model.Account, string) {
	e.T.Helper()
	u := &model.Account{Login: login, Type: model.TypeUser, SiteAdmin: siteAdmin}
	ctx := context.Background()
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateAccount(ctx, u) }); err != nil {
		e.T.Fatalf("apitest: create user %s: %v", login, err)
	}
	return u, e.Token(u, AllScopes)
}

// Token makes a classic token for u with the given comma separated scopes.
func (e *Env) Token(u *model.Account, scopes string) string {
	e.T.Helper()
	var plain string
	ctx := context.Background()
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		plain, _, err = tx.CreateToken(ctx, u.ID, authz.ClassicPAT, authz.ParseScopes(scopes), "test", nil)
		return err
	})
	if err != nil {
		e.T.Fatalf("apitest: token: %v", err)
	}
	return plain
}

// GitHub is a go-github client for token ("" for anonymous), at /api/v3/.
func (e *Env) GitHub(token string) *github.Client {
	e.T.Helper()
	opts := []github.ClientOptionsFunc{github.WithEnterpriseURLs(e.URL+"/", e.URL+"/")}
	if token != "" {
		opts = append(opts, github.WithAuthToken(token))
	}
	c, err := github.NewClient(opts...)
	if err != nil {
		e.T.Fatal(err)
	}
	return c
}

// Response is a raw response with its body read.
type Response struct {
	*http.Response
	Body []byte
}

// JSON decodes the body into v, failing the test on error.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v: %.300s", r.Request.URL.Path, err, r.Body)
	}
}

// Map decodes the body as an object.
func (r *Response) Map(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.JSON(t, &m)
	return m
}

// Do sends a request to path (relative to the API base, e.g. "/user") with
// a token ("" for none). body may be nil, a string or []byte (sent as is),
// or any value (sent as JSON). Extra headers are "Name: value" strings.
func (e *Env) Do(method, path, token string, body any, headers ...string) *Response {
	e.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.T.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	u := path
	if !strings.HasPrefix(path, "http") {
		u = e.API + path
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		e.T.Fatal(err)
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	if token != "" {
		req.Header.Set("Authorization", "token "+token)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.T.Fatal(err)
	}
	return &Response{Response: resp, Body: b}
}

// Must is Do that fails the test unless the status is want.
func (e *Env) Must(want int, method, path, token string, body any, headers ...string) *Response {
	e.T.Helper()
	r := e.Do(method, path, token, body, headers...)
	if r.StatusCode != want {
		e.T.Fatalf("%s %s: status %d, want %d: %.500s", method, path, r.StatusCode, want, r.Body)
	}
	return r
}

// validator checks every response against GitHub's description and records
// which operations answered with a valid success.
type validator struct {
	env   *Env
	specs *Specs
	next  *server.Server
}

func (v *validator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &recorder{ResponseWriter: w, status: 200}
	// The route is found on a copy whose path has no /api/v3 prefix, as the
	// server itself sees it.
	probe := r.Clone(r.Context())
	if p, ok := strings.CutPrefix(probe.URL.Path, "/api/v3"); ok && (p == "" || p[0] == '/') {
		probe.URL.Path, probe.URL.RawPath = p, strings.TrimPrefix(probe.URL.RawPath, "/api/v3")
	}
	v.next.ServeHTTP(rec, r)
	rt, params, ok := v.next.Match(probe)
	if !ok || rt.Extension {
		return
	}
	if strings.Contains(r.Header.Get("Accept"), "text/html") && strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
		// A browser's page at a path the API also answers (a team's
		// html_url, /notifications): not an answer of the API.
		return
	}
	if err := v.specs.Validate(probe, rt.Pattern, params, rec.status, rec.Header(), rec.buf.Bytes()); err != nil {
		v.env.T.Errorf("schema: %s %s -> %d: %v\nbody: %.800s", r.Method, r.URL.Path, rec.status, err, rec.buf.Bytes())
		return
	}
	// A success is a 2xx, or a redirect the operation declares as its
	// answer (the archive downloads answer 302).
	if rec.status >= 200 && rec.status < 400 && rec.status != http.StatusNotModified && v.specs.Declares(probe.Method, rt.Pattern, rec.status) {
		v.env.mu.Lock()
		v.env.covered[rt.OperationID] = true
		v.env.mu.Unlock()
	}
}

type recorder struct {
	http.ResponseWriter
	status int
	wrote  bool
	buf    bytes.Buffer
}

func (r *recorder) WriteHeader(s int) {
	if !r.wrote {
		r.status, r.wrote = s, true
	}
	r.ResponseWriter.WriteHeader(s)
}

func (r *recorder) Write(p []byte) (int, error) {
	r.wrote = true
	if r.buf.Len() < 8<<20 {
		r.buf.Write(p)
	}
	return r.ResponseWriter.Write(p)
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Covered lists the operations that answered a valid success so far.
func (e *Env) Covered() map[string]bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]bool, len(e.covered))
	for k := range e.covered {
		out[k] = true
	}
	return out
}

// flushCoverage appends the covered operation ids to a file in
// HUBD_COVERAGE_DIR, which the catalogue's proof check reads.
func (e *Env) flushCoverage() {
	dir := os.Getenv("HUBD_COVERAGE_DIR")
	if dir == "" {
		return
	}
	os.MkdirAll(dir, 0o755)
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("%d.txt", os.Getpid())), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	for id := range e.Covered() {
		fmt.Fprintln(f, id)
	}
}

// Query builds a path with query parameters.
func Query(path string, kv ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return path + "?" + q.Encode()
}

// RunJobs runs every queued job that is due and waits until no job is
// pending or running (those of the workers included), failing the test
// after 30 seconds.
func (e *Env) RunJobs() {
	e.T.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := e.Deps.Jobs.Drain(ctx); err != nil {
			e.T.Fatalf("apitest: jobs: %v", err)
		}
		counts, err := e.Store.R().JobCounts(ctx)
		if err != nil {
			e.T.Fatalf("apitest: jobs: %v", err)
		}
		if counts["pending"] == 0 && counts["running"] == 0 {
			return
		}
		if time.Now().After(deadline) {
			e.T.Fatalf("apitest: jobs still queued after 30s: %v", counts)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Status is the HTTP status of a go-github call's error (0 when err is not
// an API error answer).
func Status(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) {
		return er.Response.StatusCode
	}
	return 0
}
