package server

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hubd/hubd/internal/codespaces"
	"github.com/hubd/hubd/internal/codespaces/ide"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/oauthweb"
	"github.com/hubd/hubd/internal/rest"
)

// CodespacesConfig is how codespaces run on this host.
type CodespacesConfig struct {
	// Credential is the user workspaces belong to and their commands and
	// IDEs run as (hubd as root: its runner user; nil: hubd's own user,
	// only when hubd is not root).
	Credential *syscall.Credential
	// Root holds the workspaces ("": <data>/codespaces); the runner user
	// must be able to reach it.
	Root string
	// Sandbox is the workflow jobs' sandbox mode ("" or "bwrap", "none").
	Sandbox string
	// IDE runs the browser IDEs (nil: none; web_url answers 503).
	IDE *ide.Manager
}

// codespaceProxy serves /codespaces/{name}/...: a codespace's browser IDE,
// to its owner only (their web session, or a user token of theirs); anyone
// else gets 404, as for a private page.
type codespaceProxy struct {
	http.Handler
	svc      *codespaces.Service
	sessions func(ctx context.Context, cookie string) (*model.Account, error)
	auth     func(r *http.Request, info *rest.Info) error

	mu      sync.Mutex
	touched map[string]time.Time
}

// touchEvery bounds how often traffic pushes a codespace's idle timeout
// back (a database write).
const touchEvery = time.Minute

func newCodespaceProxy(m *ide.Manager, svc *codespaces.Service, sessions func(ctx context.Context, cookie string) (*model.Account, error),
	auth func(r *http.Request, info *rest.Info) error) *codespaceProxy {
	p := &codespaceProxy{svc: svc, sessions: sessions, auth: auth, touched: map[string]time.Time{}}
	p.Handler = m.Handler(p.resolve)
	return p
}

func (p *codespaceProxy) resolve(r *http.Request, name string) (ok, running bool) {
	ctx := r.Context()
	var uid int64
	if ck, err := r.Cookie(oauthweb.SessionCookie); err == nil && p.sessions != nil {
		if u, err := p.sessions(ctx, ck.Value); err == nil && u != nil {
			uid = u.ID
		}
	}
	if uid == 0 {
		info := rest.From(r)
		if err := p.auth(r, info); err == nil && info.Caller.User != nil && info.Caller.User.Type == model.TypeUser {
			uid = info.Caller.User.ID
		}
	}
	owner, state, _, err := p.svc.Owner(ctx, name)
	if err != nil || uid == 0 || owner != uid {
		return false, false
	}
	running = state == model.CodespaceAvailable
	if running {
		p.mu.Lock()
		due := time.Since(p.touched[name]) >= touchEvery
		if due {
			if len(p.touched) > 10_000 {
				clear(p.touched)
			}
			p.touched[name] = time.Now()
		}
		p.mu.Unlock()
		if due {
			_ = p.svc.Touch(ctx, name)
		}
	}
	return true, running
}

// serves reports whether path is an IDE's.
func (p *codespaceProxy) serves(path string) bool { return strings.HasPrefix(path, ide.PathPrefix) }

// ServeHTTP lifts the connection's deadlines: an IDE's websockets and
// long polls last as long as the browser window.
func (p *codespaceProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	p.Handler.ServeHTTP(w, r)
}
