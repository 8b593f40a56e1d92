package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

// The migration turns pending org_members rows, and the team memberships
// of their users, into invitations; active members keep theirs.
func TestPendingMembershipsBecomeInvitations(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	var owner, pending, active *model.Account
	org := store.NewOrg("octo")
	team := &model.Team{Name: "crew", Slug: "crew", Privacy: model.TeamClosed, NotificationSetting: "notifications_enabled", Permission: "pull"}
	err := s.Tx(ctx, func(q store.Q) error {
		for i, p := range []**model.Account{&owner, &pending, &active} {
			*p = &model.Account{Login: fmt.Sprintf("u%d", i), Type: model.TypeUser}
			if err := q.CreateAccount(ctx, *p); err != nil {
				return err
			}
		}
		if err := q.CreateOrg(ctx, org, owner.ID); err != nil {
			return err
		}
		team.OrgID = org.ID
		return q.CreateTeam(ctx, team)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		fmt.Sprintf(`INSERT INTO org_members (org_id, user_id, role, state, created_at) VALUES (%d, %d, 'admin', 'pending', 1000)`, org.ID, pending.ID),
		fmt.Sprintf(`INSERT INTO org_members (org_id, user_id, role, state, created_at) VALUES (%d, %d, 'member', 'active', 1000)`, org.ID, active.ID),
		fmt.Sprintf(`INSERT INTO team_members (team_id, user_id, role, state, created_at) VALUES (%d, %d, 'maintainer', 'pending', 1000)`, team.ID, pending.ID),
		fmt.Sprintf(`INSERT INTO team_members (team_id, user_id, role, state, created_at) VALUES (%d, %d, 'member', 'active', 1000)`, team.ID, active.ID),
	} {
		if err := s.ExecRaw(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.RerunOrgInvitationConversion(ctx, s); err != nil {
		t.Fatal(err)
	}
	q := s.R()
	// Created long ago, the converted invitation has expired by now; the
	// rows are what is checked.
	failed, _, err := q.OrgInvitations(ctx, store.OrgInvitationQuery{OrgID: org.ID, Failed: true, Limit: 10})
	if err != nil || len(failed) != 1 || failed[0].InviteeID != pending.ID || failed[0].Role != model.InviteAdmin || failed[0].TeamCount != 1 {
		t.Fatalf("converted invitation: %+v %v", failed, err)
	}
	if _, err := q.TeamMember(ctx, team.ID, pending.ID); err != model.ErrNotFound {
		t.Fatalf("pending team row left: %v", err)
	}
	if m, err := q.TeamMember(ctx, team.ID, active.ID); err != nil || m.State != store.StateActive {
		t.Fatalf("active team member: %+v %v", m, err)
	}
	if m, err := q.Membership(ctx, org.ID, active.ID); err != nil || m.State != store.StateActive {
		t.Fatalf("active member: %+v %v", m, err)
	}
	var n int
	if err := s.Tx(ctx, func(q store.Q) error {
		l, _, err := q.OrgInvitationTeams(ctx, failed[0].ID, 10, 0)
		n = len(l)
		return err
	}); err != nil || n != 1 {
		t.Fatalf("invitation teams: %d %v", n, err)
	}
}
