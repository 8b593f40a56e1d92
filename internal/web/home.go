package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

const (
	homeRepos    = 20
	homeIssues   = 10
	homeActivity = 20
)

// ServeHome serves GET / to a browser: GitHub's www host answers a
// dashboard to a signed-in user and a landing page otherwise, where its
// api host answers the API root. A client that presents a token or does
// not ask for text/html gets the API root (it reports false).
func (h *Handler) ServeHome(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if c := rest.Caller(r); (c != nil && c.Authenticated()) || !wantsHTML(r) {
		return false
	}
	if err := h.signIn(r); err != nil {
		return h.fail(w, r, err)
	}
	u := user(r)
	if u == nil {
		return h.render(w, r, http.StatusOK, h.siteName(), "landing", landingView{Site: h.siteName()}, 0, "")
	}
	v, err := h.dashboard(r, u)
	if err != nil {
		return h.fail(w, r, err)
	}
	return h.render(w, r, http.StatusOK, "Dashboard · "+h.siteName(), "home", v, 0, "")
}

// siteName is the host of the site's address.
func (h *Handler) siteName() string {
	if u, err := url.Parse(h.d.URLs.Web); err == nil && u.Host != "" {
		return u.Host
	}
	return "hubd"
}

type landingView struct{ Site string }

type homeIssue struct {
	*model.Issue
	Repo, Href string
}

type homeEvent struct {
	Actor, Verb, Repo string
	At                time.Time
}

type homeView struct {
	User     *model.Account
	Repos    []*model.Repo
	Assigned []homeIssue
	Reviews  []homeIssue
	Activity []homeEvent
}

// dashboard gathers a user's home: their repositories (recently pushed
// first), the open issues assigned to them, the open pull requests asking
// their review, and the activity of the repositories they watch.
func (h *Handler) dashboard(r *http.Request, u *model.Account) (homeView, error) {
	ctx := r.Context()
	st := h.d.Store.R()
	c := rest.Caller(r)
	v := homeView{User: u}
	rq := store.RepoQuery{Viewer: deps.ViewerOf(c), ViewerOwner: true, ViewerCollaborator: true, ViewerOrgMember: true,
		Sort: "pushed", Desc: true, Limit: homeRepos}
	repos, _, err := st.ListRepos(ctx, rq)
	if err != nil {
		return v, err
	}
	for _, rv := range repos {
		v.Repos = append(v.Repos, rv.Repo)
	}
	across := store.RepoQuery{Viewer: deps.ViewerOf(c), ViewerOwner: true, ViewerCollaborator: true, ViewerOrgMember: true}
	load := func(f store.IssueQuery) ([]homeIssue, error) {
		f.Repos, f.State, f.Sort, f.Desc, f.Limit = &across, "open", "updated", true, homeIssues
		list, _, err := st.ListIssues(ctx, f)
		if err != nil || len(list) == 0 {
			return nil, err
		}
		ids := make([]int64, 0, len(list))
		for _, is := range list {
			ids = append(ids, is.RepoID)
		}
		byID, err := st.ReposByID(ctx, ids, u.ID)
		if err != nil {
			return nil, err
		}
		var out []homeIssue
		for _, is := range list {
			rv := byID[is.RepoID]
			if rv == nil {
				continue
			}
			kind := "/issues/"
			if is.IsPull {
				kind = "/pull/"
			}
			out = append(out, homeIssue{Issue: is, Repo: rv.Repo.FullName(), Href: "/" + rv.Repo.FullName() + kind + strconv.FormatInt(is.Number, 10)})
		}
		return out, nil
	}
	if v.Assigned, err = load(store.IssueQuery{AssigneeID: u.ID}); err != nil {
		return v, err
	}
	if v.Reviews, err = load(store.IssueQuery{ReviewRequestedID: u.ID, Pulls: true}); err != nil {
		return v, err
	}
	viewer := store.RepoQuery{Viewer: deps.ViewerOf(c)}
	events, _, err := st.ListActivityEvents(ctx, store.ActivityQuery{ReceivedBy: u.ID, Viewer: &viewer}, homeActivity, 0, homeActivity)
	if err != nil {
		return v, err
	}
	for _, e := range events {
		var b struct {
			Actor struct {
				Login string `json:"login"`
			} `json:"actor"`
			Repo struct {
				Name string `json:"name"`
			} `json:"repo"`
			Payload struct {
				Action string `json:"action"`
			} `json:"payload"`
		}
		if json.Unmarshal(e.Body, &b) != nil {
			continue
		}
		v.Activity = append(v.Activity, homeEvent{Actor: b.Actor.Login, Verb: verb(e.Type, b.Payload.Action), Repo: b.Repo.Name, At: e.CreatedAt})
	}
	return v, nil
}

// verb words an activity event's type for the dashboard.
func verb(typ, action string) string {
	words := map[string]string{
		"PushEvent": "pushed to", "CreateEvent": "created a branch or tag in", "DeleteEvent": "deleted a branch or tag in",
		"IssuesEvent": "issue", "IssueCommentEvent": "commented on an issue in", "PullRequestEvent": "pull request",
		"PullRequestReviewEvent": "reviewed a pull request in", "PullRequestReviewCommentEvent": "commented on a pull request in",
		"WatchEvent": "starred", "ForkEvent": "forked", "ReleaseEvent": "released in", "PublicEvent": "made public",
		"MemberEvent": "changed the collaborators of",
	}
	w, ok := words[typ]
	if !ok {
		w = strings.TrimSuffix(typ, "Event") + " in"
	}
	if w == "issue" || w == "pull request" {
		if action == "" {
			action = "updated"
		}
		return action + " a" + map[bool]string{true: "n", false: ""}[w == "issue"] + " " + w + " in"
	}
	return w
}

type searchView struct {
	Q        string
	Accounts []*model.Account
	Repos    []*model.Repo
}

// search serves /search?q=: the header's "jump to" box. "owner/name" goes
// to a repository the reader may see, a login to its account page;
// otherwise the page says what was not found. (GitHub's full-text search
// of code, issues and commits is the API's /search; this box only jumps.)
func (h *Handler) search(w http.ResponseWriter, r *http.Request) bool {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	v := searchView{Q: q}
	ctx := r.Context()
	if owner, name, ok := strings.Cut(strings.Trim(q, "/"), "/"); ok && owner != "" && name != "" && !strings.Contains(name, "/") {
		r.SetPathValue("owner", owner)
		r.SetPathValue("repo", name)
		repo, _, err := h.d.Repo(r, authz.Read)
		if err == nil {
			http.Redirect(w, r, "/"+repo.FullName(), http.StatusFound)
			return true
		}
	} else if q != "" && !strings.ContainsAny(q, "/ ") {
		a, err := h.d.Store.R().AccountByLogin(ctx, q)
		if err == nil {
			http.Redirect(w, r, "/"+a.Login, http.StatusFound)
			return true
		}
	}
	return h.render(w, r, http.StatusOK, "Search · "+h.siteName(), "search", v, 0, "")
}
