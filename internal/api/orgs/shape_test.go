package orgs_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

// schemaKeys lists the properties of a component schema of GitHub's
// Enterprise Cloud description (the superset of the flavours).
func schemaKeys(t *testing.T, name string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(apitest.Root(), "node_modules/@octokit/openapi/generated/ghec.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for k := range spec.Components.Schemas[name].Properties {
		out[k] = true
	}
	if len(out) == 0 {
		t.Fatalf("no schema %s", name)
	}
	return out
}

// sameKeys fails unless obj has exactly the keys of want.
func sameKeys(t *testing.T, what string, obj map[string]any, want map[string]bool) {
	t.Helper()
	var missing, extra []string
	for k := range want {
		if _, ok := obj[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range obj {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("%s: missing %v, extra %v", what, missing, extra)
	}
}

func TestOrgFullHasEveryKeyAndKeepsSettings(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	hubot, _ := e.NewUser("hubot", false)
	org := newOrg(t, e, "octo", mona)
	join(t, e, org, hubot, "member")

	// Fill the profile strings hubd omits when unset.
	full := e.Must(200, "PATCH", "/orgs/octo", tok, map[string]any{"name": "Octo", "company": "Octo Inc",
		"blog": "https://octo.example", "location": "Moon", "email": "hello@octo.example"}).Map(t)
	sameKeys(t, "organization-full", full, schemaKeys(t, "organization-full"))
	plan, _ := full["plan"].(map[string]any)
	sameKeys(t, "plan", plan, map[string]bool{"name": true, "space": true, "private_repos": true, "seats": true, "filled_seats": true})
	if plan["filled_seats"] != float64(2) || plan["seats"] != float64(2) {
		t.Fatalf("seats: %v", plan)
	}
	// GitHub's settings of a new organization.
	for k, want := range map[string]any{
		"members_can_create_pages": true, "members_can_create_public_pages": true, "members_can_create_private_pages": true,
		"members_can_fork_private_repositories": false, "deploy_keys_enabled_for_repositories": true,
		"members_can_delete_repositories": true, "members_can_change_repo_visibility": true,
		"members_can_invite_outside_collaborators": true, "members_can_delete_issues": false,
		"display_commenter_full_name_setting_enabled": false, "readers_can_create_discussions": true,
		"members_can_create_teams": true, "members_can_view_dependency_insights": true,
		"dependency_graph_enabled_for_new_repositories": false, "secret_scanning_push_protection_custom_link": nil,
		"default_repository_branch": "main",
	} {
		if full[k] != want {
			t.Fatalf("%s = %v, want %v", k, full[k], want)
		}
	}

	// The writable ones persist.
	change := map[string]any{
		"members_can_create_pages": false, "members_can_create_public_pages": false, "members_can_create_private_pages": false,
		"members_can_fork_private_repositories": true, "deploy_keys_enabled_for_repositories": false,
		"advanced_security_enabled_for_new_repositories": true, "dependabot_alerts_enabled_for_new_repositories": true,
		"dependabot_security_updates_enabled_for_new_repositories": true, "dependency_graph_enabled_for_new_repositories": true,
		"secret_scanning_enabled_for_new_repositories": true, "secret_scanning_push_protection_enabled_for_new_repositories": true,
		"secret_scanning_validity_checks_enabled": true, "secret_scanning_push_protection_custom_link_enabled": true,
		"secret_scanning_push_protection_custom_link": "https://octo.example/blocked",
	}
	e.Must(200, "PATCH", "/orgs/octo", tok, change)
	got := e.Must(200, "GET", "/orgs/octo", tok, nil).Map(t)
	for k, want := range change {
		if got[k] != want {
			t.Fatalf("after PATCH %s = %v, want %v", k, got[k], want)
		}
	}
	// Other fields of a PATCH leave them alone; null clears the link.
	e.Must(200, "PATCH", "/orgs/octo", tok, map[string]any{"description": "d"})
	got = e.Must(200, "GET", "/orgs/octo", tok, nil).Map(t)
	if got["members_can_fork_private_repositories"] != true || got["secret_scanning_push_protection_custom_link"] != "https://octo.example/blocked" {
		t.Fatalf("kept: %v", got)
	}
	got = e.Must(200, "PATCH", "/orgs/octo", tok, map[string]any{"secret_scanning_push_protection_custom_link": nil}).Map(t)
	if got["secret_scanning_push_protection_custom_link"] != nil {
		t.Fatalf("cleared link: %v", got["secret_scanning_push_protection_custom_link"])
	}

	for _, tc := range []struct {
		name string
		body map[string]any
	}{
		{"null setting", map[string]any{"members_can_create_pages": nil}},
		{"string setting", map[string]any{"deploy_keys_enabled_for_repositories": "yes"}},
		{"relative link", map[string]any{"secret_scanning_push_protection_custom_link": "/blocked"}},
		{"ftp link", map[string]any{"secret_scanning_push_protection_custom_link": "ftp://octo.example/x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := e.Do("PATCH", "/orgs/octo", tok, tc.body); r.StatusCode != 422 {
				t.Fatalf("status %d: %s", r.StatusCode, r.Body)
			}
		})
	}

	// Memberships are direct.
	for _, path := range []string{"/user/memberships/orgs/octo", "/orgs/octo/memberships/hubot"} {
		m := e.Must(200, "GET", path, tok, nil).Map(t)
		if m["direct_membership"] != true {
			t.Fatalf("%s: direct_membership %v", path, m["direct_membership"])
		}
		if v, ok := m["enterprise_teams_providing_indirect_membership"].([]any); !ok || len(v) != 0 {
			t.Fatalf("%s: enterprise teams %v", path, m["enterprise_teams_providing_indirect_membership"])
		}
	}
}
