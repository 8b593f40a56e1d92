package projects_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/hooks/hookstest"
	"github.com/hubd/hubd/internal/projects"
)

// TestProjectWebhooks: an organization hook gets projects_v2 (created,
// closed, deleted) and projects_v2_item (created, edited, archived,
// deleted), each valid against GitHub's webhook schemas.
func TestProjectWebhooks(t *testing.T) {
	t.Setenv("HUBD_HOOK_ALLOW", "127.0.0.0/8,::1")
	sch, err := hookstest.LoadFlavour("ghec")
	if err != nil {
		t.Fatal(err)
	}
	recv := hookstest.NewReceiver(t)
	w := newWorld(t)
	gh := w.e.GitHub(w.mona)
	if _, _, err := gh.Organizations.CreateHook(ctx, "acme", &github.Hook{Name: github.Ptr("web"),
		Config: &github.HookConfig{URL: github.Ptr(recv.URL), ContentType: github.Ptr("json")},
		Events: []string{"projects_v2", "projects_v2_item"}}); err != nil {
		t.Fatal(err)
	}
	recv.WaitFor(t, "ping", "")
	check := func(d *hookstest.Delivery) map[string]any {
		t.Helper()
		if err := sch.Validate(d.Event(), d.Payload); err != nil {
			t.Errorf("%v\n%.800s", err, d.Payload)
		}
		return d.Map(t)
	}
	p := w.create(t, w.monaU, "acme", "Hooks")
	m := check(recv.WaitFor(t, "projects_v2", "created"))
	if m["projects_v2"].(map[string]any)["title"] != "Hooks" || m["organization"].(map[string]any)["login"] != "acme" {
		t.Errorf("created: %v", m)
	}
	n := strconv.FormatInt(p.Number, 10)
	var item struct {
		ID int64 `json:"id"`
	}
	w.e.Must(http.StatusCreated, "POST", "/orgs/acme/projectsV2/"+n+"/items", w.mona, map[string]any{"type": "Issue", "id": w.issueID}).JSON(t, &item)
	m = check(recv.WaitFor(t, "projects_v2_item", "created"))
	if it := m["projects_v2_item"].(map[string]any); it["id"] != float64(item.ID) || it["content_type"] != "Issue" {
		t.Errorf("item created: %v", it)
	}
	fields, _, err := gh.Projects.ListOrganizationProjectFields(ctx, "acme", int(p.Number), nil)
	if err != nil {
		t.Fatal(err)
	}
	status := fieldByName(t, fields, "Status")
	ipath := "/orgs/acme/projectsV2/" + n + "/items/" + strconv.FormatInt(item.ID, 10)
	w.e.Must(http.StatusOK, "PATCH", ipath, w.mona, map[string]any{"fields": []any{map[string]any{"id": status.GetID(), "value": status.Options[2].GetID()}}})
	m = check(recv.WaitFor(t, "projects_v2_item", "edited"))
	if fv := m["changes"].(map[string]any)["field_value"].(map[string]any); fv["field_name"] != "Status" || fv["field_type"] != "single_select" {
		t.Errorf("item edited: %v", fv)
	}
	w.e.Must(http.StatusOK, "PATCH", ipath, w.mona, map[string]any{"fields": []any{}, "archived": true})
	check(recv.WaitFor(t, "projects_v2_item", "archived"))
	w.e.Must(http.StatusNoContent, "DELETE", ipath, w.mona, nil)
	check(recv.WaitFor(t, "projects_v2_item", "deleted"))

	s := projects.New(w.e.Store)
	mc := &authz.Caller{Kind: authz.ClassicPAT, User: w.monaU, Scopes: authz.ParseScopes("project")}
	closed := true
	if err := s.Update(ctx, mc, p, projects.Input{Closed: &closed}); err != nil {
		t.Fatal(err)
	}
	m = check(recv.WaitFor(t, "projects_v2", "closed"))
	if m["projects_v2"].(map[string]any)["closed_at"] == nil {
		t.Errorf("closed: %v", m["projects_v2"])
	}
	if err := s.Delete(ctx, mc, p); err != nil {
		t.Fatal(err)
	}
	m = check(recv.WaitFor(t, "projects_v2", "deleted"))
	if m["projects_v2"].(map[string]any)["title"] != "Hooks" {
		t.Errorf("deleted: %v", m)
	}
	// A user's projects send none.
	w.create(t, w.monaU, "mona", "Mine")
	hookstest.Drain(t, w.e)
	if c := recv.Count("projects_v2", "created"); c != 1 {
		t.Errorf("projects_v2 created deliveries: %d", c)
	}
}
