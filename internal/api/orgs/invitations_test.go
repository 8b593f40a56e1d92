package orgs_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// invWorld is the organization octo owned by mona with the active member
// mel, the closed team crew holding push on the private octo/vault, and
// outsiders bob and eve; other is an organization of eve's with its own
// team.
type invWorld struct {
	e                         *apitest.Env
	org                       *model.Account
	mona, mel, bob, eve       *model.Account
	monaTok, melTok, bobTok   string
	eveTok                    string
	owner, member, bobC, eveC *github.Client
	crew, otherTeam           *github.Team
}

func newInvWorld(t *testing.T) *invWorld {
	t.Helper()
	e := apitest.New(t)
	w := &invWorld{e: e}
	w.mona, w.monaTok = e.NewUser("mona", false)
	w.mel, w.melTok = e.NewUser("mel", false)
	w.bob, w.bobTok = e.NewUser("bob", false)
	w.eve, w.eveTok = e.NewUser("eve", false)
	w.org = newOrg(t, e, "octo", w.mona)
	join(t, e, w.org, w.mel, model.RoleMember)
	newOrg(t, e, "other", w.eve)
	w.owner, w.member, w.bobC, w.eveC = e.GitHub(w.monaTok), e.GitHub(w.melTok), e.GitHub(w.bobTok), e.GitHub(w.eveTok)
	var err error
	if w.crew, _, err = w.owner.Teams.CreateTeam(ctx, "octo", github.CreateTeamRequest{Name: "crew", Privacy: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	if w.otherTeam, _, err = w.eveC.Teams.CreateTeam(ctx, "other", github.CreateTeamRequest{Name: "theirs"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.owner.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("vault"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.owner.Teams.AddTeamRepoBySlug(ctx, "octo", "crew", "octo", "vault", &github.TeamAddTeamRepoOptions{Permission: "push"}); err != nil {
		t.Fatal(err)
	}
	return w
}

var ctx = context.Background()

func status(resp *github.Response) int {
	if resp == nil {
		return 0
	}
	return resp.StatusCode
}

// errMessage is the message of a GitHub error response.
func errMessage(err error) string {
	var er *github.ErrorResponse
	if asErr(err, &er) {
		return er.Message
	}
	return ""
}

// firstError is errors[0].message of a 422.
func firstError(err error) string {
	var er *github.ErrorResponse
	if asErr(err, &er) && len(er.Errors) > 0 {
		return er.Errors[0].Message
	}
	return ""
}

func (w *invWorld) events(t *testing.T, typ string) int {
	t.Helper()
	evs, err := w.e.Store.R().EventsAfter(ctx, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ev := range evs {
		if ev.Type == typ {
			n++
		}
	}
	return n
}

func (w *invWorld) setEmail(t *testing.T, u *model.Account, email string) {
	t.Helper()
	err := w.e.Store.Tx(ctx, func(tx store.Q) error {
		a, err := tx.AccountByID(ctx, u.ID)
		if err != nil {
			return err
		}
		a.Email = email
		return tx.UpdateAccount(ctx, a)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Invite by account into a team, see the invitation everywhere a pending
// membership shows, accept it: the invitee is a member of the organization
// and of the team, and the team's grant reaches them.
func TestInviteAcceptJoinsTeams(t *testing.T) {
	w := newInvWorld(t)
	inv, resp, err := w.owner.Organizations.CreateOrgInvitation(ctx, "octo", &github.CreateOrgInvitationOptions{
		InviteeID: github.Ptr(w.bob.ID), Role: github.Ptr("direct_member"),
		TeamID: []int64{w.crew.GetID(), w.otherTeam.GetID(), 999999}, // teams of other organizations and unknown ids are ignored
	})
	if err != nil || status(resp) != 201 || inv.GetLogin() != "bob" || inv.Email != nil || inv.GetRole() != "direct_member" ||
		inv.GetTeamCount() != 1 || inv.GetInviter().GetLogin() != "mona" || inv.FailedAt != nil {
		t.Fatalf("create: %+v %v", inv, err)
	}
	id := inv.GetID()
	list, resp, err := w.owner.Organizations.ListPendingOrgInvitations(ctx, "octo", nil)
	if err != nil || len(list) != 1 || list[0].GetID() != id || resp.Header.Get("Link") != "" {
		t.Fatalf("pending: %v %v", list, err)
	}
	teams, _, err := w.owner.Organizations.ListOrgInvitationTeams(ctx, "octo", strconv.FormatInt(id, 10), nil)
	if err != nil || len(teams) != 1 || teams[0].GetSlug() != "crew" {
		t.Fatalf("invitation teams: %v %v", teams, err)
	}
	// invitation_teams_url (by organization id) leads to the same list.
	var raw []map[string]any
	w.e.Must(200, "GET", "/orgs/octo/invitations", w.monaTok, nil).JSON(t, &raw)
	teamsURL, _ := raw[0]["invitation_teams_url"].(string)
	if !strings.HasPrefix(teamsURL, w.e.API+"/organizations/") {
		t.Fatalf("invitation_teams_url %q", teamsURL)
	}
	var viaURL []map[string]any
	w.e.Must(200, "GET", teamsURL, w.monaTok, nil).JSON(t, &viaURL)
	if len(viaURL) != 1 || viaURL[0]["slug"] != "crew" {
		t.Fatalf("teams by invitation_teams_url: %v", viaURL)
	}
	// The invitation is bob's pending membership of the organization and
	// of the team.
	if m, _, err := w.owner.Organizations.GetOrgMembership(ctx, "bob", "octo"); err != nil || m.GetState() != "pending" || m.GetRole() != "member" {
		t.Fatalf("pending membership: %+v %v", m, err)
	}
	if l, _, err := w.bobC.Organizations.ListOrgMemberships(ctx, &github.ListOrgMembershipsOptions{State: "pending"}); err != nil || len(l) != 1 {
		t.Fatalf("bob's pending memberships: %v %v", l, err)
	}
	if m, _, err := w.owner.Teams.GetTeamMembershipBySlug(ctx, "octo", "crew", "bob"); err != nil || m.GetState() != "pending" || m.GetRole() != "member" {
		t.Fatalf("pending team membership: %+v %v", m, err)
	}
	ti, _, err := w.owner.Teams.ListPendingTeamInvitationsBySlug(ctx, "octo", "crew", nil)
	if err != nil || len(ti) != 1 || ti[0].GetID() != id {
		t.Fatalf("team invitations: %v %v", ti, err)
	}
	if _, resp, _ := w.bobC.Repositories.Get(ctx, "octo", "vault"); status(resp) != 404 {
		t.Fatalf("an invitee sees the team's repository: %d", status(resp))
	}
	if ok, _, err := w.owner.Organizations.IsMember(ctx, "octo", "bob"); err != nil || ok {
		t.Fatalf("an invitee is a member: %v %v", ok, err)
	}

	// Bob accepts.
	m, _, err := w.bobC.Organizations.EditOrgMembership(ctx, "", "octo", &github.Membership{State: github.Ptr("active")})
	if err != nil || m.GetState() != "active" || m.GetRole() != "member" {
		t.Fatalf("accept: %+v %v", m, err)
	}
	if tm, _, err := w.owner.Teams.GetTeamMembershipBySlug(ctx, "octo", "crew", "bob"); err != nil || tm.GetState() != "active" {
		t.Fatalf("team membership after accepting: %+v %v", tm, err)
	}
	members, _, err := w.owner.Teams.ListTeamMembersBySlug(ctx, "octo", "crew", nil)
	if err != nil || len(members) != 2 { // mona (the creator) and bob
		t.Fatalf("team members: %v %v", members, err)
	}
	repo, _, err := w.bobC.Repositories.Get(ctx, "octo", "vault")
	if err != nil || !repo.GetPermissions().GetPush() {
		t.Fatalf("team access after accepting: %v", err)
	}
	// The invitation is consumed: listed nowhere, and cannot be cancelled.
	if l, _, err := w.owner.Organizations.ListPendingOrgInvitations(ctx, "octo", nil); err != nil || len(l) != 0 {
		t.Fatalf("pending after accepting: %v %v", l, err)
	}
	if l, _, err := w.owner.Teams.ListPendingTeamInvitationsBySlug(ctx, "octo", "crew", nil); err != nil || len(l) != 0 {
		t.Fatalf("team invitations after accepting: %v %v", l, err)
	}
	if _, _, err := w.owner.Organizations.ListOrgInvitationTeams(ctx, "octo", strconv.FormatInt(id, 10), nil); !isStatus(err, 404) {
		t.Fatalf("teams of an accepted invitation: %v", err)
	}
	if resp, err := w.owner.Organizations.CancelInvite(ctx, "octo", id); status(resp) != 422 || errMessage(err) != "You cannot cancel an accepted invitation." {
		t.Fatalf("cancel accepted: %d %v", status(resp), err)
	}
	// Inviting a member is refused.
	if _, resp, err := w.owner.Organizations.CreateOrgInvitation(ctx, "octo", &github.CreateOrgInvitationOptions{InviteeID: github.Ptr(w.bob.ID)}); status(resp) != 422 ||
		firstError(err) != "Invitee is already a part of this organization" {
		t.Fatalf("invite a member: %d %v", status(resp), err)
	}
	if n := w.events(t, "organization.member_invited"); n != 1 {
		t.Errorf("member_invited events: %d", n)
	}
	if n := w.events(t, "organization.member_added"); n != 1 {
		t.Errorf("member_added events: %d", n)
	}
}

// An invitation by email is kept (hubd sends no mail) and accepted by the
// user whose account email matches; an address that belongs to an account
// invites that account.
func TestEmailInvitations(t *testing.T) {
	w := newInvWorld(t)
	inv, resp, err := w.owner.Organizations.CreateOrgInvitation(ctx, "octo", &github.CreateOrgInvitationOptions{
		Email: github.Ptr("newcomer@example.com"), Role: github.Ptr("admin"), TeamID: []int64{w.crew.GetID()}})
	if err != nil || status(resp) != 201 || inv.Login != nil || inv.GetEmail() != "newcomer@example.com" || inv.GetRole() != "admin" {
		t.Fatalf("email invitation: %+v %v", inv, err)
	}
	// Inviting the address again returns the same invitation.
	again, _, err := w.owner.Organizations.CreateOrgInvitation(ctx, "octo", &github.CreateOrgInvitationOptions{Email: github.Ptr("NEWCOMER@example.com"), Role: github.Ptr("admin")})
	if err != nil || again.GetID() != inv.GetID() || !again.GetCreatedAt().Equal(inv.GetCreatedAt()) || again.GetTeamCount() != 1 {
		t.Fatalf("re-invite: %+v %v", again, err)
	}
	// Nobody has the address yet: bob has no membership.
	if _, _, err := w.bobC.Organizations.GetOrgMembership(ctx, "", "octo"); !isStatus(err, 404) {
		t.Fatalf("bob before his email matches: %v", err)
	}
	w.setEmail(t, w.bob, "Newcomer@Example.com")
	if m, _, err := w.bobC.Organizations.GetOrgMembership(ctx, "", "octo"); err != nil || m.GetState() != "pending" || m.GetRole() != "admin" {
		t.Fatalf("bob's membership by email: %+v %v", m, err)
	}
	if m, _, err := w.bobC.Organizations.EditOrgMembership(ctx, "", "octo", &github.Membership{State: github.Ptr("active")}); err != nil || m.GetRole() != "admin" {
		t.Fatalf("accept by email: %+v %v", m, err)
	}
	if tm, _, err := w.owner.Teams.GetTeamMembershipBySlug(ctx, "octo", "crew", "bob"); err != nil || tm.GetState() != "active" {
		t.Fatalf("team by email invitation: %+v %v", tm, err)
	}

	// An address of an existing account invites that account (the
	// invitation still shows no login), one of a member is refused.
	w.setEmail(t, w.eve, "eve@example.com")
	inv, _, err = w.owner.Organizations.CreateOrgInvitation(ctx, "octo", &github.CreateOrgInvitationOptions{Email: github.Ptr("eve@example.com")})
	if err != nil || inv.Login != nil || inv.GetRole() != "direct_member" {
		t.Fatalf("invite eve by email: %+v %v", inv, err)
	}
	if m, _, err := w.owner.Organizations.GetOrgMembership(ctx, "eve", "octo"); err != nil || m.GetState() != "pending" {
		t.Fatalf("eve pending: %+v %v", m, err)
	}
	w.setEmail(t, w.mel, "mel@example.com")
	if _, resp, err := w.owner.Organizations.CreateOrgInvitation(ctx, "octo", &github.CreateOrgInvitationOptions{Email: github.Ptr("mel@example.com")}); status(resp) != 422 ||
		firstError(err) != "A user with this email address is already a part of this organization" {
		t.Fatalf("invite a member by email: %d %v", status(resp), err)
	}
}

// PUT .../memberships/{username} for an outsider is an invitation: listed,
// cancelled by DELETE .../memberships/{username} or by cancelling it, and
// its pending team memberships go with it.
func TestMembershipIsInvitation(t *testing.T) {
	w := newInvWorld(t)
	if m, _, err := w.owner.Organizations.EditOrgMembership(ctx, "bob", "octo", &github.Membership{Role: github.Ptr("admin")}); err != nil || m.GetState() != "pending" {
		t.Fatalf("invite: %+v %v", m, err)
	}
	list, _, err := w.owner.Organizations.ListPendingOrgInvitations(ctx, "octo", nil)
	if err != nil || len(list) != 1 || list[0].GetLogin() != "bob" || list[0].GetRole() != "admin" {
		t.Fatalf("invitation of PUT: %v %v", list, err)
	}
	// Adding bob to a team adds the team to his invitation.
	if tm, _, err := w.owner.Teams.AddTeamMembershipBySlug(ctx, "octo", "crew", "bob", &github.TeamAddTeamMembershipOptions{Role: "maintainer"}); err != nil ||
		tm.GetState() != "pending" || tm.GetRole() != "maintainer" {
		t.Fatalf("team invite: %+v %v", tm, err)
	}
	list, _, _ = w.owner.Organizations.ListPendingOrgInvitations(ctx, "octo", nil)
	if len(list) != 1 || list[0].GetTeamCount() != 1 {
		t.Fatalf("one invitation with the team: %v", list)
	}
	// The role changes on the invitation.
	if m, _, err := w.owner.Organizations.EditOrgMembership(ctx, "bob", "octo", &github.Membership{Role: github.Ptr("member")}); err != nil ||
		m.GetState() != "pending" || m.GetRole() != "member" {
		t.Fatalf("role of the invitation: %+v %v", m, err)
	}
	if l, _, _ := w.owner.Organizations.ListPendingOrgInvitations(ctx, "octo", nil); len(l) != 1 || l[0].GetRole() != "direct_member" {
		t.Fatalf("invitation role: %v", l)
	}
	// DELETE .../memberships cancels it, team and all.
	if _, err := w.owner.Organizations.RemoveOrgMembership(ctx, "bob", "octo"); err != nil {
		t.Fatal(err)
	}
	if l, _, _ := w.owner.Organizations.ListPendingOrgInvitations(ctx, "octo", nil); len(l) != 0 {
		t.Fatalf("after cancelling: %v", l)
	}
	if _, _, err := w.owner.Teams.GetTeamMembershipBySlug(ctx, "octo", "crew", "bob"); !isStatus(err, 404) {
		t.Fatalf("team membership of a cancelled invitation: %v", err)
	}
	if _, _, err := w.bobC.Organizations.EditOrgMembership(ctx, "", "octo", &github.Membership{State: github.Ptr("active")}); !isStatus(err, 404) {
		t.Fatalf("accepting a cancelled invitation: %v", err)
	}
	// DELETE .../members does not cancel an invitation: the invitee is not
	// a member.
	if _, _, err := w.owner.Organizations.EditOrgMembership(ctx, "eve", "octo", &github.Membership{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.owner.Organizations.RemoveMember(ctx, "octo", "eve"); !isStatus(err, 404) || errMessage(err) != "Cannot find eve" {
		t.Fatalf("remove an invitee as a member: %v", err)
	}
	// Cancelling by id does the same as DELETE .../memberships.
	if _, _, err := w.owner.Teams.AddTeamMembershipBySlug(ctx, "octo", "crew", "eve", nil); err != nil {
		t.Fatal(err)
	}
	list, _, _ = w.owner.Organizations.ListPendingOrgInvitations(ctx, "octo", nil)
	if len(list) != 1 {
		t.Fatalf("eve's invitation: %v", list)
	}
	if resp, err := w.owner.Organizations.CancelInvite(ctx, "octo", list[0].GetID()); err != nil || status(resp) != 204 {
		t.Fatalf("cancel: %v", err)
	}
	if resp, err := w.owner.Organizations.CancelInvite(ctx, "octo", list[0].GetID()); err != nil || status(resp) != 204 {
		t.Fatalf("cancel again: %v", err)
	}
	if _, _, err := w.owner.Organizations.GetOrgMembership(ctx, "eve", "octo"); !isStatus(err, 404) {
		t.Fatalf("membership of a cancelled invitation: %v", err)
	}
	if l, _, _ := w.owner.Teams.ListPendingTeamInvitationsBySlug(ctx, "octo", "crew", nil); len(l) != 0 {
		t.Fatalf("team invitations after cancelling: %v", l)
	}
	if l, _, _ := w.owner.Organizations.ListFailedOrgInvitations(ctx, "octo", nil); len(l) != 0 {
		t.Fatalf("a cancelled invitation failed: %v", l)
	}
	if n := w.events(t, "organization.member_invitation_cancelled"); n != 2 {
		t.Errorf("cancel events: %d", n)
	}
}

// Invitations expire after 7 days: no longer pending (nor the memberships
// they stood for), listed as failed; a new invitation can be sent.
func TestInvitationExpiry(t *testing.T) {
	w := newInvWorld(t)
	inv, _, err := w.owner.Organizations.CreateOrgInvitation(ctx, "octo", &github.CreateOrgInvitationOptions{
		InviteeID: github.Ptr(w.bob.ID), TeamID: []int64{w.crew.GetID()}})
	if err != nil {
		t.Fatal(err)
	}
	if l, _, _ := w.owner.Organizations.ListFailedOrgInvitations(ctx, "octo", nil); len(l) != 0 {
		t.Fatalf("failed before expiry: %v", l)
	}
	w.e.Store.SetClock(func() time.Time {
		return time.Now().UTC().Add(model.OrgInvitationTTL + time.Minute).Truncate(time.Second)
	})
	defer w.e.Store.SetClock(func() time.Time { return time.Now().UTC().Truncate(time.Second) })
	if l, _, _ := w.owner.Organizations.ListPendingOrgInvitations(ctx, "octo", nil); len(l) != 0 {
		t.Fatalf("pending after expiry: %v", l)
	}
	failed, _, err := w.owner.Organizations.ListFailedOrgInvitations(ctx, "octo", nil)
	if err != nil || len(failed) != 1 || failed[0].GetID() != inv.GetID() || failed[0].GetFailedReason() != "Invitation expired" ||
		!failed[0].GetFailedAt().Time.Equal(inv.GetCreatedAt().Add(model.OrgInvitationTTL)) {
		t.Fatalf("failed: %v %v", failed, err)
	}
	if _, _, err := w.owner.Organizations.GetOrgMembership(ctx, "bob", "octo"); !isStatus(err, 404) {
		t.Fatalf("membership of an expired invitation: %v", err)
	}
	if _, _, err := w.owner.Teams.GetTeamMembershipBySlug(ctx, "octo", "crew", "bob"); !isStatus(err, 404) {
		t.Fatalf("team membership of an expired invitation: %v", err)
	}
	if _, _, err := w.bobC.Organizations.EditOrgMembership(ctx, "", "octo", &github.Membership{State: github.Ptr("active")}); !isStatus(err, 404) {
		t.Fatalf("accept expired: %v", err)
	}
	if _, _, err := w.owner.Organizations.ListOrgInvitationTeams(ctx, "octo", strconv.FormatInt(inv.GetID(), 10), nil); !isStatus(err, 404) {
		t.Fatalf("teams of an expired invitation: %v", err)
	}
	// A new invitation is a new one.
	again, _, err := w.owner.Organizations.CreateOrgInvitation(ctx, "octo", &github.CreateOrgInvitationOptions{InviteeID: github.Ptr(w.bob.ID)})
	if err != nil || again.GetID() == inv.GetID() || again.GetTeamCount() != 0 {
		t.Fatalf("invite again: %+v %v", again, err)
	}
	// Cancelling the expired one takes it off the failed list.
	if _, err := w.owner.Organizations.CancelInvite(ctx, "octo", inv.GetID()); err != nil {
		t.Fatal(err)
	}
	if l, _, _ := w.owner.Organizations.ListFailedOrgInvitations(ctx, "octo", nil); len(l) != 0 {
		t.Fatalf("failed after cancelling: %v", l)
	}
	if l, _, _ := w.owner.Organizations.ListPendingOrgInvitations(ctx, "octo", nil); len(l) != 1 {
		t.Fatalf("the new invitation: %v", l)
	}
}

// Refusals of the invitation routes, in GitHub's words; none of them
// changes anything.
func TestInvitationRefusals(t *testing.T) {
	w := newInvWorld(t)
	e := w.e
	if _, err := w.owner.Organizations.BlockUser(ctx, "octo", "eve"); err != nil {
		t.Fatal(err)
	}
	pending := e.Must(201, "POST", "/orgs/octo/invitations", w.monaTok, map[string]any{"email": "someone@example.com"}).Map(t)
	pid := fmt.Sprint(pending["id"])
	noAdminOrg := e.Token(w.mona, "read:org")
	for _, tc := range []struct {
		name, method, path, token string
		body                      any
		status                    int
		message, first            string
	}{
		{"member lists", "GET", "/orgs/octo/invitations", w.melTok, nil, 403, "You must be an admin to view organization pending invitations.", ""},
		{"outsider lists", "GET", "/orgs/octo/invitations", w.bobTok, nil, 403, "You must be an admin to view organization pending invitations.", ""},
		{"anonymous lists", "GET", "/orgs/octo/invitations", "", nil, 401, "Requires authentication", ""},
		{"unknown org", "GET", "/orgs/nope/invitations", w.monaTok, nil, 404, "Not Found", ""},
		{"bad role filter", "GET", "/orgs/octo/invitations?role=boss", w.monaTok, nil, 422, "Validation Failed", ""},
		{"member lists failed", "GET", "/orgs/octo/failed_invitations", w.melTok, nil, 403, "You must be an admin to view organization failed invitations.", ""},
		{"member invites", "POST", "/orgs/octo/invitations", w.melTok, map[string]any{"invitee_id": w.bob.ID}, 403,
			"You must be an admin to create an invitation to an organization.", ""},
		{"member invites with a bad body", "POST", "/orgs/octo/invitations", w.melTok, map[string]any{"role": "boss"}, 403,
			"You must be an admin to create an invitation to an organization.", ""},
		{"member PUTs a bad role", "PUT", "/orgs/octo/memberships/bob", w.melTok, map[string]any{"role": "boss"}, 403,
			"You must be an admin to add or update an organization membership.", ""},
		{"bad role", "POST", "/orgs/octo/invitations", w.monaTok, map[string]any{"invitee_id": w.bob.ID, "role": "boss"}, 422,
			"Invalid request.\n\nboss is not a member of [\"admin\", \"direct_member\", \"billing_manager\", \"reinstate\"].", ""},
		{"invite without admin:org", "POST", "/orgs/octo/invitations", noAdminOrg, map[string]any{"invitee_id": w.bob.ID}, 403,
			"Resource not accessible by personal access token", ""},
		{"invite a member", "POST", "/orgs/octo/invitations", w.monaTok, map[string]any{"invitee_id": w.mel.ID}, 422,
			"Validation Failed", "Invitee is already a part of this organization"},
		{"invite a blocked user", "POST", "/orgs/octo/invitations", w.monaTok, map[string]any{"invitee_id": w.eve.ID}, 422,
			"Validation Failed", "You cannot invite a user who is blocked by the organization."},
		{"unknown invitee", "POST", "/orgs/octo/invitations", w.monaTok, map[string]any{"invitee_id": 999999}, 422, "Invalid invitee_id", ""},
		{"an organization as invitee", "POST", "/orgs/octo/invitations", w.monaTok, map[string]any{"invitee_id": w.org.ID}, 422, "Invalid invitee_id", ""},
		{"nobody", "POST", "/orgs/octo/invitations", w.monaTok, map[string]any{"role": "admin"}, 422, "Validation Failed",
			"Either invitee_id or email must be provided."},
		{"bad email", "POST", "/orgs/octo/invitations", w.monaTok, map[string]any{"email": "not an address"}, 422, "Validation Failed", "Email is invalid"},
		{"billing manager", "POST", "/orgs/octo/invitations", w.monaTok, map[string]any{"invitee_id": w.bob.ID, "role": "billing_manager"}, 422,
			"Validation Failed", "Billing managers are not supported: invite as admin or direct_member."},
		{"reinstate a stranger", "POST", "/orgs/octo/invitations", w.monaTok, map[string]any{"invitee_id": w.bob.ID, "role": "reinstate"}, 422,
			"No previous privileges to reinstate", ""},
		{"member cancels", "DELETE", "/orgs/octo/invitations/" + pid, w.melTok, nil, 403, "You must be an admin to cancel an invitation to an organization.", ""},
		{"cancel unknown", "DELETE", "/orgs/octo/invitations/999999", w.monaTok, nil, 404, "Not Found", ""},
		{"cancel another org's", "DELETE", "/orgs/other/invitations/" + pid, w.eveTok, nil, 404, "Not Found", ""},
		{"member lists teams", "GET", "/orgs/octo/invitations/" + pid + "/teams", w.melTok, nil, 403,
			"You must be an admin to list the teams off an organization invitation.", ""},
		{"teams of unknown", "GET", "/orgs/octo/invitations/999999/teams", w.monaTok, nil, 404, "Not Found", ""},
		{"teams of a bad id", "GET", "/orgs/octo/invitations/x/teams", w.monaTok, nil, 404, "Not Found", ""},
		{"PUT a blocked user", "PUT", "/orgs/octo/memberships/eve", w.monaTok, map[string]any{"role": "member"}, 422,
			"You cannot invite a user who is blocked by the organization.", ""},
		{"member lists team invitations", "GET", "/orgs/octo/teams/crew/invitations", w.melTok, nil, 403,
			"You must be an organization owner or team maintainer to list team invitations.", ""},
		{"outsider lists team invitations", "GET", "/orgs/octo/teams/crew/invitations", w.bobTok, nil, 404, "Not Found", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Do(tc.method, tc.path, tc.token, tc.body)
			if r.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", r.StatusCode, tc.status, r.Body)
			}
			m := r.Map(t)
			if m["message"] != tc.message {
				t.Fatalf("body %s", r.Body)
			}
			if tc.first != "" {
				errs, _ := m["errors"].([]any)
				if len(errs) != 1 || errs[0].(map[string]any)["message"] != tc.first || errs[0].(map[string]any)["resource"] != "OrganizationInvitation" {
					t.Fatalf("errors: %s", r.Body)
				}
			}
		})
	}
	list, _, err := w.owner.Organizations.ListPendingOrgInvitations(ctx, "octo", nil)
	if err != nil || len(list) != 1 || fmt.Sprint(list[0].GetID()) != pid {
		t.Fatalf("invitations after refusals: %v %v", list, err)
	}
}

// An organization sends at most 50 invitations in 24 hours (500 once it
// is more than a month old); POST answers 422, PUT .../memberships 403.
func TestInvitationRateLimit(t *testing.T) {
	w := newInvWorld(t)
	e := w.e
	for i := range 50 {
		e.Must(201, "POST", "/orgs/octo/invitations", w.monaTok, map[string]any{"email": fmt.Sprintf("p%d@example.com", i)})
	}
	_, resp, err := w.owner.Organizations.CreateOrgInvitation(ctx, "octo", &github.CreateOrgInvitationOptions{Email: github.Ptr("late@example.com")})
	if status(resp) != 422 || firstError(err) != "Over invitation rate limit" {
		t.Fatalf("51st invitation: %d %v", status(resp), err)
	}
	_, resp, err = w.owner.Organizations.EditOrgMembership(ctx, "bob", "octo", &github.Membership{Role: github.Ptr("member")})
	if status(resp) != 403 || errMessage(err) != "You have exceeded the organization invitation rate limit of 50 per 24 hours." {
		t.Fatalf("PUT over the limit: %d %v", status(resp), err)
	}
	// A role change of a member invites nobody and passes.
	if _, _, err := w.owner.Organizations.EditOrgMembership(ctx, "mel", "octo", &github.Membership{Role: github.Ptr("admin")}); err != nil {
		t.Fatalf("role change over the limit: %v", err)
	}
	// Pages of the 50 pending invitations.
	r := e.Must(200, "GET", "/orgs/octo/invitations?per_page=20&page=2", w.monaTok, nil)
	var page []map[string]any
	r.JSON(t, &page)
	if len(page) != 20 || !strings.Contains(r.Header.Get("Link"), `rel="last"`) {
		t.Fatalf("page 2: %d %s", len(page), r.Header.Get("Link"))
	}
	// A day later the organization may invite again.
	e.Store.SetClock(func() time.Time { return time.Now().UTC().Add(24*time.Hour + time.Minute).Truncate(time.Second) })
	defer e.Store.SetClock(func() time.Time { return time.Now().UTC().Truncate(time.Second) })
	if _, _, err := w.owner.Organizations.CreateOrgInvitation(ctx, "octo", &github.CreateOrgInvitationOptions{Email: github.Ptr("late@example.com")}); err != nil {
		t.Fatalf("a day later: %v", err)
	}
	// A month-old organization may send 500.
	e.Store.SetClock(func() time.Time { return time.Now().UTC().Add(40 * 24 * time.Hour).Truncate(time.Second) })
	for i := range 51 {
		e.Must(201, "POST", "/orgs/octo/invitations", w.monaTok, map[string]any{"email": fmt.Sprintf("q%d@example.com", i)})
	}
}

// reinstate invites a former member back into the role they had.
func TestReinstate(t *testing.T) {
	w := newInvWorld(t)
	join(t, w.e, w.org, w.bob, model.RoleAdmin)
	if _, err := w.owner.Organizations.RemoveMember(ctx, "octo", "bob"); err != nil {
		t.Fatal(err)
	}
	inv, _, err := w.owner.Organizations.CreateOrgInvitation(ctx, "octo", &github.CreateOrgInvitationOptions{
		InviteeID: github.Ptr(w.bob.ID), Role: github.Ptr("reinstate")})
	if err != nil || inv.GetRole() != "reinstate" {
		t.Fatalf("reinstate: %+v %v", inv, err)
	}
	// Listed with the role it restores.
	if l, _, _ := w.owner.Organizations.ListPendingOrgInvitations(ctx, "octo", nil); len(l) != 1 || l[0].GetRole() != "admin" {
		t.Fatalf("listed: %v", l)
	}
	if l, _, _ := w.owner.Organizations.ListPendingOrgInvitations(ctx, "octo", &github.ListOptions{}); len(l) != 1 {
		t.Fatalf("listed: %v", l)
	}
	admins := w.e.Must(200, "GET", "/orgs/octo/invitations?role=admin", w.monaTok, nil)
	members := w.e.Must(200, "GET", "/orgs/octo/invitations?role=direct_member", w.monaTok, nil)
	if !strings.Contains(string(admins.Body), `"bob"`) || strings.Contains(string(members.Body), `"bob"`) {
		t.Fatalf("role filter: %s / %s", admins.Body, members.Body)
	}
	if m, _, err := w.bobC.Organizations.EditOrgMembership(ctx, "", "octo", &github.Membership{State: github.Ptr("active")}); err != nil || m.GetRole() != "admin" {
		t.Fatalf("reinstated: %+v %v", m, err)
	}
	// Too late after three months.
	if _, err := w.owner.Organizations.RemoveMember(ctx, "octo", "bob"); err != nil {
		t.Fatal(err)
	}
	w.e.Store.SetClock(func() time.Time { return time.Now().UTC().Add(91 * 24 * time.Hour).Truncate(time.Second) })
	defer w.e.Store.SetClock(func() time.Time { return time.Now().UTC().Truncate(time.Second) })
	if _, resp, err := w.owner.Organizations.CreateOrgInvitation(ctx, "octo", &github.CreateOrgInvitationOptions{
		InviteeID: github.Ptr(w.bob.ID), Role: github.Ptr("reinstate")}); status(resp) != 422 || errMessage(err) != "No previous privileges to reinstate" {
		t.Fatalf("late reinstate: %d %v", status(resp), err)
	}
}

// GET /user/memberships/orgs lists active memberships and pending
// invitations, filtered by state and paginated.
func TestOwnMembershipsWithInvitations(t *testing.T) {
	w := newInvWorld(t)
	for _, login := range []string{"o1", "o2", "o3"} {
		u, _ := w.e.NewUser(login+"-owner", false)
		o := newOrg(t, w.e, login, u)
		if login == "o2" {
			join(t, w.e, o, w.bob, model.RoleMember)
			continue
		}
		tok := w.e.Token(u, apitest.AllScopes)
		w.e.Must(201, "POST", "/orgs/"+login+"/invitations", tok, map[string]any{"invitee_id": w.bob.ID})
	}
	all, resp, err := w.bobC.Organizations.ListOrgMemberships(ctx, &github.ListOrgMembershipsOptions{ListOptions: github.ListOptions{PerPage: 2}})
	if err != nil || len(all) != 2 || resp.NextPage != 2 {
		t.Fatalf("page 1: %v %v", all, err)
	}
	states := map[string]string{}
	for page := 1; page <= 2; page++ {
		l, _, err := w.bobC.Organizations.ListOrgMemberships(ctx, &github.ListOrgMembershipsOptions{ListOptions: github.ListOptions{PerPage: 2, Page: page}})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range l {
			states[m.GetOrganization().GetLogin()] = m.GetState()
		}
	}
	if states["o1"] != "pending" || states["o2"] != "active" || states["o3"] != "pending" || len(states) != 3 {
		t.Fatalf("states: %v", states)
	}
	if l, _, err := w.bobC.Organizations.ListOrgMemberships(ctx, &github.ListOrgMembershipsOptions{State: "active"}); err != nil || len(l) != 1 {
		t.Fatalf("active: %v %v", l, err)
	}
}

// Concurrent invitations of one user make one invitation.
func TestConcurrentInvitations(t *testing.T) {
	w := newInvWorld(t)
	done := make(chan int, 4)
	for range 4 {
		go func() {
			r := w.e.Do("POST", "/orgs/octo/invitations", w.monaTok, map[string]any{"invitee_id": w.bob.ID, "team_ids": []int64{w.crew.GetID()}})
			done <- r.StatusCode
		}()
	}
	for range 4 {
		if st := <-done; st != 201 {
			t.Fatalf("status %d", st)
		}
	}
	list, _, err := w.owner.Organizations.ListPendingOrgInvitations(ctx, "octo", nil)
	if err != nil || len(list) != 1 || list[0].GetTeamCount() != 1 {
		t.Fatalf("invitations: %v %v", list, err)
	}
}
