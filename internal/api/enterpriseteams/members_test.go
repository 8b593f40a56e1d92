package enterpriseteams_test

import (
	"context"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

func TestEnterpriseTeamMembersAndOrgs(t *testing.T) {
	e := apitest.New(t)
	tok := e.Token(e.Admin, "admin:enterprise")
	read := e.Token(e.Admin, "read:enterprise")
	e.Must(201, "POST", "/enterprises/hubd/teams", tok, map[string]any{"name": "Core"})
	for _, l := range []string{"amy", "ben", "cal"} {
		e.NewUser(l, false)
	}
	ctx := context.Background()
	org := &model.Account{Login: "acme", Type: model.TypeOrganization}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateAccount(ctx, org) }); err != nil {
		t.Fatal(err)
	}
	m := "/enterprises/hubd/teams/ent:core/memberships"

	var users []map[string]any
	e.Must(200, "POST", m+"/add", tok, map[string]any{"usernames": []string{"amy", "ben"}}).JSON(t, &users)
	if len(users) != 2 || users[0]["login"] != "amy" {
		t.Fatalf("bulk add = %v", users)
	}
	e.Must(201, "PUT", m+"/cal", tok, nil)
	r := e.Must(200, "GET", m+"?per_page=2", read, nil)
	r.JSON(t, &users)
	if len(users) != 2 || r.Header.Get("Link") == "" {
		t.Fatalf("members page = %s", r.Body)
	}
	e.Must(200, "GET", m+"/ben", read, nil)
	e.Must(200, "POST", m+"/remove", tok, map[string]any{"usernames": []string{"ben"}})
	e.Must(404, "GET", m+"/ben", read, nil)
	e.Must(204, "DELETE", m+"/cal", tok, nil)
	e.Must(422, "POST", m+"/add", tok, map[string]any{"usernames": []string{"nobody"}})
	e.Must(422, "POST", m+"/add", tok, map[string]any{"usernames": []string{"acme"}}) // an organization is no member
	e.Must(404, "PUT", m+"/nobody", tok, nil)
	e.Must(404, "GET", "/enterprises/hubd/teams/ent:nope/memberships", read, nil)
	e.Must(200, "GET", m, read, nil).JSON(t, &users)
	if len(users) != 1 || users[0]["login"] != "amy" {
		t.Fatalf("members = %v", users)
	}

	o := "/enterprises/hubd/teams/ent:core/organizations"
	var orgs []map[string]any
	e.Must(200, "POST", o+"/add", tok, map[string]any{"organization_slugs": []string{"acme"}}).JSON(t, &orgs)
	if len(orgs) != 1 || orgs[0]["login"] != "acme" {
		t.Fatalf("bulk assign = %v", orgs)
	}
	e.Must(200, "GET", o+"/acme", read, nil)
	e.Must(200, "GET", o, read, nil).JSON(t, &orgs)
	if len(orgs) != 1 {
		t.Fatalf("assignments = %v", orgs)
	}
	e.Must(204, "POST", o+"/remove", tok, map[string]any{"organization_slugs": []string{"acme"}})
	e.Must(404, "GET", o+"/acme", read, nil)
	e.Must(201, "PUT", o+"/acme", tok, nil)
	e.Must(204, "DELETE", o+"/acme", tok, nil)
	e.Must(422, "POST", o+"/add", tok, map[string]any{"organization_slugs": []string{"amy"}})
	e.Must(403, "PUT", o+"/acme", read, nil)
}
