package server

import (
	"net/http"
	"strings"

	"github.com/hubd/hubd/internal/rest"
)

// ownerSegment is the index of the path segment of pattern that names an
// organization ({org}) or a repository's owner ({owner}), -1 when none
// does.
func ownerSegment(pattern string) int {
	for i, seg := range strings.Split(strings.TrimPrefix(pattern, "/"), "/") {
		if seg == "{org}" || seg == "{owner}" {
			return i
		}
	}
	return -1
}

// segment is the i-th segment of path (without its leading slash), ""
// when there are fewer.
func segment(path string, i int) string {
	path = strings.TrimPrefix(path, "/")
	for ; i > 0; i-- {
		j := strings.IndexByte(path, '/')
		if j < 0 {
			return ""
		}
		path = path[j+1:]
	}
	if j := strings.IndexByte(path, '/'); j >= 0 {
		path = path[:j]
	}
	return path
}

// insight counts a request to a route naming an account for API insights
// (core requests only, as GitHub's): in memory, the login resolved to an
// organization when the counters are written, so the request pays for no
// query.
func (s *Server) insight(r *http.Request, rt *rest.Route, info *rest.Info, resource string, limited bool) {
	if s.deps.Insights == nil || resource != "core" {
		return
	}
	i, ok := s.orgSegs[rt]
	if !ok {
		return
	}
	s.deps.Insights.Record(segment(r.URL.Path, i), rt.Method, rt.Pattern, info.Caller, limited, s.deps.Store.Now())
}
