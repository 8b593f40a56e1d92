package scim_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/store"
)

// TestGroupsDriveOrganizationAccess: a SCIM group is an enterprise team;
// assigned to an organization, the identity provider's membership changes
// flow through to the organization's membership and to the repositories
// granted to the team there, and a deactivated identity loses both.
func TestGroupsDriveOrganizationAccess(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	tok := e.Token(e.Admin, "scim:enterprise")
	entTok := e.Token(e.Admin, "admin:enterprise")
	olga, olgaTok := e.NewUser("olga", false)
	org := store.NewOrg("acme")
	org.DefaultRepoPermission = "none"
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateOrg(ctx, org, olga.ID) }); err != nil {
		t.Fatal(err)
	}
	e.Must(201, "POST", "/orgs/acme/repos", olgaTok, map[string]any{"name": "secret", "private": true})

	id := e.Must(201, "POST", ent+"/Users", tok, oktaUser("mona@example.com", "Mona", "Lisa", "mona@example.com"), scimCT).Map(t)["id"].(string)
	mona := account(t, e, userID(t, e, "mona"))
	monaTok := e.Token(mona, "repo")
	gid := e.Must(201, "POST", ent+"/Groups", tok, map[string]any{"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:Group"},
		"displayName": "Engineering", "members": []any{map[string]any{"value": id}}}, scimCT).Map(t)["id"].(string)

	e.Must(404, "GET", "/orgs/acme/members/mona", olgaTok, nil)
	e.Must(201, "PUT", "/enterprises/hubd/teams/ent:engineering/organizations/acme", entTok, nil)
	e.Must(204, "GET", "/orgs/acme/members/mona", olgaTok, nil)
	team := e.Must(200, "GET", "/orgs/acme/teams/ent:engineering", olgaTok, nil).Map(t)
	if team["name"] != "Engineering" || team["members_count"].(float64) != 1 {
		t.Fatalf("the organization's team = %v", team)
	}
	e.Must(204, "PUT", "/orgs/acme/teams/ent:engineering/repos/acme/secret", olgaTok, map[string]any{"permission": "push"})
	if p := e.Must(200, "GET", "/repos/acme/secret", monaTok, nil).Map(t)["permissions"].(map[string]any); p["push"] != true {
		t.Fatalf("permissions = %v", p)
	}

	// The identity provider takes mona out of the group: out of the
	// organization and the repository.
	e.Must(200, "PATCH", ent+"/Groups/"+gid, tok, patch(map[string]any{"op": "remove", "path": fmt.Sprintf(`members[value eq "%s"]`, id)}), scimCT)
	e.Must(404, "GET", "/orgs/acme/members/mona", olgaTok, nil)
	e.Must(404, "GET", "/repos/acme/secret", monaTok, nil)

	// Back in: the grant of the organization's team holds again.
	e.Must(200, "PATCH", ent+"/Groups/"+gid, tok, patch(map[string]any{"op": "add", "path": "members", "value": []any{map[string]any{"value": id}}}), scimCT)
	e.Must(204, "GET", "/orgs/acme/members/mona", olgaTok, nil)
	e.Must(200, "GET", "/repos/acme/secret", monaTok, nil)

	// Renaming the group renames the organization's team.
	e.Must(200, "PATCH", ent+"/Groups/"+gid, tok, patch(map[string]any{"op": "replace", "path": "displayName", "value": "Platform"}), scimCT)
	e.Must(200, "GET", "/orgs/acme/teams/ent:platform", olgaTok, nil)
	e.Must(404, "GET", "/orgs/acme/teams/ent:engineering", olgaTok, nil)

	// Deactivating the identity takes the membership away.
	e.Must(200, "PATCH", ent+"/Users/"+id, tok, patch(map[string]any{"op": "replace", "value": map[string]any{"active": false}}), scimCT)
	if n, err := e.Store.R().ActiveMemberCount(ctx, org.ID); err != nil || n != 1 {
		t.Fatalf("active members after deactivation = %d %v", n, err)
	}

	e.Must(200, "PATCH", ent+"/Users/"+id, tok, patch(map[string]any{"op": "replace", "value": map[string]any{"active": true}}), scimCT)
	e.Must(204, "GET", "/orgs/acme/members/mona", olgaTok, nil)
	e.Must(200, "GET", "/repos/acme/secret", monaTok, nil)

	// Deleting the group removes the organization's team and the
	// membership it gave.
	e.Must(204, "DELETE", ent+"/Groups/"+gid, tok, nil)
	e.Must(404, "GET", "/orgs/acme/teams/ent:platform", olgaTok, nil)
	e.Must(404, "GET", "/orgs/acme/members/mona", olgaTok, nil)
}
