// Package server gathers every api package's routes into one ServeMux and
// wraps it in GitHub's HTTP conventions: request ids, CORS, the /api/v3
// prefix, API versions, authentication, rate limits, media types, ETags and
// conditional requests, and JSON 404s for unknown paths.
package server

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/catalogue"
	"github.com/hubd/hubd/internal/githttp"
	"github.com/hubd/hubd/internal/gitserve"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/sshkeys"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/web"
)

// Server is hubd's HTTP handler.
type Server struct {
	deps api.Deps
	// Settled, for tests, waits until the work a process starts on its
	// own (the repository facts backfill) is queued.
	Settled func()
	git     *githttp.Handler
	// gitsvc runs git for both git transports (smart HTTP and SSH).
	gitsvc *gitserve.Service
	// sshKeys authenticates the SSH transport's clients (set by Build).
	sshKeys *sshkeys.Service
	web     *web.Handler
	// muxes are consulted in order; see New for why there is more than one.
	muxes  []*http.ServeMux
	routes map[string]*rest.Route // "METHOD pattern" -> route
	// orgSegs is, for the routes that name an organization or a
	// repository owner, the path segment that does (API insights).
	orgSegs map[*rest.Route]int
	list    []*rest.Route
	MaxBody int64

	timeouts Timeouts          // set by HTTPServer; stream extends them
	logins   *ratelimit.Logins // failed authentications per client address

	// Pages serves the sign-in and OAuth authorization pages outside the
	// API (internal/oauthweb); Clients checks an OAuth client's id and
	// secret sent with Basic authentication. Both are set by Build.
	Pages interface {
		http.Handler
		Serves(path string) bool
	}
	Clients func(r *http.Request, clientID, secret string) (*authz.Caller, bool, error)
	// codespaces serves the codespaces' browser IDEs (nil: none run).
	codespaces *codespaceProxy
	// Feeds serves the Atom feeds of GET /feeds (internal/api/activity)
	// among the pages no API route matches; set by Build.
	Feeds interface {
		http.Handler
		Serves(r *http.Request) bool
	}
}

// New builds a server from route sets.
//
// GitHub's router prefers literal segments to parameters: in
// /repos/{owner}/{repo}/issues/comments/{comment_id} "comments" wins over
// the {issue_number} of /repos/{owner}/{repo}/issues/{issue_number}/comments.
// Go's ServeMux refuses such a pair (neither pattern is more specific), so
// routes are registered with the most literal segments first and a route
// that conflicts with one already registered goes to the next mux, which is
// consulted only when the ones before it match nothing.
func New(deps api.Deps, sets ...[]rest.Route) (*Server, error) {
	s := &Server{deps: deps, routes: map[string]*rest.Route{}, orgSegs: map[*rest.Route]int{}, MaxBody: rest.MaxBody}
	l := ratelimit.DefaultLimits()
	if deps.Limiter != nil {
		l = deps.Limiter.Limits()
	}
	s.logins = ratelimit.NewLogins(l.LoginFailures, l.LoginWindow)
	if deps.Store != nil {
		// Failed logins count across restarts and hubd processes.
		s.logins = ratelimit.NewStoredLogins(l.LoginFailures, l.LoginWindow, deps.Store)
	}
	if s.deps.Tokens == nil {
		s.deps.Tokens = api.NewTokenCache(0)
	}
	s.gitsvc = &gitserve.Service{Observer: gitObserver{&s.deps}}
	s.git = &githttp.Handler{Resolver: gitResolver{d: &s.deps}, Git: s.gitsvc, Fetched: s.fetched}
	s.web = web.New(&s.deps)
	var all []*rest.Route
	for _, set := range sets {
		for i := range set {
			all = append(all, &set[i])
		}
	}
	order := append([]*rest.Route(nil), all...)
	sort.SliceStable(order, func(i, j int) bool { return moreLiteral(order[i].Pattern, order[j].Pattern) })
	for _, rt := range order {
		if err := s.add(rt); err != nil {
			return nil, err
		}
	}
	s.list = all // the route table in the order the sets gave it
	return s, nil
}

// moreLiteral orders patterns as GitHub's router prefers them: at the first
// segment where one has a literal and the other a parameter, the literal
// one comes first.
func moreLiteral(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(as) && i < len(bs); i++ {
		al, bl := !strings.HasPrefix(as[i], "{"), !strings.HasPrefix(bs[i], "{")
		if al != bl {
			return al
		}
	}
	return false
}

func (s *Server) add(rt *rest.Route) error {
	key := rt.Method + " " + rt.Pattern
	if _, dup := s.routes[key]; dup {
		return fmt.Errorf("server: route %s registered twice", key)
	}
	h := s.wrap(rt)
	for level := 0; ; level++ {
		if level == len(s.muxes) {
			s.muxes = append(s.muxes, http.NewServeMux())
		}
		if err := register(s.muxes[level], key, h); err == nil {
			break
		} else if level >= 3 {
			return fmt.Errorf("server: route %s: %v", key, err)
		}
	}
	s.routes[key] = rt
	if i := ownerSegment(rt.Pattern); i >= 0 {
		s.orgSegs[rt] = i
	}
	return nil
}

// register adds a pattern, turning ServeMux's panic on a conflict into an
// error.
func register(mux *http.ServeMux, key string, h http.Handler) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	mux.Handle(key, h)
	return nil
}

// find returns the mux and pattern that serve r ("" when none does).
func (s *Server) find(r *http.Request) (*http.ServeMux, string) {
	for _, m := range s.muxes {
		if _, pattern := m.Handler(r); pattern != "" {
			return m, pattern
		}
	}
	return nil, ""
}

// Routes lists the route table in registration order.
func (s *Server) Routes() []*rest.Route { return s.list }

// Match finds the route a request would be served by (after the /api/v3
// prefix is removed) and its path parameters; ok is false for unknown paths.
func (s *Server) Match(r *http.Request) (rt *rest.Route, params map[string]string, ok bool) {
	_, pattern := s.find(r)
	if pattern == "" && s.unalias(r) {
		_, pattern = s.find(r)
	}
	rt, ok = s.routes[pattern]
	if !ok {
		return nil, nil, false
	}
	params = map[string]string{}
	segs := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	for i, seg := range segs {
		if u, err := url.PathUnescape(seg); err == nil {
			segs[i] = u
		}
	}
	for i, p := range strings.Split(strings.TrimPrefix(rt.Pattern, "/"), "/") {
		if i >= len(segs) || !strings.HasPrefix(p, "{") || p == "{$}" {
			continue
		}
		name := strings.Trim(p, "{}")
		if n, rest := strings.CutSuffix(name, "..."); rest {
			params[n] = strings.Join(segs[i:], "/")
			break
		}
		params[name] = segs[i]
	}
	return rt, params, true
}

// CodespacesHandler serves the IDEs' own origin (CodespacesConfig.URL) on a
// listener of its own: /codespaces/{name}/ of each codespace, to its owner;
// nothing else. Nil when no IDE runs or they share hubd's origin.
func (s *Server) CodespacesHandler() http.Handler {
	if s.codespaces == nil || s.codespaces.origin == "" {
		return nil
	}
	return http.HandlerFunc(s.codespaces.ideOrigin)
}

// ServeHTTP runs the middleware chain and dispatches.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info := &rest.Info{RequestID: newRequestID(), Start: time.Now(), Caller: &authz.Caller{}, Media: rest.ParseAccept(r.Header.Get("Accept"))}
	r = r.WithContext(rest.WithInfo(r.Context(), info))
	h := w.Header()
	h.Set("X-GitHub-Request-Id", info.RequestID)
	h.Set("X-GitHub-Media-Type", info.Media.Header())
	if s.deps.Version != "" {
		h.Set("X-Hubd-Version", s.deps.Version)
	}
	setCORS(h)
	if r.Method == http.MethodOptions {
		preflight(w, r)
		return
	}
	if s.deps.Store != nil {
		// Several nodes: take in the writes other nodes answered before
		// this request came (store/cluster.go), so that no read cache
		// answers from before them. An error empties the caches; the
		// request then meets the database as it is.
		s.deps.Store.Sync(r.Context())
	}
	if s.Pages != nil && s.Pages.Serves(r.URL.Path) {
		s.Pages.ServeHTTP(w, r)
		return
	}
	if s.codespaces != nil && s.codespaces.serves(r.URL.Path) {
		if s.codespaces.origin != "" {
			s.codespaces.handoff(w, r) // the owner, to the IDEs' origin
			return
		}
		s.codespaces.ServeHTTP(w, r) // a codespace's IDE, to its owner
		return
	}
	if js := s.deps.JobServices; js != nil && js.Serves(r.URL.Path) {
		js.ServeHTTP(w, r) // a workflow job's services (its own tokens)
		return
	}
	if _, _, _, ok := githttp.Match(r.URL.Path); ok {
		// git's smart HTTP: authenticated like the API, but neither rate
		// limited nor answered in JSON.
		if err := s.authenticate(r, info); err != nil {
			if errors.Is(err, errLoginAttempts) {
				// No WWW-Authenticate: git would only ask for a password again.
				http.Error(w, errLoginAttempts.Message, http.StatusForbidden)
				return
			}
			w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
			http.Error(w, "Invalid username or token.", http.StatusUnauthorized)
			return
		}
		w, r = s.stream(w, r)
		s.git.ServeHTTP(w, r)
		return
	}
	if r.URL.Path == "/api/graphql" {
		// GitHub Enterprise's GraphQL endpoint (gh sends its queries here).
		info.Prefix = "/api/v3"
		r.URL.Path, r.URL.RawPath = "/graphql", ""
	}
	if p, ok := strings.CutPrefix(r.URL.Path, "/api/uploads/"); ok {
		// GitHub Enterprise takes release asset uploads (a release's
		// upload_url) at /api/uploads/repos/...: the API's routes serve it.
		r.URL.Path, r.URL.RawPath = "/api/v3/"+p, strings.Replace(r.URL.RawPath, "/api/uploads/", "/api/v3/", 1)
	}
	if p, ok := strings.CutPrefix(r.URL.Path, "/api/v3"); ok && (p == "" || p[0] == '/') {
		info.Prefix = "/api/v3"
		if p == "" {
			p = "/"
		}
		r.URL.Path = p
		// Keep escaped slashes (%2F in branch names) escaped.
		r.URL.RawPath = strings.TrimPrefix(r.URL.RawPath, "/api/v3")
	}
	if unclean(r.URL.Path) {
		// ServeMux would redirect "a/../b" to "b" with an empty body; a
		// client following it would act on another resource. GitHub answers
		// such paths as unknown.
		rest.WriteError(w, r, rest.ErrNotFound)
		return
	}
	if strings.IndexByte(r.URL.Path, 0) >= 0 {
		// No login, repository, ref, label or file name holds a NUL byte.
		rest.WriteError(w, r, rest.ErrNotFound)
		return
	}
	if name, ok := nulParam(r); ok {
		// A NUL cannot reach git's command line nor PostgreSQL's text; no
		// filter value legitimately holds one.
		rest.WriteError(w, r, model.BadRequest("Invalid value for parameter '"+name+"'"))
		return
	}
	if v := r.Header.Get("X-GitHub-Api-Version"); v != "" && !supportedVersion(v) {
		rest.WriteError(w, r, model.BadRequest(fmt.Sprintf("Unsupported 'X-GitHub-Api-Version' header value '%s'. Supported versions are: %s", v, strings.Join(APIVersions, ", "))))
		return
	}
	h.Set("X-GitHub-Api-Version-Selected", selectedVersion(r.Header.Get("X-GitHub-Api-Version")))
	s.apiHeaders(h, r)

	if err := s.authenticate(r, info); err != nil {
		s.setRateHeaders(w, s.peek(r, info, "core"))
		rest.WriteError(w, r, err)
		return
	}
	if info.Caller.Authenticated() && info.Caller.Kind != authz.FineGrained {
		h.Set("X-OAuth-Scopes", info.Caller.Scopes.String())
	}
	if c := info.Caller; c.Kind == authz.UserToServer && c.AppID != 0 {
		// What a user writes through a GitHub App records the app
		// (performed_via_github_app; store/viaapps.go).
		r = r.WithContext(store.WithViaApp(r.Context(), c.AppID))
	}
	setVary(h, info.Caller.Authenticated())
	if info.Prefix == "" && r.URL.Path == "/" && s.web.ServeHome(w, r) {
		// A browser's home page (GitHub's www host); API clients get the
		// API root (its api host).
		return
	}
	if info.Prefix == "" && s.web.ServeSite(w, r) {
		// A browser's page at a path the API also answers (a team's
		// html_url, the notifications inbox) or a site page's form.
		return
	}

	// mux.Handler finds the route; mux.ServeHTTP (below) also sets the path
	// values the handlers read.
	handler, pattern := s.find(r)
	if pattern == "" && s.unalias(r) {
		handler, pattern = s.find(r) // an id-form path (alias.go)
	}
	rt := s.routes[pattern]
	if err := s.appGate(w, r, info, rt); err != nil {
		// What GitHub App credentials may not call (server/apps.go).
		s.setRateHeaders(w, s.peek(r, info, "core"))
		rest.WriteError(w, r, err)
		return
	}
	if rt == nil && info.Prefix == "" && s.Feeds != nil && s.Feeds.Serves(r) {
		s.Feeds.ServeHTTP(w, r)
		return
	}
	if rt == nil && info.Prefix == "" && s.web.ServePage(w, r) {
		// A web page (a repository's or an issue's html_url).
		return
	}
	if rt == nil {
		// Unknown path or method: GitHub answers a JSON 404.
		st, _ := s.take(r, info, "core")
		s.setRateHeaders(w, st)
		rest.WriteError(w, r, rest.ErrNotFound)
		return
	}
	switch {
	case !info.Caller.Authenticated():
		// GitHub names the accepted scopes only to a caller with a token.
	case rt.Scopes != nil:
		h.Set("X-Accepted-OAuth-Scopes", strings.Join(rt.Scopes, ", "))
	default:
		h.Set("X-Accepted-OAuth-Scopes", "")
	}
	if rt.Extension {
		// hubd's own pages (the catalogue) send their own policy.
		h.Del("Content-Security-Policy")
	}
	if s.MaxBody > 0 && r.Body != nil && !(rt.Stream && r.Method == http.MethodPost) {
		// A streamed upload (release assets) bounds its body itself.
		r.Body = http.MaxBytesReader(w, r.Body, s.MaxBody)
	}
	resource := rt.Resource
	if resource == "" {
		resource = "core"
	}
	buffered := (r.Method == http.MethodGet || r.Method == http.MethodHead) && !rt.Stream
	if !buffered {
		st, ok := s.peek(r, info, resource), true
		if !rt.NoRateLimit {
			st, ok = s.take(r, info, resource)
		}
		s.setRateHeaders(w, st)
		if !ok {
			s.insight(r, rt, info, resource, true)
			s.rateLimited(w, r, info, st)
			return
		}
		if rt.Stream {
			w, r = s.stream(w, r)
		}
		handler.ServeHTTP(w, r)
		s.insight(r, rt, info, resource, false)
		return
	}
	// Buffered GET: the body is hashed for the ETag, and a 304 is not
	// counted against the rate limit.
	if st := s.peek(r, info, resource); st.Remaining == 0 && !rt.NoRateLimit {
		s.insight(r, rt, info, resource, true)
		s.setRateHeaders(w, st)
		s.rateLimited(w, r, info, st)
		return
	}
	bw := &bufferedWriter{header: h, status: 200, buf: rest.GetBuffer()}
	defer rest.PutBuffer(bw.buf)
	handler.ServeHTTP(bw, r)
	s.insight(r, rt, info, resource, false)
	s.idLinks(r, h)
	notModified := bw.status == 200 && fresh(r, bw)
	var st ratelimit.State
	if notModified || rt.NoRateLimit {
		st = s.peek(r, info, resource)
	} else {
		st, _ = s.take(r, info, resource)
	}
	s.setRateHeaders(w, st)
	if notModified {
		h.Del("Content-Length")
		h.Del("Content-Type")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(bw.status)
	if r.Method != http.MethodHead {
		w.Write(bw.buf.Bytes())
	}
}

// fetched counts a clone or fetch for the repository's traffic.
func (s *Server) fetched(r *http.Request, a *githttp.Access) {
	if s.deps.Metrics != nil && a.Model != nil {
		s.deps.Metrics.Fetched(r, a.RepoID)
	}
}

func (s *Server) wrap(rt *rest.Route) http.Handler {
	docs := rest.DefaultDocs
	if !rt.Extension {
		docs = catalogue.DocsURL(rt.OperationID)
	}
	writes := writesRepository(rt) // server/grants.go
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := rest.From(r)
		info.OperationID, info.DocsURL, info.Writes = rt.OperationID, docs, writes
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				rest.WriteError(w, r, fmt.Errorf("panic: %v", p))
			}
		}()
		if err := handle(rt, w, r); err != nil { // body.go: checks the body against the schema
			rest.WriteError(w, r, err)
		}
	})
}
