package teams_test

import (
	"fmt"
	"testing"

	"github.com/google/go-github/v92/github"
)

// The legacy /teams/{team_id} routes reach the same team by id.
func TestLegacyRoutes(t *testing.T) {
	w := newWorld(t)
	team := w.team(t, w.olga, github.CreateTeamRequest{Name: "old", Privacy: github.Ptr("closed")})
	base := fmt.Sprintf("/teams/%d", team.GetID())
	r := w.e.Must(200, "GET", base, w.maxTok, nil)
	if r.Map(t)["slug"] != "old" {
		t.Fatalf("legacy get %v", r.Map(t))
	}
	// An empty body takes the default role.
	r = w.e.Must(200, "PUT", base+"/memberships/max", w.olgaTok, nil)
	if r.Map(t)["role"] != "member" || r.Map(t)["state"] != "active" {
		t.Fatalf("legacy membership %v", r.Map(t))
	}
	w.e.Must(204, "PUT", base+"/repos/octo/vault", w.olgaTok, map[string]any{"permission": "pull"})
	repo, _, err := w.max.Repositories.Get(ctx, "octo", "vault")
	if err != nil || !repo.GetPermissions().GetPull() || repo.GetPermissions().GetPush() {
		t.Fatalf("legacy grant %v %v", repo.GetPermissions(), err)
	}
	w.e.Must(200, "GET", base+"/repos", w.maxTok, nil)
	w.e.Must(204, "GET", base+"/repos/octo/vault", w.maxTok, nil)
	w.e.Must(200, "GET", base+"/members", w.maxTok, nil)
	if m := w.e.Must(200, "GET", base+"/memberships/max", w.maxTok, nil).Map(t); m["state"] != "active" {
		t.Fatalf("legacy membership: %v", m)
	}
	w.e.Must(200, "GET", base+"/teams", w.maxTok, nil)
	w.e.Must(404, "GET", base, w.zedTok, nil)
	w.e.Must(404, "GET", "/teams/999999", w.olgaTok, nil)
	w.e.Must(204, "DELETE", base+"/repos/octo/vault", w.olgaTok, nil)
	w.e.Must(204, "DELETE", base+"/memberships/max", w.olgaTok, nil)
	w.e.Must(200, "PATCH", base, w.olgaTok, map[string]any{"name": "older"})
	w.e.Must(204, "DELETE", base, w.olgaTok, nil)
}

// An outsider added by an owner is pending in the team until they accept
// the organization's invitation; then the team's grant reaches them.
func TestPendingMemberActivates(t *testing.T) {
	w := newWorld(t)
	w.team(t, w.olga, github.CreateTeamRequest{Name: "crew", Privacy: github.Ptr("closed")})
	if _, err := w.olga.Teams.AddTeamRepoBySlug(ctx, "octo", "crew", "octo", "vault", &github.TeamAddTeamRepoOptions{Permission: "push"}); err != nil {
		t.Fatal(err)
	}
	if m, _, err := w.olga.Teams.AddTeamMembershipBySlug(ctx, "octo", "crew", "zed", member); err != nil || m.GetState() != "pending" {
		t.Fatalf("invite %+v %v", m, err)
	}
	if _, resp, _ := w.zed.Repositories.Get(ctx, "octo", "vault"); status(resp) != 404 {
		t.Fatalf("pending member sees the repo: %d", status(resp))
	}
	users, _, _ := w.olga.Teams.ListTeamMembersBySlug(ctx, "octo", "crew", &github.TeamListTeamMembersOptions{})
	if len(users) != 1 { // olga only: pending members are not listed
		t.Fatalf("members %d", len(users))
	}
	w.e.Must(200, "PATCH", "/user/memberships/orgs/octo", w.zedTok, map[string]any{"state": "active"})
	m, _, err := w.olga.Teams.GetTeamMembershipBySlug(ctx, "octo", "crew", "zed")
	if err != nil || m.GetState() != "active" {
		t.Fatalf("after accepting %+v %v", m, err)
	}
	repo, _, err := w.zed.Repositories.Get(ctx, "octo", "vault")
	if err != nil || !repo.GetPermissions().GetPush() {
		t.Fatalf("after accepting: %v", err)
	}
}
