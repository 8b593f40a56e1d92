package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hubd/hubd/internal/api"
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
	// URL is the IDEs' own origin (e.g. http://127.0.0.1:8081), served by
	// Server.CodespacesHandler on a listener of its own, so that what runs
	// in an IDE (a repository's extensions, previews, webviews) is not
	// hubd's origin and cannot read hubd's pages with the owner's session.
	// hubd's /codespaces/{name}/ then signs the owner over to that origin.
	// "": the IDEs are served at hubd's own origin.
	URL string
	// Cgroups is a cgroup delegated to the codespaces (sandbox.Delegate,
	// owned by root): each running codespace's group, with its machine's
	// cores, memory and a process bound, is made inside it. "": rlimits
	// only (the cores are not enforced; the notes say so).
	Cgroups string
	// CPUPeriod is the period of the codespaces' CPU quota (0: 100 ms).
	CPUPeriod time.Duration
	// Machines are the machine types offered (nil: the whole host and half
	// of it); those the host cannot honour are left out.
	Machines []codespaces.Machine
}

// codespaceProxy serves /codespaces/{name}/...: a codespace's browser IDE,
// to its owner only (their web session, or a user token of theirs); anyone
// else gets 404, as for a private page.
type codespaceProxy struct {
	http.Handler
	svc      *codespaces.Service
	sessions func(ctx context.Context, cookie string) (*model.Account, error)
	auth     func(r *http.Request, info *rest.Info) error

	// origin is the IDEs' own origin ("": hubd's); signer signs the
	// hand-off from hubd's origin to it and the cookie it sets there.
	origin string
	signer *api.DownloadSigner

	mu      sync.Mutex
	touched map[string]time.Time
}

// The hand-off to the IDEs' origin: hubd's /codespaces/{name}/ checks the
// owner, then redirects to the same path on the IDEs' origin with a signed
// hand-off (valid minutes), which that origin turns into a cookie of its
// own (valid handoffSession, for that codespace's path only).
const (
	handoffParam   = "hubd_handoff"
	handoffCookie  = "hubd_codespace" // hubd_…: the proxy drops it before the IDE
	handoffKind    = "codespace_handoff"
	handoffSession = 12 * time.Hour
	sessionKind    = "codespace_session"
)

// touchEvery bounds how often traffic pushes a codespace's idle timeout
// back (a database write).
const touchEvery = time.Minute

func newCodespaceProxy(m *ide.Manager, svc *codespaces.Service, sessions func(ctx context.Context, cookie string) (*model.Account, error),
	auth func(r *http.Request, info *rest.Info) error) *codespaceProxy {
	p := &codespaceProxy{svc: svc, sessions: sessions, auth: auth, touched: map[string]time.Time{}}
	p.Handler = m.Handler(p.resolve)
	return p
}

// caller is the hubd user a request to codespace name comes from: on
// hubd's origin their web session, on the IDEs' origin the cookie of the
// hand-off, on either a user token of theirs (0: nobody).
func (p *codespaceProxy) caller(r *http.Request, name string, ideOrigin bool) int64 {
	ctx := r.Context()
	if ideOrigin {
		if ck, err := r.Cookie(handoffCookie); err == nil {
			if uid := p.signed(ck.Value, sessionKind, name); uid != 0 {
				return uid
			}
		}
	} else if ck, err := r.Cookie(oauthweb.SessionCookie); err == nil && p.sessions != nil {
		if u, err := p.sessions(ctx, ck.Value); err == nil && u != nil {
			return u.ID
		}
	}
	info := rest.From(r)
	if err := p.auth(r, info); err == nil && info.Caller.User != nil && info.Caller.User.Type == model.TypeUser {
		return info.Caller.User.ID
	}
	return 0
}

// signed checks a "uid.token" value of kind for codespace name: its user.
func (p *codespaceProxy) signed(v, kind, name string) int64 {
	id, tok, ok := strings.Cut(v, ".")
	uid, err := strconv.ParseInt(id, 10, 64)
	if !ok || err != nil || uid <= 0 || !p.signer.Valid(tok, kind, uid, name, time.Now()) {
		return 0
	}
	return uid
}

func (p *codespaceProxy) resolve(r *http.Request, name string) (ok, running bool) {
	return p.resolveAs(r, name, p.origin != "")
}

func (p *codespaceProxy) resolveAs(r *http.Request, name string, ideOrigin bool) (ok, running bool) {
	ctx := r.Context()
	uid := p.caller(r, name, ideOrigin)
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

// handoff answers hubd's /codespaces/{name}/... when the IDEs have their own
// origin: the owner is sent there with a signed hand-off; anyone else gets
// 404, as from the IDE itself.
func (p *codespaceProxy) handoff(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	rest, _ := strings.CutPrefix(r.URL.Path, ide.PathPrefix)
	name, _, _ := strings.Cut(rest, "/")
	if name == "" {
		http.NotFound(w, r)
		return
	}
	if ok, _ := p.resolveAs(r, name, false); !ok {
		http.NotFound(w, r)
		return
	}
	uid := p.caller(r, name, false)
	q := r.URL.Query()
	q.Set(handoffParam, strconv.FormatInt(uid, 10)+"."+p.signer.Token(handoffKind, uid, name, time.Now()))
	http.Redirect(w, r, p.origin+r.URL.Path+"?"+q.Encode(), http.StatusSeeOther)
}

// ideOrigin serves the IDEs' origin: a hand-off becomes this origin's
// cookie for the codespace (and the URL loses it); then the IDE.
func (p *codespaceProxy) ideOrigin(w http.ResponseWriter, r *http.Request) {
	if !p.serves(r.URL.Path) {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	if v := q.Get(handoffParam); v != "" {
		w.Header().Set("Cache-Control", "no-store")
		rest, _ := strings.CutPrefix(r.URL.Path, ide.PathPrefix)
		name, _, _ := strings.Cut(rest, "/")
		uid := p.signed(v, handoffKind, name)
		if uid == 0 || name == "" {
			http.NotFound(w, r)
			return
		}
		exp := time.Now().Add(handoffSession)
		http.SetCookie(w, &http.Cookie{Name: handoffCookie, Value: strconv.FormatInt(uid, 10) + "." + p.signer.TokenUntil(sessionKind, uid, name, exp),
			Path: ide.PathPrefix + name + "/", Expires: exp, HttpOnly: true, Secure: strings.HasPrefix(p.origin, "https:"), SameSite: http.SameSiteLaxMode})
		q.Del(handoffParam)
		to := r.URL.Path
		if len(q) > 0 {
			to += "?" + q.Encode()
		}
		http.Redirect(w, r, to, http.StatusSeeOther)
		return
	}
	p.ServeHTTP(w, r)
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
