package activity

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/activity"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/wire"
)

const atomType = "application/atom+xml"

// maxFeedOrgs bounds the organizations /feeds lists a URL for.
const maxFeedOrgs = 100

// privateFeeds reports whether c may be handed the user's feed token: a
// token that reads everything the private feeds show (a classic or OAuth
// token with the repo scope). GitHub hands it to password (Basic)
// authentication only; a narrower token (fine-grained, an app's) must not
// widen into every private event of its user.
func privateFeeds(c *authz.Caller) bool {
	return (c.Kind == authz.ClassicPAT || c.Kind == authz.OAuthApp) && c.Scopes.Has("repo")
}

// GET /feeds: the feeds the caller may read; the private ones (with the
// user's feed token) only to the user themself.
func (a *API) getFeeds(w http.ResponseWriter, r *http.Request) error {
	web := a.d.URLs.Web
	link := func(href string) wire.LinkWithType { return wire.LinkWithType{Href: href, Type: atomType} }
	out := wire.Feed{TimelineURL: web + "/timeline", UserURL: web + "/{user}"}
	out.Links.Timeline, out.Links.User = link(out.TimelineURL), link(out.UserURL)
	c := rest.Caller(r)
	u := c.User
	if !c.Authenticated() || u == nil || u.Type != model.TypeUser {
		return rest.JSON(w, http.StatusOK, out)
	}
	me := web + "/" + url.PathEscape(u.Login)
	out.CurrentUserPublicURL = me
	pub := link(me)
	out.Links.CurrentUserPublic = &pub
	if privateFeeds(c) {
		ctx := r.Context()
		tok, err := a.events.FeedToken(ctx, u.ID)
		if err != nil {
			return err
		}
		q := "?token=" + url.QueryEscape(tok)
		out.CurrentUserURL = me + ".private" + q
		out.CurrentUserActorURL = me + ".private.actor" + q
		out.CurrentUserOrganizationURL = web + "/organizations/{org}/" + url.PathEscape(u.Login) + ".private.atom" + q
		cur, actor, org := link(out.CurrentUserURL), link(out.CurrentUserActorURL), link(out.CurrentUserOrganizationURL)
		out.Links.CurrentUser, out.Links.CurrentUserActor, out.Links.CurrentUserOrganization = &cur, &actor, &org
		orgs, _, err := a.d.Store.R().OrgsOfUser(ctx, u.ID, false, maxFeedOrgs, 0)
		if err != nil {
			return err
		}
		out.CurrentUserOrganizationURLs = []string{}
		out.Links.CurrentUserOrganizations = []wire.LinkWithType{}
		for _, o := range orgs {
			href := web + "/organizations/" + url.PathEscape(o.Login) + "/" + url.PathEscape(u.Login) + ".private.atom" + q
			out.CurrentUserOrganizationURLs = append(out.CurrentUserOrganizationURLs, href)
			out.Links.CurrentUserOrganizations = append(out.Links.CurrentUserOrganizations, link(href))
		}
	}
	return rest.JSON(w, http.StatusOK, out)
}

// FeedPages serves the Atom feeds /feeds names, outside the API (on the
// web host, as github.com does): /timeline, /{user} (asked for as Atom),
// /{user}.private, /{user}.private.actor and
// /organizations/{org}/{user}.private, each also with an .atom suffix.
// The private feeds need the user's feed token (?token=); a wrong one is
// a 404, as is a feed that does not exist.
type FeedPages struct{ a *API }

// Feeds is the Atom feeds' handler (the server dispatches to it).
func (a *API) Feeds() *FeedPages { return &FeedPages{a} }

// feedPath is what a feed request names.
type feedPath struct {
	kind      string // "timeline", "public", "private", "actor", "org"
	user, org string
}

// parseFeed recognises a feed path; accept tells whether the client asked
// for Atom (which /timeline and /{user} need to be feeds).
func parseFeed(path string, atom bool) (feedPath, bool) {
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(segs) == 3 && segs[0] == "organizations" && segs[1] != "" {
		if u, ok := cutFeedSuffix(segs[2], ".private"); ok {
			return feedPath{kind: "org", org: segs[1], user: u}, true
		}
		return feedPath{}, false
	}
	if len(segs) != 1 || segs[0] == "" {
		return feedPath{}, false
	}
	s := segs[0]
	if u, ok := cutFeedSuffix(s, ".private.actor"); ok {
		return feedPath{kind: "actor", user: u}, true
	}
	if u, ok := cutFeedSuffix(s, ".private"); ok {
		return feedPath{kind: "private", user: u}, true
	}
	name, suffixed := strings.CutSuffix(s, ".atom")
	if name == "timeline" {
		// No page of hubd's lives there: always the feed.
		return feedPath{kind: "timeline"}, true
	}
	if !suffixed && !atom || name == "" || strings.Contains(name, ".") || !plausibleName(name) {
		return feedPath{}, false
	}
	return feedPath{kind: "public", user: name}, true
}

// cutFeedSuffix cuts suffix, or suffix + ".atom", off s; what remains
// must be a plausible login.
func cutFeedSuffix(s, suffix string) (string, bool) {
	s = strings.TrimSuffix(s, ".atom")
	u, ok := strings.CutSuffix(s, suffix)
	return u, ok && u != "" && !strings.Contains(u, ".") && plausibleName(u)
}

// Serves reports whether r asks for a feed.
func (f *FeedPages) Serves(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	_, ok := parseFeed(r.URL.Path, strings.Contains(r.Header.Get("Accept"), atomType))
	return ok
}

func (f *FeedPages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p, _ := parseFeed(r.URL.Path, strings.Contains(r.Header.Get("Accept"), atomType))
	page, err := f.a.feed(r, p)
	if err != nil {
		if !errors.Is(err, model.ErrNotFound) {
			rest.WriteError(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("Not Found\n"))
		return
	}
	h := w.Header()
	h.Set("Content-Type", atomType+"; charset=utf-8")
	h.Set("ETag", page.ETag)
	h.Set("Last-Modified", page.Updated.UTC().Format(http.TimeFormat))
	h.Set("Cache-Control", "max-age=0, private, must-revalidate")
	if notModified(r, page) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(page.Body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(page.Body)
	}
}

// notModified applies If-None-Match, else If-Modified-Since.
func notModified(r *http.Request, p *activity.AtomPage) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		for _, t := range strings.Split(inm, ",") {
			t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
			if t == p.ETag || t == "*" {
				return true
			}
		}
		return false
	}
	if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil {
		return !p.Updated.Truncate(time.Second).After(ims)
	}
	return false
}

// feed renders the feed p names for the request.
func (a *API) feed(r *http.Request, p feedPath) (*activity.AtomPage, error) {
	ctx := r.Context()
	web := a.d.URLs.Web
	page := 1
	if v := r.URL.Query().Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, model.ErrNotFound
		}
		page = n
	}
	if p.kind == "timeline" {
		return a.events.Atom(ctx, store.ActivityQuery{PublicOnly: true},
			activity.Feed{Title: "GitHub Public Timeline Feed", Self: web + "/timeline.atom", Alternate: web + "/timeline"}, page)
	}
	q := a.d.Store.R()
	u, err := q.AccountByLogin(ctx, p.user)
	if err != nil {
		return nil, err
	}
	if u.Type != model.TypeUser {
		return nil, model.ErrNotFound
	}
	me := web + "/" + url.PathEscape(u.Login)
	if p.kind == "public" {
		return a.events.Atom(ctx, store.ActivityQuery{ActorID: u.ID, PublicOnly: true},
			activity.Feed{Title: u.Login + "’s Activity", Self: me + ".atom", Alternate: me}, page)
	}
	tok := r.URL.Query().Get("token")
	if ok, err := a.events.ValidFeedToken(ctx, u.ID, tok); err != nil || !ok {
		if err != nil {
			return nil, err
		}
		return nil, model.ErrNotFound
	}
	// What the user themself may read, as on their dashboard.
	viewer := &store.RepoQuery{Viewer: store.Viewer{UserID: u.ID}, ViewerOwner: true, ViewerCollaborator: true, ViewerOrgMember: true}
	self := "?token=" + url.QueryEscape(tok)
	switch p.kind {
	case "private":
		return a.events.Atom(ctx, store.ActivityQuery{ReceivedBy: u.ID, Viewer: viewer},
			activity.Feed{Title: "Private Feed for " + u.Login, Self: me + ".private.atom" + self, Alternate: web + "/"}, page)
	case "actor":
		return a.events.Atom(ctx, store.ActivityQuery{ActorID: u.ID, Viewer: viewer},
			activity.Feed{Title: "Private Feed for " + u.Login, Self: me + ".private.actor.atom" + self, Alternate: me}, page)
	}
	org, err := q.OrgByLogin(ctx, p.org)
	if err != nil {
		return nil, err
	}
	if err := a.activeMember(ctx, org.ID, u.ID); err != nil {
		return nil, err
	}
	ow := web + "/organizations/" + url.PathEscape(org.Login) + "/" + url.PathEscape(u.Login)
	return a.events.Atom(ctx, store.ActivityQuery{OrgID: org.ID, Viewer: viewer},
		activity.Feed{Title: "Private Feed for the " + org.Login + " Organization", Self: ow + ".private.atom" + self,
			Alternate: web + "/orgs/" + url.PathEscape(org.Login) + "/dashboard"}, page)
}
