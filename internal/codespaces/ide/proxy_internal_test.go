package ide

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"slices"
	"strconv"
	"testing"

	"github.com/hubd/hubd/internal/sandbox"
)

// TestRewrite: code-server sees the path without the prefix, the browser's
// Host, and none of hubd's credentials; its other cookies pass.
func TestRewrite(t *testing.T) {
	in := httptest.NewRequest(http.MethodGet, "http://hubd.test/codespaces/cs-1/stable-abc/static/out/a%2Fb.js?x=1", nil)
	in.Header.Set("Authorization", "token secret")
	in.AddCookie(&http.Cookie{Name: "hubd_session", Value: "s"})
	in.AddCookie(&http.Cookie{Name: "hubd_csrf", Value: "c"})
	in.AddCookie(&http.Cookie{Name: "vscode-tkn", Value: "v"})
	pr := &httputil.ProxyRequest{In: in, Out: in.Clone(in.Context())}
	pr.Out.Header = in.Header.Clone()
	rewrite("/codespaces/cs-1")(pr)
	out := pr.Out
	if out.URL.Path != "/stable-abc/static/out/a/b.js" || out.URL.EscapedPath() != "/stable-abc/static/out/a%2Fb.js" || out.URL.RawQuery != "x=1" {
		t.Fatalf("path %q (escaped %q) query %q", out.URL.Path, out.URL.EscapedPath(), out.URL.RawQuery)
	}
	if out.Host != "hubd.test" || out.Header.Get("X-Forwarded-Host") != "hubd.test" {
		t.Fatalf("Host %q X-Forwarded-Host %q, want the browser's", out.Host, out.Header.Get("X-Forwarded-Host"))
	}
	if out.Header.Get("Authorization") != "" {
		t.Fatal("Authorization reached the IDE")
	}
	var names []string
	for _, c := range out.Cookies() {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, []string{"vscode-tkn"}) {
		t.Fatalf("cookies to the IDE %v, want only vscode-tkn", names)
	}
}

// TestUnderPrefix: redirects to absolute paths stay under the prefix;
// relative ones and other hosts are left alone.
func TestUnderPrefix(t *testing.T) {
	for loc, want := range map[string]string{
		"/login":             "/codespaces/cs-1/login",
		"./?folder=/w":       "./?folder=/w",
		"//elsewhere.test/x": "//elsewhere.test/x",
		"https://a.test/":    "https://a.test/",
		"":                   "",
	} {
		resp := &http.Response{Header: http.Header{}}
		if loc != "" {
			resp.Header.Set("Location", loc)
		}
		underPrefix("/codespaces/cs-1")(resp)
		if got := resp.Header.Get("Location"); got != want {
			t.Errorf("Location %q became %q, want %q", loc, got, want)
		}
	}
}

// TestProxyWithoutIDE: a codespace whose IDE does not run answers 503,
// the bare prefix redirects, a path outside the prefix is 404, and hubd's
// page policy is gone from all of them.
func TestProxyWithoutIDE(t *testing.T) {
	m := New(Options{Binary: "/nonexistent"})
	h := m.Proxy("cs-1", "/codespaces/cs-1/")
	for path, want := range map[string]int{
		"/codespaces/cs-1/":  http.StatusServiceUnavailable,
		"/codespaces/cs-1":   http.StatusFound,
		"/codespaces/cs-10/": http.StatusNotFound,
	} {
		w := httptest.NewRecorder()
		w.Header().Set("Content-Security-Policy", "default-src 'none'")
		w.Header().Set("X-Frame-Options", "deny")
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != want {
			t.Errorf("%s: %d, want %d", path, w.Code, want)
		}
		if w.Header().Get("Content-Security-Policy") != "" || w.Header().Get("X-Frame-Options") != "" {
			t.Errorf("%s kept hubd's page headers: %v", path, w.Header())
		}
	}
}

// TestForwardedPorts: proxy/PORT/ under an IDE's prefix serves what the
// codespace's process on that loopback port answers, for forwarded ports
// only, without hubd's credentials, with redirects kept under the prefix;
// a port the codespace does not forward, or a malformed one, is 404, and a
// forwarded port where nothing listens is 502.
func TestForwardedPorts(t *testing.T) {
	var seen *http.Request
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.Clone(r.Context())
		if r.URL.Path == "/go" {
			http.Redirect(w, r, "/there", http.StatusFound)
			return
		}
		w.Write([]byte("app at " + r.URL.Path + "?" + r.URL.RawQuery))
	}))
	defer app.Close()
	_, port, _ := net.SplitHostPort(app.Listener.Addr().String())
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("an unforwarded port was reached") }))
	defer other.Close()
	_, otherPort, _ := net.SplitHostPort(other.Listener.Addr().String())
	free, _ := net.Listen("tcp", "127.0.0.1:0")
	_, freePort, _ := net.SplitHostPort(free.Addr().String())
	free.Close()

	m := New(Options{Binary: "/nonexistent"})
	in := &instance{name: "cs-1", ports: map[int]bool{}, proc: &sandbox.Process{}} // running (no process is asked anything)
	for _, p := range []string{port, freePort} {
		n, _ := strconv.Atoi(p)
		in.ports[n] = true
	}
	m.ides["cs-1"] = in
	h := m.Proxy("cs-1", "/codespaces/cs-1/")
	get := func(path string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Authorization", "token secret")
		req.AddCookie(&http.Cookie{Name: "hubd_session", Value: "s"})
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	w := get("/codespaces/cs-1/proxy/" + port + "/a/b?x=1")
	if w.Code != http.StatusOK || w.Body.String() != "app at /a/b?x=1" {
		t.Fatalf("forwarded port: %d %q", w.Code, w.Body)
	}
	if seen.Header.Get("Authorization") != "" || len(seen.Cookies()) != 0 || seen.Header.Get("X-Forwarded-Prefix") != "/codespaces/cs-1/proxy/"+port {
		t.Fatalf("the app saw %v", seen.Header)
	}
	if w := get("/codespaces/cs-1/proxy/" + port + "/go"); w.Code != http.StatusFound || w.Header().Get("Location") != "/codespaces/cs-1/proxy/"+port+"/there" {
		t.Fatalf("redirect: %d %q", w.Code, w.Header().Get("Location"))
	}
	if w := get("/codespaces/cs-1/proxy/" + port); w.Code != http.StatusFound || w.Header().Get("Location") != "/codespaces/cs-1/proxy/"+port+"/" {
		t.Fatalf("without the slash: %d %q", w.Code, w.Header().Get("Location"))
	}
	for _, path := range []string{"/codespaces/cs-1/proxy/" + otherPort + "/", "/codespaces/cs-1/proxy/0" + port + "/", "/codespaces/cs-1/proxy/x/", "/codespaces/cs-1/proxy//"} {
		if w := get(path); w.Code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, w.Code)
		}
	}
	if w := get("/codespaces/cs-1/proxy/" + freePort + "/"); w.Code != http.StatusBadGateway {
		t.Errorf("nothing listening: %d, want 502", w.Code)
	}
}
