package server_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/server"
	"github.com/hubd/hubd/internal/wire"
)

// serveRoutes runs a server with only the given routes behind the real
// middleware and the given timeouts; it returns host:port.
func serveRoutes(t *testing.T, to server.Timeouts, external string, routes ...rest.Route) string {
	t.Helper()
	limits := ratelimit.DefaultLimits()
	limits.Anonymous = 1_000_000
	deps := api.Deps{Limiter: ratelimit.New(limits), URLs: wire.NewURLs(external), Version: "v-test"}
	s, err := server.New(deps, routes)
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer(to)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return ln.Addr().String()
}

// slowRoutes write or read in 6 pieces with pauses: in all longer than the
// timeouts of the tests below, each pause well shorter than them.
func slowRoutes(pause time.Duration) []rest.Route {
	const pieces = 6
	write := func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "text/plain")
		for i := 0; i < pieces; i++ {
			fmt.Fprintf(w, "piece %d\n", i)
			http.NewResponseController(w).Flush()
			time.Sleep(pause)
		}
		return nil
	}
	read := func(w http.ResponseWriter, r *http.Request) error {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return err
		}
		time.Sleep(2 * pause) // answer after the body, past a read timeout
		_, err = fmt.Fprintf(w, "%d bytes\n", len(b))
		return err
	}
	return []rest.Route{
		{Method: "GET", Pattern: "/stream", OperationID: "x/stream", Handler: write, Stream: true, Extension: true},
		{Method: "GET", Pattern: "/slow", OperationID: "x/slow", Handler: write, Extension: true},
		{Method: "POST", Pattern: "/upload", OperationID: "x/upload", Handler: read, Stream: true, Extension: true},
		{Method: "POST", Pattern: "/echo", OperationID: "x/echo", Handler: read, Extension: true},
		{Method: "GET", Pattern: "/ping", OperationID: "x/ping", Handler: func(w http.ResponseWriter, r *http.Request) error {
			return rest.JSON(w, 200, map[string]string{"ok": "yes"})
		}, Extension: true},
	}
}

var short = server.Timeouts{ReadHeader: 300 * time.Millisecond, Read: 300 * time.Millisecond, Write: 300 * time.Millisecond, Idle: 300 * time.Millisecond}

// closedWithin reports whether the server closes conn (after any response)
// within d; the tests give it far longer than the timeouts under test.
func closedWithin(t *testing.T, conn net.Conn, d time.Duration) bool {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// A client that trickles a request body is cut off by the read timeout.
func TestTimeoutTrickledBody(t *testing.T) {
	addr := serveRoutes(t, short, "http://"+"127.0.0.1", slowRoutes(150*time.Millisecond)...)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
	stop := make(chan struct{})
	defer close(stop)
	go func() { // one byte every 50ms: 100 000 bytes would take 80 minutes
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
				if _, err := conn.Write([]byte("x")); err != nil {
					return
				}
			}
		}
	}()
	if !closedWithin(t, conn, 10*time.Second) {
		t.Fatal("a trickling request is still open after 10s with a 300ms read timeout")
	}
}

// An idle keep-alive connection is closed by the idle timeout.
func TestTimeoutIdleConnection(t *testing.T) {
	addr := serveRoutes(t, short, "http://127.0.0.1", slowRoutes(150*time.Millisecond)...)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("GET /ping: %d, close %v", resp.StatusCode, resp.Close)
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = br.ReadByte()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("an idle keep-alive connection is still open after 10s with a 300ms idle timeout")
	}
	if err != io.EOF {
		t.Fatalf("idle connection: %v, want EOF", err)
	}
}

// Streaming routes outlive the write and read timeouts as long as data
// moves; ordinary routes do not. The four requests run at once.
func TestTimeoutStreamingRoutes(t *testing.T) {
	// Pauses of 500ms against timeouts of 1.5s leave a second of slack to a
	// busy machine either way: six pieces take twice the timeout.
	const timeout, pause = 1500 * time.Millisecond, 500 * time.Millisecond
	to := server.Timeouts{ReadHeader: timeout, Read: timeout, Write: timeout, Idle: timeout}
	addr := serveRoutes(t, to, "http://127.0.0.1", slowRoutes(pause)...)
	base := "http://" + addr
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	get := func(path string) (int, string, error) {
		resp, err := client.Get(base + path)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}
	// post sends a body in pieces, with pauses.
	post := func(path string) (int, string, error) {
		pr, pw := io.Pipe()
		go func() {
			for i := 0; i < 6; i++ {
				pw.Write([]byte(strings.Repeat("y", 1000)))
				time.Sleep(pause)
			}
			pw.Close()
		}()
		resp, err := client.Post(base+path, "application/octet-stream", pr)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}
	t.Run("stream write", func(t *testing.T) {
		t.Parallel()
		if st, b, err := get("/stream"); err != nil || st != 200 || strings.Count(b, "piece") != 6 {
			t.Fatalf("GET /stream: %d %v %q", st, err, b)
		}
	})
	t.Run("buffered write", func(t *testing.T) {
		t.Parallel()
		// The same writes on a buffered route end past the write timeout.
		if st, b, err := get("/slow"); err == nil {
			t.Fatalf("GET /slow answered %d %q past the write timeout", st, b)
		}
	})
	t.Run("stream read", func(t *testing.T) {
		t.Parallel()
		if st, b, err := post("/upload"); err != nil || st != 200 || b != "6000 bytes\n" {
			t.Fatalf("POST /upload: %d %v %q", st, err, b)
		}
	})
	t.Run("ordinary read", func(t *testing.T) {
		t.Parallel()
		if st, b, err := post("/echo"); err == nil && st == 200 {
			t.Fatalf("POST /echo: %d %q: the read timeout did not apply", st, b)
		}
	})
}

// After too many bad credentials from one address, further bad credentials
// from it answer 403 for a while; good tokens and requests without
// credentials still work.
func TestFailedLoginLockout(t *testing.T) {
	limits := ratelimit.DefaultLimits()
	limits.Anonymous, limits.Authenticated = 1_000_000, 1_000_000
	limits.LoginFailures, limits.LoginWindow = 5, time.Minute
	e := apitest.New(t, apitest.Options{Limits: &limits})
	now := time.Now()
	e.Server.LoginLimiter().SetClock(func() time.Time { return now })
	e.Must(201, "POST", "/user/repos", e.AdminToken, map[string]any{"name": "locked", "private": true})

	for i := 0; i < 5; i++ {
		r := e.Do("GET", "/user", fmt.Sprintf("ghp_bad%033d", i), nil)
		if r.StatusCode != 401 {
			t.Fatalf("bad token %d: %d", i, r.StatusCode)
		}
	}
	const msg = "Maximum number of login attempts exceeded. Please try again later."
	// During the lockout bad credentials answer 403; good ones still work,
	// so one client behind a shared address cannot lock out the others.
	if r := e.Do("GET", "/user", "ghp_bad", nil); r.StatusCode != 403 || r.Map(t)["message"] != msg {
		t.Errorf("bad token during the lockout: %d %s", r.StatusCode, r.Body)
	}
	e.Must(200, "GET", "/user", e.AdminToken, nil)
	git := func(token string) (int, string, string) {
		req, _ := http.NewRequest("GET", e.URL+"/hubadmin/locked.git/info/refs?service=git-upload-pack", nil)
		req.SetBasicAuth("hubadmin", token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b), resp.Header.Get("WWW-Authenticate")
	}
	// git's Basic authentication alike, and a refusal asks for no new
	// password.
	if st, b, www := git("ghp_bad"); st != 403 || !strings.Contains(b, msg) || www != "" {
		t.Errorf("git with a bad token during the lockout: %d %q %q", st, b, www)
	}
	if st, _, _ := git(e.AdminToken); st != 200 {
		t.Errorf("git with a good token during the lockout: %d", st)
	}
	// Without credentials nothing is locked.
	e.Must(200, "GET", "/users/hubadmin", "", nil)

	// When the window ends a bad token is an ordinary 401 again.
	now = now.Add(time.Minute)
	e.Must(401, "GET", "/user", "ghp_bad", nil)
	if st, _, www := git("ghp_bad"); st != 401 || www == "" {
		t.Errorf("git with a bad token after the lockout: %d %q", st, www)
	}
}

// API responses carry GitHub's headers: security headers, the GHES release,
// hubd's version, and Vary / X-Accepted-OAuth-Scopes as api.github.com
// sends them to anonymous and to authenticated callers.
func TestAPIHeaders(t *testing.T) {
	e := apitest.New(t)
	anon := e.Must(200, "GET", "/users/hubadmin", "", nil)
	auth := e.Must(200, "GET", "/users/hubadmin", e.AdminToken, nil)
	for name, r := range map[string]*apitest.Response{"anonymous": anon, "authenticated": auth} {
		for k, v := range map[string]string{
			"X-Frame-Options":             "deny",
			"X-Content-Type-Options":      "nosniff",
			"Content-Security-Policy":     "default-src 'none'",
			"Referrer-Policy":             "origin-when-cross-origin, strict-origin-when-cross-origin",
			"X-XSS-Protection":            "0",
			"X-GitHub-Enterprise-Version": "3.19.0",
			"X-Hubd-Version":              "test",
			"Strict-Transport-Security":   "", // plain http
		} {
			if got := r.Header.Get(k); got != v {
				t.Errorf("%s: %s = %q, want %q", name, k, got, v)
			}
		}
	}
	if got := strings.Join(anon.Header.Values("Vary"), ", "); got != "Accept, Accept-Encoding, Accept, X-Requested-With" {
		t.Errorf("anonymous Vary = %q", got)
	}
	if got := strings.Join(auth.Header.Values("Vary"), ", "); got != "Accept, Authorization, Cookie, X-GitHub-OTP, Accept-Encoding, Accept, X-Requested-With" {
		t.Errorf("authenticated Vary = %q", got)
	}
	if _, ok := anon.Header["X-Accepted-Oauth-Scopes"]; ok {
		t.Errorf("anonymous X-Accepted-OAuth-Scopes = %q", anon.Header.Get("X-Accepted-OAuth-Scopes"))
	}
	if _, ok := auth.Header["X-Accepted-Oauth-Scopes"]; !ok {
		t.Error("authenticated response without X-Accepted-OAuth-Scopes")
	}
	// Writes get them too.
	r := e.Must(201, "POST", "/user/repos", e.AdminToken, map[string]any{"name": "pages"})
	if r.Header.Get("X-Frame-Options") != "deny" || len(r.Header.Values("Vary")) != 2 {
		t.Errorf("POST: %v", r.Header)
	}
	// A repository's web page keeps its own policy (it shows styles and
	// images); hubd's catalogue page sends none of the API's.
	r = e.Do("GET", e.URL+"/hubadmin/pages", "", nil)
	if csp := r.Header.Get("Content-Security-Policy"); r.StatusCode != 200 || !strings.Contains(csp, "style-src") {
		t.Errorf("web page: %d, CSP %q", r.StatusCode, csp)
	}
	r = e.Do("GET", e.URL+"/catalogue", "", nil, "Accept: text/html")
	if csp := r.Header.Get("Content-Security-Policy"); r.StatusCode != 200 || csp == "default-src 'none'" {
		t.Errorf("catalogue page: %d, CSP %q", r.StatusCode, csp)
	}
}

// Strict-Transport-Security is sent only when clients reach hubd over https.
func TestHSTSOnlyOverHTTPS(t *testing.T) {
	for external, want := range map[string]string{
		"http://127.0.0.1":        "",
		"https://git.example.com": "max-age=31536000; includeSubdomains",
	} {
		addr := serveRoutes(t, server.DefaultTimeouts(), external, slowRoutes(150*time.Millisecond)...)
		resp, err := http.Get("http://" + addr + "/ping")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Strict-Transport-Security"); got != want {
			t.Errorf("external %s: HSTS %q, want %q", external, got, want)
		}
		if got := resp.Header.Get("X-Hubd-Version"); got != "v-test" {
			t.Errorf("X-Hubd-Version = %q", got)
		}
	}
}
