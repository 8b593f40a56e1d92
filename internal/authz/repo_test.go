package authz

import (
	"testing"

	"github.com/hubd/hubd/internal/model"
)

// An organization role's base role counts for active members only, like
// team grants, and never lowers anything.
func TestOrgRolesFact(t *testing.T) {
	org := &model.Account{ID: 1, Type: model.TypeOrganization}
	private := &model.Repo{ID: 9, OwnerID: 1, Owner: org, Visibility: model.Private}
	user := &Caller{User: &model.Account{ID: 2}}
	for _, c := range []struct {
		name string
		f    RepoFacts
		want Permission
	}{
		{"member with all_repo_write", RepoFacts{OrgRole: model.RoleMember, OrgRoles: Write}, Write},
		{"member: the higher of role and team", RepoFacts{OrgRole: model.RoleMember, OrgRoles: Triage, Team: Maintain}, Maintain},
		{"member: the higher of role and grant", RepoFacts{OrgRole: model.RoleMember, OrgRoles: Admin, Collab: Read}, Admin},
		{"not a member", RepoFacts{OrgRoles: Admin}, None},
		{"owner", RepoFacts{OrgRole: model.RoleAdmin, OrgRoles: Read}, Admin},
	} {
		if got := userRepoPermission(user, private, c.f); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestRoleName(t *testing.T) {
	custom := []NamedGrant{{"Deployer", Write}, {"Labeler", Read}}
	for _, c := range []struct {
		p    Permission
		want string
	}{
		{Write, "Deployer"}, // the custom role gives the level
		{Read, "Labeler"},
		{Maintain, "maintain"}, // something else gives more
		{None, "none"},
	} {
		if got := RoleName(c.p, custom); got != c.want {
			t.Errorf("%v: %q, want %q", c.p, got, c.want)
		}
	}
	if got := RoleName(Triage, nil); got != "triage" {
		t.Errorf("no custom role: %q", got)
	}
}
