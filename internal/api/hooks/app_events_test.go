package hooks_test

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/hooks/hookstest"
)

// TestAppInstallationEvents: an app's webhook gets installation events
// (created, suspend, unsuspend, deleted) and installation_repositories
// (added, removed) with the full installation object, whatever events
// the installation subscribed to; repository hooks never get them.
func TestAppInstallationEvents(t *testing.T) {
	f := newFixture(t)
	f.e.Must(http.StatusCreated, "POST", "/admin/organizations", f.e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	var ids []int64
	for _, name := range []string{"widgets", "gadgets"} {
		r, _, err := f.gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr(name), AutoInit: github.Ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.GetID())
	}
	var app struct {
		ID   int64  `json:"id"`
		Slug string `json:"slug"`
		PEM  string `json:"pem"`
	}
	f.e.Must(http.StatusCreated, "POST", "/admin/apps", f.e.AdminToken, map[string]any{
		"owner": "acme", "name": "Installed Bot", "url": "https://example.com/bot",
		"default_permissions": map[string]string{"issues": "write"}, "default_events": []string{"issues", "team"},
	}).JSON(t, &app)
	jwt := "Authorization: Bearer " + appJWT(t, f, app.ID, app.PEM)
	const secret = "inst"
	f.e.Must(http.StatusOK, "PATCH", "/app/hook/config", "", map[string]any{"url": f.recv.URL, "secret": secret}, jwt)
	f.recv.WaitFor(t, "ping", "")

	var inst struct {
		ID int64 `json:"id"`
	}
	f.e.Must(http.StatusCreated, "POST", "/admin/apps/"+app.Slug+"/installations", f.e.AdminToken, map[string]any{
		"account": "acme", "repository_selection": "selected", "repositories": []string{"widgets"},
	}).JSON(t, &inst)
	created := f.recv.WaitFor(t, "installation", "created")
	f.check(created, secret)
	m := created.Map(t)
	if in := m["installation"].(map[string]any); in["id"] != float64(inst.ID) || in["app_id"] != float64(app.ID) {
		t.Errorf("installation %v", in)
	}
	if repos, _ := m["repositories"].([]any); len(repos) != 1 || repos[0].(map[string]any)["full_name"] != "acme/widgets" {
		t.Errorf("repositories %v", m["repositories"])
	}
	if tt := created.Header.Get("X-GitHub-Hook-Installation-Target-Type"); tt != "integration" {
		t.Errorf("target type %q", tt)
	}

	// The organization's own events reach the app installed on it.
	if _, _, err := f.gh.Teams.CreateTeam(ctx, "acme", github.CreateTeamRequest{Name: "core"}); err != nil {
		t.Fatal(err)
	}
	team := f.recv.WaitFor(t, "team", "created")
	f.check(team, secret)
	if in := team.Map(t)["installation"].(map[string]any); in["id"] != float64(inst.ID) {
		t.Errorf("team created for the app: installation %v", in)
	}

	id := itoa(inst.ID)
	f.e.Must(http.StatusNoContent, "PUT", "/user/installations/"+id+"/repositories/"+itoa(ids[1]), f.token, nil)
	added := f.recv.WaitFor(t, "installation_repositories", "added")
	f.check(added, secret)
	if list := added.Map(t)["repositories_added"].([]any); len(list) != 1 || list[0].(map[string]any)["id"] != float64(ids[1]) {
		t.Errorf("added %v", list)
	}
	f.e.Must(http.StatusNoContent, "DELETE", "/user/installations/"+id+"/repositories/"+itoa(ids[1]), f.token, nil)
	f.check(f.recv.WaitFor(t, "installation_repositories", "removed"), secret)

	f.e.Must(http.StatusNoContent, "PUT", "/app/installations/"+id+"/suspended", "", nil, jwt)
	f.check(f.recv.WaitFor(t, "installation", "suspend"), secret)
	f.e.Must(http.StatusNoContent, "DELETE", "/app/installations/"+id+"/suspended", "", nil, jwt)
	f.check(f.recv.WaitFor(t, "installation", "unsuspend"), secret)
	f.e.Must(http.StatusNoContent, "DELETE", "/app/installations/"+id, "", nil, jwt)
	deleted := f.recv.WaitFor(t, "installation", "deleted")
	f.check(deleted, secret)
	if in := deleted.Map(t)["installation"].(map[string]any); in["id"] != float64(inst.ID) {
		t.Errorf("deleted installation %v", in)
	}

	hookstest.Drain(t, f.e)
	for _, d := range f.recv.All() {
		f.check(d, secret)
	}
}
