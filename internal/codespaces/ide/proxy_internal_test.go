package ide

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"slices"
	"testing"
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
