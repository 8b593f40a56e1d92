package teams_test

import (
	"fmt"
	"testing"

	"github.com/google/go-github/v92/github"
)

// Adding outsiders to teams invites them to the organization with those
// teams: one invitation per invitee, listed by each of its teams; roles and
// teams change on the invitation until it is accepted.
func TestTeamInvitations(t *testing.T) {
	w := newWorld(t)
	crew := w.team(t, w.olga, github.CreateTeamRequest{Name: "crew", Privacy: github.Ptr("closed"), Maintainers: []string{"mia"}})
	w.team(t, w.olga, github.CreateTeamRequest{Name: "ops", Privacy: github.Ptr("closed")})
	if _, err := w.olga.Teams.AddTeamRepoBySlug(ctx, "octo", "ops", "octo", "vault", &github.TeamAddTeamRepoOptions{Permission: "pull"}); err != nil {
		t.Fatal(err)
	}
	for _, slug := range []string{"crew", "ops"} {
		if m, _, err := w.olga.Teams.AddTeamMembershipBySlug(ctx, "octo", slug, "zed", member); err != nil || m.GetState() != "pending" {
			t.Fatalf("invite zed to %s: %+v %v", slug, m, err)
		}
	}
	// One invitation, with both teams.
	list, _, err := w.olga.Teams.ListPendingTeamInvitationsBySlug(ctx, "octo", "crew", nil)
	if err != nil || len(list) != 1 || list[0].GetLogin() != "zed" || list[0].GetTeamCount() != 2 || list[0].GetInviter().GetLogin() != "olga" {
		t.Fatalf("crew invitations: %v %v", list, err)
	}
	org, _, _ := w.olga.Organizations.ListPendingOrgInvitations(ctx, "octo", nil)
	if len(org) != 1 || org[0].GetID() != list[0].GetID() {
		t.Fatalf("organization invitations: %v", org)
	}
	// The maintainer lists them too, by id; a member who is not may not.
	var legacy []map[string]any
	w.e.Must(200, "GET", fmt.Sprintf("/teams/%d/invitations", crew.GetID()), w.miaTok, nil).JSON(t, &legacy)
	if len(legacy) != 1 || legacy[0]["login"] != "zed" {
		t.Fatalf("legacy invitations: %v", legacy)
	}
	if _, resp, _ := w.max.Teams.ListPendingTeamInvitationsBySlug(ctx, "octo", "crew", nil); status(resp) != 403 {
		t.Fatalf("a member lists invitations: %d", status(resp))
	}
	// The pending role changes on the invitation.
	if m, _, err := w.mia.Teams.AddTeamMembershipBySlug(ctx, "octo", "crew", "zed", &github.TeamAddTeamMembershipOptions{Role: "maintainer"}); err != nil ||
		m.GetRole() != "maintainer" || m.GetState() != "pending" {
		t.Fatalf("pending role: %+v %v", m, err)
	}
	// Taking zed off ops takes the team off the invitation.
	if _, err := w.olga.Teams.RemoveTeamMembershipBySlug(ctx, "octo", "ops", "zed"); err != nil {
		t.Fatal(err)
	}
	if l, _, _ := w.olga.Teams.ListPendingTeamInvitationsBySlug(ctx, "octo", "ops", nil); len(l) != 0 {
		t.Fatalf("ops invitations: %v", l)
	}
	if l, _, _ := w.olga.Teams.ListPendingTeamInvitationsBySlug(ctx, "octo", "crew", nil); len(l) != 1 || l[0].GetTeamCount() != 1 {
		t.Fatalf("crew invitation after removing ops: %v", l)
	}
	if resp, _ := w.olga.Teams.RemoveTeamMembershipBySlug(ctx, "octo", "ops", "zed"); status(resp) != 204 { // as GitHub: 204 either way
		t.Fatalf("remove again: %d", status(resp))
	}
	// Zed accepts: maintainer of crew, nothing in ops.
	w.e.Must(200, "PATCH", "/user/memberships/orgs/octo", w.zedTok, map[string]any{"state": "active"})
	if m, _, err := w.olga.Teams.GetTeamMembershipBySlug(ctx, "octo", "crew", "zed"); err != nil || m.GetState() != "active" || m.GetRole() != "maintainer" {
		t.Fatalf("crew after accepting: %+v %v", m, err)
	}
	if _, resp, _ := w.olga.Teams.GetTeamMembershipBySlug(ctx, "octo", "ops", "zed"); status(resp) != 404 {
		t.Fatalf("ops after accepting: %d", status(resp))
	}
	if l, _, _ := w.olga.Teams.ListPendingTeamInvitationsBySlug(ctx, "octo", "crew", nil); len(l) != 0 {
		t.Fatalf("crew invitations after accepting: %v", l)
	}
}

// The legacy member routes: 204 for a member, 404 otherwise; PUT adds only
// organization members (422 for anyone else, as GitHub words it); DELETE
// answers 204 either way.
func TestLegacyMemberRoutes(t *testing.T) {
	w := newWorld(t)
	team := w.team(t, w.olga, github.CreateTeamRequest{Name: "old", Privacy: github.Ptr("closed"), Maintainers: []string{"mia"}})
	base := fmt.Sprintf("/teams/%d/members/", team.GetID())
	w.e.Must(204, "GET", base+"olga", w.maxTok, nil)
	w.e.Must(404, "GET", base+"max", w.maxTok, nil)
	w.e.Must(404, "GET", base+"nobody", w.maxTok, nil)
	w.e.Must(404, "GET", base+"olga", w.zedTok, nil) // the team is hidden from outsiders

	// The maintainer adds max.
	w.e.Must(204, "PUT", base+"max", w.miaTok, nil)
	w.e.Must(204, "GET", base+"max", w.maxTok, nil)
	if m, _, err := w.olga.Teams.GetTeamMembershipBySlug(ctx, "octo", "old", "max"); err != nil || m.GetRole() != "member" || m.GetState() != "active" {
		t.Fatalf("added: %+v %v", m, err)
	}
	for _, tc := range []struct {
		name, login, token string
		status             int
		message, code      string
	}{
		{"already a member", "max", w.olgaTok, 422, "User is already a member.", "dupe"},
		{"an outsider", "zed", w.olgaTok, 422, "User isn't a member of this organization. Please invite them first.", "unaffiliated"},
		{"an organization", "octo", w.olgaTok, 422, "Cannot add an organization as a member.", "org"},
		{"unknown user", "nobody", w.olgaTok, 404, "Not Found", ""},
		{"not a maintainer", "olga", w.maxTok, 403, "You must be an organization owner or team maintainer to perform this action.", ""},
		{"anonymous", "max", "", 401, "Requires authentication", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := w.e.Do("PUT", base+tc.login, tc.token, nil)
			m := r.Map(t)
			if r.StatusCode != tc.status || m["message"] != tc.message {
				t.Fatalf("%d %s", r.StatusCode, r.Body)
			}
			if tc.code != "" {
				errs, _ := m["errors"].([]any)
				if len(errs) != 1 || errs[0].(map[string]any)["code"] != tc.code || errs[0].(map[string]any)["resource"] != "TeamMember" {
					t.Fatalf("errors: %s", r.Body)
				}
			}
		})
	}
	// A pending invitee is no member, and PUT does not invite.
	if _, _, err := w.olga.Teams.AddTeamMembershipBySlug(ctx, "octo", "old", "zed", member); err != nil {
		t.Fatal(err)
	}
	w.e.Must(404, "GET", base+"zed", w.olgaTok, nil)
	w.e.Must(422, "PUT", base+"zed", w.olgaTok, nil)

	w.e.Must(403, "DELETE", base+"max", w.maxTok, nil)
	w.e.Must(204, "DELETE", base+"max", w.miaTok, nil)
	w.e.Must(404, "GET", base+"max", w.olgaTok, nil)
	w.e.Must(204, "DELETE", base+"max", w.miaTok, nil) // not a member: still 204
	// DELETE leaves a pending invitation's team alone.
	w.e.Must(204, "DELETE", base+"zed", w.olgaTok, nil)
	if m, _, err := w.olga.Teams.GetTeamMembershipBySlug(ctx, "octo", "old", "zed"); err != nil || m.GetState() != "pending" {
		t.Fatalf("pending after legacy DELETE: %+v %v", m, err)
	}
}

// PATCH of a team takes what go-github sends: a body without name keeps
// the name, and "parent_team_id": null (RemoveParentTeam) removes the
// parent.
func TestUpdateTeamPartialBody(t *testing.T) {
	w := newWorld(t)
	parent := w.team(t, w.olga, github.CreateTeamRequest{Name: "parent", Privacy: github.Ptr("closed")})
	w.team(t, w.olga, github.CreateTeamRequest{Name: "kid", ParentTeamID: github.Ptr(parent.GetID())})
	r := w.e.Must(200, "PATCH", "/orgs/octo/teams/kid", w.olgaTok, map[string]any{"description": "no name given"})
	if m := r.Map(t); m["name"] != "kid" || m["description"] != "no name given" || m["parent"] == nil {
		t.Fatalf("partial PATCH: %s", r.Body)
	}
	ed, _, err := w.olga.Teams.UpdateTeamBySlug(ctx, "octo", "kid", github.UpdateTeamRequest{Name: github.Ptr("kid"), RemoveParentTeam: true})
	if err != nil || ed.Parent != nil || ed.GetDescription() != "no name given" || ed.GetPrivacy() != "closed" {
		t.Fatalf("remove parent: %+v %v", ed, err)
	}
}
