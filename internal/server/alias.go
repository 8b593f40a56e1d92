package server

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
)

// GitHub names every repository, organization and user two ways: by name
// (/repos/{owner}/{repo}/..., /orgs/{org}/..., /users/{username}/...) and by
// immutable id (/repositories/{id}/..., /organizations/{id}/...,
// /user/{id}/...). Its Link headers use the id form, which survives renames
// while a client pages, and it answers every named route under the id form
// too. The route table holds the named forms; an id path that no route
// matches is rewritten to the named one before dispatch.

// idPrefixes maps an id-form prefix to the named prefix it stands for.
var idPrefixes = []struct{ id, named string }{
	{"/repositories/", "/repos/"},
	{"/organizations/", "/orgs/"},
	{"/user/", "/users/"},
}

// unalias rewrites an id-form path that names an existing repository or
// account to its named form, reporting whether it did. A path naming no
// such thing is left alone and answers 404 like any unknown path; whether
// the caller may see the resource is decided by the route, as for the
// named path.
func (s *Server) unalias(r *http.Request) bool {
	if s.teamAlias(r) {
		return true
	}
	for _, p := range idPrefixes {
		rest, ok := strings.CutPrefix(r.URL.Path, p.id)
		if !ok {
			continue
		}
		idStr, sub, _ := strings.Cut(rest, "/")
		id, err := strconv.ParseInt(idStr, 10, 64)
		if err != nil || id <= 0 || strconv.FormatInt(id, 10) != idStr {
			return false
		}
		named, ok := s.namedPrefix(r.Context(), p.named, id)
		if !ok {
			return false
		}
		if sub != "" || strings.HasSuffix(rest, "/") {
			sub = "/" + sub
		}
		escSub := ""
		if i := strings.Index(r.URL.EscapedPath(), "/"+idStr); i >= 0 {
			escSub = r.URL.EscapedPath()[i+1+len(idStr):]
		}
		r.URL.Path = named + sub
		r.URL.RawPath = ""
		if escSub != sub {
			r.URL.RawPath = escapeNamed(named) + escSub
		}
		return true
	}
	return false
}

// teamAlias rewrites /organizations/{org_id}/team/{team_id}/... (the path
// go-github's *ByID team methods use, which GitHub serves) to the legacy
// /teams/{team_id}/... when that team belongs to that organization.
func (s *Server) teamAlias(r *http.Request) bool {
	rest, ok := strings.CutPrefix(r.URL.Path, "/organizations/")
	if !ok {
		return false
	}
	parts := strings.SplitN(rest, "/", 4)
	if len(parts) < 3 || parts[1] != "team" {
		return false
	}
	orgID, err1 := strconv.ParseInt(parts[0], 10, 64)
	teamID, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || strconv.FormatInt(teamID, 10) != parts[2] {
		return false
	}
	t, err := s.deps.Store.R().TeamByID(r.Context(), teamID)
	if err != nil || t.OrgID != orgID {
		return false
	}
	r.URL.Path = "/teams/" + parts[2]
	if len(parts) == 4 {
		r.URL.Path += "/" + parts[3]
	}
	r.URL.RawPath = ""
	return true
}

// namedPrefix is "/repos/{owner}/{repo}", "/orgs/{org}" or
// "/users/{username}" for an id.
func (s *Server) namedPrefix(ctx context.Context, named string, id int64) (string, bool) {
	q := s.deps.Store.R()
	if named == "/repos/" {
		owner, name, err := q.RepoNameByID(ctx, id)
		if err != nil {
			return "", false
		}
		return named + owner + "/" + name, true
	}
	a, err := q.AccountByID(ctx, id)
	if err != nil {
		return "", false
	}
	if (named == "/orgs/") != (a.Type == model.TypeOrganization) {
		return "", false
	}
	return named + a.Login, true
}

// escapeNamed escapes the segments of a named prefix (logins and repository
// names need none today, but RawPath must be a valid encoding of Path).
func escapeNamed(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// idLinks rewrites the Link header a list handler set from the named form of
// the request's path to the id form, as GitHub links pages. Only requests
// that set a Link header pay for the lookup.
func (s *Server) idLinks(r *http.Request, h http.Header) {
	link := h.Get("Link")
	if link == "" {
		return
	}
	segs := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 4)
	var from, to string
	ctx := r.Context()
	switch {
	case len(segs) >= 3 && segs[0] == "repos":
		v, err := s.deps.Store.R().RepoByName(ctx, segs[1], segs[2], rest.Caller(r).UserID())
		if err != nil {
			return
		}
		from = "/repos/" + segs[1] + "/" + segs[2]
		to = "/repositories/" + strconv.FormatInt(v.Repo.ID, 10)
	case len(segs) >= 2 && (segs[0] == "orgs" || segs[0] == "users"):
		a, err := s.deps.Store.R().AccountByLogin(ctx, segs[1])
		if err != nil {
			return
		}
		from = "/" + segs[0] + "/" + segs[1]
		to = "/user/" + strconv.FormatInt(a.ID, 10)
		if segs[0] == "orgs" {
			to = "/organizations/" + strconv.FormatInt(a.ID, 10)
		}
		if len(segs) == 2 {
			return // /orgs/{org} and /users/{username} themselves are not lists
		}
	default:
		return
	}
	// Each link is <API + path?query> (rest.SetLink).
	base := s.deps.URLs.API
	h.Set("Link", strings.ReplaceAll(link, "<"+base+from+"/", "<"+base+to+"/"))
}
