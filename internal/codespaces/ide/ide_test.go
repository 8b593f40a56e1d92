package ide_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/hubd/hubd/internal/codespaces/ide"
	"github.com/hubd/hubd/internal/sandbox"
)

// codeServer is the installed code-server; a missing one fails the test
// (scripts/deps.sh installs it).
func codeServer(t testing.TB) string {
	t.Helper()
	bin := ide.DefaultBinary()
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("code-server is not installed at %s: run `bash scripts/deps.sh` or set %s", bin, ide.BinaryEnv)
	}
	return bin
}

// chromium finds Debian's chromium; a missing browser fails the test.
func chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("HUBD_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed: run `bash scripts/deps.sh` (apt-get install chromium) or set HUBD_CHROMIUM")
	return ""
}

// workspace is a git repository with a few files.
func workspace(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"README.md":     "# hello\n",
		"main.go":       "package main\n\nfunc main() {}\n",
		"docs/guide.md": "guide\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	return dir
}

// hubdHeaders stands for hubd's middleware: the API's security headers
// on every response, which the IDE's responses must not keep.
func hubdHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'none'")
		w.Header().Set("X-Frame-Options", "deny")
		h.ServeHTTP(w, r)
	})
}

// server serves m's Handler with a resolver that lets only the cookie
// owner=alice into codespace cs-alice.
func server(t testing.TB, m *ide.Manager) *httptest.Server {
	t.Helper()
	resolve := func(r *http.Request, name string) (bool, bool) {
		c, err := r.Cookie("owner")
		if err != nil || c.Value != "alice" || name != "cs-alice" {
			return false, false
		}
		return true, m.Running(name)
	}
	mux := http.NewServeMux()
	mux.Handle(ide.PathPrefix, m.Handler(resolve))
	srv := httptest.NewServer(hubdHeaders(mux))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, u string, cookie bool, follow bool) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Authorization", "token hubd-secret")
	if cookie {
		req.AddCookie(&http.Cookie{Name: "owner", Value: "alice"})
		req.AddCookie(&http.Cookie{Name: "hubd_session", Value: "secret-session"})
	}
	client := &http.Client{}
	if !follow {
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	} else {
		client.CheckRedirect = func(r *http.Request, via []*http.Request) error {
			if cookie {
				r.AddCookie(&http.Cookie{Name: "owner", Value: "alice"})
			}
			return nil
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// upgrade sends a websocket handshake for the IDE's remote connection and
// returns the status line and headers of the answer.
func upgrade(t *testing.T, srv *httptest.Server, path string, cookie bool) (string, http.Header) {
	t.Helper()
	u, _ := url.Parse(srv.URL)
	c, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := "GET " + path + " HTTP/1.1\r\nHost: " + u.Host + "\r\nOrigin: " + srv.URL +
		"\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
	if cookie {
		req += "Cookie: owner=alice\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Status, resp.Header
}

func TestStartWithoutCodeServer(t *testing.T) {
	m := ide.New(ide.Options{Binary: filepath.Join(t.TempDir(), "code-server")})
	err := m.Start(context.Background(), "cs-x", workspace(t), nil)
	if !errors.Is(err, ide.ErrNotInstalled) {
		t.Fatalf("Start without code-server: %v, want ErrNotInstalled", err)
	}
	if m.Running("cs-x") {
		t.Fatal("a failed start left the IDE running")
	}
}

// TestIDEThroughProxy starts code-server in the sandbox on a workspace,
// opens its workbench in chromium through the authorizing proxy, sees the
// explorer list the workspace's files, and checks the proxy's refusals,
// headers, websocket upgrade, activity and Stop.
func TestIDEThroughProxy(t *testing.T) {
	codeServer(t)
	browserExe := chromium(t)
	dir := workspace(t)
	m := ide.New(ide.Options{Log: testLog{t}})
	t.Cleanup(m.StopAll)
	srv := server(t, m)

	// As root (hubd serve's case), the IDE runs inside its codespace's
	// cgroup: code-server, and every process it starts (the terminal
	// below), under the codespace's limits.
	var group *sandbox.Group
	if os.Geteuid() == 0 {
		root, err := sandbox.Delegate(0, 0, fmt.Sprintf("test-ide-%d", os.Getpid()))
		if err != nil {
			t.Fatal(err)
		}
		if group, err = sandbox.NewGroup(root, "cs-alice", sandbox.Limits{MemoryBytes: 2 << 30, Processes: 4096}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := group.Remove(); err != nil {
				t.Error(err)
			}
			if err := sandbox.Undelegate(root); err != nil {
				t.Error(err)
			}
		})
	}
	began := time.Now()
	if err := m.StartIn(context.Background(), "cs-alice", dir, []string{"GREETING=hello"}, group, nil); err != nil {
		t.Fatal(err)
	}
	ready := time.Since(began)
	if !m.Running("cs-alice") {
		t.Fatal("Running is false after Start")
	}
	if note := m.Note("cs-alice"); !strings.Contains(note, "bubblewrap") {
		t.Fatalf("the IDE does not run in the bubblewrap sandbox: %q", note)
	}
	// Start again on the same directory: nothing new.
	if err := m.Start(context.Background(), "cs-alice", dir, nil); err != nil {
		t.Fatalf("second Start: %v", err)
	}
	// The socket is private: in a 0700 directory, mode 0600.
	sock := filepath.Join(dir, ide.StateDir, "ide.sock")
	if fi, err := os.Stat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm()&0o077 != 0 {
		t.Fatalf("socket %s: %v %v", sock, fi, err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, ide.StateDir)); fi.Mode().Perm() != 0o700 {
		t.Fatalf("state directory mode %v, want 0700", fi.Mode().Perm())
	}
	// The IDE's state is not part of the workspace's changes.
	if out, err := exec.Command("git", "-C", dir, "status", "--porcelain").Output(); err != nil || strings.Contains(string(out), ide.StateDir) {
		t.Fatalf("git status shows the IDE's state: %v %s", err, out)
	}

	// Refusals are 404 and reach no IDE.
	for _, c := range []struct {
		path   string
		cookie bool
	}{{"/codespaces/cs-alice/", false}, {"/codespaces/cs-bob/", true}, {"/codespaces/", true}} {
		if resp := get(t, srv.URL+c.path, c.cookie, false); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("GET %s (cookie %v): %d, want 404", c.path, c.cookie, resp.StatusCode)
		}
	}
	if status, _ := upgrade(t, srv, "/codespaces/cs-alice/?reconnectionToken=t1&reconnection=false&skipWebSocketFrames=false", false); !strings.HasPrefix(status, "404") {
		t.Fatalf("websocket upgrade without authorization: %s, want 404", status)
	}

	// The prefix without its slash redirects to the workbench.
	resp := get(t, srv.URL+"/codespaces/cs-alice?x=1", true, false)
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/codespaces/cs-alice/?x=1" {
		t.Fatalf("GET /codespaces/cs-alice: %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// The workbench page, under the prefix, without hubd's policy.
	resp = get(t, srv.URL+"/codespaces/cs-alice/", true, true)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Request.URL.Path, "/codespaces/cs-alice/") {
		t.Fatalf("workbench: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	if !strings.Contains(string(body), "workbench") {
		t.Fatalf("workbench page does not load the workbench:\n%.2000s", body)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); strings.Contains(csp, "default-src 'none'") {
		t.Fatalf("proxied page kept hubd's policy %q", csp)
	}
	if xfo := resp.Header.Get("X-Frame-Options"); strings.EqualFold(xfo, "deny") {
		t.Fatalf("proxied page kept X-Frame-Options %q", xfo)
	}

	// A websocket upgrade passes the proxy and counts as activity.
	before := m.LastActivity("cs-alice")
	time.Sleep(10 * time.Millisecond)
	status, h := upgrade(t, srv, "/codespaces/cs-alice/?reconnectionToken=t2&reconnection=false&skipWebSocketFrames=false", true)
	if !strings.HasPrefix(status, "101") || !strings.EqualFold(h.Get("Upgrade"), "websocket") {
		t.Fatalf("websocket upgrade: %s %v", status, h)
	}
	if !m.LastActivity("cs-alice").After(before) {
		t.Fatal("LastActivity did not move with proxied traffic")
	}

	// Chromium through the proxy: the workbench lists the workspace.
	ctx := browser(t, browserExe)
	err := chromedp.Do(ctx,
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, network.SetCookie, network.SetCookieParams{Name: "owner", Value: "alice", URL: srv.URL})
			return err
		}),
		chromedp.Navigate(srv.URL+"/codespaces/cs-alice/"),
	)
	if err != nil {
		t.Fatal(err)
	}
	names, err := chromedp.Run(ctx, chromedp.Poll[[]string](`(() => {
			const names = [...document.querySelectorAll('.explorer-folders-view .monaco-list-row .label-name')].map(e => e.textContent.trim());
			return ['README.md', 'main.go', 'docs'].every(n => names.includes(n)) ? names : null;
		})()`, chromedp.WithPollingTimeout(3*time.Minute), chromedp.WithPollingInterval(100*time.Millisecond)))
	if err != nil {
		title, _ := chromedp.Run(ctx, chromedp.Title())
		html, _ := chromedp.Run(ctx, chromedp.OuterHTML("body"))
		t.Fatalf("the workbench did not list the workspace: %v (title %q)\n%.3000s", err, title, html)
	}
	loaded := time.Since(began)

	// A terminal of the workbench (node-pty inside the sandbox, over the
	// proxied websocket) runs a command in the workspace, with the
	// codespace's environment.
	// The command palette, then the command: again from the start until
	// the palette lists it (a key pressed while the workbench still starts
	// its keybindings, or a command typed before the terminal's commands are
	// registered, is lost).
	palette := `document.querySelector('.quick-input-widget input') && document.activeElement === document.querySelector('.quick-input-widget input')`
	listed := `[...document.querySelectorAll('.quick-input-list .monaco-list-row')].some(r => r.textContent.includes('Create New Terminal'))`
	for start := time.Now(); ; {
		err = chromedp.Do(ctx, chromedp.KeyEvent(kb.Escape), chromedp.KeyEvent(kb.F1),
			chromedp.Poll[chromedp.Void](palette, chromedp.WithPollingTimeout(5*time.Second)),
			chromedp.KeyEvent("Terminal: Create New Terminal"),
			chromedp.Poll[chromedp.Void](listed, chromedp.WithPollingTimeout(10*time.Second)))
		if err == nil || time.Since(start) > 2*time.Minute {
			break
		}
	}
	if err != nil {
		t.Fatalf("the command palette does not list Create New Terminal: %v", err)
	}
	err = chromedp.Do(ctx,
		chromedp.KeyEvent(kb.Enter),
		chromedp.Poll[chromedp.Void](`document.querySelector('.terminal-wrapper .xterm-helper-textarea') && document.activeElement === document.querySelector('.terminal-wrapper .xterm-helper-textarea')`,
			chromedp.WithPollingTimeout(2*time.Minute)),
	)
	if err != nil {
		t.Fatalf("open a terminal in the workbench: %v", err)
	}
	out := filepath.Join(dir, "from-terminal.txt")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		// Typed again until the shell has started and run it. The shell
		// writes a file beside it and renames it, so the test never reads
		// the file between its creation and the echo's write.
		if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, input.InsertText, input.InsertTextParams{Text: `echo "$GREETING" > from-terminal.tmp && mv from-terminal.tmp from-terminal.txt`})
			return err
		}), chromedp.KeyEvent(kb.Enter)); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(out)
		for i := 0; i < 20 && err != nil; i++ {
			time.Sleep(100 * time.Millisecond)
			b, err = os.ReadFile(out)
		}
		if err == nil {
			if strings.TrimSpace(string(b)) != "hello" {
				t.Fatalf("the terminal wrote %q, want hello (the codespace's GREETING)", b)
			}
			break
		}
		if time.Now().After(deadline) {
			rows, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('.terminal-wrapper .xterm-rows > div, .terminal-wrapper .xterm-accessibility-tree > div')].map(e => e.textContent).join('\n') + '\n' + [...document.querySelectorAll('.notification-list-item-message, .terminal-message-widget')].map(e => e.textContent).join('\n')`))
			// IDE_SCREENSHOT=file.png keeps what the browser showed.
			if png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil && os.Getenv("IDE_SCREENSHOT") != "" {
				os.WriteFile(os.Getenv("IDE_SCREENSHOT"), png, 0o644)
			}
			t.Fatalf("the workbench's terminal did not run the command; the terminal shows:\n%s", rows)
		}
	}
	for _, n := range names {
		if n == ide.StateDir {
			t.Fatalf("the explorer lists the IDE's state: %v", names)
		}
	}
	mem, _ := m.Memory("cs-alice")
	if group != nil {
		// Every process of the IDE, the terminal's shell included.
		in := group.Pids()
		for _, p := range mem.Each {
			// A process that ended meanwhile (gone, or a zombie with no
			// command line) has left every cgroup.
			if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.Pid)); err == nil && len(cmd) > 0 && !slices.Contains(in, p.Pid) {
				t.Fatalf("process %d (%s) of the IDE is not in the codespace's cgroup %v", p.Pid, p.Command, in)
			}
		}
		if len(mem.Each) < 3 {
			t.Fatalf("the IDE has %d processes", len(mem.Each))
		}
	}
	t.Logf("code-server answered %v after Start; the workbench listed %v %v after Start; with the workbench open: %d processes, RSS %d MiB, PSS %d MiB",
		ready.Round(time.Millisecond), names, loaded.Round(time.Millisecond), mem.Processes, mem.RSS>>20, mem.PSS>>20)

	// Stop: the IDE and its socket go, the codespace reads as stopped.
	if err := m.Stop("cs-alice"); err != nil {
		t.Fatal(err)
	}
	if m.Running("cs-alice") {
		t.Fatal("Running after Stop")
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket after Stop: %v", err)
	}
	if resp := get(t, srv.URL+"/codespaces/cs-alice/", true, false); resp.StatusCode != http.StatusConflict {
		t.Fatalf("GET a stopped codespace: %d, want 409", resp.StatusCode)
	}
	if !m.LastActivity("cs-alice").IsZero() {
		t.Fatal("LastActivity of a stopped IDE is not zero")
	}
}

// TestIDEAsRunnerUser: hubd running as root runs the IDE as its runner
// user (scripts/deps.sh makes hubd-runner), as it runs workflow jobs; run
// as another user, the IDE runs as that user.
func TestIDEAsRunnerUser(t *testing.T) {
	codeServer(t)
	dir := workspace(t)
	want := os.Geteuid()
	var cred *syscall.Credential
	if want == 0 {
		u, err := user.Lookup("hubd-runner")
		if err != nil {
			t.Fatalf("the runner user hubd-runner is missing: run `bash scripts/deps.sh`: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		want = uid
		filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, uid, gid) })
	}
	bin := ""
	if cred != nil {
		// The installation in root's cache, shared where the runner
		// user can read it.
		began := time.Now()
		var err error
		share := t.TempDir()
		// The test's temporary directories are root's alone: open the
		// one above the share and the workspace to the runner user.
		if err := os.Chmod(filepath.Dir(share), 0o755); err != nil {
			t.Fatal(err)
		}
		if bin, err = ide.Share(ide.DefaultBinary(), share); err != nil {
			t.Fatal(err)
		}
		t.Logf("shared the installation in %v", time.Since(began).Round(time.Millisecond))
	}
	m := ide.New(ide.Options{Binary: bin, Credential: cred})
	t.Cleanup(m.StopAll)
	srv := server(t, m)
	if err := m.Start(context.Background(), "cs-alice", dir, []string{"GREETING=hello", "HOME=/elsewhere"}); err != nil {
		t.Fatal(err)
	}
	resp := get(t, srv.URL+"/codespaces/cs-alice/healthz", true, false)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz through the proxy: %d", resp.StatusCode)
	}
	// code-server's node process runs as the runner user.
	out, err := exec.Command("ps", "-eo", "uid=,pid=,args=").Output()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && strings.Contains(line, "code-server/out/node/entry.js") && strings.Contains(line, dir) {
			found = true
			if f[0] != strconv.Itoa(want) {
				t.Fatalf("code-server runs as uid %s, want %d: %s", f[0], want, line)
			}
			// The caller's environment, and the IDE's own home.
			environ, err := os.ReadFile("/proc/" + f[1] + "/environ")
			if err != nil {
				t.Fatal(err)
			}
			vars := strings.Split(string(environ), "\x00")
			home := "HOME=" + filepath.Join(dir, ide.StateDir, "home")
			if !slices.Contains(vars, "GREETING=hello") || !slices.Contains(vars, home) || slices.Contains(vars, "HOME=/elsewhere") {
				t.Fatalf("code-server's environment %q, want GREETING=hello and %s", vars, home)
			}
		}
	}
	if !found {
		t.Fatalf("no code-server process for %s in:\n%s", dir, out)
	}
	if err := m.Stop("cs-alice"); err != nil {
		t.Fatal(err)
	}
}

// browser starts a headless chromium with a fresh profile.
func browser(t testing.TB, exe string) context.Context {
	t.Helper()
	parent, stop := context.WithTimeout(context.Background(), 8*time.Minute)
	t.Cleanup(stop)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "profile")),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(parent, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	return ctx
}

// testLog writes code-server's output to the test's log.
type testLog struct{ t testing.TB }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}
