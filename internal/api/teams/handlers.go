package teams

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/hubd/hubd/internal/api"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/repos"
	"github.com/hubd/hubd/internal/rest"
	svc "github.com/hubd/hubd/internal/teams"
	"github.com/hubd/hubd/internal/wire"
)

// allowed reports whether the caller's token may act on teams: one of the
// classic scopes for classic and OAuth tokens, the organization "members"
// permission at level for the other kinds.
func allowed(c *authz.Caller, level string, scopes []string) error {
	ok := false
	switch c.Kind {
	case authz.Anonymous:
		return rest.ErrRequiresAuth
	case authz.ClassicPAT, authz.OAuthApp:
		for _, s := range scopes {
			ok = ok || c.HasScope(s)
		}
	default:
		got := c.Permissions["members"]
		ok = got == "admin" || got == "write" || got == level
	}
	if ok {
		return nil
	}
	if c.Kind == authz.UserToServer || c.Kind == authz.Installation {
		return model.Forbidden("Resource not accessible by integration")
	}
	return model.Forbidden("Resource not accessible by personal access token")
}

// org loads the path's organization and the caller's standing in it, after
// checking the token may act at level ("read" or "write").
func (a *API) org(r *http.Request, level string, scopes []string) (*model.Account, svc.Actor, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, svc.Actor{}, err
	}
	org, err := a.d.Store.R().OrgByLogin(r.Context(), r.PathValue("org"))
	if err != nil {
		return nil, svc.Actor{}, err
	}
	if err := allowed(c, level, scopes); err != nil {
		return nil, svc.Actor{}, err
	}
	act, err := a.svc.ActorIn(r.Context(), org, c.User)
	return org, act, err
}

// team loads the path's team, which the caller must be able to see.
func (a *API) team(r *http.Request, level string, scopes []string) (*model.Team, svc.Actor, error) {
	if r.PathValue("team_id") != "" {
		return a.teamByID(r, level, scopes)
	}
	org, act, err := a.org(r, level, scopes)
	if err != nil {
		return nil, act, err
	}
	t, err := a.svc.Team(r.Context(), org, act, r.PathValue("team_slug"))
	return t, act, err
}

// teamByID loads the team of a legacy /teams/{team_id} path.
func (a *API) teamByID(r *http.Request, level string, scopes []string) (*model.Team, svc.Actor, error) {
	c, err := api.RequireUser(r)
	if err != nil {
		return nil, svc.Actor{}, err
	}
	id, err := strconv.ParseInt(r.PathValue("team_id"), 10, 64)
	if err != nil {
		return nil, svc.Actor{}, model.ErrNotFound
	}
	if err := allowed(c, level, scopes); err != nil {
		return nil, svc.Actor{}, err
	}
	return a.svc.TeamByID(r.Context(), func(org *model.Account) (svc.Actor, error) {
		return a.svc.ActorIn(r.Context(), org, c.User)
	}, id)
}

// full is team-full with the organization's counts.
func (a *API) full(r *http.Request, t *model.Team) (wire.TeamFull, error) {
	c, err := a.d.Store.R().CountsFor(r.Context(), t.OrgID)
	if err != nil {
		return wire.TeamFull{}, err
	}
	return a.d.URLs.ToTeamFull(t, wire.OrgCounts{PublicRepos: c.PublicRepos}), nil
}

// GET /orgs/{org}/teams
func (a *API) list(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, "read", readOrg)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.List(r.Context(), org, act, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToTeams(list))
}

type teamBody struct {
	Name                rest.Opt[string] `json:"name"`
	Description         rest.Opt[string] `json:"description"`
	Privacy             rest.Opt[string] `json:"privacy"`
	NotificationSetting rest.Opt[string] `json:"notification_setting"`
	Permission          rest.Opt[string] `json:"permission"`
	ParentTeamID        rest.Opt[int64]  `json:"parent_team_id"`
	ParentTeamSlug      rest.Opt[string] `json:"parent_team_slug"`
	Maintainers         []string         `json:"maintainers"`
	RepoNames           []string         `json:"repo_names"`
}

func opt[T any](o rest.Opt[T]) svc.Opt[T] {
	return svc.Opt[T]{Set: o.Set, Null: o.Null, Value: o.Value}
}

func (b teamBody) input() svc.Input {
	return svc.Input{Name: opt(b.Name), Description: opt(b.Description), Privacy: opt(b.Privacy),
		NotificationSetting: opt(b.NotificationSetting), Permission: opt(b.Permission), ParentTeamID: opt(b.ParentTeamID),
		ParentTeamSlug: opt(b.ParentTeamSlug),
		Maintainers:    b.Maintainers, RepoNames: b.RepoNames}
}

// POST /orgs/{org}/teams: the creator becomes a maintainer.
func (a *API) create(w http.ResponseWriter, r *http.Request) error {
	org, act, err := a.org(r, "write", writeOrg)
	if err != nil {
		return err
	}
	var in teamBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	t, err := a.svc.Create(r.Context(), org, act, in.input())
	if err != nil {
		return err
	}
	out, err := a.full(r, t)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusCreated, out)
}

// GET /orgs/{org}/teams/{team_slug}
func (a *API) get(w http.ResponseWriter, r *http.Request) error {
	t, _, err := a.team(r, "read", readOrg)
	if err != nil {
		return err
	}
	out, err := a.full(r, t)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out)
}

// PATCH /orgs/{org}/teams/{team_slug}
func (a *API) update(w http.ResponseWriter, r *http.Request) error {
	t, act, err := a.team(r, "write", writeOrg)
	if err != nil {
		return err
	}
	var in teamBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	if t, err = a.svc.Update(r.Context(), t, act, in.input()); err != nil {
		return err
	}
	out, err := a.full(r, t)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, out)
}

// DELETE /orgs/{org}/teams/{team_slug}
func (a *API) delete(w http.ResponseWriter, r *http.Request) error {
	t, act, err := a.team(r, "write", writeOrg)
	if err != nil {
		return err
	}
	if err := a.svc.Delete(r.Context(), t, act); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /orgs/{org}/teams/{team_slug}/members
func (a *API) members(w http.ResponseWriter, r *http.Request) error {
	t, _, err := a.team(r, "read", readOrg)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.Members(r.Context(), t, r.URL.Query().Get("role"), p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.SimpleUser, len(list))
	for i, u := range list {
		out[i] = a.d.URLs.ToSimpleUser(u)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// user loads the path's user (organizations are not users).
func (a *API) user(r *http.Request) (*model.Account, error) {
	u, err := a.d.Store.R().AccountByLogin(r.Context(), r.PathValue("username"))
	if err == nil && u.IsOrg() {
		return nil, model.ErrNotFound
	}
	return u, err
}

// GET /orgs/{org}/teams/{team_slug}/memberships/{username}
func (a *API) getMembership(w http.ResponseWriter, r *http.Request) error {
	t, _, err := a.team(r, "read", readOrg)
	if err != nil {
		return err
	}
	u, err := a.user(r)
	if err != nil {
		return err
	}
	m, err := a.svc.Membership(r.Context(), t, u)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToTeamMembership(t, u.Login, m))
}

type membershipBody struct {
	Role string `json:"role"`
}

// PUT /orgs/{org}/teams/{team_slug}/memberships/{username}: someone outside
// the organization is invited to it (owners only) and stays pending.
func (a *API) setMembership(w http.ResponseWriter, r *http.Request) error {
	t, act, err := a.team(r, "write", writeOrg)
	if err != nil {
		return err
	}
	// Organizations are found here so the service can refuse them (422).
	u, err := a.d.Store.R().AccountByLogin(r.Context(), r.PathValue("username"))
	if err != nil {
		return err
	}
	var in membershipBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	m, err := a.svc.SetMembership(r.Context(), t, act, u, in.Role)
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToTeamMembership(t, u.Login, m))
}

// DELETE /orgs/{org}/teams/{team_slug}/memberships/{username}
func (a *API) removeMembership(w http.ResponseWriter, r *http.Request) error {
	t, act, err := a.team(r, "write", writeOrg)
	if err != nil {
		return err
	}
	u, err := a.user(r)
	if err != nil {
		return err
	}
	if err := a.svc.RemoveMembership(r.Context(), t, act, u); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /orgs/{org}/teams/{team_slug}/repos: permissions are the team's.
func (a *API) repos(w http.ResponseWriter, r *http.Request) error {
	t, _, err := a.team(r, "read", readOrg)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	grants, total, err := a.svc.Repos(r.Context(), t, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	ids := make([]int64, len(grants))
	for i, g := range grants {
		ids[i] = g.RepoID
	}
	q := a.d.Store.R()
	views, err := q.ReposByID(r.Context(), ids, rest.Caller(r).UserID())
	if err != nil {
		return err
	}
	facts, err := q.RepoFacts(r.Context(), ids)
	if err != nil {
		return err
	}
	out := make([]wire.MinimalRepositoryWithRole, 0, len(grants))
	for _, g := range grants {
		v := views[g.RepoID]
		if v == nil {
			continue
		}
		out = append(out, wire.MinimalRepositoryWithRole{MinimalRepository: a.d.URLs.ToMinimalRepository(v.Repo,
			repos.Counts(a.d, v.Repo, facts[v.Repo.ID]), wire.Access{Perm: g.Perm, Authenticated: true}), RoleName: g.Name()})
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// teamRepo loads the team and the path's repository, which the caller must
// see, with the caller's permission on it.
func (a *API) teamRepo(r *http.Request, level string, scopes []string) (*model.Team, svc.Actor, *model.Repo, authz.Permission, error) {
	t, act, err := a.team(r, level, scopes)
	if err != nil {
		return nil, act, nil, authz.None, err
	}
	repo, perm, err := a.d.Repo(r, authz.Read)
	return t, act, repo, perm, err
}

// GET /orgs/{org}/teams/{team_slug}/repos/{owner}/{repo}: 204, or the
// repository with the team's permissions when asked for with
// application/vnd.github.v3.repository+json.
func (a *API) checkRepo(w http.ResponseWriter, r *http.Request) error {
	t, _, repo, _, err := a.teamRepo(r, "read", readOrg)
	if err != nil {
		return err
	}
	g, err := a.svc.RepoGrant(r.Context(), t, repo)
	if err != nil {
		return err
	}
	if !strings.Contains(r.Header.Get("Accept"), "application/vnd.github.v3.repository+json") {
		return rest.NoContent(w)
	}
	facts, err := a.d.Store.R().RepoFacts(r.Context(), []int64{repo.ID})
	if err != nil {
		return err
	}
	return rest.JSON(w, http.StatusOK, wire.RepositoryWithRole{Repository: a.d.URLs.ToRepository(repo,
		repos.Counts(a.d, repo, facts[repo.ID]), wire.Access{Perm: g.Perm, Authenticated: true}), RoleName: g.Name()})
}

type repoBody struct {
	Permission string `json:"permission"`
}

// PUT /orgs/{org}/teams/{team_slug}/repos/{owner}/{repo}
func (a *API) addRepo(w http.ResponseWriter, r *http.Request) error {
	t, act, repo, perm, err := a.teamRepo(r, "write", repoOrg)
	if err != nil {
		return err
	}
	var in repoBody
	if err := rest.Decode(r, &in); err != nil {
		return err
	}
	g, err := a.svc.Grant(r.Context(), t.OrgID, in.Permission)
	if err != nil {
		return err
	}
	if err := a.svc.AddRepo(r.Context(), t, act, repo, perm, g); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// DELETE /orgs/{org}/teams/{team_slug}/repos/{owner}/{repo}
func (a *API) removeRepo(w http.ResponseWriter, r *http.Request) error {
	t, act, repo, perm, err := a.teamRepo(r, "write", repoOrg)
	if err != nil {
		return err
	}
	if err := a.svc.RemoveRepo(r.Context(), t, act, repo, perm); err != nil {
		return err
	}
	return rest.NoContent(w)
}

// GET /orgs/{org}/teams/{team_slug}/teams
func (a *API) children(w http.ResponseWriter, r *http.Request) error {
	t, act, err := a.team(r, "read", readOrg)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.Children(r.Context(), t, act, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, a.d.URLs.ToTeams(list))
}

// GET /user/teams: full teams with their organizations.
func (a *API) listForUser(w http.ResponseWriter, r *http.Request) error {
	c, err := api.RequireUser(r)
	if err != nil {
		return err
	}
	if err := allowed(c, "read", []string{"read:org", "repo", "user", "admin:org", "write:org"}); err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.OfUser(r.Context(), c.User.ID, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	// One count per organization on the page, not per team.
	counts := map[int64]wire.OrgCounts{}
	out := make([]wire.TeamFull, len(list))
	for i, t := range list {
		oc, ok := counts[t.OrgID]
		if !ok {
			ac, err := a.d.Store.R().CountsFor(r.Context(), t.OrgID)
			if err != nil {
				return err
			}
			oc = wire.OrgCounts{PublicRepos: ac.PublicRepos}
			counts[t.OrgID] = oc
		}
		out[i] = a.d.URLs.ToTeamFull(t, oc)
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}

// GET /repos/{owner}/{repo}/teams: the teams granted access to the
// repository that the caller may see.
func (a *API) repoTeams(w http.ResponseWriter, r *http.Request) error {
	repo, _, err := a.d.Repo(r, authz.Read)
	if err != nil {
		return err
	}
	p := rest.ParsePage(r)
	list, total, err := a.svc.OfRepo(r.Context(), repo, rest.Caller(r).User, p.Limit(), p.Offset())
	if err != nil {
		return err
	}
	out := make([]wire.RepoTeam, len(list))
	for i, rt := range list {
		out[i] = a.d.URLs.ToRepoTeam(rt.Team, rt.Grant.Perm, svc.GrantName(rt.Grant.Perm))
	}
	rest.SetLink(w, r, a.d.URLs.API, p, total)
	return rest.JSON(w, http.StatusOK, out)
}
