// Package githttp serves git's smart HTTP protocol (v0, v1 and v2) at
// /{owner}/{repo}.git and /{owner}/{repo}: info/refs, git-upload-pack and
// git-receive-pack. hubd runs `git upload-pack` / `git receive-pack
// --stateless-rpc` through internal/gitserve (the rules every git transport
// shares) and streams both directions: a pack is never held
// in memory.
package githttp

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/gitserve"
)

// The types and errors of the git service, under the names this
// transport's users know.
type (
	Access       = gitserve.Access
	RefUpdate    = gitserve.RefUpdate
	PushObserver = gitserve.PushObserver
	PushCheck    = gitserve.PushCheck
	Declined     = gitserve.Declined
)

// Resolver finds the repository of owner/name and checks the caller's
// permission (write when push is true). It returns ErrUnauthorized when the
// caller must authenticate (git then asks for credentials), ErrForbidden or
// a not-found error otherwise.
type Resolver interface {
	Resolve(r *http.Request, owner, name string, push bool) (*Access, error)
}

// Errors a Resolver returns.
var (
	ErrUnauthorized = gitserve.ErrUnauthorized
	ErrForbidden    = gitserve.ErrForbidden
	ErrNotFound     = gitserve.ErrNotFound
)

// Handler serves the transport.
type Handler struct {
	Resolver Resolver
	// Git runs upload-pack and receive-pack (the push rules live there).
	Git *gitserve.Service
	// Fetched, when set, is told about each upload-pack request that sent
	// a pack (a clone or fetch; not ls-remote nor a negotiation round), for
	// clone traffic.
	Fetched func(r *http.Request, a *Access)
}

// Match reports whether a path is a git transport path and splits it.
func Match(path string) (owner, name, action string, ok bool) {
	p := strings.TrimPrefix(path, "/")
	var rest string
	for _, suffix := range []string{"/info/refs", "/git-upload-pack", "/git-receive-pack"} {
		if strings.HasSuffix(p, suffix) {
			rest, action = strings.TrimSuffix(p, suffix), suffix[1:]
			break
		}
	}
	if action == "" {
		return "", "", "", false
	}
	owner, name, found := strings.Cut(rest, "/")
	if !found || owner == "" || name == "" || strings.Contains(name, "/") {
		return "", "", "", false
	}
	return owner, strings.TrimSuffix(name, ".git"), action, true
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	owner, name, action, ok := Match(r.URL.Path)
	if !ok {
		http.NotFound(w, r)
		return
	}
	service := action
	if action == "info/refs" {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		service = r.URL.Query().Get("service")
		if service != "git-upload-pack" && service != "git-receive-pack" {
			// Dumb HTTP is not served.
			http.Error(w, "Please upgrade your git client.", http.StatusForbidden)
			return
		}
	} else if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	push := service == "git-receive-pack"
	a, err := h.Resolver.Resolve(r, owner, name, push)
	switch {
	case errors.Is(err, ErrUnauthorized):
		w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
		http.Error(w, "Authentication required", http.StatusUnauthorized)
		return
	case errors.Is(err, ErrForbidden):
		http.Error(w, fmt.Sprintf("Permission to %s/%s denied.", owner, name), http.StatusForbidden)
		return
	case err != nil:
		http.Error(w, "Repository not found.", http.StatusNotFound)
		return
	}
	if action == "info/refs" {
		h.advertise(w, r, a, service)
		return
	}
	h.rpc(w, r, a, service)
}

func gitProtocolEnv(r *http.Request) []string {
	return gitserve.ProtocolEnv(r.Header.Get("Git-Protocol"))
}

// advertise answers GET info/refs?service=...
func (h *Handler) advertise(w http.ResponseWriter, r *http.Request, a *Access, service string) {
	hdr := w.Header()
	hdr.Set("Content-Type", "application/x-"+service+"-advertisement")
	hdr.Set("Cache-Control", "no-cache, max-age=0, must-revalidate")
	cmd := a.Repo.Cmd(r.Context(), gitProtocolEnv(r), strings.TrimPrefix(service, "git-"), "--stateless-rpc", "--advertise-refs", ".")
	out, err := cmd.StdoutPipe()
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	if err := cmd.Start(); err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	if r.Header.Get("Git-Protocol") == "" {
		// Protocol v0/v1 smart HTTP starts with the service announcement.
		w.Write(gitserve.PktLine("# service=" + service + "\n"))
		w.Write([]byte("0000"))
	}
	io.Copy(w, out)
	cmd.Wait()
}

// rpc streams one request of upload-pack or receive-pack.
func (h *Handler) rpc(w http.ResponseWriter, r *http.Request, a *Access, service string) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, "bad gzip body", http.StatusBadRequest)
			return
		}
		defer gz.Close()
		body = gz
	}
	var stderr strings.Builder
	res, err := h.Git.Serve(r.Context(), gitserve.Run{Access: a, Service: service, Stateless: true,
		Protocol: r.Header.Get("Git-Protocol"), In: body, Out: flushWriter{w}, Stderr: &stderr,
		Started: func() {
			w.Header().Set("Content-Type", "application/x-"+service+"-result")
			w.Header().Set("Cache-Control", "no-cache, max-age=0, must-revalidate")
		}})
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	if res.Fetched && h.Fetched != nil {
		h.Fetched(r, a)
	}
}

// flushWriter flushes each write of git's output to the client.
type flushWriter struct{ w http.ResponseWriter }

func (f flushWriter) Write(p []byte) (int, error) { return f.w.Write(p) }

func (f flushWriter) Flush() {
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	}
}
