package teams_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// member is the default role: go-github sends the literal null for nil
// options, which hubd's body check refuses (see the report).
var member = &github.TeamAddTeamMembershipOptions{Role: "member"}

// world is the organization octo (base permission none) owned by olga,
// with active members mia and max, an outsider zed, and the private
// repository octo/vault.
type world struct {
	e                       *apitest.Env
	olga, mia, max, zed     *github.Client
	olgaTok, miaTok, maxTok string
	zedTok                  string
	zedID                   int64
}

func newWorld(t *testing.T) *world {
	t.Helper()
	e := apitest.New(t)
	olga, olgaTok := e.NewUser("olga", false)
	mia, miaTok := e.NewUser("mia", false)
	max, maxTok := e.NewUser("max", false)
	zed, zedTok := e.NewUser("zed", false)
	org := store.NewOrg("octo")
	org.DefaultRepoPermission = "none"
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, org, olga.ID); err != nil {
			return err
		}
		for _, u := range []*model.Account{mia, max} {
			if err := tx.SetMembership(ctx, &model.Membership{OrgID: org.ID, UserID: u.ID, Role: model.RoleMember, State: store.StateActive}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	w := &world{e: e, olga: e.GitHub(olgaTok), mia: e.GitHub(miaTok), max: e.GitHub(maxTok), zed: e.GitHub(zedTok),
		olgaTok: olgaTok, miaTok: miaTok, maxTok: maxTok, zedTok: zedTok, zedID: zed.ID}
	if _, _, err := w.olga.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("vault"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *world) team(t *testing.T, c *github.Client, req github.CreateTeamRequest) *github.Team {
	t.Helper()
	team, _, err := c.Teams.CreateTeam(ctx, "octo", req)
	if err != nil {
		t.Fatalf("CreateTeam %s: %v", req.Name, err)
	}
	return team
}

func status(resp *github.Response) int {
	if resp == nil {
		return 0
	}
	return resp.StatusCode
}

func TestCreateGetEditDelete(t *testing.T) {
	w := newWorld(t)
	team := w.team(t, w.olga, github.CreateTeamRequest{Name: "Core Devs!", Description: github.Ptr("the core"),
		Maintainers: []string{"mia"}, RepoNames: []string{"octo/vault"}})
	if team.GetSlug() != "core-devs" || team.GetPrivacy() != "secret" || team.GetMembersCount() != 2 ||
		team.GetReposCount() != 1 || team.GetOrganization().GetLogin() != "octo" || team.GetPermission() != "pull" {
		t.Fatalf("created %+v", team)
	}
	// The creator and the named maintainer are maintainers.
	for _, login := range []string{"olga", "mia"} {
		m, _, err := w.olga.Teams.GetTeamMembershipBySlug(ctx, "octo", "core-devs", login)
		if err != nil || m.GetRole() != "maintainer" || m.GetState() != "active" {
			t.Fatalf("%s membership %+v %v", login, m, err)
		}
	}
	got, _, err := w.mia.Teams.GetTeamBySlug(ctx, "octo", "CORE-DEVS")
	if err != nil || got.GetID() != team.GetID() || got.GetDescription() != "the core" {
		t.Fatalf("get %+v %v", got, err)
	}
	// A secret team is hidden from members outside it, and from outsiders.
	for _, c := range []*github.Client{w.max, w.zed} {
		if _, resp, err := c.Teams.GetTeamBySlug(ctx, "octo", "core-devs"); err == nil || status(resp) != 404 {
			t.Fatalf("hidden team: %v %d", err, status(resp))
		}
	}
	// The maintainer edits it; the slug follows the name.
	ed, _, err := w.mia.Teams.UpdateTeamBySlug(ctx, "octo", "core-devs", github.UpdateTeamRequest{Name: github.Ptr("Core"), Privacy: github.Ptr("closed")})
	if err != nil || ed.GetSlug() != "core" || ed.GetPrivacy() != "closed" || ed.GetDescription() != "the core" {
		t.Fatalf("edit %+v %v", ed, err)
	}
	// go-github sends "name": null when Name is unset: no change of name.
	ed, _, err = w.mia.Teams.UpdateTeamBySlug(ctx, "octo", "core", github.UpdateTeamRequest{Description: github.Ptr("the core team")})
	if err != nil || ed.GetName() != "Core" || ed.GetSlug() != "core" || ed.GetDescription() != "the core team" {
		t.Fatalf("edit without a name %+v %v", ed, err)
	}
	ed, _, err = w.mia.Teams.UpdateTeamByID(ctx, ed.GetOrganization().GetID(), ed.GetID(), github.UpdateTeamRequest{Description: github.Ptr("the core")})
	if err != nil || ed.GetName() != "Core" || ed.GetDescription() != "the core" {
		t.Fatalf("legacy edit without a name %+v %v", ed, err)
	}
	// Now closed: every member sees it, but max may not manage it.
	if _, _, err := w.max.Teams.GetTeamBySlug(ctx, "octo", "core"); err != nil {
		t.Fatal(err)
	}
	if _, resp, err := w.max.Teams.UpdateTeamBySlug(ctx, "octo", "core", github.UpdateTeamRequest{Name: github.Ptr("Mine")}); err == nil || status(resp) != 403 {
		t.Fatalf("non-maintainer edit: %v %d", err, status(resp))
	}
	list, _, err := w.max.Teams.ListTeams(ctx, "octo", nil)
	if err != nil || len(list) != 1 {
		t.Fatalf("list %d %v", len(list), err)
	}
	if _, resp, err := w.zed.Teams.ListTeams(ctx, "octo", nil); err == nil || status(resp) != 403 {
		t.Fatalf("outsider list: %v %d", err, status(resp))
	}
	if resp, err := w.mia.Teams.DeleteTeamBySlug(ctx, "octo", "core"); err != nil || status(resp) != 204 {
		t.Fatalf("delete %v", err)
	}
	if _, resp, _ := w.olga.Teams.GetTeamBySlug(ctx, "octo", "core"); status(resp) != 404 {
		t.Fatalf("deleted team answers %d", status(resp))
	}
	events := 0
	evs, err := w.e.Store.R().EventsAfter(ctx, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if ev.Type == "team" || ev.Type == "membership" {
			events++
		}
	}
	// created, added_to_repository, 2 memberships, 3 edits, deleted
	if events != 8 {
		t.Fatalf("team events %d", events)
	}
}

func TestCreateValidation(t *testing.T) {
	w := newWorld(t)
	secret := w.team(t, w.olga, github.CreateTeamRequest{Name: "secret"})
	parent := w.team(t, w.olga, github.CreateTeamRequest{Name: "parent", Privacy: github.Ptr("closed")})
	cases := []struct {
		name string
		c    *github.Client
		body map[string]any
		want int
	}{
		{"no name", w.olga, map[string]any{"description": "x"}, 422},
		{"duplicate slug", w.olga, map[string]any{"name": "SECRET"}, 422},
		{"bad privacy", w.olga, map[string]any{"name": "a", "privacy": "open"}, 422},
		{"secret with parent", w.olga, map[string]any{"name": "b", "privacy": "secret", "parent_team_id": parent.GetID()}, 422},
		{"secret parent", w.olga, map[string]any{"name": "c", "parent_team_id": secret.GetID()}, 422},
		{"unknown parent", w.olga, map[string]any{"name": "d", "parent_team_id": 999999}, 422},
		{"repo of another owner", w.olga, map[string]any{"name": "e", "repo_names": []string{"olga/nope"}}, 422},
		{"unknown maintainer", w.olga, map[string]any{"name": "f", "maintainers": []string{"ghost"}}, 422},
		{"outsider", w.zed, map[string]any{"name": "g"}, 403},
		{"unknown parent slug", w.olga, map[string]any{"name": "h", "parent_team_slug": "nope"}, 422},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := tc.c.NewRequest(ctx, "POST", "orgs/octo/teams", tc.body)
			resp, _ := tc.c.Do(req, nil)
			if status(resp) != tc.want {
				t.Fatalf("got %d, want %d", status(resp), tc.want)
			}
		})
	}
	// A child of parent is closed by default; parent cannot become secret
	// nor its own descendant's child.
	child := w.team(t, w.olga, github.CreateTeamRequest{Name: "child", ParentTeamID: github.Ptr(parent.GetID())})
	if child.GetPrivacy() != "closed" || child.GetParent().GetID() != parent.GetID() {
		t.Fatalf("child %+v", child)
	}
	if _, resp, _ := w.olga.Teams.UpdateTeamBySlug(ctx, "octo", "parent", github.UpdateTeamRequest{Privacy: github.Ptr("secret")}); status(resp) != 422 {
		t.Fatalf("secret parent: %d", status(resp))
	}
	if _, resp, _ := w.olga.Teams.UpdateTeamBySlug(ctx, "octo", "parent", github.UpdateTeamRequest{ParentTeamID: github.Ptr(child.GetID())}); status(resp) != 422 {
		t.Fatalf("cycle: %d", status(resp))
	}
	bySlug := w.team(t, w.olga, github.CreateTeamRequest{Name: "by slug", ParentTeamSlug: github.Ptr("parent")})
	if bySlug.GetParent().GetSlug() != "parent" {
		t.Fatalf("parent by slug %+v", bySlug.GetParent())
	}
	kids, _, err := w.mia.Teams.ListChildTeamsByParentSlug(ctx, "octo", "parent", nil)
	if err != nil || len(kids) != 2 || kids[0].GetSlug() != "by-slug" || kids[1].GetSlug() != "child" {
		t.Fatalf("children %v %v", kids, err)
	}
	// Nesting deeper than five levels is refused.
	prev := child.GetID()
	for _, n := range []string{"l3", "l4", "l5"} {
		prev = w.team(t, w.olga, github.CreateTeamRequest{Name: n, ParentTeamID: github.Ptr(prev)}).GetID()
	}
	req, _ := w.olga.NewRequest(ctx, "POST", "orgs/octo/teams", map[string]any{"name": "l6", "parent_team_id": prev})
	if resp, _ := w.olga.Do(req, nil); status(resp) != 422 {
		t.Fatalf("too deep: %d", status(resp))
	}
	// Removing the parent makes child top-level again.
	ed, _, err := w.olga.Teams.UpdateTeamBySlug(ctx, "octo", "child", github.UpdateTeamRequest{Name: github.Ptr("child"), RemoveParentTeam: true})
	if err != nil || ed.Parent != nil {
		t.Fatalf("unparent %+v %v", ed, err)
	}
}

func TestMemberships(t *testing.T) {
	w := newWorld(t)
	w.team(t, w.olga, github.CreateTeamRequest{Name: "ops", Privacy: github.Ptr("closed")})
	// nil options: go-github sends the body null, which GitHub takes as
	// no body (the default role, member).
	m, _, err := w.olga.Teams.AddTeamMembershipBySlug(ctx, "octo", "ops", "mia", nil)
	if err != nil || m.GetRole() != "member" || m.GetState() != "active" {
		t.Fatalf("add %+v %v", m, err)
	}
	m, _, err = w.olga.Teams.AddTeamMembershipBySlug(ctx, "octo", "ops", "mia", &github.TeamAddTeamMembershipOptions{Role: "maintainer"})
	if err != nil || m.GetRole() != "maintainer" {
		t.Fatalf("promote %+v %v", m, err)
	}
	// mia, now a maintainer, adds max but may not bring in an outsider.
	if _, _, err := w.mia.Teams.AddTeamMembershipBySlug(ctx, "octo", "ops", "max", member); err != nil {
		t.Fatal(err)
	}
	if _, resp, _ := w.mia.Teams.AddTeamMembershipBySlug(ctx, "octo", "ops", "zed", member); status(resp) != 403 {
		t.Fatalf("maintainer invites outsider: %d", status(resp))
	}
	// The owner may: zed is invited to the organization and stays pending.
	m, _, err = w.olga.Teams.AddTeamMembershipBySlug(ctx, "octo", "ops", "zed", member)
	if err != nil || m.GetState() != "pending" {
		t.Fatalf("outsider %+v %v", m, err)
	}
	om, err := w.e.Store.R().Membership(ctx, mustOrg(t, w).ID, w.zedID)
	if err != nil || om.State != store.StatePending {
		t.Fatalf("org invitation %+v %v", om, err)
	}
	cases := []struct {
		role string
		want []string
	}{{"", []string{"olga", "mia", "max"}}, {"maintainer", []string{"olga", "mia"}}, {"member", []string{"max"}}}
	for _, tc := range cases {
		users, _, err := w.max.Teams.ListTeamMembersBySlug(ctx, "octo", "ops", &github.TeamListTeamMembersOptions{Role: tc.role})
		if err != nil || len(users) != len(tc.want) {
			t.Fatalf("role %q: %d %v", tc.role, len(users), err)
		}
		for i, u := range users {
			if u.GetLogin() != tc.want[i] {
				t.Fatalf("role %q: %v", tc.role, u.GetLogin())
			}
		}
	}
	// Pagination with Link.
	users, resp, err := w.max.Teams.ListTeamMembersBySlug(ctx, "octo", "ops", &github.TeamListTeamMembersOptions{ListOptions: github.ListOptions{PerPage: 2}})
	if err != nil || len(users) != 2 || resp.NextPage != 2 {
		t.Fatalf("page %d next %d %v", len(users), resp.NextPage, err)
	}
	if _, resp, _ := w.max.Teams.AddTeamMembershipBySlug(ctx, "octo", "ops", "mia", member); status(resp) != 403 {
		t.Fatalf("member manages: %d", status(resp))
	}
	req, _ := w.olga.NewRequest(ctx, "PUT", "orgs/octo/teams/ops/memberships/max", map[string]any{"role": "boss"})
	if resp, _ := w.olga.Do(req, nil); status(resp) != 422 {
		t.Fatalf("bad role: %d", status(resp))
	}
	if _, resp, _ := w.olga.Teams.AddTeamMembershipBySlug(ctx, "octo", "ops", "octo", member); status(resp) != 422 {
		t.Fatalf("organization as member: %d", status(resp))
	}
	if _, resp, _ := w.olga.Teams.AddTeamMembershipBySlug(ctx, "octo", "ops", "ghost", member); status(resp) != 404 {
		t.Fatalf("unknown user: %d", status(resp))
	}
	if resp, err := w.mia.Teams.RemoveTeamMembershipBySlug(ctx, "octo", "ops", "max"); err != nil || status(resp) != 204 {
		t.Fatalf("remove %v", err)
	}
	if _, resp, _ := w.olga.Teams.GetTeamMembershipBySlug(ctx, "octo", "ops", "max"); status(resp) != 404 {
		t.Fatalf("removed membership: %d", status(resp))
	}
	mine, _, err := w.mia.Teams.ListUserTeams(ctx, nil)
	if err != nil || len(mine) != 1 || mine[0].GetSlug() != "ops" || mine[0].GetOrganization().GetLogin() != "octo" {
		t.Fatalf("user teams %v %v", mine, err)
	}
	if mine, _, _ := w.zed.Teams.ListUserTeams(ctx, nil); len(mine) != 0 {
		t.Fatalf("a pending member lists %d teams", len(mine))
	}
}

func mustOrg(t *testing.T, w *world) *model.Account {
	t.Helper()
	org, err := w.e.Store.R().OrgByLogin(ctx, "octo")
	if err != nil {
		t.Fatal(err)
	}
	return org
}

// The key behaviour: team grants flow into repository permissions, from
// parent teams to child teams' members, and go away with the membership.
func TestRepoGrants(t *testing.T) {
	w := newWorld(t)
	w.team(t, w.olga, github.CreateTeamRequest{Name: "parent", Privacy: github.Ptr("closed")})
	parent, _, _ := w.olga.Teams.GetTeamBySlug(ctx, "octo", "parent")
	w.team(t, w.olga, github.CreateTeamRequest{Name: "child", ParentTeamID: github.Ptr(parent.GetID())})
	if _, _, err := w.olga.Teams.AddTeamMembershipBySlug(ctx, "octo", "parent", "mia", member); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.olga.Teams.AddTeamMembershipBySlug(ctx, "octo", "child", "max", member); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*github.Client{w.mia, w.max} {
		if _, resp, _ := c.Repositories.Get(ctx, "octo", "vault"); status(resp) != 404 {
			t.Fatalf("before the grant: %d", status(resp))
		}
	}
	// Only repository admins grant; mia maintains nothing here.
	if resp, _ := w.mia.Teams.AddTeamRepoBySlug(ctx, "octo", "parent", "octo", "vault", &github.TeamAddTeamRepoOptions{Permission: "push"}); status(resp) != 404 {
		t.Fatalf("grant by non-admin who cannot see the repo: %d", status(resp))
	}
	if resp, err := w.olga.Teams.AddTeamRepoBySlug(ctx, "octo", "parent", "octo", "vault", &github.TeamAddTeamRepoOptions{Permission: "push"}); err != nil || status(resp) != 204 {
		t.Fatalf("grant %v", err)
	}
	for _, c := range []*github.Client{w.mia, w.max} { // max through the child team
		repo, _, err := c.Repositories.Get(ctx, "octo", "vault")
		if err != nil || !repo.GetPermissions().GetPush() || repo.GetPermissions().GetAdmin() {
			t.Fatalf("after the grant: %+v %v", repo.GetPermissions(), err)
		}
	}
	// The repository shows up in the member's repository lists too.
	list, _, err := w.max.Repositories.ListByOrg(ctx, "octo", nil)
	if err != nil || len(list) != 1 {
		t.Fatalf("org repos %d %v", len(list), err)
	}
	// Check and list the team's repositories.
	if ok, resp, err := w.mia.Teams.IsTeamRepoBySlug(ctx, "octo", "parent", "octo", "vault"); err != nil || status(resp) != 200 ||
		ok.GetFullName() != "octo/vault" || !ok.GetPermissions().GetPush() {
		t.Fatalf("is team repo %+v %v", ok, err)
	}
	if _, resp, _ := w.mia.Teams.IsTeamRepoBySlug(ctx, "octo", "child", "octo", "vault"); status(resp) != 404 {
		t.Fatalf("child's own grant: %d", status(resp))
	}
	resp := w.e.Do("GET", "/orgs/octo/teams/parent/repos/octo/vault", w.miaTok, nil)
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("check without media type: %d", resp.StatusCode)
	}
	repos, _, err := w.mia.Teams.ListTeamReposBySlug(ctx, "octo", "parent", nil)
	if err != nil || len(repos) != 1 || !repos[0].GetPermissions().GetPush() {
		t.Fatalf("team repos %v %v", repos, err)
	}
	// Bad permission and a repository outside the organization.
	if resp, _ := w.olga.Teams.AddTeamRepoBySlug(ctx, "octo", "parent", "octo", "vault", &github.TeamAddTeamRepoOptions{Permission: "owner"}); status(resp) != 422 {
		t.Fatalf("bad permission: %d", status(resp))
	}
	if _, _, err := w.olga.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("mine")}); err != nil {
		t.Fatal(err)
	}
	if resp, _ := w.olga.Teams.AddTeamRepoBySlug(ctx, "octo", "parent", "olga", "mine", &github.TeamAddTeamRepoOptions{}); status(resp) != 422 {
		t.Fatalf("foreign repo: %d", status(resp))
	}
	// Removing max from the child team takes the access away.
	if _, err := w.olga.Teams.RemoveTeamMembershipBySlug(ctx, "octo", "child", "max"); err != nil {
		t.Fatal(err)
	}
	if _, resp, _ := w.max.Repositories.Get(ctx, "octo", "vault"); status(resp) != 404 {
		t.Fatalf("after removal: %d", status(resp))
	}
	// Removing the grant takes it from mia too.
	if resp, err := w.olga.Teams.RemoveTeamRepoBySlug(ctx, "octo", "parent", "octo", "vault"); err != nil || status(resp) != 204 {
		t.Fatalf("remove grant %v", err)
	}
	if _, resp, _ := w.mia.Repositories.Get(ctx, "octo", "vault"); status(resp) != 404 {
		t.Fatalf("after ungrant: %d", status(resp))
	}
	// Deleting a team removes its grants.
	if _, err := w.olga.Teams.AddTeamRepoBySlug(ctx, "octo", "parent", "octo", "vault", &github.TeamAddTeamRepoOptions{Permission: "admin"}); err != nil {
		t.Fatal(err)
	}
	if repo, _, err := w.mia.Repositories.Get(ctx, "octo", "vault"); err != nil || !repo.GetPermissions().GetAdmin() {
		t.Fatalf("admin grant %v", err)
	}
	if _, err := w.olga.Teams.DeleteTeamBySlug(ctx, "octo", "parent"); err != nil {
		t.Fatal(err)
	}
	if _, resp, _ := w.mia.Repositories.Get(ctx, "octo", "vault"); status(resp) != 404 {
		t.Fatalf("after delete: %d", status(resp))
	}
}
