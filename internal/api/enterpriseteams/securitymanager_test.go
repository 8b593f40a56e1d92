package enterpriseteams_test

import (
	"context"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/store"
)

// The enterprise's security_manager role (id 2) manages the security of
// every organization: its holders, directly or through an enterprise
// team, list an organization's repository security advisories and manage
// those of its repositories as the organization's own security managers
// do; revoked, they no longer may.
func TestEnterpriseSecurityManager(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	tok := e.Token(e.Admin, "admin:enterprise")
	olga, olgaT := e.NewUser("olga", false)
	_, ivyT := e.NewUser("ivy", false)
	_, jonT := e.NewUser("jon", false)
	org := store.NewOrg("octo")
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateOrg(ctx, org, olga.ID) }); err != nil {
		t.Fatal(err)
	}
	e.Must(201, "POST", "/orgs/octo/repos", olgaT, map[string]any{"name": "app"})
	body := map[string]any{"summary": "s", "description": "d", "vulnerabilities": []map[string]any{{
		"package": map[string]any{"ecosystem": "npm", "name": "app"}, "vulnerable_version_range": "< 1.2.3", "patched_versions": "1.2.3"}}}
	e.Must(201, "POST", "/repos/octo/app/security-advisories", olgaT, body)

	list := "/orgs/octo/security-advisories"
	e.Must(403, "GET", list, ivyT, nil)
	e.Must(403, "POST", "/repos/octo/app/security-advisories", ivyT, body)
	e.Must(204, "PUT", "/enterprises/hubd/enterprise-roles/users/ivy/2", tok, nil)
	var got []map[string]any
	e.Must(200, "GET", list, ivyT, nil).JSON(t, &got)
	if len(got) != 1 {
		t.Fatalf("the security manager's list = %v", got)
	}
	e.Must(201, "POST", "/repos/octo/app/security-advisories", ivyT, body)
	// app_manager (id 1) carries no security permission.
	e.Must(204, "PUT", "/enterprises/hubd/enterprise-roles/users/jon/1", tok, nil)
	e.Must(403, "GET", list, jonT, nil)
	// Through an enterprise team.
	e.Must(201, "POST", "/enterprises/hubd/teams", tok, map[string]any{"name": "Sec"})
	e.Must(201, "PUT", "/enterprises/hubd/teams/ent:sec/memberships/jon", tok, nil)
	e.Must(204, "PUT", "/enterprises/hubd/enterprise-roles/teams/ent:sec/2", tok, nil)
	e.Must(200, "GET", list, jonT, nil)
	e.Must(204, "DELETE", "/enterprises/hubd/enterprise-roles/teams/ent:sec/2", tok, nil)
	e.Must(403, "GET", list, jonT, nil)
	e.Must(204, "DELETE", "/enterprises/hubd/enterprise-roles/users/ivy/2", tok, nil)
	e.Must(403, "GET", list, ivyT, nil)
}
