// Package ide runs the browser IDE of codespaces: one code-server per
// running codespace, started on the codespace's workspace directory inside
// the sandbox workflow jobs run in (internal/sandbox), listening only on a
// unix socket in a private directory, with no authentication of its own;
// hubd reaches it through Proxy, behind the caller's own authorization
// (Handler), under the path prefix /codespaces/{name}/.
//
// What the sandbox allows: bubblewrap gives a job one writable directory
// (its work directory) besides a private /tmp that the host cannot reach.
// The workspace is that directory, so the IDE's private state — the socket,
// the user data and extensions directories and the IDE's home — lives in
// the workspace's StateDir (mode 0700, excluded from git when the workspace
// is a repository). code-server's extensions and settings survive a stop.
//
// Wiring (server): one Manager for the process (ide.New with hubd's data
// directory in Hide and, when hubd runs as root, the runner user as
// Credential and the installation shared with Share), given to the
// codespaces service as its IDE, StopAll at shutdown; Handler mounted at
// PathPrefix outside the API's middleware (like oauthweb's pages), with a
// resolver that answers ok only for the codespace's owner (their web session
// or token) and running for a codespace whose IDE should run (it may Start
// one that is Available but not running here, after hubd restarted). The
// websockets are long-lived: no write timeout may apply to PathPrefix.
package ide

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hubd/hubd/internal/sandbox"
)

// Version is the code-server release scripts/deps.sh installs.
const Version = "4.139.1"

// StateDir is the directory, inside a workspace, of its IDE's private state.
const StateDir = ".hubd-ide"

// BinaryEnv names the environment variable that overrides the code-server
// binary (hubd serve's --code-server flag sets Options.Binary instead).
const BinaryEnv = "HUBD_CODE_SERVER"

// DefaultBinary is the code-server that runs when Options.Binary is empty:
// $HUBD_CODE_SERVER, else the one scripts/deps.sh installs into the cache
// (${XDG_CACHE_HOME:-$HOME/.cache}/hubd/code-server-4.139.1/bin/code-server).
func DefaultBinary() string {
	if p := os.Getenv(BinaryEnv); p != "" {
		return p
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "hubd", "code-server-"+Version, "bin", "code-server")
}

// Options configure a Manager.
type Options struct {
	// Binary is code-server's bin/code-server (the entry script); the
	// node beside it (bin/node) runs it when there is one, else node on
	// PATH. Empty: DefaultBinary.
	Binary string
	// Sandbox is sandbox.ModeBwrap ("" too) or sandbox.ModeNone (an
	// explicit operator choice: no isolation).
	Sandbox string
	// Hide are directories the IDE may not see (hubd's data directory;
	// the workspace itself stays visible and writable).
	Hide []string
	// Credential, when set, is the user the IDE runs as (hubd as root
	// drops to its runner user); the workspace must be theirs.
	Credential *syscall.Credential
	// Limits bound each IDE (zero fields: the sandbox's defaults, but
	// DefaultProcesses processes).
	Limits sandbox.Limits
	// CgroupRoot is a delegated cgroup (sandbox.Delegate) for the limits.
	CgroupRoot string
	// Log receives code-server's output (nil: kept only for errors).
	Log io.Writer
	// StartTimeout bounds how long Start waits for code-server to answer
	// (default 90 s).
	StartTimeout time.Duration
	// ReconnectionGrace is how long code-server keeps a browser window's
	// session (its extension host, a few hundred MiB) after the browser
	// went away; a window back later reloads. Default 10 minutes
	// (code-server's own is 3 hours, which keeps every idle IDE at its
	// busy size).
	ReconnectionGrace time.Duration
}

// DefaultProcesses is the default process (and thread) limit of an IDE.
const DefaultProcesses = 4096

// DefaultReconnectionGrace is Options.ReconnectionGrace's default.
const DefaultReconnectionGrace = 10 * time.Minute

// Manager runs the codespaces' IDEs. The zero value is not usable: New.
type Manager struct {
	opts Options

	mu   sync.Mutex
	ides map[string]*instance
}

// New makes a Manager.
func New(opts Options) *Manager {
	if opts.Binary == "" {
		opts.Binary = DefaultBinary()
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 90 * time.Second
	}
	if opts.ReconnectionGrace <= 0 {
		opts.ReconnectionGrace = DefaultReconnectionGrace
	}
	if opts.Limits.Processes <= 0 {
		// Without a cgroup the limit is RLIMIT_NPROC, which counts the
		// threads of every process of the user: one IDE alone has some
		// sixty (node's workers in each of its processes).
		opts.Limits.Processes = DefaultProcesses
	}
	return &Manager{opts: opts, ides: map[string]*instance{}}
}

// instance is one running code-server.
type instance struct {
	name, dir, sock string
	proc            *sandbox.Process
	cancel          context.CancelFunc
	exited          chan struct{} // closed when every process of the IDE ended
	last            atomic.Int64  // unix nanoseconds of the last proxied traffic
	started         time.Time
	out             *tail
	transport       *http.Transport
	// ports are the codespace's forwarded ports (Proxy serves them at
	// proxy/PORT/ under the IDE's prefix).
	ports map[int]bool
}

func (in *instance) touch() { in.last.Store(time.Now().UnixNano()) }

// ErrNotInstalled is Start's error when code-server is missing.
var ErrNotInstalled = errors.New("code-server is not installed: run `bash scripts/deps.sh` or set " + BinaryEnv)

// Start starts the IDE of codespace name on its workspace dir, with env (KEY=value)
// added to the IDE's environment (terminals and tasks see it), and returns
// once code-server answers on its socket. Starting a running IDE on the
// same directory does nothing. ctx bounds the start only.
func (m *Manager) Start(ctx context.Context, name, dir string, env []string) error {
	return m.StartIn(ctx, name, dir, env, nil, nil)
}

// StartIn is Start with the IDE (code-server, its terminals, tasks and
// extension hosts) in a group of its own inside the codespace's cgroup
// group, whose cores and memory it shares with the codespace's other
// processes (nil: Options.CgroupRoot), and ports forwarded: Proxy serves
// each at proxy/PORT/ under the IDE's prefix, from the codespace's own
// processes listening on the host's loopback (the sandbox keeps the
// network). code-server's own proxy stays off: it would reach any port.
func (m *Manager) StartIn(ctx context.Context, name, dir string, env []string, group *sandbox.Group, ports []int) error {
	if name == "" || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("ide: bad codespace name %q", name)
	}
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("ide: workspace %q is not an absolute path", dir)
	}
	dir = filepath.Clean(dir)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("ide: workspace %s is not a directory", dir)
	}
	bin, node, err := m.binaries()
	if err != nil {
		return err
	}

	m.mu.Lock()
	if in := m.ides[name]; in != nil {
		m.mu.Unlock()
		if in.dir != dir {
			return fmt.Errorf("ide: codespace %s already runs on %s", name, in.dir)
		}
		return nil
	}
	// The name is taken while the IDE starts: a second Start waits for
	// nothing and sees it running (or the failed start's cleanup).
	in := &instance{name: name, dir: dir, exited: make(chan struct{}), started: time.Now(), out: &tail{max: 16 << 10}, ports: map[int]bool{}}
	for _, p := range ports {
		in.ports[p] = true
	}
	m.ides[name] = in
	m.mu.Unlock()

	if err := m.launch(ctx, in, bin, node, env, group); err != nil {
		m.mu.Lock()
		if m.ides[name] == in {
			delete(m.ides, name)
		}
		m.mu.Unlock()
		return err
	}
	return nil
}

// binaries are the code-server entry script and the node that runs it.
func (m *Manager) binaries() (bin, node string, err error) {
	bin = m.opts.Binary
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
		return "", "", fmt.Errorf("%w (no %s)", ErrNotInstalled, bin)
	}
	node = filepath.Join(filepath.Dir(bin), "node")
	if _, err := os.Stat(node); err != nil {
		if node, err = exec.LookPath("node"); err != nil {
			return "", "", fmt.Errorf("%w (no node beside %s nor on PATH)", ErrNotInstalled, bin)
		}
	}
	// The entry script is a link into the package: the sandbox binds its
	// real tree read-only when it lies under a hidden directory.
	if real, err := filepath.EvalSymlinks(bin); err == nil {
		bin = real
	}
	if real, err := filepath.EvalSymlinks(node); err == nil {
		node = real
	}
	return bin, node, nil
}

// defaultSettings are the user settings of a codespace's first start.
const defaultSettings = `{
  "files.exclude": {"**/` + StateDir + `": true},
  "files.watcherExclude": {"**/` + StateDir + `/**": true},
  "search.exclude": {"**/` + StateDir + `": true},
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "workbench.enableExperiments": false,
  "chat.disableAIFeatures": true,
  "chat.agent.enabled": false
}
`

// maxSocketPath is the longest unix socket path Linux binds (sun_path less
// its terminating NUL).
const maxSocketPath = 107

func (m *Manager) launch(ctx context.Context, in *instance, bin, node string, env []string, group *sandbox.Group) error {
	state := filepath.Join(in.dir, StateDir)
	home := filepath.Join(state, "home")
	data := filepath.Join(state, "data")
	exts := filepath.Join(state, "extensions")
	for _, d := range []string{state, home, data, exts} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("ide: %v", err)
		}
	}
	if err := os.Chmod(state, 0o700); err != nil {
		return fmt.Errorf("ide: %v", err)
	}
	in.sock = filepath.Join(state, "ide.sock")
	if len(in.sock) > maxSocketPath {
		return fmt.Errorf("ide: socket path %s is longer than the %d bytes a unix socket allows: use a shorter workspace path", in.sock, maxSocketPath)
	}
	os.Remove(in.sock) // a stale socket of an IDE that was killed
	config := filepath.Join(state, "config.yaml")
	if err := os.WriteFile(config, []byte("auth: none\ncert: false\n"), 0o600); err != nil {
		return fmt.Errorf("ide: %v", err)
	}
	excludeFromGit(in.dir)
	settings := filepath.Join(data, "User", "settings.json")
	if _, err := os.Stat(settings); errors.Is(err, os.ErrNotExist) {
		// First start: the IDE's state stays out of the explorer, search
		// and file watching; nothing phones home.
		if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
			return fmt.Errorf("ide: %v", err)
		}
		if err := os.WriteFile(settings, []byte(defaultSettings), 0o600); err != nil {
			return fmt.Errorf("ide: %v", err)
		}
	}
	if c := m.opts.Credential; c != nil {
		for _, p := range []string{state, home, data, exts, config, filepath.Dir(settings), settings} {
			if err := os.Chown(p, int(c.Uid), int(c.Gid)); err != nil {
				return fmt.Errorf("ide: %v", err)
			}
		}
	}

	// A small young generation (code-server's processes inherit node's
	// flags): an idle IDE keeps some 50 MiB less.
	argv := []string{node, "--max-semi-space-size=2", bin,
		"--auth", "none",
		"--socket", in.sock, "--socket-mode", "600",
		"--disable-telemetry", "--disable-update-check",
		"--disable-getting-started-override", "--disable-proxy",
		"--ignore-last-opened",
		"--reconnection-grace-time", strconv.Itoa(max(1, int(m.opts.ReconnectionGrace/time.Second))),
		"--config", config,
		"--user-data-dir", data,
		"--extensions-dir", exts,
		in.dir,
	}
	full := append([]string{
		"PATH=" + filepath.Dir(node) + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"USER=codespace",
		"LANG=C.UTF-8",
		"TMPDIR=/tmp",
		"SHELL=/bin/bash",
		"CODESPACES=true",
	}, env...)
	full = append(full,
		// The IDE's own directories, whatever env says.
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
	)

	cfg := sandbox.Config{Mode: m.opts.Sandbox, WorkDir: in.dir, Hide: m.opts.Hide,
		ReadOnly:   []string{packageRoot(bin), filepath.Dir(node)},
		Limits:     m.opts.Limits,
		CgroupRoot: m.opts.CgroupRoot, Credential: m.opts.Credential}
	if group != nil {
		// The codespace's memory is the IDE's too (a kill names it).
		cfg.CgroupRoot, cfg.Limits.MemoryBytes = group.Root(), group.Limits().MemoryBytes
	}
	var out io.Writer = in.out
	if m.opts.Log != nil {
		out = io.MultiWriter(in.out, m.opts.Log)
	}
	// The IDE outlives the request that started it: its own context,
	// ended by Stop.
	life, cancel := context.WithCancel(context.Background())
	p, err := sandbox.Start(life, cfg, argv, dedupEnv(full), nil, out, out, nil)
	if err != nil {
		cancel()
		return fmt.Errorf("ide: %v", err)
	}
	transport := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, "unix", in.sock)
			if err != nil {
				return nil, err
			}
			return &activeConn{Conn: c, in: in}, nil
		},
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
	}
	in.touch()
	m.mu.Lock()
	in.proc, in.cancel, in.transport = p, cancel, transport
	m.mu.Unlock()
	go func() {
		p.Wait()
		cancel()
		transport.CloseIdleConnections()
		m.mu.Lock()
		if m.ides[in.name] == in {
			delete(m.ides, in.name)
		}
		m.mu.Unlock()
		close(in.exited)
	}()

	if err := m.waitReady(ctx, in); err != nil {
		p.Kill()
		<-in.exited
		return err
	}
	return nil
}

// waitReady waits until code-server answers its health check.
func (m *Manager) waitReady(ctx context.Context, in *instance) error {
	ctx, cancel := context.WithTimeout(ctx, m.opts.StartTimeout)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", in.sock)
	}, DisableKeepAlives: true}}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://code-server/healthz", nil)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-in.exited:
			return fmt.Errorf("ide: code-server ended before it answered: %s", strings.TrimSpace(in.out.String()))
		case <-ctx.Done():
			return fmt.Errorf("ide: code-server did not answer within %v: %s", m.opts.StartTimeout, strings.TrimSpace(in.out.String()))
		case <-tick.C:
		}
	}
}

// Stop stops the IDE of codespace name and everything it started, and
// returns once they ended. Stopping an IDE that does not run does nothing.
func (m *Manager) Stop(name string) error {
	in := m.lookup(name)
	if in == nil {
		return nil
	}
	in.proc.Kill()
	select {
	case <-in.exited:
	case <-time.After(30 * time.Second):
		return fmt.Errorf("ide: the IDE of %s did not end", name)
	}
	os.Remove(in.sock)
	return nil
}

// StopAll stops every IDE (hubd's shutdown).
func (m *Manager) StopAll() {
	m.mu.Lock()
	var names []string
	for n := range m.ides {
		names = append(names, n)
	}
	m.mu.Unlock()
	for _, n := range names {
		m.Stop(n)
	}
}

// Running reports whether the IDE of codespace name runs.
func (m *Manager) Running(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	in := m.ides[name]
	return in != nil && in.proc != nil
}

// LastActivity is when the IDE of codespace name last had traffic through
// Proxy: a request, or data the browser sent on a websocket (its start
// when none yet); the zero time when it does not run. An idle timeout
// stops an IDE whose last activity is too old.
func (m *Manager) LastActivity(name string) time.Time {
	m.mu.Lock()
	in := m.ides[name]
	m.mu.Unlock()
	if in == nil {
		return time.Time{}
	}
	return time.Unix(0, in.last.Load())
}

// Note is the sandbox's description of the isolation and limits the IDE of
// codespace name runs under ("" when it does not run).
func (m *Manager) Note(name string) string {
	in := m.lookup(name)
	if in == nil {
		return ""
	}
	return in.proc.Note()
}

// lookup is the running instance of name, nil when none.
func (m *Manager) lookup(name string) *instance {
	m.mu.Lock()
	defer m.mu.Unlock()
	in := m.ides[name]
	if in == nil || in.proc == nil {
		return nil
	}
	return in
}

// activeConn is a connection to code-server that records the browser's
// traffic (what hubd writes to code-server) as activity.
type activeConn struct {
	net.Conn
	in *instance
}

func (c *activeConn) Write(b []byte) (int, error) {
	c.in.touch()
	return c.Conn.Write(b)
}

// excludeFromGit keeps the IDE's state out of the workspace's git status
// (and so out of an export's commit).
func excludeFromGit(dir string) {
	gitDir := filepath.Join(dir, ".git")
	if fi, err := os.Stat(gitDir); err != nil || !fi.IsDir() {
		return
	}
	info := filepath.Join(gitDir, "info")
	exclude := filepath.Join(info, "exclude")
	line := "/" + StateDir + "/"
	old, _ := os.ReadFile(exclude)
	for _, l := range strings.Split(string(old), "\n") {
		if strings.TrimSpace(l) == line {
			return
		}
	}
	if err := os.MkdirAll(info, 0o755); err != nil {
		return
	}
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		old = append(old, '\n')
	}
	os.WriteFile(exclude, append(old, []byte(line+"\n")...), 0o644)
}

// packageRoot is the code-server package directory of its entry script
// (…/code-server/out/node/entry.js → …/code-server).
func packageRoot(entry string) string {
	d := filepath.Dir(entry)
	for i := 0; i < 3 && d != "/"; i++ {
		if _, err := os.Stat(filepath.Join(d, "package.json")); err == nil {
			return d
		}
		d = filepath.Dir(d)
	}
	return filepath.Dir(entry)
}

// dedupEnv keeps the last value of each variable.
func dedupEnv(env []string) []string {
	seen := map[string]int{}
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := seen[k]; ok {
			out[i] = kv
			continue
		}
		seen[k] = len(out)
		out = append(out, kv)
	}
	return out
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
