package enterpriseteams_test

import (
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

func TestEnterpriseRoles(t *testing.T) {
	e := apitest.New(t)
	tok := e.Token(e.Admin, "admin:enterprise")
	read := e.Token(e.Admin, "read:enterprise")
	_, plain := e.NewUser("amy", false)
	e.NewUser("ben", false)
	e.NewUser("cal", false)
	b := "/enterprises/hubd/enterprise-roles"

	var list struct {
		Total int `json:"total_count"`
		Roles []struct {
			ID     int64  `json:"id"`
			Name   string `json:"name"`
			Source string `json:"source"`
		} `json:"roles"`
	}
	e.Must(200, "GET", b, read, nil).JSON(t, &list)
	if list.Total != 2 || len(list.Roles) != 2 || list.Roles[1].Name != "security_manager" || list.Roles[0].Source != "Predefined" {
		t.Fatalf("roles = %+v", list)
	}
	e.Must(200, "GET", b+"/2", read, nil)
	e.Must(404, "GET", b+"/99", read, nil)
	e.Must(404, "GET", "/enterprises/other/enterprise-roles", read, nil)
	e.Must(401, "GET", b, "", nil)
	e.Must(403, "GET", b, e.Token(e.Admin, "read:org"), nil)
	e.Must(403, "GET", b, plain, nil)
	e.Must(403, "PUT", b+"/users/ben/2", read, nil)

	// ben directly; the team Core (amy, ben) too: amy indirect, ben mixed.
	e.Must(201, "POST", "/enterprises/hubd/teams", tok, map[string]any{"name": "Core"})
	e.Must(200, "POST", "/enterprises/hubd/teams/ent:core/memberships/add", tok, map[string]any{"usernames": []string{"amy", "ben"}})
	e.Must(204, "PUT", b+"/users/ben/2", tok, nil)
	e.Must(204, "PUT", b+"/users/ben/2", tok, nil) // again: no change
	e.Must(204, "PUT", b+"/users/cal/2", tok, nil)
	e.Must(204, "PUT", b+"/teams/ent:core/2", tok, nil)
	e.Must(404, "PUT", b+"/users/nobody/2", tok, nil)
	e.Must(404, "PUT", b+"/users/ben/7", tok, nil)
	e.Must(404, "PUT", b+"/teams/ent:nope/2", tok, nil)

	var users []struct {
		Login         string           `json:"login"`
		Assignment    string           `json:"assignment"`
		InheritedFrom []map[string]any `json:"inherited_from"`
	}
	e.Must(200, "GET", b+"/2/users", read, nil).JSON(t, &users)
	want := map[string]string{"amy": "indirect", "ben": "mixed", "cal": "direct"}
	if len(users) != 3 {
		t.Fatalf("users = %+v", users)
	}
	for _, u := range users {
		if want[u.Login] != u.Assignment || (u.Assignment != "direct") != (len(u.InheritedFrom) == 1) {
			t.Fatalf("users = %+v", users)
		}
	}
	r := e.Must(200, "GET", b+"/2/users?per_page=2", read, nil)
	if r.Header.Get("Link") == "" {
		t.Fatalf("no Link on a partial page: %s", r.Body)
	}
	var teams []map[string]any
	e.Must(200, "GET", b+"/2/teams", read, nil).JSON(t, &teams)
	if len(teams) != 1 || teams[0]["slug"] != "ent:core" {
		t.Fatalf("teams = %v", teams)
	}
	e.Must(200, "GET", b+"/1/users", read, nil).JSON(t, &users)
	if len(users) != 0 {
		t.Fatalf("app_manager users = %+v", users)
	}

	// Revocations.
	e.Must(204, "DELETE", b+"/users/cal/2", tok, nil)
	e.Must(204, "DELETE", b+"/teams/ent:core", tok, nil)
	e.Must(200, "GET", b+"/2/users", read, nil).JSON(t, &users)
	if len(users) != 1 || users[0].Login != "ben" || users[0].Assignment != "direct" {
		t.Fatalf("after revoking = %+v", users)
	}
	e.Must(204, "PUT", b+"/teams/ent:core/1", tok, nil)
	e.Must(204, "DELETE", b+"/teams/ent:core/1", tok, nil)
	e.Must(204, "DELETE", b+"/users/ben", tok, nil)
	e.Must(200, "GET", b+"/2/users", read, nil).JSON(t, &users)
	e.Must(200, "GET", b+"/1/teams", read, nil).JSON(t, &teams)
	if len(users) != 0 || len(teams) != 0 {
		t.Fatalf("after revoking all = %+v %v", users, teams)
	}
}
