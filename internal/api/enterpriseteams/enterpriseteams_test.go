package enterpriseteams_test

import (
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

func TestEnterpriseTeams(t *testing.T) {
	e := apitest.New(t)
	tok := e.Token(e.Admin, "admin:enterprise")
	b := "/enterprises/hubd/teams"

	r := e.Must(201, "POST", b, tok, map[string]any{"name": "Justice League", "description": "heroes"})
	team := r.Map(t)
	if team["slug"] != "ent:justice-league" || team["group_id"] != nil || team["organization_selection_type"] != "disabled" ||
		team["url"] != e.API+b+"/ent:justice-league" {
		t.Fatalf("created = %s", r.Body)
	}
	e.Must(201, "POST", b, tok, map[string]any{"name": "Avengers", "organization_selection_type": "all"})
	e.Must(201, "POST", b, tok, map[string]any{"name": "X-Men"})

	r = e.Must(422, "POST", b, tok, map[string]any{"name": "justice league"})
	if !strings.Contains(string(r.Body), "already_exists") {
		t.Fatalf("duplicate = %s", r.Body)
	}
	e.Must(422, "POST", b, tok, map[string]any{"description": "no name"})
	e.Must(422, "POST", b, tok, map[string]any{"name": "G", "group_id": "62ab9291-fae2-468e-974b-7e45096d5021"})
	e.Must(422, "POST", b, tok, map[string]any{"name": "G", "organization_selection_type": "some"})

	r = e.Must(200, "GET", b+"?per_page=2&page=2", tok, nil)
	var page []map[string]any
	r.JSON(t, &page)
	if len(page) != 1 || page[0]["name"] != "X-Men" || !strings.Contains(r.Header.Get("Link"), `rel="first"`) {
		t.Fatalf("page 2 = %s (Link %q)", r.Body, r.Header.Get("Link"))
	}

	// The slug works with and without its prefix.
	e.Must(200, "GET", b+"/justice-league", tok, nil)
	e.Must(200, "GET", b+"/ent:justice-league", e.Token(e.Admin, "read:enterprise"), nil)
	r = e.Must(200, "PATCH", b+"/ent:justice-league", tok, map[string]any{"name": "Justice Society", "description": nil})
	if m := r.Map(t); m["slug"] != "ent:justice-society" || m["description"] != "" {
		t.Fatalf("updated = %s", r.Body)
	}
	e.Must(404, "GET", b+"/ent:justice-league", tok, nil)
	e.Must(422, "PATCH", b+"/ent:justice-society", tok, map[string]any{"name": "Avengers"})

	// SCIM groups are enterprise teams.
	scim := e.Token(e.Admin, "scim:enterprise")
	r = e.Must(201, "POST", "/scim/v2/enterprises/hubd/Groups", scim, map[string]any{"displayName": "Okta Engineers"}, "Content-Type: application/scim+json")
	gid := r.Map(t)["id"].(string)
	r = e.Must(200, "GET", b+"/ent:okta-engineers", tok, nil)
	if r.Map(t)["group_id"] != gid {
		t.Fatalf("SCIM group's team = %s", r.Body)
	}

	e.Must(204, "DELETE", b+"/ent:justice-society", tok, nil)
	e.Must(404, "DELETE", b+"/ent:justice-society", tok, nil)

	// Authorization.
	e.Must(401, "GET", b, "", nil)
	plain, _ := e.NewUser("plain", false)
	e.Must(403, "GET", b, e.Token(plain, "admin:enterprise"), nil)
	e.Must(403, "POST", b, e.Token(e.Admin, "read:enterprise"), map[string]any{"name": "Nope"})
	e.Must(403, "POST", b, e.AdminToken, map[string]any{"name": "Nope"})
	e.Must(404, "GET", "/enterprises/other/teams", tok, nil)
}
