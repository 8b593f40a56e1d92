package ide

import (
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
)

// PathPrefix is where the IDEs are mounted: /codespaces/{name}/.
const PathPrefix = "/codespaces/"

// Resolver decides, for a request to codespace name, whether the caller
// may use its IDE (ok; anyone else gets 404, as GitHub answers for what a
// caller may not see) and whether the codespace is running.
type Resolver func(r *http.Request, name string) (ok, running bool)

// Handler serves /codespaces/{name}/... : the resolver's authorization,
// then the IDE of that codespace through Proxy. Mount it at PathPrefix.
func (m *Manager) Handler(resolve Resolver) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, found := strings.CutPrefix(r.URL.Path, PathPrefix)
		name, _, _ := strings.Cut(rest, "/")
		if !found || name == "" {
			http.NotFound(w, r)
			return
		}
		ok, running := resolve(r, name)
		if !ok {
			http.NotFound(w, r)
			return
		}
		if !running {
			noStore(w)
			http.Error(w, "This codespace is stopped: start it to open its editor.", http.StatusConflict)
			return
		}
		m.Proxy(name, PathPrefix+name).ServeHTTP(w, r)
	})
}

// Proxy serves the IDE of codespace name under prefix (its requests'
// paths start with prefix, which code-server does not see): HTTP and
// websocket upgrades, to the IDE's unix socket. It authorizes nothing:
// callers put it behind their authorization (Handler). The request's
// credentials for hubd (Authorization, hubd's cookies) do not reach the
// IDE, and hubd's own security headers of its pages do not apply to it.
func (m *Manager) Proxy(name, prefix string) http.Handler {
	prefix = strings.TrimSuffix(prefix, "/")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// hubd's pages' policy (default-src 'none', frames denied) would
		// break the workbench; code-server sends its own.
		h := w.Header()
		h.Del("Content-Security-Policy")
		h.Del("X-Frame-Options")
		if r.URL.Path == prefix {
			// The workbench's relative URLs need the trailing slash.
			to := prefix + "/"
			if r.URL.RawQuery != "" {
				to += "?" + r.URL.RawQuery
			}
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		if !strings.HasPrefix(r.URL.Path, prefix+"/") {
			http.NotFound(w, r)
			return
		}
		in := m.lookup(name)
		if in == nil {
			noStore(w)
			http.Error(w, "The editor of this codespace is not running.", http.StatusServiceUnavailable)
			return
		}
		in.touch()
		if after, ok := strings.CutPrefix(r.URL.Path, prefix+"/proxy/"); ok {
			forward(w, r, in, prefix, after)
			return
		}
		rp := &httputil.ReverseProxy{
			Rewrite:   rewrite(prefix),
			Transport: in.transport,
			// A stream cut by the IDE's stop is no error of hubd's.
			ErrorLog:       quiet,
			ModifyResponse: underPrefix(prefix),
			ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
				noStore(w)
				http.Error(w, "The editor of this codespace did not answer.", http.StatusBadGateway)
			},
		}
		rp.ServeHTTP(w, r)
	})
}

// forward serves prefix/proxy/PORT/... : what the codespace's process
// listening on PORT of the loopback answers to the path after proxy/PORT,
// as code-server's own proxy would (which stays off: it forwards any port,
// hubd's and other codespaces' included). Only the ports the codespace
// forwards (forwardPorts) are served; others are 404.
func forward(w http.ResponseWriter, r *http.Request, in *instance, prefix, after string) {
	p, tail, slash := strings.Cut(after, "/")
	port, err := strconv.Atoi(p)
	if err != nil || strconv.Itoa(port) != p || !in.ports[port] {
		noStore(w)
		http.Error(w, "This port is not forwarded: list it in forwardPorts of the codespace's devcontainer.json.", http.StatusNotFound)
		return
	}
	base := prefix + "/proxy/" + p
	if !slash {
		to := base + "/"
		if r.URL.RawQuery != "" {
			to += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, to, http.StatusFound)
		return
	}
	target := "127.0.0.1:" + p
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			out := pr.Out
			out.URL.Scheme, out.URL.Host = "http", target
			out.URL.Path, out.URL.RawPath = "/"+tail, ""
			if raw := pr.In.URL.RawPath; raw != "" {
				if rest, ok := strings.CutPrefix(raw, base); ok {
					out.URL.RawPath = rest
				}
			}
			out.Host = target
			pr.SetXForwarded()
			out.Header.Set("X-Forwarded-Prefix", base)
			out.Header.Del("Authorization")
			dropHubdCookies(out)
		},
		ErrorLog:       quiet,
		ModifyResponse: underPrefix(base),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			noStore(w)
			http.Error(w, "Nothing answers on port "+p+" of this codespace.", http.StatusBadGateway)
		},
	}
	rp.ServeHTTP(w, r)
}

// rewrite makes a request under prefix code-server's request.
func rewrite(prefix string) func(*httputil.ProxyRequest) {
	return func(pr *httputil.ProxyRequest) {
		out := pr.Out
		out.URL.Scheme = "http"
		out.URL.Host = "code-server"
		out.URL.Path = strings.TrimPrefix(pr.In.URL.Path, prefix)
		out.URL.RawPath = ""
		if raw := pr.In.URL.RawPath; raw != "" {
			if p, ok := strings.CutPrefix(raw, prefix); ok {
				out.URL.RawPath = p
			}
		}
		// code-server checks a websocket's Origin against Host: the
		// browser's host, as it sent it.
		out.Host = pr.In.Host
		pr.SetXForwarded()
		out.Header.Del("Authorization")
		dropHubdCookies(out)
	}
}

// underPrefix keeps code-server's redirects to absolute paths under prefix.
func underPrefix(prefix string) func(*http.Response) error {
	return func(resp *http.Response) error {
		if loc := resp.Header.Get("Location"); strings.HasPrefix(loc, "/") && !strings.HasPrefix(loc, "//") {
			resp.Header.Set("Location", prefix+loc)
		}
		return nil
	}
}

// dropHubdCookies removes hubd's own cookies (its web session and CSRF
// cookies, all named hubd_…) from a request to the IDE.
func dropHubdCookies(r *http.Request) {
	cookies := r.Cookies()
	if len(cookies) == 0 {
		return
	}
	r.Header.Del("Cookie")
	for _, c := range cookies {
		if !strings.HasPrefix(c.Name, "hubd_") {
			r.AddCookie(c)
		}
	}
}

var quiet = log.New(io.Discard, "", 0)

func noStore(w http.ResponseWriter) { w.Header().Set("Cache-Control", "no-store") }
