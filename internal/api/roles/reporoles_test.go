package roles_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
)

func TestCustomRepoRoleCRUD(t *testing.T) {
	w := newWorld(t)
	desc := "Labels things"
	role, resp, err := w.olga.Organizations.CreateCustomRepoRole(ctx, "octo", github.CreateCustomRepoRoleRequest{
		Name: "Labeler", Description: &desc, BaseRole: "read", Permissions: []string{"add_label", "add_label", "remove_label"}})
	if err != nil || resp.StatusCode != 201 || role.GetName() != "Labeler" || role.GetBaseRole() != "read" ||
		!slices.Equal(role.Permissions, []string{"add_label", "remove_label"}) || role.GetOrg().GetLogin() != "octo" {
		t.Fatalf("create: %+v %v", role, err)
	}
	up, _, err := w.olga.Organizations.UpdateCustomRepoRole(ctx, "octo", role.GetID(), github.UpdateCustomRepoRoleRequest{
		Name: github.Ptr("Triager"), BaseRole: github.Ptr("triage")})
	if err != nil || up.GetName() != "Triager" || up.GetBaseRole() != "triage" || up.GetDescription() != desc || len(up.Permissions) != 2 {
		t.Fatalf("update: %+v %v", up, err)
	}
	got, _, err := w.olga.Organizations.GetCustomRepoRole(ctx, "octo", role.GetID())
	if err != nil || got.GetName() != "Triager" {
		t.Fatalf("get: %+v %v", got, err)
	}
	list, _, err := w.olga.Organizations.ListCustomRepoRoles(ctx, "octo")
	if err != nil || list.GetTotalCount() != 1 || list.CustomRepoRoles[0].GetID() != role.GetID() {
		t.Fatalf("list: %+v %v", list, err)
	}
	perms, _, err := w.olga.Organizations.ListRepositoryFineGrainedPermissions(ctx, "octo")
	if err != nil || !slices.ContainsFunc(perms, func(p *github.RepoFineGrainedPermission) bool { return p.Name == "add_label" }) {
		t.Fatalf("repository permissions: %v %v", perms, err)
	}
	id := strconv.FormatInt(role.GetID(), 10)

	// The closing-down routes serve the same roles.
	orgID := strconv.FormatInt(w.org.ID, 10)
	if r := w.e.Must(200, "GET", "/organizations/"+orgID+"/custom_roles", w.olgaTok, nil); !strings.Contains(string(r.Body), `"name":"Triager"`) {
		t.Errorf("legacy list: %s", r.Body)
	}
	w.e.Must(200, "GET", "/orgs/octo/custom_roles/"+id, w.olgaTok, nil)
	w.e.Must(200, "GET", "/orgs/octo/fine_grained_permissions", w.olgaTok, nil)
	legacy := w.e.Must(201, "POST", "/orgs/octo/custom_roles", w.olgaTok, map[string]any{"name": "Old", "base_role": "write", "permissions": []string{}})
	var old struct {
		ID int64 `json:"id"`
	}
	legacy.JSON(t, &old)
	w.e.Must(200, "PATCH", "/orgs/octo/custom_roles/"+strconv.FormatInt(old.ID, 10), w.olgaTok, map[string]any{"description": "older"})
	w.e.Must(204, "DELETE", "/orgs/octo/custom_roles/"+strconv.FormatInt(old.ID, 10), w.olgaTok, nil)

	for _, c := range []struct {
		name, method, path string
		body               any
		want               int
	}{
		{"unknown permission", "POST", "/orgs/octo/custom-repository-roles", map[string]any{"name": "x", "base_role": "read", "permissions": []string{"fly"}}, 422},
		{"organization permission", "POST", "/orgs/octo/custom-repository-roles", map[string]any{"name": "x", "base_role": "read", "permissions": []string{"read_audit_logs"}}, 422},
		{"bad base role", "POST", "/orgs/octo/custom-repository-roles", map[string]any{"name": "x", "base_role": "admin", "permissions": []string{}}, 422},
		{"no base role", "POST", "/orgs/octo/custom-repository-roles", map[string]any{"name": "x", "permissions": []string{}}, 422},
		{"duplicate", "POST", "/orgs/octo/custom-repository-roles", map[string]any{"name": "TRIAGER", "base_role": "read", "permissions": []string{}}, 422},
		{"built-in name", "POST", "/orgs/octo/custom-repository-roles", map[string]any{"name": "Push", "base_role": "read", "permissions": []string{}}, 422},
		{"blank name", "POST", "/orgs/octo/custom-repository-roles", map[string]any{"name": "  ", "base_role": "read", "permissions": []string{}}, 422},
		{"rename to built-in", "PATCH", "/orgs/octo/custom-repository-roles/" + id, map[string]any{"name": "admin"}, 422},
		{"unknown role", "GET", "/orgs/octo/custom-repository-roles/99999", nil, 404},
		{"unknown role patch", "PATCH", "/orgs/octo/custom-repository-roles/99999", map[string]any{"name": "q"}, 404},
		{"unknown org id", "GET", "/organizations/99999/custom_roles", nil, 404},
		{"member lists", "GET", "/orgs/octo/custom-repository-roles", nil, 403},
		{"member creates", "POST", "/orgs/octo/custom-repository-roles", map[string]any{"name": "m", "base_role": "read", "permissions": []string{}}, 403},
		{"outsider lists", "GET", "/orgs/octo/custom-repository-roles", nil, 404},
	} {
		tok := w.olgaTok
		switch {
		case strings.HasPrefix(c.name, "member"):
			tok = w.miaTok
		case strings.HasPrefix(c.name, "outsider"):
			tok = w.zedTok
		}
		if r := w.e.Do(c.method, c.path, tok, c.body); r.StatusCode != c.want {
			t.Errorf("%s: %d, want %d: %s", c.name, r.StatusCode, c.want, r.Body)
		}
	}
	// An administrator of one of the organization's repositories (here an
	// outside collaborator) reads the roles but does not change them.
	inv, _, err := w.olga.Repositories.AddCollaborator(ctx, "octo", "vault", "zed", &github.RepositoryAddCollaboratorOptions{Permission: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.zed.Users.AcceptInvitation(ctx, inv.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.zed.Organizations.ListCustomRepoRoles(ctx, "octo"); err != nil {
		t.Errorf("repository admin lists: %v", err)
	}
	if _, resp, _ := w.zed.Organizations.CreateCustomRepoRole(ctx, "octo", github.CreateCustomRepoRoleRequest{Name: "z", BaseRole: "read",
		Permissions: []string{}}); status(resp) != 404 {
		t.Errorf("repository admin creates: %d", status(resp))
	}
	// Up to five roles.
	for i := 2; i <= 5; i++ {
		w.e.Must(201, "POST", "/orgs/octo/custom-repository-roles", w.olgaTok, map[string]any{"name": "r" + strconv.Itoa(i), "base_role": "read", "permissions": []string{}})
	}
	w.e.Must(422, "POST", "/orgs/octo/custom-repository-roles", w.olgaTok, map[string]any{"name": "r6", "base_role": "read", "permissions": []string{}})

	if resp, err := w.olga.Organizations.DeleteCustomRepoRole(ctx, "octo", role.GetID()); err != nil || resp.StatusCode != 204 {
		t.Fatalf("delete: %v", err)
	}
	w.e.Must(404, "GET", "/orgs/octo/custom-repository-roles/"+id, w.olgaTok, nil)
	w.e.Must(204, "DELETE", "/orgs/octo/custom-repository-roles/"+id, w.olgaTok, nil)
	got2 := events(t, w.e, "custom_repository_role")
	if len(got2) != 10 || got2[0] != "custom_repository_role/created" || got2[1] != "custom_repository_role/edited" ||
		got2[len(got2)-1] != "custom_repository_role/deleted" {
		t.Errorf("events %v", got2)
	}
}

// A custom role granted to a team or a collaborator acts as its base role
// everywhere, is reported as role_name, follows edits of its base role, and
// falls back to the base role when it is deleted.
func TestCustomRepoRoleGrants(t *testing.T) {
	w := newWorld(t)
	role, _, err := w.olga.Organizations.CreateCustomRepoRole(ctx, "octo", github.CreateCustomRepoRoleRequest{
		Name: "Deployer", BaseRole: "write", Permissions: []string{"manage_deploy_keys"}})
	if err != nil {
		t.Fatal(err)
	}
	// The team grant: web's member max pushes.
	if resp, err := w.olga.Teams.AddTeamRepoBySlug(ctx, "octo", "web", "octo", "vault", &github.TeamAddTeamRepoOptions{Permission: "deployer"}); err != nil || resp.StatusCode != 204 {
		t.Fatalf("team grant: %v", err)
	}
	repo, _, err := w.max.Repositories.Get(ctx, "octo", "vault")
	if err != nil || !repo.GetPermissions().GetPush() || repo.GetPermissions().GetMaintain() {
		t.Fatalf("max through the team's role: %+v %v", repo.GetPermissions(), err)
	}
	w.e.Must(201, "PUT", "/repos/octo/vault/contents/max.txt", w.maxTok, map[string]any{"message": "x", "content": "eA=="})
	repos, _, err := w.olga.Teams.ListTeamReposBySlug(ctx, "octo", "web", nil)
	if err != nil || len(repos) != 1 || !repos[0].GetPermissions().GetPush() {
		t.Fatalf("team repositories: %v %v", repos, err)
	}
	if raw := w.e.Must(200, "GET", "/orgs/octo/teams/web/repos", w.olgaTok, nil); !strings.Contains(string(raw.Body), `"role_name":"Deployer"`) {
		t.Errorf("team repositories' role_name: %.300s", raw.Body)
	}
	tr, _, err := w.olga.Teams.IsTeamRepoBySlug(ctx, "octo", "web", "octo", "vault")
	if err != nil || tr.GetRoleName() != "Deployer" || !tr.GetPermissions().GetPush() {
		t.Fatalf("check team repository: %+v %v", tr, err)
	}
	lvl, _, err := w.olga.Repositories.GetPermissionLevel(ctx, "octo", "vault", "max")
	if err != nil || lvl.GetRoleName() != "Deployer" || lvl.GetPermission() != "write" {
		t.Fatalf("max's level: %+v %v", lvl, err)
	}

	// The collaborator grant: zed, an outsider, is invited with the role.
	inv, resp, err := w.olga.Repositories.AddCollaborator(ctx, "octo", "vault", "zed", &github.RepositoryAddCollaboratorOptions{Permission: "Deployer"})
	if err != nil || resp.StatusCode != 201 || inv.GetPermissions() != "write" {
		t.Fatalf("invite with the role: %+v %v", inv, err)
	}
	if _, err := w.zed.Users.AcceptInvitation(ctx, inv.GetID()); err != nil {
		t.Fatal(err)
	}
	lvl, _, err = w.olga.Repositories.GetPermissionLevel(ctx, "octo", "vault", "zed")
	if err != nil || lvl.GetRoleName() != "Deployer" || lvl.GetPermission() != "write" || lvl.GetUser().GetRoleName() != "Deployer" {
		t.Fatalf("zed's level: %+v %v", lvl, err)
	}
	names := func() map[string]string {
		t.Helper()
		list, _, err := w.olga.Repositories.ListCollaborators(ctx, "octo", "vault", nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, u := range list {
			out[u.GetLogin()] = u.GetRoleName()
		}
		return out
	}
	if got := names(); got["zed"] != "Deployer" || got["max"] != "Deployer" || got["olga"] != "admin" {
		t.Errorf("collaborators: %v", got)
	}
	// Custom roles are for organization repositories only.
	w.e.Must(201, "POST", "/user/repos", w.zedTok, map[string]any{"name": "own"})
	w.e.Must(422, "PUT", "/repos/zed/own/collaborators/mia", w.zedTok, map[string]any{"permission": "Deployer"})

	// The base role moves to triage: every grant follows.
	if _, _, err := w.olga.Organizations.UpdateCustomRepoRole(ctx, "octo", role.GetID(), github.UpdateCustomRepoRoleRequest{BaseRole: github.Ptr("triage")}); err != nil {
		t.Fatal(err)
	}
	repo, _, err = w.zed.Repositories.Get(ctx, "octo", "vault")
	if err != nil || !repo.GetPermissions().GetTriage() || repo.GetPermissions().GetPush() {
		t.Fatalf("zed after the edit: %+v %v", repo.GetPermissions(), err)
	}
	w.e.Must(403, "PUT", "/repos/octo/vault/contents/max2.txt", w.maxTok, map[string]any{"message": "x", "content": "eA=="})
	if got := names(); got["zed"] != "Deployer" || got["max"] != "Deployer" {
		t.Errorf("collaborators after the edit: %v", got)
	}
	if lvl, _, _ := w.olga.Repositories.GetPermissionLevel(ctx, "octo", "vault", "zed"); lvl.GetPermission() != "read" || lvl.GetRoleName() != "Deployer" {
		t.Errorf("zed's level after the edit: %+v", lvl)
	}
	// Deleted: the grants keep the base role, reported by its name.
	if _, err := w.olga.Organizations.DeleteCustomRepoRole(ctx, "octo", role.GetID()); err != nil {
		t.Fatal(err)
	}
	if got := names(); got["zed"] != "triage" || got["max"] != "triage" {
		t.Errorf("collaborators after deletion: %v", got)
	}
	tr, _, err = w.olga.Teams.IsTeamRepoBySlug(ctx, "octo", "web", "octo", "vault")
	if err != nil || tr.GetRoleName() != "triage" || !tr.GetPermissions().GetTriage() || tr.GetPermissions().GetPush() {
		t.Fatalf("team grant after deletion: %+v %v", tr, err)
	}
	// An unknown name is still refused.
	if resp, _ := w.olga.Teams.AddTeamRepoBySlug(ctx, "octo", "web", "octo", "vault", &github.TeamAddTeamRepoOptions{Permission: "Deployer"}); status(resp) != 422 {
		t.Errorf("deleted role granted: %d", status(resp))
	}
}
