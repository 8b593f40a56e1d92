package scim_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
)

const (
	ent     = "/scim/v2/enterprises/hubd"
	scimCT  = "Content-Type: application/scim+json"
	userURN = "urn:ietf:params:scim:schemas:core:2.0:User"
	patchOp = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
)

func filterQ(f string) string { return "?filter=" + url.QueryEscape(f) }

func oktaUser(userName, given, family, email string) map[string]any {
	return map[string]any{
		"schemas": []string{userURN}, "userName": userName, "externalId": "okta-" + given,
		"name":        map[string]any{"givenName": given, "familyName": family},
		"displayName": given + " " + family,
		"emails":      []any{map[string]any{"primary": true, "value": email, "type": "work"}},
		"active":      true,
	}
}

func patch(ops ...map[string]any) map[string]any {
	return map[string]any{"schemas": []string{patchOp}, "Operations": ops}
}

func account(t *testing.T, e *apitest.Env, id int64) *model.Account {
	t.Helper()
	a, err := e.Store.R().AccountByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func userID(t *testing.T, e *apitest.Env, login string) int64 {
	t.Helper()
	a, err := e.Store.R().AccountByLogin(context.Background(), login)
	if err != nil {
		t.Fatalf("account %s: %v", login, err)
	}
	return a.ID
}

// TestOktaSequence follows Okta's published SCIM 2.0 provisioning flow:
// look the user up by userName, create, read, replace with PUT, deactivate
// and reactivate with a path-less PATCH, push a group and its membership.
func TestOktaSequence(t *testing.T) {
	e := apitest.New(t)
	tok := e.Token(e.Admin, "scim:enterprise")

	r := e.Must(200, "GET", ent+"/Users"+filterQ(`userName eq "mona@example.com"`)+"&startIndex=1&count=100", tok, nil)
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/scim+json") {
		t.Fatalf("Content-Type = %q", r.Header.Get("Content-Type"))
	}
	if m := r.Map(t); m["totalResults"].(float64) != 0 || len(m["Resources"].([]any)) != 0 {
		t.Fatalf("lookup = %s", r.Body)
	}

	r = e.Must(201, "POST", ent+"/Users", tok, oktaUser("mona@example.com", "Mona", "Lisa", "mona@example.com"), scimCT)
	u := r.Map(t)
	id := u["id"].(string)
	if u["userName"] != "mona@example.com" || u["active"] != true || r.Header.Get("Location") != e.API+ent+"/Users/"+id {
		t.Fatalf("created = %s (Location %q)", r.Body, r.Header.Get("Location"))
	}
	mona := account(t, e, userID(t, e, "mona"))
	if mona.Name != "Mona Lisa" || mona.Email != "mona@example.com" || mona.SuspendedAt != nil || mona.SiteAdmin {
		t.Fatalf("hubd user = %+v", mona)
	}
	monaTok := e.Token(mona, "repo")
	e.Must(200, "GET", "/user", monaTok, nil)

	r = e.Must(200, "GET", ent+"/Users"+filterQ(`userName eq "MONA@example.com"`), tok, nil)
	if m := r.Map(t); m["totalResults"].(float64) != 1 || m["Resources"].([]any)[0].(map[string]any)["id"] != id {
		t.Fatalf("lookup after create = %s", r.Body)
	}
	e.Must(200, "GET", ent+"/Users/"+id, tok, nil)

	put := oktaUser("mona@example.com", "Mona", "Octocat", "mona@example.com")
	r = e.Must(200, "PUT", ent+"/Users/"+id, tok, put, scimCT)
	if r.Map(t)["name"].(map[string]any)["familyName"] != "Octocat" || account(t, e, mona.ID).Name != "Mona Octocat" {
		t.Fatalf("put = %s", r.Body)
	}

	// Okta deactivates with a path-less replace.
	r = e.Must(200, "PATCH", ent+"/Users/"+id, tok, patch(map[string]any{"op": "replace", "value": map[string]any{"active": false}}), scimCT)
	if r.Map(t)["active"] != false {
		t.Fatalf("deactivated = %s", r.Body)
	}
	gone := account(t, e, mona.ID)
	if gone.SuspendedAt == nil || gone.Login == "mona" || gone.Email != "" {
		t.Fatalf("deactivated user = %+v", gone)
	}
	e.Must(401, "GET", "/user", monaTok, nil)
	e.Must(404, "GET", "/users/mona", e.AdminToken, nil)

	r = e.Must(200, "PATCH", ent+"/Users/"+id, tok, patch(map[string]any{"op": "replace", "value": map[string]any{"active": true}}), scimCT)
	back := account(t, e, mona.ID)
	if r.Map(t)["active"] != true || back.SuspendedAt != nil || back.Login != "mona" || back.Email != "mona@example.com" {
		t.Fatalf("reactivated = %s %+v", r.Body, back)
	}
	e.Must(200, "GET", "/user", monaTok, nil)

	// Group push: create with the member, rename, remove the member.
	r = e.Must(201, "POST", ent+"/Groups", tok, map[string]any{"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:Group"},
		"displayName": "Engineering", "externalId": "okta-g1", "members": []any{map[string]any{"value": id, "display": "Mona"}}}, scimCT)
	g := r.Map(t)
	gid := g["id"].(string)
	if ms := g["members"].([]any); len(ms) != 1 || ms[0].(map[string]any)["value"] != id {
		t.Fatalf("group = %s", r.Body)
	}
	team, err := e.Store.R().EnterpriseTeamByGroupID(context.Background(), gid)
	if err != nil || team.Slug != "ent:engineering" || team.Name != "Engineering" {
		t.Fatalf("team = %+v %v", team, err)
	}
	r = e.Must(200, "GET", ent+"/Users/"+id, tok, nil)
	if gs := r.Map(t)["groups"].([]any); len(gs) != 1 || gs[0].(map[string]any)["value"] != gid {
		t.Fatalf("user's groups = %s", r.Body)
	}
	e.Must(200, "PATCH", ent+"/Groups/"+gid, tok, patch(map[string]any{"op": "replace", "path": "displayName", "value": "Platform"}), scimCT)
	r = e.Must(200, "PATCH", ent+"/Groups/"+gid, tok, patch(map[string]any{"op": "remove", "path": fmt.Sprintf(`members[value eq "%s"]`, id)}), scimCT)
	if m := r.Map(t); m["displayName"] != "Platform" || len(m["members"].([]any)) != 0 {
		t.Fatalf("group after patches = %s", r.Body)
	}
	r = e.Must(200, "GET", ent+"/Groups"+filterQ(`displayName eq "Platform"`)+"&excludedAttributes=members", tok, nil)
	if m := r.Map(t); m["totalResults"].(float64) != 1 || m["Resources"].([]any)[0].(map[string]any)["members"] != nil {
		t.Fatalf("group lookup = %s", r.Body)
	}
	// PUT replaces the group whole: its name and its members.
	r = e.Must(200, "PUT", ent+"/Groups/"+gid, tok, map[string]any{"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:Group"},
		"displayName": "Platform", "externalId": "okta-g2", "members": []any{map[string]any{"value": id, "displayName": "Mona"}}}, scimCT)
	r = e.Must(200, "GET", ent+"/Groups/"+gid, tok, nil)
	if m := r.Map(t); m["externalId"] != "okta-g2" || len(m["members"].([]any)) != 1 {
		t.Fatalf("group after put = %s", r.Body)
	}
	r = e.Must(200, "GET", ent+"/Groups/"+gid+"?excludedAttributes=members", tok, nil)
	if m := r.Map(t); m["externalId"] != "okta-g2" || m["members"] != nil {
		t.Fatalf("group without members = %s", r.Body)
	}
	e.Must(204, "DELETE", ent+"/Groups/"+gid, tok, nil)
	if _, err := e.Store.R().EnterpriseTeamByGroupID(context.Background(), gid); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("the group's team outlived it: %v", err)
	}
	e.Must(404, "GET", ent+"/Groups/"+gid, tok, nil)

	// Delete: the identity goes, the user stays suspended and obfuscated.
	e.Must(204, "DELETE", ent+"/Users/"+id, tok, nil)
	e.Must(404, "GET", ent+"/Users/"+id, tok, nil)
	del := account(t, e, mona.ID)
	if del.SuspendedAt == nil || del.Login == "mona" || del.Email != "" {
		t.Fatalf("deleted user = %+v", del)
	}
	// The userName is free again.
	e.Must(201, "POST", ent+"/Users", tok, oktaUser("mona@example.com", "Mona", "Lisa", "mona@example.com"), scimCT)
}

// TestEntraSequence follows Microsoft Entra ID's provisioning requests:
// capitalised operation names, "False" as a string, path-less value maps
// with dotted attribute names, emails[type eq "work"].value, and group
// membership added and removed by value.
func TestEntraSequence(t *testing.T) {
	e := apitest.New(t)
	tok := e.Token(e.Admin, "scim:enterprise")
	base := "/scim/v2" // GHES's enterprise-less shape, as Entra ID's GHES app calls it
	e.Must(200, "GET", base+"/Users"+filterQ(`userName eq "alex@contoso.com"`), tok, nil)
	r := e.Must(201, "POST", base+"/Users", tok, map[string]any{
		"schemas": []string{userURN, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"}, "externalId": "a1b2",
		"userName": "alex@contoso.com", "active": true, "displayName": "Alex W",
		"emails": []any{map[string]any{"primary": true, "type": "work", "value": "alex@contoso.com"}},
		"name":   map[string]any{"formatted": "Alex Wilber", "familyName": "Wilber", "givenName": "Alex"},
		"roles":  []any{map[string]any{"primary": false, "type": "WindowsAzureActiveDirectoryRole", "value": "enterprise_owner"}},
		"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": map[string]any{"department": "Sales"},
	}, scimCT)
	u := r.Map(t)
	id := u["id"].(string)
	if !strings.HasPrefix(u["meta"].(map[string]any)["location"].(string), e.API+"/scim/v2/Users/") {
		t.Fatalf("location = %v", u["meta"])
	}
	alex := account(t, e, userID(t, e, "alex"))
	if !alex.SiteAdmin {
		t.Fatalf("enterprise_owner is not a site administrator: %+v", alex)
	}
	// The same identity is visible under the enterprise path.
	e.Must(200, "GET", ent+"/Users/"+id, tok, nil)

	r = e.Must(200, "PATCH", base+"/Users/"+id, tok, patch(
		map[string]any{"op": "Replace", "path": `emails[type eq "work"].value`, "value": "alex.w@contoso.com"},
		map[string]any{"op": "Replace", "path": "name.familyName", "value": "Wilberforce"},
		map[string]any{"op": "Add", "value": map[string]any{"displayName": "Alex Wilberforce", "name.givenName": "Alexander"}},
		map[string]any{"op": "Replace", "path": "roles", "value": []any{map[string]any{"value": "user"}}},
	), scimCT)
	m := r.Map(t)
	name := m["name"].(map[string]any)
	if m["emails"].([]any)[0].(map[string]any)["value"] != "alex.w@contoso.com" || name["familyName"] != "Wilberforce" ||
		name["givenName"] != "Alexander" || m["displayName"] != "Alex Wilberforce" {
		t.Fatalf("patched = %s", r.Body)
	}
	if a := account(t, e, alex.ID); a.Email != "alex.w@contoso.com" || a.Name != "Alex Wilberforce" || a.SiteAdmin {
		t.Fatalf("account after patch = %+v", a)
	}

	r = e.Must(201, "POST", base+"/Groups", tok, map[string]any{"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:Group"},
		"externalId": "grp-1", "displayName": "Sales"}, scimCT)
	gid := r.Map(t)["id"].(string)
	e.Must(200, "GET", base+"/Groups"+filterQ(`displayName eq "Sales"`), tok, nil)
	r = e.Must(200, "PATCH", base+"/Groups/"+gid, tok, patch(map[string]any{"op": "Add", "path": "members", "value": []any{map[string]any{"value": id}}}), scimCT)
	if len(r.Map(t)["members"].([]any)) != 1 {
		t.Fatalf("member add = %s", r.Body)
	}
	r = e.Must(200, "PATCH", base+"/Groups/"+gid, tok, patch(map[string]any{"op": "Remove", "path": "members", "value": []any{map[string]any{"value": id}}}), scimCT)
	if len(r.Map(t)["members"].([]any)) != 0 {
		t.Fatalf("member remove = %s", r.Body)
	}

	// Entra ID deactivates with a string boolean.
	r = e.Must(200, "PATCH", base+"/Users/"+id, tok, patch(map[string]any{"op": "Replace", "path": "active", "value": "False"}), scimCT)
	if r.Map(t)["active"] != false || account(t, e, alex.ID).SuspendedAt == nil {
		t.Fatalf("deactivate = %s", r.Body)
	}
	r = e.Must(200, "PATCH", base+"/Users/"+id, tok, patch(map[string]any{"op": "Replace", "path": "active", "value": "True"}), scimCT)
	if a := account(t, e, alex.ID); a.SuspendedAt != nil || a.Login != "alex" {
		t.Fatalf("reactivated = %+v", a)
	}
}

func scimType(t *testing.T, r *apitest.Response) string {
	t.Helper()
	m := r.Map(t)
	if m["detail"] == nil || m["status"] == nil || m["message"] == nil {
		t.Fatalf("not a SCIM error: %s", r.Body)
	}
	s, _ := m["scimType"].(string)
	return s
}

func TestSCIMErrorsAndPaging(t *testing.T) {
	e := apitest.New(t)
	tok := e.Token(e.Admin, "scim:enterprise")
	var ids []string
	for _, n := range []string{"ann", "bob", "cid"} {
		r := e.Must(201, "POST", ent+"/Users", tok, oktaUser(n+"@example.com", n, "X", n+"@example.com"), scimCT)
		ids = append(ids, r.Map(t)["id"].(string))
	}
	// 409 on a taken userName (ignoring case).
	r := e.Must(409, "POST", ent+"/Users", tok, oktaUser("ANN@example.com", "ann", "Y", "ann2@example.com"), scimCT)
	if scimType(t, r) != "uniqueness" {
		t.Fatalf("409 = %s", r.Body)
	}
	// 409 on a PATCH to another identity's userName.
	r = e.Must(409, "PATCH", ent+"/Users/"+ids[1], tok, patch(map[string]any{"op": "replace", "path": "userName", "value": "ann@example.com"}), scimCT)
	if scimType(t, r) != "uniqueness" {
		t.Fatalf("409 = %s", r.Body)
	}
	for _, bad := range []string{`userName eq`, `userName co "a"`, `emails eq "x"`, `userName eq "a" and externalId eq "b"`, `((`} {
		r := e.Must(400, "GET", ent+"/Users"+filterQ(bad), tok, nil)
		if scimType(t, r) != "invalidFilter" {
			t.Fatalf("filter %q = %s", bad, r.Body)
		}
	}
	r = e.Must(200, "GET", ent+"/Users"+filterQ(`externalId eq "okta-bob"`), tok, nil)
	if m := r.Map(t); m["totalResults"].(float64) != 1 {
		t.Fatalf("externalId filter = %s", r.Body)
	}
	// GitHub's own examples quote with apostrophes.
	e.Must(200, "GET", ent+"/Users"+filterQ(`userName eq 'cid@example.com'`), tok, nil)

	r = e.Must(200, "GET", ent+"/Users?startIndex=2&count=1", tok, nil)
	m := r.Map(t)
	if m["totalResults"].(float64) != 3 || m["startIndex"].(float64) != 2 || m["itemsPerPage"].(float64) != 1 ||
		m["Resources"].([]any)[0].(map[string]any)["id"] != ids[1] {
		t.Fatalf("page = %s", r.Body)
	}
	r = e.Must(200, "GET", ent+"/Users?startIndex=0&count=0", tok, nil)
	if m := r.Map(t); m["totalResults"].(float64) != 3 || len(m["Resources"].([]any)) != 0 {
		t.Fatalf("count=0 = %s", r.Body)
	}

	// Bad PATCH bodies.
	for _, c := range []struct {
		body any
		typ  string
	}{
		{patch(map[string]any{"op": "explode", "path": "userName", "value": "x"}), "invalidSyntax"},
		{patch(map[string]any{"op": "remove"}), "noTarget"},
		{patch(map[string]any{"op": "remove", "path": "userName"}), "mutability"},
		{patch(map[string]any{"op": "replace", "path": "nosuch", "value": "x"}), "invalidPath"},
		{patch(map[string]any{"op": "replace", "path": "active", "value": "maybe"}), "invalidValue"},
		{patch(map[string]any{"op": "replace", "path": "roles", "value": []any{map[string]any{"value": "emperor"}}}), "invalidValue"},
		{`{"Operations": 1}`, "invalidSyntax"},
		{`not json`, "invalidSyntax"},
	} {
		r := e.Must(400, "PATCH", ent+"/Users/"+ids[0], tok, c.body, scimCT)
		if scimType(t, r) != c.typ {
			t.Fatalf("%v = %s", c.body, r.Body)
		}
	}
	r = e.Must(400, "POST", ent+"/Users", tok, map[string]any{"schemas": []string{userURN}}, scimCT)
	if scimType(t, r) != "invalidValue" {
		t.Fatalf("no userName = %s", r.Body)
	}
	r = e.Must(400, "POST", ent+"/Groups", tok, map[string]any{"displayName": "G", "members": []any{map[string]any{"value": "nope"}}}, scimCT)
	if scimType(t, r) != "invalidValue" {
		t.Fatalf("unknown member = %s", r.Body)
	}
	if _, n, _ := e.Store.R().EnterpriseTeams(context.Background(), storeAll, 10, 0); n != 0 {
		t.Fatalf("a failed group create left %d teams", n)
	}

	e.Must(404, "GET", ent+"/Users/no-such-id", tok, nil)
	e.Must(404, "PATCH", ent+"/Groups/no-such-id", tok, patch(map[string]any{"op": "replace", "path": "displayName", "value": "x"}), scimCT)
	e.Must(404, "DELETE", ent+"/Users/no-such-id", tok, nil)

	// Authentication and authorization.
	r = e.Must(401, "GET", ent+"/Users", "", nil)
	scimType(t, r)
	e.Must(401, "GET", "/scim/v2/Users", "", nil)
	plain, _ := e.NewUser("plain", false)
	r = e.Must(403, "GET", ent+"/Users", e.Token(plain, "scim:enterprise"), nil)
	scimType(t, r)
	e.Must(403, "POST", ent+"/Users", e.AdminToken, oktaUser("dan@example.com", "dan", "X", "dan@example.com"), scimCT) // no scim:enterprise
	e.Must(404, "GET", "/scim/v2/enterprises/other/Users", tok, nil)
	if _, err := e.Store.R().AccountByLogin(context.Background(), "dan"); !errors.Is(err, model.ErrNotFound) {
		t.Fatalf("a refused provision made a user: %v", err)
	}
}
