package interactions_test

import (
	"fmt"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
)

func TestRepoCreationCap(t *testing.T) {
	f := newFixture(t)
	e := f.e
	// Unset: disabled, with the default maximum.
	if m := e.Must(200, "GET", "/repos/mona/app/interaction-limits/pulls/creation-cap", f.tok, nil).Map(t); m["enabled"] != false || m["max_open_pull_requests"] != float64(5) {
		t.Errorf("default cap: %v", m)
	}
	m := e.Must(200, "PATCH", "/repos/mona/app/interaction-limits/pulls/creation-cap", f.tok, map[string]any{"enabled": true, "max_open_pull_requests": 1}).Map(t)
	if m["enabled"] != true || m["max_open_pull_requests"] != float64(1) {
		t.Fatalf("patch: %v", m)
	}
	// Without a maximum the current one stays.
	e.Must(200, "PATCH", "/repos/mona/app/interaction-limits/pulls/creation-cap", f.tok, map[string]any{"enabled": false})
	if m := e.Must(200, "GET", "/repos/mona/app/interaction-limits/pulls/creation-cap", f.tok, nil).Map(t); m["enabled"] != false || m["max_open_pull_requests"] != float64(1) {
		t.Errorf("after disabling: %v", m)
	}
	if n := f.events(t, "pull_creation_cap"); n != 2 {
		t.Errorf("events: %d", n)
	}

	maintainer, maintTok := f.oldUser(t, "maint")
	f.collab(t, f.app, maintainer.ID, authz.Maintain)
	for _, c := range []struct {
		name, method, token string
		body                any
		want                int
	}{
		{"max 0", "PATCH", f.tok, map[string]any{"enabled": true, "max_open_pull_requests": 0}, 422},
		{"max 1001", "PATCH", f.tok, map[string]any{"enabled": true, "max_open_pull_requests": 1001}, 422},
		{"no enabled", "PATCH", f.tok, map[string]any{"max_open_pull_requests": 3}, 422},
		{"maintainer reads", "GET", maintTok, nil, 403},
		{"maintainer writes", "PATCH", maintTok, map[string]any{"enabled": true}, 403},
		{"anonymous", "GET", "", nil, 401},
	} {
		t.Run(c.name, func(t *testing.T) {
			if r := e.Do(c.method, "/repos/mona/app/interaction-limits/pulls/creation-cap", c.token, c.body); r.StatusCode != c.want {
				t.Fatalf("status %d, want %d: %s", r.StatusCode, c.want, r.Body)
			}
		})
	}
	if n := f.events(t, "pull_creation_cap"); n != 2 {
		t.Errorf("events after refusals: %d", n)
	}
}

func TestBypassList(t *testing.T) {
	f := newFixture(t)
	e := f.e
	maintainer, maintTok := f.oldUser(t, "maint")
	f.collab(t, f.app, maintainer.ID, authz.Maintain)
	writer, writerTok := f.oldUser(t, "writer")
	f.collab(t, f.app, writer.ID, authz.Write)
	f.oldUser(t, "octocat")
	f.oldUser(t, "hubot")

	var list []map[string]any
	e.Must(200, "GET", "/repos/mona/app/interaction-limits/pulls/bypass-list", maintTok, nil).JSON(t, &list)
	if len(list) != 0 {
		t.Fatalf("empty list: %v", list)
	}
	e.Must(204, "PUT", "/repos/mona/app/interaction-limits/pulls/bypass-list", maintTok, map[string]any{"users": []string{"octocat", "Hubot"}})
	// Adding again is harmless.
	e.Must(204, "PUT", "/repos/mona/app/interaction-limits/pulls/bypass-list", f.tok, map[string]any{"users": []string{"octocat"}})
	e.Must(200, "GET", "/repos/mona/app/interaction-limits/pulls/bypass-list", f.tok, nil).JSON(t, &list)
	if len(list) != 2 || list[0]["login"] != "hubot" || list[1]["login"] != "octocat" {
		t.Fatalf("list: %v", list)
	}
	e.Must(204, "DELETE", "/repos/mona/app/interaction-limits/pulls/bypass-list", maintTok, map[string]any{"users": []string{"hubot"}})
	e.Must(200, "GET", "/repos/mona/app/interaction-limits/pulls/bypass-list", f.tok, nil).JSON(t, &list)
	if len(list) != 1 || list[0]["login"] != "octocat" {
		t.Fatalf("after removal: %v", list)
	}
	if n := f.events(t, "pull_bypass_list"); n != 2 {
		t.Errorf("events: %d", n)
	}

	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf("u%d", i)
	}
	for _, c := range []struct {
		name, method, token string
		body                any
		want                int
	}{
		{"unknown user", "PUT", f.tok, map[string]any{"users": []string{"octocat", "nobody-here"}}, 422},
		{"an organization", "PUT", f.tok, map[string]any{"users": []string{"acme"}}, 422},
		{"empty", "PUT", f.tok, map[string]any{"users": []string{}}, 422},
		{"no users", "PUT", f.tok, map[string]any{}, 422},
		{"101 users", "PUT", f.tok, map[string]any{"users": many}, 422},
		{"unknown user removed", "DELETE", f.tok, map[string]any{"users": []string{"nobody-here"}}, 422},
		{"writer reads", "GET", writerTok, nil, 403},
		{"writer adds", "PUT", writerTok, map[string]any{"users": []string{"hubot"}}, 403},
		{"anonymous", "GET", "", nil, 401},
	} {
		t.Run(c.name, func(t *testing.T) {
			if r := e.Do(c.method, "/repos/mona/app/interaction-limits/pulls/bypass-list", c.token, c.body); r.StatusCode != c.want {
				t.Fatalf("status %d, want %d: %s", r.StatusCode, c.want, r.Body)
			}
		})
	}
	// The failed requests changed nothing.
	e.Must(200, "GET", "/repos/mona/app/interaction-limits/pulls/bypass-list", f.tok, nil).JSON(t, &list)
	if len(list) != 1 {
		t.Errorf("after refusals: %v", list)
	}
	// The list holds at most 100 users.
	names := make([]string, 0, 100)
	for i := 0; i < 100; i++ {
		names = append(names, fmt.Sprintf("b%d", i))
		f.oldUser(t, names[i])
	}
	r := e.Do("PUT", "/repos/mona/app/interaction-limits/pulls/bypass-list", f.tok, map[string]any{"users": names})
	if r.StatusCode != 422 {
		t.Errorf("list over 100: %d %s", r.StatusCode, r.Body)
	}
	e.Must(204, "PUT", "/repos/mona/app/interaction-limits/pulls/bypass-list", f.tok, map[string]any{"users": names[:99]})
}

// TestCapEnforced opens real pull requests and asks MayInteract.
func TestCapEnforced(t *testing.T) {
	f := newFixture(t)
	outsider, outTok := f.oldUser(t, "outsider")
	reader, readTok := f.oldUser(t, "reader")
	writer, _ := f.oldUser(t, "writer")
	f.collab(t, f.app, writer.ID, authz.Write)
	f.openPull(t, outsider, outTok, "mona", "app", f.app, "one", false)
	f.openPull(t, outsider, outTok, "mona", "app", f.app, "draft", true)
	f.openPull(t, reader, readTok, "mona", "app", f.app, "r1", false)
	f.collab(t, f.app, reader.ID, authz.Read)

	// Disabled: no cap.
	if f.may(t, f.app, outsider.ID, "pull") != 0 {
		t.Fatal("capped while disabled")
	}
	f.e.Must(200, "PATCH", "/repos/mona/app/interaction-limits/pulls/creation-cap", f.tok, map[string]any{"enabled": true, "max_open_pull_requests": 1})
	// One open pull request (the draft does not count) reaches the cap of
	// one; read collaborators are capped too, writers are not; drafts,
	// issues and comments are not capped.
	for _, c := range []struct {
		u    *model.Account
		kind string
		want int
	}{
		{outsider, "pull", 403}, {outsider, "draft_pull", 0}, {outsider, "issue", 0}, {outsider, "comment", 0},
		{reader, "pull", 403}, {writer, "pull", 0}, {f.mona, "pull", 0},
	} {
		if got := f.may(t, f.app, c.u.ID, c.kind); got != c.want {
			t.Errorf("%s %s: %d, want %d", c.u.Login, c.kind, got, c.want)
		}
	}
	err := f.svc.MayInteract(ctx, f.repoOf(t, f.app), outsider.ID, "pull")
	if he, ok := err.(*model.HTTPError); !ok || he.Status != 403 || he.Message == "" {
		t.Errorf("cap refusal: %v", err)
	}
	// Raising the cap lets them open another.
	f.e.Must(200, "PATCH", "/repos/mona/app/interaction-limits/pulls/creation-cap", f.tok, map[string]any{"enabled": true, "max_open_pull_requests": 2})
	if f.may(t, f.app, outsider.ID, "pull") != 0 {
		t.Error("capped under a cap of 2")
	}
	f.e.Must(200, "PATCH", "/repos/mona/app/interaction-limits/pulls/creation-cap", f.tok, map[string]any{"enabled": true, "max_open_pull_requests": 1})
	// The bypass list lets them past it.
	f.e.Must(204, "PUT", "/repos/mona/app/interaction-limits/pulls/bypass-list", f.tok, map[string]any{"users": []string{"outsider"}})
	if f.may(t, f.app, outsider.ID, "pull") != 0 {
		t.Error("bypass ignored")
	}
	f.e.Must(204, "DELETE", "/repos/mona/app/interaction-limits/pulls/bypass-list", f.tok, map[string]any{"users": []string{"outsider"}})
	if f.may(t, f.app, outsider.ID, "pull") != 403 {
		t.Error("bypass removal ignored")
	}
	// Closing the open pull request frees the slot.
	if _, _, err := f.gh.PullRequests.Edit(ctx, "mona", "app", 1, &github.PullRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	if f.may(t, f.app, outsider.ID, "pull") != 0 {
		t.Error("closed pull request still counted")
	}
}

func TestOrgCreationCap(t *testing.T) {
	f := newFixture(t)
	e := f.e
	member, memberTok := f.oldUser(t, "member")
	f.member(t, member, model.RoleMember)
	outsider, outTok := f.oldUser(t, "outsider")
	site2 := f.repo(t, "acme", "docs", false)
	f.openPull(t, outsider, outTok, "acme", "site", f.site, "one", false)

	if m := e.Must(200, "GET", "/orgs/acme/interaction-limits/pulls/creation-cap", f.tok, nil).Map(t); m["enabled"] != false {
		t.Errorf("default: %v", m)
	}
	m := e.Must(200, "PATCH", "/orgs/acme/interaction-limits/pulls/creation-cap", f.tok, map[string]any{"enabled": true, "max_open_pull_requests": 1}).Map(t)
	if m["enabled"] != true || m["max_open_pull_requests"] != float64(1) {
		t.Fatalf("patch: %v", m)
	}
	// The organization's cap counts across its public repositories.
	if f.may(t, site2, outsider.ID, "pull") != 403 || f.may(t, f.site, outsider.ID, "pull") != 403 {
		t.Error("org cap not applied")
	}
	// A repository's own cap overrides it.
	e.Must(200, "PATCH", "/repos/acme/docs/interaction-limits/pulls/creation-cap", f.tok, map[string]any{"enabled": true, "max_open_pull_requests": 1})
	if f.may(t, site2, outsider.ID, "pull") != 0 {
		t.Error("repository cap did not override the organization's")
	}
	e.Must(200, "PATCH", "/repos/acme/docs/interaction-limits/pulls/creation-cap", f.tok, map[string]any{"enabled": false})
	if f.may(t, site2, outsider.ID, "pull") != 0 {
		t.Error("disabled repository cap did not override the organization's")
	}
	// Errors.
	e.Must(403, "GET", "/orgs/acme/interaction-limits/pulls/creation-cap", memberTok, nil)
	e.Must(403, "PATCH", "/orgs/acme/interaction-limits/pulls/creation-cap", memberTok, map[string]any{"enabled": false})
	e.Must(404, "GET", "/orgs/nope/interaction-limits/pulls/creation-cap", f.tok, nil)
	e.Must(422, "PATCH", "/orgs/acme/interaction-limits/pulls/creation-cap", f.tok, map[string]any{"enabled": true, "max_open_pull_requests": 0})
	if n := f.events(t, "pull_creation_cap"); n != 3 {
		t.Errorf("events: %d", n)
	}
}
