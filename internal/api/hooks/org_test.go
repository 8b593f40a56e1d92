package hooks_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/hooks/hookstest"
)

// TestOrgHooks: an organization's owners manage its hooks through
// go-github; a hook gets the events of every repository of the
// organization, with the organization in the payload; members who are not
// owners, and everyone else, find no hooks.
func TestOrgHooks(t *testing.T) {
	f := newFixture(t)
	f.e.Must(http.StatusCreated, "POST", "/admin/organizations", f.e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	_, memberTok := f.e.NewUser("member", false)
	f.e.Must(http.StatusOK, "PUT", "/orgs/acme/memberships/member", f.token, map[string]any{"role": "member"})
	member := f.e.GitHub(memberTok)
	if _, _, err := member.Organizations.EditOrgMembership(ctx, "", "acme", &github.Membership{State: github.Ptr("active")}); err != nil {
		t.Fatal(err)
	}
	const secret = "org secret"
	h, resp, err := f.gh.Organizations.CreateHook(ctx, "acme", &github.Hook{Name: github.Ptr("web"),
		Config: &github.HookConfig{URL: github.Ptr(f.recv.URL), ContentType: github.Ptr("json"), Secret: github.Ptr(secret)},
		Events: []string{"issues", "repository", "push"}})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v", err)
	}
	if h.GetType() != "Organization" || h.Config.GetSecret() != "********" || !strings.HasSuffix(h.GetURL(), "/orgs/acme/hooks/"+itoa(h.GetID())) {
		t.Errorf("org hook %+v", h)
	}
	ping := f.recv.WaitFor(t, "ping", "")
	f.check(ping, secret)
	if tt := ping.Header.Get("X-GitHub-Hook-Installation-Target-Type"); tt != "organization" {
		t.Errorf("target type %q", tt)
	}
	if org := ping.Map(t)["organization"].(map[string]any); org["login"] != "acme" {
		t.Errorf("ping organization %v", org)
	}

	// A repository made in the organization and an issue in it.
	if _, _, err := f.gh.Repositories.Create(ctx, "acme", &github.Repository{Name: github.Ptr("tools"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	created := f.recv.WaitFor(t, "repository", "created")
	f.check(created, secret)
	if _, _, err := f.gh.Issues.Create(ctx, "acme", "tools", github.CreateIssueRequest{Title: "org issue"}); err != nil {
		t.Fatal(err)
	}
	opened := f.recv.WaitFor(t, "issues", "opened")
	f.check(opened, secret)
	if org := opened.Map(t)["organization"].(map[string]any); org["login"] != "acme" {
		t.Errorf("issue organization %v", org)
	}
	// Archiving the repository.
	if _, _, err := f.gh.Repositories.Edit(ctx, "acme", "tools", &github.Repository{Archived: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	f.check(f.recv.WaitFor(t, "repository", "archived"), secret)
	// mona's own repository is not the organization's.
	if _, _, err := f.gh.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "not acme's"}); err != nil {
		t.Fatal(err)
	}

	// CRUD, config and deliveries through go-github.
	got, _, err := f.gh.Organizations.GetHook(ctx, "acme", h.GetID())
	if err != nil || got.GetID() != h.GetID() {
		t.Fatalf("get: %v", err)
	}
	list, _, err := f.gh.Organizations.ListHooks(ctx, "acme", nil)
	if err != nil || len(list) != 1 {
		t.Fatalf("list: %d %v", len(list), err)
	}
	ed, _, err := f.gh.Organizations.EditHook(ctx, "acme", h.GetID(), &github.Hook{Events: []string{"*"}})
	if err != nil || strings.Join(ed.Events, ",") != "*" {
		t.Fatalf("edit: %v %v", ed, err)
	}
	cfg, _, err := f.gh.Organizations.UpdateHookConfiguration(ctx, "acme", h.GetID(), github.HookConfig{InsecureSSL: github.Ptr("1")})
	if err != nil || cfg.GetInsecureSSL() != "1" || cfg.GetSecret() != "********" {
		t.Fatalf("config: %+v %v", cfg, err)
	}
	if cfg, _, err = f.gh.Organizations.GetHookConfiguration(ctx, "acme", h.GetID()); err != nil || cfg.GetURL() != f.recv.URL {
		t.Fatalf("get config: %+v %v", cfg, err)
	}
	if _, err := f.gh.Organizations.PingHook(ctx, "acme", h.GetID()); err != nil {
		t.Fatal(err)
	}
	f.recv.Wait(t, "a second ping", func(*hookstest.Delivery) bool { return f.recv.Count("ping", "") == 2 })
	hookstest.Drain(t, f.e)
	ds, _, err := f.gh.Organizations.ListHookDeliveries(ctx, "acme", h.GetID(), &github.ListCursorOptions{PerPage: 100})
	if err != nil {
		t.Fatal(err)
	}
	events := map[string]int{}
	for _, d := range ds {
		events[d.GetEvent()]++
	}
	if events["ping"] != 2 || events["issues"] != 1 || events["repository"] != 2 {
		t.Errorf("org deliveries %v", events)
	}
	one, _, err := f.gh.Organizations.GetHookDelivery(ctx, "acme", h.GetID(), ds[0].GetID())
	if err != nil || one.GetGUID() != ds[0].GetGUID() {
		t.Fatalf("get delivery: %v", err)
	}
	_, resp, err = f.gh.Organizations.RedeliverHookDelivery(ctx, "acme", h.GetID(), ds[0].GetID())
	var accepted *github.AcceptedError
	if !errors.As(err, &accepted) || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("redeliver: %v", err)
	}
	f.recv.Wait(t, "the redelivered ping", func(*hookstest.Delivery) bool { return f.recv.Count("ping", "") == 3 })
	for _, d := range f.recv.All() {
		f.check(d, secret)
	}

	// Who may: a member who is no owner, a stranger, a token without
	// admin:org_hook, anonymous.
	_, strangerTok := f.e.NewUser("stranger", false)
	noHookScope := f.e.Token(mustUser(t, f.e, "mona"), "admin:org,repo")
	hp := "/orgs/acme/hooks/" + itoa(h.GetID())
	for _, c := range []struct {
		name, method, path, token string
		want                      int
	}{
		{"member list", "GET", "/orgs/acme/hooks", memberTok, http.StatusNotFound},
		{"member create", "POST", "/orgs/acme/hooks", memberTok, http.StatusNotFound},
		{"stranger get", "GET", hp, strangerTok, http.StatusNotFound},
		{"no scope", "GET", hp, noHookScope, http.StatusNotFound},
		{"anonymous", "GET", "/orgs/acme/hooks", "", http.StatusUnauthorized},
		{"no such org", "GET", "/orgs/nope/hooks", f.token, http.StatusNotFound},
		{"repo path", "GET", "/repos/acme/tools/hooks/" + itoa(h.GetID()), f.token, http.StatusNotFound},
	} {
		var body any
		if c.method == "POST" {
			body = map[string]any{"name": "web", "config": map[string]any{"url": "https://example.com/x"}}
		}
		if r := f.e.Do(c.method, c.path, c.token, body); r.StatusCode != c.want {
			t.Errorf("%s: %d, want %d: %s", c.name, r.StatusCode, c.want, r.Body)
		}
	}
	r := f.e.Do("POST", "/orgs/acme/hooks", f.token, map[string]any{"name": "web", "config": map[string]any{"url": f.recv.URL}, "events": []string{"push"}})
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "Hook already exists on this organization") {
		t.Errorf("duplicate org hook: %d %s", r.StatusCode, r.Body)
	}
	if _, err := f.gh.Organizations.DeleteHook(ctx, "acme", h.GetID()); err != nil {
		t.Fatal(err)
	}
	f.e.Must(http.StatusNotFound, "GET", hp, f.token, nil)
}
