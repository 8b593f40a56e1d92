package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
	"github.com/hubd/hubd/internal/store/storetest"
)

func TestOrgMemberships(t *testing.T) {
	s := storetest.Open(t)
	ctx := context.Background()
	tx := func(fn func(tx store.Q) error) {
		t.Helper()
		if err := s.Tx(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	var users []*model.Account
	for i := range 5 {
		u := &model.Account{Login: fmt.Sprintf("u%d", i), Type: model.TypeUser}
		tx(func(q store.Q) error { return q.CreateAccount(ctx, u) })
		users = append(users, u)
	}
	org := store.NewOrg("Octo")
	tx(func(q store.Q) error { return q.CreateOrg(ctx, org, users[0].ID) })
	other := store.NewOrg("other")
	tx(func(q store.Q) error { return q.CreateOrg(ctx, other, users[1].ID) })

	got, err := s.R().OrgByLogin(ctx, "octo")
	if err != nil || got.ID != org.ID || !got.IsOrg() || !got.MembersCanCreatePrivRepos || got.DefaultRepoPermission != "read" {
		t.Fatalf("OrgByLogin: %+v %v", got, err)
	}
	if _, err := s.R().OrgByLogin(ctx, "u1"); err != model.ErrNotFound {
		t.Fatalf("a user found as an org: %v", err)
	}
	m, err := s.R().Membership(ctx, org.ID, users[0].ID)
	if err != nil || m.Role != model.RoleAdmin || m.State != store.StateActive {
		t.Fatalf("creator membership: %+v %v", m, err)
	}

	// u1 and u2 active members (u2 public), u3 pending admin.
	tx(func(q store.Q) error {
		for _, m := range []*model.Membership{
			{OrgID: org.ID, UserID: users[1].ID, Role: model.RoleMember, State: store.StateActive},
			{OrgID: org.ID, UserID: users[2].ID, Role: model.RoleMember, State: store.StateActive},
			{OrgID: org.ID, UserID: users[3].ID, Role: model.RoleAdmin, State: store.StatePending},
		} {
			if err := q.SetMembership(ctx, m); err != nil {
				return err
			}
		}
		return q.SetMemberPublic(ctx, org.ID, users[2].ID, true)
	})
	if err := s.Tx(ctx, func(q store.Q) error { return q.SetMemberPublic(ctx, org.ID, users[3].ID, true) }); err != model.ErrNotFound {
		t.Fatalf("publicizing a pending membership: %v", err)
	}

	logins := func(l []*model.Account) string {
		out := ""
		for _, a := range l {
			out += a.Login + ","
		}
		return out
	}
	for _, tc := range []struct {
		f             store.MemberFilter
		limit, offset int
		want          string
		total         int
	}{
		{store.MemberFilter{}, 10, 0, "u0,u1,u2,", 3},
		{store.MemberFilter{}, 2, 2, "u2,", 3},
		{store.MemberFilter{Role: model.RoleAdmin}, 10, 0, "u0,", 1},
		{store.MemberFilter{PublicOnly: true}, 10, 0, "u2,", 1},
	} {
		l, total, err := s.R().OrgMembers(ctx, org.ID, tc.f, tc.limit, tc.offset)
		if err != nil || logins(l) != tc.want || total != tc.total {
			t.Fatalf("OrgMembers(%+v) = %s %d %v, want %s %d", tc.f, logins(l), total, err, tc.want, tc.total)
		}
	}
	if n, err := s.R().CountActiveAdmins(ctx, org.ID); err != nil || n != 1 {
		t.Fatalf("CountActiveAdmins = %d %v", n, err)
	}

	l, total, err := s.R().OrgsOfUser(ctx, users[1].ID, false, 10, 0)
	if err != nil || logins(l) != "Octo,other," || total != 2 {
		t.Fatalf("OrgsOfUser = %s %d %v", logins(l), total, err)
	}
	if l, total, err := s.R().OrgsOfUser(ctx, users[2].ID, true, 10, 0); err != nil || logins(l) != "Octo," || total != 1 {
		t.Fatalf("public OrgsOfUser = %s %d %v", logins(l), total, err)
	}
	if l, _, err := s.R().OrgsOfUser(ctx, users[3].ID, false, 10, 0); err != nil || len(l) != 0 {
		t.Fatalf("pending membership listed: %s %v", logins(l), err)
	}

	ms, total, err := s.R().MembershipsOfUser(ctx, users[3].ID, "", 10, 0)
	if err != nil || total != 1 || len(ms) != 1 || ms[0].Org.Login != "Octo" || ms[0].State != store.StatePending || ms[0].Role != model.RoleAdmin || ms[0].OrgID != org.ID {
		t.Fatalf("MembershipsOfUser = %+v %d %v", ms, total, err)
	}
	if ms, total, err := s.R().MembershipsOfUser(ctx, users[3].ID, store.StateActive, 10, 0); err != nil || total != 0 || len(ms) != 0 {
		t.Fatalf("active MembershipsOfUser = %+v %d %v", ms, total, err)
	}

	tx(func(q store.Q) error { return q.RemoveMembership(ctx, org.ID, users[1].ID) })
	if err := s.Tx(ctx, func(q store.Q) error { return q.RemoveMembership(ctx, org.ID, users[1].ID) }); err != model.ErrNotFound {
		t.Fatalf("removing twice: %v", err)
	}
	if _, err := s.R().Membership(ctx, org.ID, users[1].ID); err != model.ErrNotFound {
		t.Fatalf("removed membership: %v", err)
	}
	// Deleting the organization removes its memberships.
	tx(func(q store.Q) error { return q.DeleteAccount(ctx, org.ID) })
	if ms, _, err := s.R().MembershipsOfUser(ctx, users[3].ID, "", 10, 0); err != nil || len(ms) != 0 {
		t.Fatalf("memberships of a deleted org: %+v %v", ms, err)
	}
}
