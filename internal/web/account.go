package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/hubd/hubd/internal/deps"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/rest"
	"github.com/hubd/hubd/internal/store"
)

const reposPerPage = 30

type accountView struct {
	Account    *model.Account
	Avatar     string
	Blog       string // a link only when it is a web address
	Repos      []*store.RepoView
	Total      int
	Orgs       []*model.Account // a user's public organizations
	Members    []*model.Account // an organization's public members
	Prev, Next string
}

// accountPage serves /{login}, the html_url of users and organizations:
// the profile and the repositories the caller may see, most recently
// updated first.
func (h *Handler) accountPage(w http.ResponseWriter, r *http.Request, login string) bool {
	ctx := r.Context()
	st := h.d.Store.R()
	a, err := st.AccountByLogin(ctx, login)
	if errors.Is(err, model.ErrNotFound) {
		return h.notFound(w, r)
	}
	if err != nil {
		return h.fail(w, r, err)
	}
	if strings.TrimSuffix(r.URL.EscapedPath(), "/") != "/"+a.Login {
		return h.redirect(w, r, "/"+a.Login+query(r)) // canonical letter case
	}
	n := pageNumber(r)
	// The same visibility rule as every repository list of the API.
	list, total, err := st.ListRepos(ctx, store.RepoQuery{Viewer: deps.ViewerOf(rest.Caller(r)), OwnerID: a.ID,
		Sort: "updated", Desc: true, Limit: reposPerPage, Offset: (n - 1) * reposPerPage})
	if err != nil {
		return h.fail(w, r, err)
	}
	v := accountView{Account: a, Avatar: h.d.URLs.AvatarURL(a), Repos: list, Total: total}
	v.Blog = webLink(a.Blog)
	// Only memberships made public, as GET /users/{username}/orgs and
	// GET /orgs/{org}/public_members show them to everyone.
	switch {
	case n > 1:
	case a.IsOrg():
		v.Members, _, err = st.OrgMembers(ctx, a.ID, store.MemberFilter{PublicOnly: true}, 30, 0)
	default:
		v.Orgs, _, err = st.OrgsOfUser(ctx, a.ID, true, 30, 0)
	}
	if err != nil {
		return h.fail(w, r, err)
	}
	v.Prev, v.Next = pager("/"+a.Login, "", n, total, reposPerPage)
	title := a.Login
	if a.Name != "" {
		title += " (" + a.Name + ")"
	}
	return h.render(w, r, http.StatusOK, title, "account", v, 0, "")
}

// webLink is a profile's blog as a link: http(s) addresses, and bare host
// names as https (as GitHub links them); anything else is not linked.
func webLink(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err == nil && u.Scheme == "" && !strings.Contains(s, ":") {
		u, err = url.Parse("https://" + s)
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}
