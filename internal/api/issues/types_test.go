package issues_test

import (
	"fmt"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// TestIssueTypeField: REST opens and edits issues with an issue type of
// the repository's organization by name (null clears it), and every issue
// object carries it; an unknown or disabled type, or a type in a user's
// repository, is GitHub's 422.
func TestIssueTypeField(t *testing.T) {
	w := newWorld(t)
	e := w.e
	org := &model.Account{Login: "acme", DefaultRepoPermission: "read", MembersCanCreateRepos: true}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateOrg(ctx, org, w.hubot.ID) }); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.hg.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("tools")}); err != nil {
		t.Fatal(err)
	}
	e.Must(200, "POST", "/orgs/acme/issue-types", w.hubotT, map[string]any{"name": "Bug", "is_enabled": true, "color": "red"})
	e.Must(200, "POST", "/orgs/acme/issue-types", w.hubotT, map[string]any{"name": "Feature", "is_enabled": true})
	e.Must(200, "POST", "/orgs/acme/issue-types", w.hubotT, map[string]any{"name": "Retired", "is_enabled": false})

	// go-github opens an issue with a type.
	is, _, err := w.hg.Issues.Create(ctx, "acme", "tools", github.CreateIssueRequest{Title: "Broken", Type: github.Ptr("Bug")})
	if err != nil || is.GetType().GetName() != "Bug" || is.GetType().GetColor() != "red" {
		t.Fatalf("create with a type: %+v %v", is.GetType(), err)
	}
	path := fmt.Sprintf("/repos/acme/tools/issues/%d", is.GetNumber())
	typeName := func(m map[string]any) any {
		if t, ok := m["type"].(map[string]any); ok {
			return t["name"]
		}
		return m["type"]
	}
	if got := typeName(e.Must(200, "PATCH", path, w.hubotT, map[string]any{"type": "Feature"}).Map(t)); got != "Feature" {
		t.Fatalf("PATCH type Feature: %v", got)
	}
	if got := typeName(e.Must(200, "GET", path, w.ritaT, nil).Map(t)); got != "Feature" {
		t.Fatalf("GET after PATCH: %v", got)
	}
	// Other edits leave the type alone; the list shows it.
	if got := typeName(e.Must(200, "PATCH", path, w.hubotT, map[string]any{"title": "Still broken"}).Map(t)); got != "Feature" {
		t.Fatalf("PATCH title: %v", got)
	}
	list := e.Must(200, "GET", "/repos/acme/tools/issues", w.hubotT, nil)
	var items []map[string]any
	list.JSON(t, &items)
	if len(items) != 1 || typeName(items[0]) != "Feature" {
		t.Fatalf("list: %v", items)
	}
	e.Must(201, "POST", "/repos/acme/tools/issues", w.hubotT, map[string]any{"title": "Untyped"})
	for q, want := range map[string]int{"feature": 1, "Bug": 0, "*": 1, "none": 1, "": 2} {
		e.Must(200, "GET", "/repos/acme/tools/issues?type="+q, w.ritaT, nil).JSON(t, &items)
		if len(items) != want {
			t.Errorf("?type=%s: %d issues, want %d", q, len(items), want)
		}
	}
	if got := typeName(e.Must(200, "PATCH", path, w.hubotT, map[string]any{"type": nil}).Map(t)); got != nil {
		t.Fatalf("PATCH type null: %v", got)
	}
	// The typed and untyped events are in the issue's events.
	evs := e.Must(200, "GET", path+"/events", w.hubotT, nil)
	var events []map[string]any
	evs.JSON(t, &events)
	kinds := []any{}
	for _, ev := range events {
		kinds = append(kinds, ev["event"])
	}
	if fmt.Sprint(kinds) != "[issue_type_added issue_type_changed renamed issue_type_removed]" {
		t.Fatalf("events: %v", kinds)
	}

	// Errors: unknown or disabled types, a user's repository; nothing is written.
	for _, c := range []struct {
		name, method, path string
		body               map[string]any
	}{
		{"unknown on create", "POST", "/repos/acme/tools/issues", map[string]any{"title": "x", "type": "Epic"}},
		{"disabled on create", "POST", "/repos/acme/tools/issues", map[string]any{"title": "x", "type": "Retired"}},
		{"unknown on edit", "PATCH", path, map[string]any{"type": "Epic", "title": "renamed"}},
		{"user repository", "POST", "/repos/mona/hello/issues", map[string]any{"title": "x", "type": "Bug"}},
	} {
		r := e.Must(422, c.method, c.path, w.hubotT, c.body)
		var body struct {
			Errors []map[string]any `json:"errors"`
		}
		r.JSON(t, &body)
		if len(body.Errors) != 1 || body.Errors[0]["field"] != "type" || body.Errors[0]["code"] != "invalid" {
			t.Errorf("%s: %s", c.name, r.Body)
		}
	}
	if got := e.Must(200, "GET", path, w.hubotT, nil).Map(t); got["title"] != "Still broken" || got["type"] != nil {
		t.Fatalf("after the refused edit: %v", got)
	}
	e.Must(200, "GET", "/repos/acme/tools/issues?state=all", w.hubotT, nil).JSON(t, &items)
	if len(items) != 2 {
		t.Fatalf("issues after refused creates: %d", len(items))
	}
}
