// Package githttp serves git's smart HTTP protocol (v0, v1 and v2) at
// /{owner}/{repo}.git and /{owner}/{repo}: info/refs, git-upload-pack and
// git-receive-pack. hubd runs `git upload-pack` / `git receive-pack
// --stateless-rpc` itself and streams both directions: a pack is never held
// in memory.
package githttp

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/gitrepo"
	"github.com/hubd/hubd/internal/model"
)

// Access is what the resolver decides for a request.
type Access struct {
	Repo          *gitrepo.Repo
	RepoID        int64
	ActorID       int64
	DefaultBranch string
	Model         *model.Repo // the repository row, for observers
	// OnPush, when set, records the pushes of a storage that is not a
	// repository (a gist) instead of the Observer.
	OnPush func(ctx context.Context, updates []RefUpdate) error
}

// Resolver finds the repository of owner/name and checks the caller's
// permission (write when push is true). It returns ErrUnauthorized when the
// caller must authenticate (git then asks for credentials), ErrForbidden or
// a not-found error otherwise.
type Resolver interface {
	Resolve(r *http.Request, owner, name string, push bool) (*Access, error)
}

// Errors a Resolver returns.
var (
	ErrUnauthorized = errors.New("githttp: authentication required")
	ErrForbidden    = errors.New("githttp: permission denied")
	ErrNotFound     = errors.New("githttp: repository not found")
)

// PushObserver is told about pushes after git accepted them.
type PushObserver interface {
	Pushed(ctx context.Context, a *Access, updates []RefUpdate) error
}

// RefUpdate is one ref a push changed.
type RefUpdate struct {
	Name string
	Old  string
	New  string
}

// Handler serves the transport.
type Handler struct {
	Resolver Resolver
	Observer PushObserver // may be nil
	// MaxPush is the largest pack a push may send, in bytes (0: no limit).
	MaxPush int64
	// Fetched, when set, is told about each upload-pack request that sent
	// a pack (a clone or fetch; not ls-remote nor a negotiation round), for
	// clone traffic.
	Fetched func(r *http.Request, a *Access)
	// Check, when set, decides each push before any of its refs moves
	// (see PushCheck).
	Check PushCheck
	hooks hooks
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
	if v := r.Header.Get("Git-Protocol"); v != "" && !strings.ContainsAny(v, "\n\x00") {
		return []string{"GIT_PROTOCOL=" + v}
	}
	return nil
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
		w.Write(pktLine("# service=" + service + "\n"))
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
	args := []string{}
	var cmds *commandReader
	var check *pushCheck
	if service == "git-receive-pack" {
		args = append(args, gitrepo.ReceiveArgs()...)
		if h.MaxPush > 0 {
			args = append(args, "-c", "receive.maxInputSize="+strconv.FormatInt(h.MaxPush, 10))
		}
		if h.Check != nil {
			var err error
			if check, err = h.newCheck(a); err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			args = append(args, check.args()...)
		}
		cmds = &commandReader{r: body}
		body = cmds
	}
	args = append(args, strings.TrimPrefix(service, "git-"), "--stateless-rpc", ".")
	cmd := a.Repo.Cmd(r.Context(), gitProtocolEnv(r), args...)
	cmd.Stdin = body
	check.attach(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		check.start(false, h, r, a)
		http.Error(w, err.Error(), 500)
		return
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		check.start(false, h, r, a)
		http.Error(w, err.Error(), 500)
		return
	}
	check.start(true, h, r, a)
	w.Header().Set("Content-Type", "application/x-"+service+"-result")
	w.Header().Set("Cache-Control", "no-cache, max-age=0, must-revalidate")
	fl, _ := w.(http.Flusher)
	br := bufio.NewReaderSize(out, 64<<10)
	buf := make([]byte, 64<<10)
	var pack *packWatch
	if service == "git-upload-pack" && h.Fetched != nil {
		pack = &packWatch{}
	}
	var report *reportFilter
	if check != nil {
		report = &reportFilter{check: check}
	}
	for {
		n, err := br.Read(buf)
		if n > 0 {
			pack.see(buf[:n])
			chunk := buf[:n]
			if report != nil {
				chunk = report.feed(chunk)
			}
			if _, werr := w.Write(chunk); werr != nil {
				break
			}
			if fl != nil {
				fl.Flush()
			}
		}
		if err != nil {
			break
		}
	}
	if report != nil && len(report.buf) > 0 {
		w.Write(report.buf) // a torn last packet, as git wrote it
	}
	cmd.Wait()
	check.wait()
	if pack != nil && pack.found {
		h.Fetched(r, a)
	}
	if cmds != nil && h.Observer != nil {
		// Record the commands git applied: a ref that now holds the pushed
		// value. (Comparing refs before and after would credit a concurrent
		// winner's update to every push that lost the race.)
		ctx := context.WithoutCancel(r.Context())
		now := refMap(ctx, a.Repo)
		var updates []RefUpdate
		for _, c := range cmds.commands {
			if c.New == gitrepo.ZeroOID {
				if _, still := now[c.Name]; !still {
					updates = append(updates, c)
				}
			} else if now[c.Name] == c.New {
				updates = append(updates, c)
			}
		}
		if len(updates) > 0 {
			h.Observer.Pushed(ctx, a, updates)
		}
	}
}

func refMap(ctx context.Context, repo *gitrepo.Repo) map[string]string {
	refs, err := repo.Refs(ctx, "")
	m := map[string]string{}
	if err != nil {
		return m
	}
	for _, ref := range refs {
		m[ref.Name] = ref.OID
	}
	return m
}

func pktLine(s string) []byte {
	return []byte(fmt.Sprintf("%04x%s", len(s)+4, s))
}

// commandReader passes a receive-pack request through while reading its
// leading command list: pkt-lines "<old> <new> <ref>" up to the first flush.
type commandReader struct {
	r        io.Reader
	buf      []byte
	done     bool
	commands []RefUpdate
}

func (c *commandReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if !c.done && n > 0 {
		c.buf = append(c.buf, p[:n]...)
		c.parse()
	}
	return n, err
}

func (c *commandReader) parse() {
	for !c.done && len(c.buf) >= 4 {
		size, err := strconv.ParseUint(string(c.buf[:4]), 16, 16)
		if err != nil {
			c.done = true
			return
		}
		if size == 0 { // flush: the commands are over
			c.done, c.buf = true, nil
			return
		}
		if size < 4 || int(size) > len(c.buf) {
			if size < 4 {
				c.done = true
			}
			return
		}
		line := string(c.buf[4:size])
		c.buf = c.buf[size:]
		line, _, _ = strings.Cut(line, "\x00")
		f := strings.Fields(line)
		if len(f) == 3 && gitrepo.ValidOID(f[0]) && gitrepo.ValidOID(f[1]) {
			c.commands = append(c.commands, RefUpdate{Old: f[0], New: f[1], Name: f[2]})
		} else if len(c.commands) == 0 && !strings.HasPrefix(line, "shallow ") {
			c.done = true // not a command list (push certificate or unknown)
		}
	}
	if len(c.buf) > 1<<20 {
		c.done, c.buf = true, nil
	}
}

// packWatch looks for the start of a pack in upload-pack's output: a
// side-band packet of the data channel beginning with "PACK" (protocol v0
// and v2 alike). Only the first packWatchLimit bytes are searched, which
// hold the negotiation and any progress that precedes the pack.
type packWatch struct {
	found bool
	seen  int
	tail  []byte // the last bytes of the previous chunk, for a split marker
}

const packWatchLimit = 1 << 20

var packMarker = []byte("\x01PACK")

func (p *packWatch) see(b []byte) {
	if p == nil || p.found || p.seen > packWatchLimit {
		return
	}
	p.seen += len(b)
	joined := append(p.tail, b[:min(len(b), len(packMarker))]...)
	if bytes.Contains(joined, packMarker) || bytes.Contains(b, packMarker) {
		p.found = true
		return
	}
	p.tail = append(p.tail[:0], b[max(0, len(b)-len(packMarker)+1):]...)
}
