package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/notifications"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/teams"
	"github.com/hubd/hubd/internal/websession"
)

// ServeSite serves the pages whose paths the API's root-mounted routes
// also answer, or that sit outside any repository: the notifications
// inbox, an organization's teams, people and repositories, and the
// signed-in user's settings. The server asks it before its route table:
// it takes a browser's GET (Accept: text/html, as GitHub's www host
// answers where its api host answers JSON) and the POSTed forms of these
// pages, and leaves everything else to the API.
func (h *Handler) ServeSite(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	if !strings.HasPrefix(p, "/notifications") && !strings.HasPrefix(p, "/orgs/") && !strings.HasPrefix(p, "/settings/") {
		return false
	}
	segs := strings.Split(strings.Trim(p, "/"), "/")
	for _, s := range segs {
		if s == "" || s == "." || s == ".." {
			return false
		}
	}
	post := r.Method == http.MethodPost
	switch {
	case post:
		if !wantsForm(r) || !siteForm(segs) {
			return false
		}
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		if !wantsHTML(r) {
			return false
		}
	default:
		return false
	}
	s := &site{h: h, w: w, r: r, segs: segs}
	if err := h.signIn(r); err != nil {
		return h.fail(w, r, err)
	}
	if post {
		if !h.form(w, r) {
			return true
		}
		if user(r) == nil {
			return h.signInFirst(w, r)
		}
		return s.submit()
	}
	switch {
	case segs[0] == "notifications" && len(segs) == 1:
		return s.inbox()
	case segs[0] == "orgs" && len(segs) == 3 && segs[2] == "people":
		return s.orgPeople(segs[1])
	case segs[0] == "orgs" && len(segs) == 3 && segs[2] == "repositories":
		return s.orgRepos(segs[1])
	case segs[0] == "orgs" && len(segs) == 3 && segs[2] == "teams":
		return s.teamList(segs[1])
	case segs[0] == "orgs" && len(segs) == 4 && segs[2] == "teams":
		return s.teamPage(segs[1], segs[3])
	case segs[0] == "settings" && len(segs) == 2 && segs[1] == "keys":
		return s.keysPage()
	case segs[0] == "settings" && len(segs) == 2 && segs[1] == "tokens":
		return s.tokensPage()
	}
	return false
}

// siteForm reports whether segs name one of the site pages' forms.
func siteForm(segs []string) bool {
	switch {
	case segs[0] == "notifications":
		// notifications/read (all), notifications/{id}/read, notifications/{id}/done
		return (len(segs) == 2 && segs[1] == "read") || (len(segs) == 3 && (segs[2] == "read" || segs[2] == "done"))
	case segs[0] == "settings":
		// settings/keys (add), settings/keys/{id}/delete, settings/tokens (create), settings/tokens/{id}/delete
		return (len(segs) == 2 && (segs[1] == "keys" || segs[1] == "tokens")) || (len(segs) == 4 && (segs[1] == "keys" || segs[1] == "tokens") && segs[3] == "delete")
	}
	return false
}

// site is one request for a page outside a repository.
type site struct {
	h    *Handler
	w    http.ResponseWriter
	r    *http.Request
	segs []string
}

func (s *site) notFound() bool      { return s.h.notFound(s.w, s.r) }
func (s *site) fail(err error) bool { return s.h.fail(s.w, s.r, err) }
func (s *site) caller() *authz.Caller {
	return rest.Caller(s.r)
}
func (s *site) ok(title, name string, data any) bool {
	return s.h.render(s.w, s.r, http.StatusOK, title, name, data, 0, "")
}

// back answers a form: back to path, with the refusal when there was one.
func (s *site) back(path string, err error) bool {
	if err != nil {
		msg, ok := refused(err)
		if !ok {
			return s.fail(err)
		}
		path += "?flash=" + url.QueryEscape(msg)
	}
	http.Redirect(s.w, s.r, s.h.d.URLs.Web+path, http.StatusSeeOther)
	return true
}

// org finds an organization by login (404 for a user or no one).
func (s *site) org(login string) (*model.Account, bool) {
	a, err := s.h.d.Store.R().AccountByLogin(s.r.Context(), login)
	if errors.Is(err, model.ErrNotFound) || (err == nil && !a.IsOrg()) {
		return nil, s.notFound()
	}
	if err != nil {
		return nil, s.fail(err)
	}
	return a, true
}

type OrgHead struct {
	Org    *model.Account
	Avatar string
	Tab    string // repositories, people, teams
	Member bool   // the viewer is an active member (sees teams)
}

func (s *site) orgHead(org *model.Account, tab string) (OrgHead, teams.Actor, error) {
	a, err := s.teams().ActorIn(s.r.Context(), org, user(s.r))
	return OrgHead{Org: org, Avatar: s.h.d.URLs.AvatarURL(org), Tab: tab, Member: a.Member()}, a, err
}

func (s *site) teams() *teams.Service {
	if s.h.svc.Teams != nil {
		return s.h.svc.Teams
	}
	return teams.New(s.h.d.Store)
}

// orgPage is one of an organization's pages: its people, repositories
// or teams (Tab says which).
type orgPage struct {
	OrgHead
	People     []*model.Account
	Avatars    map[int64]string
	Repos      []*store.RepoView
	Teams      []*model.Team
	Total      int
	Prev, Next string
}

// orgPeople serves /orgs/{org}/people: the members, all of them to a
// member and the public ones to everyone else (as GET /orgs/{org}/members
// and /public_members).
func (s *site) orgPeople(login string) bool {
	org, ok := s.org(login)
	if org == nil {
		return ok
	}
	head, a, err := s.orgHead(org, "people")
	if err != nil {
		return s.fail(err)
	}
	n := pageNumber(s.r)
	list, total, err := s.h.d.Store.R().OrgMembers(s.r.Context(), org.ID, store.MemberFilter{PublicOnly: !a.Member()}, listPerPage, (n-1)*listPerPage)
	if err != nil {
		return s.fail(err)
	}
	v := orgPage{OrgHead: head, People: list, Total: total, Avatars: map[int64]string{}}
	for _, u := range list {
		v.Avatars[u.ID] = s.h.d.URLs.AvatarURL(u)
	}
	v.Prev, v.Next = pager("/orgs/"+org.Login+"/people", "", n, total, listPerPage)
	return s.ok("People · "+org.Login, "org", v)
}

// orgRepos serves /orgs/{org}/repositories: the repositories the viewer
// may see, most recently updated first.
func (s *site) orgRepos(login string) bool {
	org, ok := s.org(login)
	if org == nil {
		return ok
	}
	head, _, err := s.orgHead(org, "repositories")
	if err != nil {
		return s.fail(err)
	}
	n := pageNumber(s.r)
	list, total, err := s.h.d.Store.R().ListRepos(s.r.Context(), store.RepoQuery{Viewer: deps.ViewerOf(s.caller()), OwnerID: org.ID,
		Sort: "updated", Desc: true, Limit: listPerPage, Offset: (n - 1) * listPerPage})
	if err != nil {
		return s.fail(err)
	}
	v := orgPage{OrgHead: head, Repos: list, Total: total}
	v.Prev, v.Next = pager("/orgs/"+org.Login+"/repositories", "", n, total, listPerPage)
	return s.ok("Repositories · "+org.Login, "org", v)
}

// teamList serves /orgs/{org}/teams: the teams a member may see (404 to
// anyone outside the organization).
func (s *site) teamList(login string) bool {
	org, ok := s.org(login)
	if org == nil {
		return ok
	}
	head, a, err := s.orgHead(org, "teams")
	if err != nil {
		return s.fail(err)
	}
	if !a.Member() {
		return s.notFound()
	}
	n := pageNumber(s.r)
	list, total, err := s.teams().List(s.r.Context(), org, a, listPerPage, (n-1)*listPerPage)
	if err != nil {
		return s.fail(err)
	}
	v := orgPage{OrgHead: head, Teams: list, Total: total}
	v.Prev, v.Next = pager("/orgs/"+org.Login+"/teams", "", n, total, listPerPage)
	return s.ok("Teams · "+org.Login, "org", v)
}

type teamRepo struct {
	Repo *model.Repo
	Role string
}

type teamView struct {
	OrgHead
	Team     *model.Team
	Members  []*model.Account
	Avatars  map[int64]string
	Children []*model.Team
	Repos    []teamRepo
	Hidden   int // repositories of the team the viewer may not see
}

// teamPage serves /orgs/{org}/teams/{team_slug}, a team's html_url: its
// description, parent and child teams, members and repositories. A team
// is seen by whom GET /orgs/{org}/teams/{team_slug} shows it to; others
// get a 404.
func (s *site) teamPage(login, slug string) bool {
	org, ok := s.org(login)
	if org == nil {
		return ok
	}
	head, a, err := s.orgHead(org, "teams")
	if err != nil {
		return s.fail(err)
	}
	ctx := s.r.Context()
	svc := s.teams()
	t, err := svc.Team(ctx, org, a, slug)
	if errors.Is(err, model.ErrNotFound) {
		return s.notFound()
	}
	if err != nil {
		return s.fail(err)
	}
	v := teamView{OrgHead: head, Team: t, Avatars: map[int64]string{}}
	if v.Members, _, err = svc.Members(ctx, t, "all", 100, 0); err != nil {
		return s.fail(err)
	}
	for _, u := range v.Members {
		v.Avatars[u.ID] = s.h.d.URLs.AvatarURL(u)
	}
	if v.Children, _, err = svc.Children(ctx, t, a, 100, 0); err != nil {
		return s.fail(err)
	}
	grants, _, err := svc.Repos(ctx, t, 100, 0)
	if err != nil {
		return s.fail(err)
	}
	ids := make([]int64, len(grants))
	for i, g := range grants {
		ids[i] = g.RepoID
	}
	views, err := s.h.d.Store.R().ReposByID(ctx, ids, s.caller().UserID())
	if err != nil {
		return s.fail(err)
	}
	for _, g := range grants {
		rv := views[g.RepoID]
		if rv == nil || authz.RepoPermission(s.caller(), rv.Repo, rv.Facts) < authz.Read {
			v.Hidden++
			continue
		}
		v.Repos = append(v.Repos, teamRepo{Repo: rv.Repo, Role: g.Name()})
	}
	return s.ok(t.Name+" · "+org.Login, "team", v)
}

type inboxThread struct {
	ID           int64
	Repo         string
	Title, Href  string
	Type, Reason string
	Unread       bool
	Updated      time.Time
}

type inboxView struct {
	Threads    []inboxThread
	Unread     bool // only unread threads
	Total      int
	CSRF       string
	Flash      string
	Prev, Next string
}

// inbox serves /notifications, the signed-in user's notifications (not
// marked done), latest first, with buttons to mark each read or done and
// all read; the threads are those GET /notifications lists.
func (s *site) inbox() bool {
	u := user(s.r)
	if u == nil {
		return s.h.signInFirst(s.w, s.r)
	}
	if s.h.svc.Notifications == nil {
		return s.notFound()
	}
	ctx := s.r.Context()
	c := s.caller()
	n := pageNumber(s.r)
	unread := s.r.URL.Query().Get("filter") == "unread"
	list, total, _, err := s.h.svc.Notifications.List(ctx, c, notificationsQuery(c, !unread, n))
	if msg, ok := refused(err); err != nil && ok {
		return s.h.render(s.w, s.r, http.StatusForbidden, "Notifications", "notifications", inboxView{Flash: msg}, 0, "")
	}
	if err != nil {
		return s.fail(err)
	}
	ids := make([]int64, len(list))
	for i, t := range list {
		ids[i] = t.RepoID
	}
	views, err := s.h.d.Store.R().ReposByID(ctx, ids, c.UserID())
	if err != nil {
		return s.fail(err)
	}
	v := inboxView{Unread: unread, Total: total, CSRF: websession.CSRF(s.w, s.r, s.h.d.URLs.Web), Flash: s.r.URL.Query().Get("flash")}
	for _, t := range list {
		rv := views[t.RepoID]
		if rv == nil {
			continue
		}
		base := "/" + rv.Repo.FullName()
		href := base
		switch t.SubjectType {
		case "Issue":
			href = base + "/issues/" + strconv.FormatInt(t.SubjectKey, 10)
		case "PullRequest":
			href = base + "/pull/" + strconv.FormatInt(t.SubjectKey, 10)
		case "Release":
			href = base + "/releases"
		}
		v.Threads = append(v.Threads, inboxThread{ID: t.ID, Repo: rv.Repo.FullName(), Title: t.Title, Href: href,
			Type: t.SubjectType, Reason: t.Reason, Unread: t.Unread, Updated: t.UpdatedAt})
	}
	q := ""
	if unread {
		q = "filter=unread&"
	}
	v.Prev, v.Next = pager("/notifications", q, n, total, listPerPage)
	return s.ok("Notifications", "notifications", v)
}

// submit runs a site page's form.
func (s *site) submit() bool {
	ctx := s.r.Context()
	c := s.caller()
	switch s.segs[0] {
	case "notifications":
		if s.h.svc.Notifications == nil {
			return s.notFound()
		}
		back := "/notifications"
		if ret := s.r.PostForm.Get("return"); ret == "unread" {
			back += "?filter=unread"
		}
		if len(s.segs) == 2 {
			_, err := s.h.svc.Notifications.MarkRead(ctx, c, 0, s.h.d.Store.Now(), true)
			return s.back(back, err)
		}
		id, err := strconv.ParseInt(s.segs[1], 10, 64)
		if err != nil || id <= 0 {
			return s.notFound()
		}
		return s.back(back, s.h.svc.Notifications.MarkThread(ctx, c, deps.ViewerOf(c), id, s.segs[2] == "done"))
	case "settings":
		if s.segs[1] == "tokens" {
			if len(s.segs) == 2 {
				return s.createToken()
			}
			return s.revokeToken()
		}
		if s.h.svc.SSHKeys == nil {
			return s.notFound()
		}
		if len(s.segs) == 2 {
			_, err := s.h.svc.SSHKeys.AddMine(ctx, c, s.r.PostForm.Get("title"), s.r.PostForm.Get("key"))
			return s.back("/settings/keys", err)
		}
		id, err := strconv.ParseInt(s.segs[2], 10, 64)
		if err != nil || id <= 0 {
			return s.notFound()
		}
		return s.back("/settings/keys", s.h.svc.SSHKeys.DeleteMine(ctx, c, id))
	}
	return s.notFound()
}

type keysView struct {
	Keys  []*model.PublicKey
	CSRF  string
	Flash string
}

// keysPage serves /settings/keys: the signed-in user's SSH keys, a form
// to add one and a button to delete each (GET/POST/DELETE /user/keys).
func (s *site) keysPage() bool {
	if user(s.r) == nil {
		return s.h.signInFirst(s.w, s.r)
	}
	if s.h.svc.SSHKeys == nil {
		return s.notFound()
	}
	keys, _, err := s.h.svc.SSHKeys.ListMine(s.r.Context(), s.caller(), 100, 0)
	if err != nil {
		if msg, ok := refused(err); ok {
			return s.h.render(s.w, s.r, http.StatusForbidden, "SSH keys", "keys", keysView{Flash: msg}, 0, "")
		}
		return s.fail(err)
	}
	v := keysView{Keys: keys, CSRF: websession.CSRF(s.w, s.r, s.h.d.URLs.Web), Flash: s.r.URL.Query().Get("flash")}
	return s.ok("SSH keys", "keys", v)
}

// notificationsQuery is page n of the caller's inbox: every thread not
// marked done (all), or the unread ones.
func notificationsQuery(c *authz.Caller, all bool, n int) notifications.ListQuery {
	return notifications.ListQuery{Viewer: deps.ViewerOf(c), All: all, Limit: listPerPage, Offset: (n - 1) * listPerPage}
}

type tokensView struct {
	New    *newToken // the token a form just created (its value, once)
	Scopes []string
	Perms  any
	Days   []int
	Tokens []*store.FineGrainedToken
	Owners map[int64]string // fine-grained tokens' resource owners
	CSRF   string
	Flash  string
}

// tokensPage serves /settings/tokens: the signed-in user's personal access
// tokens, classic and fine-grained (never their values), each with a
// button to revoke it. Only a browser's session may manage them: a token
// cannot list or revoke its siblings.
func (s *site) tokensPage() bool {
	u := user(s.r)
	if u == nil {
		return s.h.signInFirst(s.w, s.r)
	}
	if websession.Session(s.r) == "" {
		return s.notFound()
	}
	return s.tokensList(nil)
}

// tokensList draws the tokens page, with a new token's value once.
func (s *site) tokensList(made *newToken) bool {
	u := user(s.r)
	ctx := s.r.Context()
	q := s.h.d.Store.R()
	list, err := q.PersonalTokens(ctx, u.ID, 200)
	if err != nil {
		return s.fail(err)
	}
	var ids []int64
	for _, t := range list {
		if t.ResourceOwnerID != 0 {
			ids = append(ids, t.ResourceOwnerID)
		}
	}
	owners := map[int64]string{}
	if len(ids) > 0 {
		accts, err := q.AccountsByID(ctx, ids)
		if err != nil {
			return s.fail(err)
		}
		for id, a := range accts {
			owners[id] = a.Login
		}
	}
	v := tokensView{New: made, Scopes: classicScopes, Perms: finePermissions, Days: tokenLifetimes, Tokens: list, Owners: owners, CSRF: websession.CSRF(s.w, s.r, s.h.d.URLs.Web), Flash: s.r.URL.Query().Get("flash")}
	return s.ok("Personal access tokens", "tokens", v)
}

// revokeToken deletes one of the signed-in user's personal access tokens;
// the authentication cache forgets it at once.
func (s *site) revokeToken() bool {
	if websession.Session(s.r) == "" {
		return s.notFound()
	}
	id, err := strconv.ParseInt(s.segs[2], 10, 64)
	if err != nil || id <= 0 {
		return s.notFound()
	}
	ctx := s.r.Context()
	err = s.h.d.Store.Tx(ctx, func(tx store.Q) error { return tx.DeletePersonalToken(ctx, user(s.r).ID, id) })
	if err == nil && s.h.d.Tokens != nil {
		s.h.d.Tokens.Flush()
	}
	return s.back("/settings/tokens", err)
}
