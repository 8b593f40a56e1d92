package orgs_test

import (
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/model"
)

// direct_membership is "whether the user has direct membership in the
// organization": an invitee (pending) has none yet, a member has it (hubd
// has no enterprise teams, so every membership is direct and no team
// provides one), wherever a membership shows: the owner's and the user's
// own reads, the user's list, the answer of PUT and of accepting.
func TestDirectMembershipOfPendingAndActive(t *testing.T) {
	w := newInvWorld(t)
	check := func(m map[string]any, state string, direct bool) {
		t.Helper()
		if m["state"] != state || m["direct_membership"] != direct {
			t.Fatalf("%s membership: state %v, direct_membership %v, want %s and %v", m["url"], m["state"], m["direct_membership"], state, direct)
		}
		if v, ok := m["enterprise_teams_providing_indirect_membership"].([]any); !ok || len(v) != 0 {
			t.Fatalf("enterprise teams %v", m["enterprise_teams_providing_indirect_membership"])
		}
	}
	check(w.e.Must(200, "PUT", "/orgs/octo/memberships/bob", w.monaTok, map[string]any{"role": "member"}).Map(t), "pending", false)
	check(w.e.Must(200, "GET", "/orgs/octo/memberships/bob", w.monaTok, nil).Map(t), "pending", false)
	check(w.e.Must(200, "GET", "/user/memberships/orgs/octo", w.bobTok, nil).Map(t), "pending", false)
	var list []map[string]any
	w.e.Must(200, "GET", "/user/memberships/orgs", w.bobTok, nil).JSON(t, &list)
	if len(list) != 1 {
		t.Fatalf("bob's memberships: %v", list)
	}
	check(list[0], "pending", false)
	if p, _ := list[0]["permissions"].(map[string]any); p["can_create_repository"] != false {
		t.Fatalf("an invitee creates repositories: %v", list[0]["permissions"])
	}
	check(w.e.Must(200, "GET", "/orgs/octo/memberships/mel", w.monaTok, nil).Map(t), "active", true)
	check(w.e.Must(200, "PATCH", "/user/memberships/orgs/octo", w.bobTok, map[string]any{"state": "active"}).Map(t), "active", true)
	check(w.e.Must(200, "GET", "/orgs/octo/memberships/bob", w.melTok, nil).Map(t), "active", true)
	w.e.Must(200, "GET", "/user/memberships/orgs", w.bobTok, nil).JSON(t, &list)
	if len(list) != 1 {
		t.Fatalf("bob's memberships: %v", list)
	}
	check(list[0], "active", true)
}

// A user who blocked an organization owner cannot be invited by them, by
// any way of inviting (PUT .../memberships, POST .../invitations, adding
// them to a team): GitHub's 422 Validation Failed, and no invitation is
// made. Another owner they did not block may invite them.
func TestInviteeWhoBlockedTheOwner(t *testing.T) {
	w := newInvWorld(t)
	if _, err := w.bobC.Users.BlockUser(ctx, "mona"); err != nil {
		t.Fatal(err)
	}
	refused := func(err error) {
		t.Helper()
		var er *github.ErrorResponse
		if !asErr(err, &er) || er.Response.StatusCode != 422 || er.Message != "Validation Failed" || len(er.Errors) != 1 ||
			er.Errors[0].Resource != "OrganizationInvitation" || er.Errors[0].Message != "User is blocked" {
			t.Fatalf("inviting bob: %v", err)
		}
	}
	_, _, err := w.owner.Organizations.EditOrgMembership(ctx, "bob", "octo", &github.Membership{Role: github.Ptr("member")})
	refused(err)
	_, _, err = w.owner.Organizations.CreateOrgInvitation(ctx, "octo", &github.CreateOrgInvitationOptions{InviteeID: github.Ptr(w.bob.ID)})
	refused(err)
	_, _, err = w.owner.Teams.AddTeamMembershipBySlug(ctx, "octo", "crew", "bob", nil)
	refused(err)
	if l, _, err := w.owner.Organizations.ListPendingOrgInvitations(ctx, "octo", nil); err != nil || len(l) != 0 {
		t.Fatalf("invitations after the refusals: %v %v", l, err)
	}
	if _, _, err := w.bobC.Organizations.GetOrgMembership(ctx, "", "octo"); !isStatus(err, 404) {
		t.Fatalf("bob's membership: %v", err)
	}
	// Mel, made an owner, is not blocked by bob.
	join(t, w.e, w.org, w.mel, model.RoleAdmin)
	if m, _, err := w.member.Organizations.EditOrgMembership(ctx, "bob", "octo", &github.Membership{Role: github.Ptr("member")}); err != nil || m.GetState() != "pending" {
		t.Fatalf("mel invites bob: %+v %v", m, err)
	}
}
