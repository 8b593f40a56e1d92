package roles_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

// The list holds GitHub's predefined roles with their base roles and
// stable ids, then the organization's own; owners read it, members and
// outsiders do not.
func TestListAndGetOrgRoles(t *testing.T) {
	w := newWorld(t)
	list, _, err := w.olga.Organizations.ListRoles(ctx, "octo")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		id   int64
		base string
	}{"all_repo_read": {8132, "read"}, "all_repo_triage": {8133, "triage"}, "all_repo_write": {8134, "write"},
		"all_repo_maintain": {8135, "maintain"}, "all_repo_admin": {8136, "admin"}, "security_manager": {8137, "read"}}
	seen := 0
	for _, r := range list.CustomRepoRoles {
		if r.GetSource() != "Predefined" {
			t.Errorf("%s: source %q", r.GetName(), r.GetSource())
		}
		if wr, ok := want[r.GetName()]; ok {
			seen++
			if r.GetID() != wr.id || r.GetBaseRole() != wr.base {
				t.Errorf("%s: id %d base %q, want %d %q", r.GetName(), r.GetID(), r.GetBaseRole(), wr.id, wr.base)
			}
		}
	}
	if seen != len(want) || list.GetTotalCount() != len(list.CustomRepoRoles) {
		t.Fatalf("predefined roles: %d of %d, total %d", seen, len(want), list.GetTotalCount())
	}
	// ci_cd_admin has no base role: null.
	raw := w.e.Must(200, "GET", "/orgs/octo/organization-roles/8138", w.olgaTok, nil)
	if !strings.Contains(string(raw.Body), `"base_role":null`) || !strings.Contains(string(raw.Body), `"organization":null`) {
		t.Errorf("ci_cd_admin: %s", raw.Body)
	}
	role, _, err := w.olga.Organizations.GetOrgRole(ctx, "octo", 8134)
	if err != nil || role.GetName() != "all_repo_write" || role.GetBaseRole() != "write" {
		t.Fatalf("get 8134: %+v %v", role, err)
	}
	for _, c := range []struct {
		name        string
		path, token string
		want        int
	}{
		{"member", "/orgs/octo/organization-roles", w.miaTok, 403},
		{"outsider", "/orgs/octo/organization-roles", w.zedTok, 404},
		{"anonymous", "/orgs/octo/organization-roles", "", 401},
		{"read:org token", "/orgs/octo/organization-roles", w.e.Token(w.e.Admin, "read:org"), 403},
		{"unknown org", "/orgs/nope/organization-roles", w.olgaTok, 404},
		{"unknown role", "/orgs/octo/organization-roles/99999", w.olgaTok, 404},
		{"bad role id", "/orgs/octo/organization-roles/abc", w.olgaTok, 404},
		{"member permissions", "/orgs/octo/organization-fine-grained-permissions", w.miaTok, 403},
		{"owner permissions", "/orgs/octo/organization-fine-grained-permissions", w.olgaTok, 200},
	} {
		if r := w.e.Do("GET", c.path, c.token, nil); r.StatusCode != c.want {
			t.Errorf("%s: %d, want %d: %s", c.name, r.StatusCode, c.want, r.Body)
		}
	}
	fp, _, err := w.olga.Organizations.ListFineGrainedPermissions(ctx, "octo")
	if err != nil || !slices.ContainsFunc(fp, func(p *github.OrganizationFineGrainedPermission) bool {
		return p.Name == "read_organization_custom_org_role" && p.Description != ""
	}) {
		t.Errorf("organization permissions: %v %v", fp, err)
	}
}

func TestCustomOrgRoleCRUD(t *testing.T) {
	w := newWorld(t)
	desc := "Reads roles"
	role, resp, err := w.olga.Organizations.CreateCustomOrgRole(ctx, "octo", github.CreateCustomOrgRoleRequest{
		Name: "Role Reader", Description: &desc, Permissions: []string{"read_organization_custom_org_role"}})
	if err != nil || resp.StatusCode != 201 || role.GetSource() != "Organization" || role.GetBaseRole() != "" ||
		role.GetOrg().GetLogin() != "octo" || !slices.Equal(role.Permissions, []string{"read_organization_custom_org_role"}) {
		t.Fatalf("create: %+v %v", role, err)
	}
	if role.GetID() >= 8132 && role.GetID() <= 8138 {
		t.Fatalf("custom role took a predefined id: %d", role.GetID())
	}
	base := "maintain"
	up, _, err := w.olga.Organizations.UpdateCustomOrgRole(ctx, "octo", role.GetID(), github.UpdateCustomOrgRoleRequest{
		Name: github.Ptr("Maintainers"), BaseRole: &base, Permissions: []string{"read_organization_custom_org_role", "add_label"}})
	if err != nil || up.GetName() != "Maintainers" || up.GetBaseRole() != "maintain" || up.GetDescription() != desc ||
		len(up.Permissions) != 2 {
		t.Fatalf("update: %+v %v", up, err)
	}
	got, _, err := w.olga.Organizations.GetOrgRole(ctx, "octo", role.GetID())
	if err != nil || got.GetName() != "Maintainers" {
		t.Fatalf("get: %+v %v", got, err)
	}
	list, _, _ := w.olga.Organizations.ListRoles(ctx, "octo")
	if last := list.CustomRepoRoles[len(list.CustomRepoRoles)-1]; last.GetID() != role.GetID() {
		t.Errorf("the organization's role is not listed last: %v", last)
	}
	// base_role none needs the repository permissions gone too.
	w.e.Must(422, "PATCH", "/orgs/octo/organization-roles/"+itoa(role.GetID()), w.olgaTok, map[string]any{"base_role": "none"})
	w.e.Must(200, "PATCH", "/orgs/octo/organization-roles/"+itoa(role.GetID()), w.olgaTok,
		map[string]any{"base_role": "none", "permissions": []string{"read_organization_custom_org_role"}})

	id := itoa(role.GetID())
	for _, c := range []struct {
		name, method, path string
		body               any
		want               int
	}{
		{"unknown permission", "POST", "/orgs/octo/organization-roles", map[string]any{"name": "x", "permissions": []string{"fly"}}, 422},
		{"repository permission without base", "POST", "/orgs/octo/organization-roles", map[string]any{"name": "x", "permissions": []string{"add_label"}}, 422},
		{"nothing at all", "POST", "/orgs/octo/organization-roles", map[string]any{"name": "x", "permissions": []string{}}, 422},
		{"bad base role", "POST", "/orgs/octo/organization-roles", map[string]any{"name": "x", "permissions": []string{}, "base_role": "owner"}, 422},
		{"no name", "POST", "/orgs/octo/organization-roles", map[string]any{"name": " ", "permissions": []string{}, "base_role": "read"}, 422},
		{"duplicate name", "POST", "/orgs/octo/organization-roles", map[string]any{"name": "maintainers", "permissions": []string{}, "base_role": "read"}, 422},
		{"predefined name", "POST", "/orgs/octo/organization-roles", map[string]any{"name": "ALL_REPO_READ", "permissions": []string{}, "base_role": "read"}, 422},
		{"missing permissions", "POST", "/orgs/octo/organization-roles", map[string]any{"name": "y"}, 422},
		{"change predefined", "PATCH", "/orgs/octo/organization-roles/8132", map[string]any{"name": "mine"}, 422},
		{"delete predefined", "DELETE", "/orgs/octo/organization-roles/8132", nil, 422},
		{"change unknown", "PATCH", "/orgs/octo/organization-roles/99999", map[string]any{"name": "z"}, 404},
		{"member creates", "POST", "/orgs/octo/organization-roles", map[string]any{"name": "m", "permissions": []string{}, "base_role": "read"}, 403},
	} {
		tok := w.olgaTok
		if strings.HasPrefix(c.name, "member") {
			tok = w.miaTok
		}
		if r := w.e.Do(c.method, c.path, tok, c.body); r.StatusCode != c.want {
			t.Errorf("%s: %d, want %d: %s", c.name, r.StatusCode, c.want, r.Body)
		}
	}
	if resp, err := w.olga.Organizations.DeleteCustomOrgRole(ctx, "octo", role.GetID()); err != nil || resp.StatusCode != 204 {
		t.Fatalf("delete: %v", err)
	}
	w.e.Must(404, "GET", "/orgs/octo/organization-roles/"+id, w.olgaTok, nil)
	w.e.Must(204, "DELETE", "/orgs/octo/organization-roles/"+id, w.olgaTok, nil) // gone already
	if got, want := events(t, w.e, "organization_role"), []string{"organization_role/created", "organization_role/edited",
		"organization_role/edited", "organization_role/deleted"}; !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}

// A role assigned to a team reaches the members of the team and of its
// child teams: all_repo_write on devs lets max (in web, below devs) see and
// push to the private repository, and lists it among his organization's
// repositories. Revoking it takes that away.
func TestOrgRoleGivesAccess(t *testing.T) {
	w := newWorld(t)
	if _, resp, _ := w.max.Repositories.Get(ctx, "octo", "vault"); status(resp) != 404 {
		t.Fatalf("max sees vault before any role: %d", status(resp))
	}
	for range 2 { // assigning again changes nothing
		if resp, err := w.olga.Organizations.AssignOrgRoleToTeam(ctx, "octo", "devs", 8134); err != nil || resp.StatusCode != 204 {
			t.Fatalf("assign: %v", err)
		}
	}
	for _, c := range []struct {
		who        *github.Client
		login, tok string
	}{{w.mia, "mia", w.miaTok}, {w.max, "max", w.maxTok}} {
		repo, _, err := c.who.Repositories.Get(ctx, "octo", "vault")
		if err != nil || !repo.GetPermissions().GetPush() || repo.GetPermissions().GetMaintain() {
			t.Fatalf("vault through all_repo_write: %+v %v", repo.GetPermissions(), err)
		}
		w.e.Must(201, "PUT", "/repos/octo/vault/contents/"+c.login+".txt", c.tok, map[string]any{"message": "x", "content": "eA=="})
		repos, _, err := c.who.Repositories.ListByOrg(ctx, "octo", nil)
		if err != nil || len(repos) != 1 || repos[0].GetName() != "vault" || !repos[0].GetPermissions().GetPush() {
			t.Fatalf("org repositories: %v %v", repos, err)
		}
	}
	lvl, _, err := w.olga.Repositories.GetPermissionLevel(ctx, "octo", "vault", "max")
	if err != nil || lvl.GetRoleName() != "write" || lvl.GetPermission() != "write" {
		t.Fatalf("max's permission level: %+v %v", lvl, err)
	}
	// Teams holding the role: devs directly, web below it.
	teams, _, err := w.olga.Organizations.ListTeamsAssignedToOrgRole(ctx, "octo", 8134, nil)
	if err != nil || len(teams) != 2 {
		t.Fatalf("teams of the role: %v %v", teams, err)
	}
	raw := string(w.e.Must(200, "GET", "/orgs/octo/organization-roles/8134/teams", w.olgaTok, nil).Body)
	if !strings.Contains(raw, `"assignment":"direct"`) || !strings.Contains(raw, `"assignment":"indirect"`) {
		t.Errorf("team assignments: %s", raw)
	}
	// max also gets the role directly: mixed, inherited from devs.
	if _, err := w.olga.Organizations.AssignOrgRoleToUser(ctx, "octo", "max", 8134); err != nil {
		t.Fatal(err)
	}
	// olga made the teams and is in both (as their maintainer).
	users, resp, err := w.olga.Organizations.ListUsersAssignedToOrgRole(ctx, "octo", 8134, &github.ListOptions{PerPage: 2, Page: 2})
	if err != nil || len(users) != 1 || users[0].GetLogin() != "max" || resp.PrevPage != 1 || resp.NextPage != 0 {
		t.Fatalf("users page 2: %v %v", users, err)
	}
	var assigned []struct {
		Login         string `json:"login"`
		Assignment    string `json:"assignment"`
		InheritedFrom []struct {
			Slug string `json:"slug"`
		} `json:"inherited_from"`
	}
	w.e.Must(200, "GET", "/orgs/octo/organization-roles/8134/users", w.olgaTok, nil).JSON(t, &assigned)
	if len(assigned) != 3 || assigned[0].Login != "olga" || assigned[1].Login != "mia" || assigned[1].Assignment != "indirect" ||
		len(assigned[1].InheritedFrom) != 1 || assigned[1].InheritedFrom[0].Slug != "devs" ||
		assigned[2].Login != "max" || assigned[2].Assignment != "mixed" || len(assigned[2].InheritedFrom) != 1 {
		t.Errorf("user assignments: %+v", assigned)
	}
	// Only members can hold a role; only owners assign.
	for _, c := range []struct {
		name, method, path, tok string
		want                    int
	}{
		{"outsider", "PUT", "/orgs/octo/organization-roles/users/zed/8134", w.olgaTok, 422},
		{"unknown user", "PUT", "/orgs/octo/organization-roles/users/ghost/8134", w.olgaTok, 404},
		{"organization", "PUT", "/orgs/octo/organization-roles/users/octo/8134", w.olgaTok, 404},
		{"unknown role", "PUT", "/orgs/octo/organization-roles/users/mia/99999", w.olgaTok, 404},
		{"unknown team", "PUT", "/orgs/octo/organization-roles/teams/nope/8134", w.olgaTok, 404},
		{"member assigns", "PUT", "/orgs/octo/organization-roles/users/mia/8136", w.miaTok, 403},
		{"outsider assigns", "PUT", "/orgs/octo/organization-roles/users/zed/8136", w.zedTok, 404},
		{"member lists users", "GET", "/orgs/octo/organization-roles/8134/users", w.maxTok, 403},
		{"read:org token", "PUT", "/orgs/octo/organization-roles/users/mia/8136", "olga-read", 403},
	} {
		tok := c.tok
		if tok == "olga-read" {
			olga, _ := w.e.Store.R().AccountByLogin(ctx, "olga")
			tok = w.e.Token(olga, "read:org")
		}
		if r := w.e.Do(c.method, c.path, tok, nil); r.StatusCode != c.want {
			t.Errorf("%s: %d, want %d: %s", c.name, r.StatusCode, c.want, r.Body)
		}
	}
	// Revoking the team's role leaves max his own.
	if resp, err := w.olga.Organizations.RemoveOrgRoleFromTeam(ctx, "octo", "devs", 8134); err != nil || resp.StatusCode != 204 {
		t.Fatalf("revoke team: %v", err)
	}
	if _, resp, _ := w.mia.Repositories.Get(ctx, "octo", "vault"); status(resp) != 404 {
		t.Errorf("mia still sees vault: %d", status(resp))
	}
	if _, _, err := w.max.Repositories.Get(ctx, "octo", "vault"); err != nil {
		t.Errorf("max lost his own role: %v", err)
	}
	w.e.Must(204, "DELETE", "/orgs/octo/organization-roles/users/max", w.olgaTok, nil)
	if _, resp, _ := w.max.Repositories.Get(ctx, "octo", "vault"); status(resp) != 404 {
		t.Errorf("max still sees vault: %d", status(resp))
	}
	// Revoking again answers alike.
	w.e.Must(204, "DELETE", "/orgs/octo/organization-roles/users/max/8134", w.olgaTok, nil)
	w.e.Must(204, "DELETE", "/orgs/octo/organization-roles/teams/devs", w.olgaTok, nil)
	if got, want := events(t, w.e, "organization_role"), []string{"organization_role/assigned", "organization_role/assigned",
		"organization_role/revoked", "organization_role/revoked"}; !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}

// A custom organization role's base role gives its level, its permissions
// let holders manage roles, and editing the base role moves every holder.
func TestCustomOrgRoleEffect(t *testing.T) {
	w := newWorld(t)
	base := "maintain"
	role, _, err := w.olga.Organizations.CreateCustomOrgRole(ctx, "octo", github.CreateCustomOrgRoleRequest{
		Name: "Role managers", BaseRole: &base, Permissions: []string{"write_organization_custom_org_role", "add_label"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.olga.Organizations.AssignOrgRoleToUser(ctx, "octo", "mia", role.GetID()); err != nil {
		t.Fatal(err)
	}
	repo, _, err := w.mia.Repositories.Get(ctx, "octo", "vault")
	if err != nil || !repo.GetPermissions().GetMaintain() || repo.GetPermissions().GetAdmin() {
		t.Fatalf("maintain through the role: %+v %v", repo.GetPermissions(), err)
	}
	// The organization permission lets mia read and write roles, but not
	// assign them.
	if _, _, err := w.mia.Organizations.ListRoles(ctx, "octo"); err != nil {
		t.Errorf("mia lists roles: %v", err)
	}
	if _, _, err := w.mia.Organizations.CreateCustomOrgRole(ctx, "octo", github.CreateCustomOrgRoleRequest{
		Name: "Other", Permissions: []string{"read_audit_logs"}}); err != nil {
		t.Errorf("mia creates a role: %v", err)
	}
	if resp, _ := w.mia.Organizations.AssignOrgRoleToUser(ctx, "octo", "max", role.GetID()); status(resp) != 403 {
		t.Errorf("mia assigns: %d", status(resp))
	}
	if _, resp, _ := w.max.Organizations.ListRoles(ctx, "octo"); status(resp) != 403 {
		t.Errorf("max lists roles: %d", status(resp))
	}
	triage := "triage"
	if _, _, err := w.olga.Organizations.UpdateCustomOrgRole(ctx, "octo", role.GetID(), github.UpdateCustomOrgRoleRequest{BaseRole: &triage}); err != nil {
		t.Fatal(err)
	}
	repo, _, err = w.mia.Repositories.Get(ctx, "octo", "vault")
	if err != nil || !repo.GetPermissions().GetTriage() || repo.GetPermissions().GetPush() {
		t.Fatalf("after the base role moved to triage: %+v %v", repo.GetPermissions(), err)
	}
	if _, err := w.olga.Organizations.DeleteCustomOrgRole(ctx, "octo", role.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, resp, _ := w.mia.Repositories.Get(ctx, "octo", "vault"); status(resp) != 404 {
		t.Errorf("mia keeps access after the role's deletion: %d", status(resp))
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// A fine-grained token needs the role permissions it was not granted.
func TestFineGrainedToken(t *testing.T) {
	w := newWorld(t)
	olga, err := w.e.Store.R().AccountByLogin(ctx, "olga")
	if err != nil {
		t.Fatal(err)
	}
	var fine string
	if err := w.e.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		fine, _, err = tx.CreateToken(ctx, olga.ID, authz.FineGrained, nil, "", nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ method, path string }{
		{"GET", "/orgs/octo/organization-roles"}, {"PUT", "/orgs/octo/organization-roles/users/mia/8132"},
		{"GET", "/orgs/octo/custom-repository-roles"}, {"DELETE", "/orgs/octo/custom-repository-roles/1"},
	} {
		r := w.e.Must(403, c.method, c.path, fine, nil)
		if m := r.Map(t)["message"]; m != "Resource not accessible by personal access token" {
			t.Errorf("%s %s: %v", c.method, c.path, m)
		}
	}
}
