package server

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/ratelimit"
	"github.com/hubd/hubd/internal/rest"
)

func (s *Server) rateKey(r *http.Request, info *rest.Info) (key, class string) {
	if key, class, ok := appRateKey(info.Caller); ok {
		return key, class
	}
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
