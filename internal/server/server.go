// Package server gathers every api package's routes into one ServeMux and
// wraps it in GitHub's HTTP conventions: request ids, CORS, the /api/v3
// prefix, API versions, authentication, rate limits, media types, ETags and
// conditional requests, and JSON 404s for unknown paths.
package server

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/catalogue"
	"github.com/hubd/hubd/internal/githttp"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/web"
)

// APIVersions are the values of X-GitHub-Api-Version hubd accepts, oldest
// first; the first is the default when a request names none.
var APIVersions = []string{"2022-11-28", "2026-03-10"}

// Server is hubd's HTTP handler.
type Server struct {
	deps api.Deps
	git  *githttp.Handler
	web  *web.Handler
	// muxes are consulted in order; see New for why there is more than one.
	muxes   []*http.ServeMux
	routes  map[string]*rest.Route // "METHOD pattern" -> route
	list    []*rest.Route
	MaxBody int64
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
	s := &Server{deps: deps, routes: map[string]*rest.Route{}, MaxBody: rest.MaxBody}
	if s.deps.Tokens == nil {
		s.deps.Tokens = api.NewTokenCache(0)
	}
	s.git = &githttp.Handler{Resolver: gitResolver{&s.deps}, Observer: gitObserver{&s.deps}, Fetched: s.fetched}
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

// ServeHTTP runs the middleware chain and dispatches.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info := &rest.Info{RequestID: newRequestID(), Start: time.Now(), Caller: &authz.Caller{}, Media: rest.ParseAccept(r.Header.Get("Accept"))}
	r = r.WithContext(rest.WithInfo(r.Context(), info))
	h := w.Header()
	h.Set("X-GitHub-Request-Id", info.RequestID)
	h.Set("X-GitHub-Media-Type", info.Media.Header())
	setCORS(h)
	if r.Method == http.MethodOptions {
		preflight(w, r)
		return
	}
	if _, _, _, ok := githttp.Match(r.URL.Path); ok {
		// git's smart HTTP: authenticated like the API, but neither rate
		// limited nor answered in JSON.
		if err := s.authenticate(r, info); err != nil {
			w.Header().Set("WWW-Authenticate", `Basic realm="GitHub"`)
			http.Error(w, "Invalid username or token.", http.StatusUnauthorized)
			return
		}
		s.git.ServeHTTP(w, r)
		return
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
	if v := r.Header.Get("X-GitHub-Api-Version"); v != "" && !supportedVersion(v) {
		rest.WriteError(w, r, model.BadRequest(fmt.Sprintf("Unsupported 'X-GitHub-Api-Version' header value '%s'. Supported versions are: %s", v, strings.Join(APIVersions, ", "))))
		return
	}
	h.Set("X-GitHub-Api-Version-Selected", selectedVersion(r.Header.Get("X-GitHub-Api-Version")))

	if err := s.authenticate(r, info); err != nil {
		s.setRateHeaders(w, s.peek(r, info, "core"))
		rest.WriteError(w, r, err)
		return
	}
	if info.Caller.Authenticated() && info.Caller.Kind != authz.FineGrained {
		h.Set("X-OAuth-Scopes", info.Caller.Scopes.String())
	}

	// mux.Handler finds the route; mux.ServeHTTP (below) also sets the path
	// values the handlers read.
	handler, pattern := s.find(r)
	rt := s.routes[pattern]
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
	if rt.Scopes != nil {
		h.Set("X-Accepted-OAuth-Scopes", strings.Join(rt.Scopes, ", "))
	} else {
		h.Set("X-Accepted-OAuth-Scopes", "")
	}
	if s.MaxBody > 0 && r.Body != nil {
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
			s.rateLimited(w, r, info, st)
			return
		}
		handler.ServeHTTP(w, r)
		return
	}
	// Buffered GET: the body is hashed for the ETag, and a 304 is not
	// counted against the rate limit.
	if st := s.peek(r, info, resource); st.Remaining == 0 && !rt.NoRateLimit {
		s.setRateHeaders(w, st)
		s.rateLimited(w, r, info, st)
		return
	}
	bw := &bufferedWriter{header: h, status: 200, buf: rest.GetBuffer()}
	defer rest.PutBuffer(bw.buf)
	handler.ServeHTTP(bw, r)
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
	if s.deps.Metrics != nil {
		s.deps.Metrics.Fetched(r, a.RepoID)
	}
}

func (s *Server) wrap(rt *rest.Route) http.Handler {
	docs := rest.DefaultDocs
	if !rt.Extension {
		docs = catalogue.DocsURL(rt.OperationID)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := rest.From(r)
		info.OperationID, info.DocsURL = rt.OperationID, docs
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				rest.WriteError(w, r, fmt.Errorf("panic: %v", p))
			}
		}()
		if err := rt.Handler(w, r); err != nil {
			rest.WriteError(w, r, err)
		}
	})
}

// authenticate reads the credentials, if any. Bad credentials are a 401 even
// on endpoints that do not need authentication, as on GitHub.
func (s *Server) authenticate(r *http.Request, info *rest.Info) error {
	tok, present := credentials(r)
	if !present {
		return nil
	}
	if tok == "" {
		return rest.ErrBadCredentials
	}
	c, ok, err := s.deps.Tokens.Get(r.Context(), tok, s.deps.Store)
	if err != nil {
		return err
	}
	if !ok {
		return rest.ErrBadCredentials
	}
	info.Caller = c
	return nil
}

// credentials extracts a token from Authorization: "token X", "Bearer X",
// or Basic with the token as password (or as user name with an empty or
// x-oauth-basic password, as git and some clients send it).
func credentials(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", false
	}
	scheme, rest, _ := strings.Cut(h, " ")
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(scheme) {
	case "token", "bearer":
		return rest, true
	case "basic":
		raw, err := base64.StdEncoding.DecodeString(rest)
		if err != nil {
			return "", true
		}
		user, pass, _ := strings.Cut(string(raw), ":")
		if pass == "" || pass == "x-oauth-basic" {
			return user, true
		}
		return pass, true
	}
	return "", true
}

func (s *Server) rateKey(r *http.Request, info *rest.Info) (key, class string) {
	return ratelimit.KeyFor(info.Caller, r.RemoteAddr)
}

func (s *Server) take(r *http.Request, info *rest.Info, resource string) (ratelimit.State, bool) {
	key, class := s.rateKey(r, info)
	return s.deps.Limiter.Take(key, class, resource)
}

func (s *Server) peek(r *http.Request, info *rest.Info, resource string) ratelimit.State {
	key, class := s.rateKey(r, info)
	return s.deps.Limiter.Peek(key, class, resource)
}

func (s *Server) setRateHeaders(w http.ResponseWriter, st ratelimit.State) {
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(st.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(st.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(st.Reset.Unix(), 10))
	h.Set("X-RateLimit-Used", strconv.Itoa(st.Used))
	h.Set("X-RateLimit-Resource", st.Resource)
}

// rateLimited answers GitHub's primary rate limit error: 403 with the
// remaining count at 0 and Retry-After until the window resets.
func (s *Server) rateLimited(w http.ResponseWriter, r *http.Request, info *rest.Info, st ratelimit.State) {
	wait := max(int(time.Until(st.Reset).Seconds())+1, 1)
	w.Header().Set("Retry-After", strconv.Itoa(wait))
	msg := "API rate limit exceeded"
	if c := info.Caller; c.User != nil {
		msg += fmt.Sprintf(" for user ID %d.", c.User.ID)
	} else {
		key, _ := s.rateKey(r, info)
		msg += " for " + strings.TrimPrefix(key, "ip:") + ". (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)"
	}
	info.DocsURL = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
	rest.WriteError(w, r, model.Forbidden(msg))
}

// unclean reports whether a path has "." or ".." segments or empty inner
// segments ("//"); a trailing slash is allowed.
func unclean(p string) bool {
	segs := strings.Split(p, "/")
	for i := 1; i < len(segs); i++ {
		switch segs[i] {
		case ".", "..":
			return true
		case "":
			if i < len(segs)-1 {
				return true
			}
		}
	}
	return false
}

func supportedVersion(v string) bool {
	for _, s := range APIVersions {
		if s == v {
			return true
		}
	}
	return false
}

func selectedVersion(v string) string {
	if v == "" {
		return APIVersions[0]
	}
	return v
}

func setCORS(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "ETag, Link, Location, Retry-After, X-GitHub-OTP, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Used, X-RateLimit-Resource, X-RateLimit-Reset, X-OAuth-Scopes, X-Accepted-OAuth-Scopes, X-Poll-Interval, X-GitHub-Media-Type, X-GitHub-SSO, X-GitHub-Request-Id, Deprecation, Sunset")
}

func preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, If-Match, If-Modified-Since, If-None-Match, If-Unmodified-Since, Accept-Encoding, X-GitHub-OTP, X-Requested-With, User-Agent, GraphQL-Features, X-Github-Next-Global-ID, X-GitHub-Api-Version")
	h.Set("Access-Control-Allow-Methods", "GET, POST, PATCH, PUT, DELETE")
	h.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
}

// newRequestID mimics GitHub's request ids (five hex groups).
func newRequestID() string {
	var b [14]byte
	rand.Read(b[:])
	x := strings.ToUpper(hex.EncodeToString(b[:]))
	return x[0:4] + ":" + x[4:8] + ":" + x[8:14] + ":" + x[14:20] + ":" + x[20:28]
}

// bufferedWriter holds a GET response so that the ETag can be computed and a
// 304 sent instead.
type bufferedWriter struct {
	header http.Header
	status int
	wrote  bool
	buf    *bytes.Buffer
}

func (b *bufferedWriter) Header() http.Header { return b.header }
func (b *bufferedWriter) WriteHeader(s int) {
	if !b.wrote {
		b.status, b.wrote = s, true
	}
}
func (b *bufferedWriter) Write(p []byte) (int, error) {
	b.wrote = true
	return b.buf.Write(p)
}

// fresh sets ETag (and honours Last-Modified set by the handler) and reports
// whether the client's copy is current.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func fresh(r *http.Request, b *bufferedWriter) bool {
	h := b.header
	// The body's fingerprint: two CRC-32s (Castagnoli and IEEE, both computed
	// by the CPU's instructions) and the length. An ETag only has to tell
	// versions of one resource apart, and SHA-256 over every list body was
	// half of the CPU of a busy issue list.
	body := b.buf.Bytes()
	var fp [20]byte
	binary.BigEndian.PutUint32(fp[0:], crc32.Checksum(body, castagnoli))
	binary.BigEndian.PutUint32(fp[4:], crc32.ChecksumIEEE(body))
	binary.BigEndian.PutUint64(fp[8:], uint64(len(body)))
	// The ETag varies with the caller too, like GitHub's, so a cached body is
	// never served to another user.
	c := rest.Caller(r)
	salt := sha256.Sum256(append(fp[:16], []byte(strconv.FormatInt(c.UserID(), 10)+"|"+rest.From(r).Media.Header())...))
	etag := `W/"` + hex.EncodeToString(salt[:16]) + `"`
	h.Set("ETag", etag)
	cache := "private, max-age=60, s-maxage=60"
	if !c.Authenticated() {
		cache = "public, max-age=60, s-maxage=60"
	}
	h.Set("Cache-Control", cache)
	h.Set("Vary", "Accept, Authorization, Cookie, X-GitHub-OTP, Accept-Encoding, X-Requested-With")
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for _, t := range strings.Split(inm, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == strings.TrimPrefix(etag, "W/") {
				return true
			}
		}
		return false
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" {
		if lm := h.Get("Last-Modified"); lm != "" {
			since, err1 := http.ParseTime(ims)
			mod, err2 := http.ParseTime(lm)
			if err1 == nil && err2 == nil && !mod.After(since) {
				return true
			}
		}
	}
	return false
}
