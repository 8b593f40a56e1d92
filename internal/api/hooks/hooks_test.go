package hooks_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/hooks/hookstest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// TestRepoHookCRUD creates, reads, lists, edits and deletes repository
// hooks through go-github, with the secret never shown.
func TestRepoHookCRUD(t *testing.T) {
	f := newFixture(t)
	h, resp, err := f.gh.Repositories.CreateHook(ctx, "mona", "app", &github.Hook{
		Config: &github.HookConfig{URL: github.Ptr(f.recv.URL), ContentType: github.Ptr("json"), Secret: github.Ptr("s3cret"), InsecureSSL: github.Ptr("0")},
		Events: []string{"issues", "push", "issues"},
	})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v", err)
	}
	if h.GetName() != "web" || !h.GetActive() || strings.Join(h.Events, ",") != "issues,push" || h.GetType() != "Repository" {
		t.Errorf("created hook %+v", h)
	}
	if h.Config.GetSecret() != "********" || h.Config.GetURL() != f.recv.URL || h.Config.GetContentType() != "json" {
		t.Errorf("config %+v", h.Config)
	}
	if loc := resp.Header.Get("Location"); !strings.HasSuffix(loc, "/repos/mona/app/hooks/"+itoa(h.GetID())) {
		t.Errorf("Location %q", loc)
	}
	if !strings.HasSuffix(h.GetPingURL(), "/pings") || !strings.HasSuffix(h.GetTestURL(), "/test") {
		t.Errorf("urls %q %q", h.GetPingURL(), h.GetTestURL())
	}
	// The body of the answer never holds the secret.
	raw := f.e.Must(http.StatusOK, "GET", "/repos/mona/app/hooks/"+itoa(h.GetID()), f.token, nil)
	if strings.Contains(string(raw.Body), "s3cret") {
		t.Errorf("secret shown: %s", raw.Body)
	}
	got, _, err := f.gh.Repositories.GetHook(ctx, "mona", "app", h.GetID())
	if err != nil || got.GetID() != h.GetID() {
		t.Fatalf("get: %v", err)
	}

	// Edit: events replaced, then added and removed; inactive.
	ed, _, err := f.gh.Repositories.EditHook(ctx, "mona", "app", h.GetID(), &github.Hook{Events: []string{"pull_request"}, Active: github.Ptr(false)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ed.Events, ",") != "pull_request" || ed.GetActive() {
		t.Errorf("edited %v %v", ed.Events, ed.GetActive())
	}
	if ed.Config.GetSecret() != "********" {
		t.Errorf("an edit without config kept the secret: %+v", ed.Config)
	}
	r := f.e.Must(http.StatusOK, "PATCH", "/repos/mona/app/hooks/"+itoa(h.GetID()), f.token,
		map[string]any{"add_events": []string{"issues", "release"}, "remove_events": []string{"pull_request"}})
	var m map[string]any
	r.JSON(t, &m)
	if evs := m["events"].([]any); len(evs) != 2 || evs[0] != "issues" || evs[1] != "release" {
		t.Errorf("add/remove events: %v", evs)
	}
	// A config given with the hook replaces it: no secret sent, no secret.
	ed, _, err = f.gh.Repositories.EditHook(ctx, "mona", "app", h.GetID(), &github.Hook{Config: &github.HookConfig{URL: github.Ptr(f.recv.URL + "/v2")}})
	if err != nil {
		t.Fatal(err)
	}
	if ed.Config.Secret != nil || ed.Config.GetContentType() != "form" || ed.Config.GetURL() != f.recv.URL+"/v2" {
		t.Errorf("replaced config %+v", ed.Config)
	}

	// Config alone: merged.
	cfg, _, err := f.gh.Repositories.UpdateHookConfiguration(ctx, "mona", "app", h.GetID(), github.HookConfig{Secret: github.Ptr("other"), ContentType: github.Ptr("json")})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.GetSecret() != "********" || cfg.GetURL() != f.recv.URL+"/v2" || cfg.GetContentType() != "json" || cfg.GetInsecureSSL() != "0" {
		t.Errorf("updated config %+v", cfg)
	}
	cfg, _, err = f.gh.Repositories.GetHookConfiguration(ctx, "mona", "app", h.GetID())
	if err != nil || cfg.GetSecret() != "********" {
		t.Errorf("get config %+v %v", cfg, err)
	}
	// insecure_ssl may be sent as a number.
	r = f.e.Must(http.StatusOK, "PATCH", "/repos/mona/app/hooks/"+itoa(h.GetID())+"/config", f.token, map[string]any{"insecure_ssl": 1})
	if !strings.Contains(string(r.Body), `"insecure_ssl":"1"`) {
		t.Errorf("numeric insecure_ssl: %s", r.Body)
	}

	// List with pagination.
	for i := range 2 {
		if _, _, err := f.gh.Repositories.CreateHook(ctx, "mona", "app", &github.Hook{
			Config: &github.HookConfig{URL: github.Ptr(f.recv.URL + "/" + itoa(int64(i)))}}); err != nil {
			t.Fatal(err)
		}
	}
	list, resp, err := f.gh.Repositories.ListHooks(ctx, "mona", "app", &github.ListOptions{PerPage: 2})
	if err != nil || len(list) != 2 || resp.NextPage != 2 || resp.LastPage != 2 {
		t.Fatalf("list page 1: %d hooks, next %d last %d, %v", len(list), resp.NextPage, resp.LastPage, err)
	}
	list, _, err = f.gh.Repositories.ListHooks(ctx, "mona", "app", &github.ListOptions{PerPage: 2, Page: 2})
	if err != nil || len(list) != 1 {
		t.Fatalf("list page 2: %d hooks, %v", len(list), err)
	}

	if _, err := f.gh.Repositories.DeleteHook(ctx, "mona", "app", h.GetID()); err != nil {
		t.Fatal(err)
	}
	if _, resp, err := f.gh.Repositories.GetHook(ctx, "mona", "app", h.GetID()); err == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("deleted hook: %v", err)
	}
	f.e.Must(http.StatusNotFound, "DELETE", "/repos/mona/app/hooks/"+itoa(h.GetID()), f.token, nil)
	f.e.Must(http.StatusNotFound, "GET", "/repos/mona/app/hooks/abc", f.token, nil)
}

// TestRepoHookValidation answers bad input with GitHub's 422s and writes
// nothing.
func TestRepoHookValidation(t *testing.T) {
	f := newFixture(t)
	f.hook("", "json", "push")
	path := "/repos/mona/app/hooks"
	for _, c := range []struct {
		name string
		body any
		want string
	}{
		{"no config", map[string]any{"events": []string{"push"}}, "Config must contain URL for webhooks"},
		{"no url", map[string]any{"config": map[string]any{"content_type": "json"}}, "Config must contain URL for webhooks"},
		{"not a URL", map[string]any{"config": map[string]any{"url": "ftp://example.com/x"}}, "The URL you've entered is not valid"},
		{"bad event", map[string]any{"config": map[string]any{"url": "https://example.com/a"}, "events": []string{"push", "nosuchevent"}}, `"field":"events"`},
		{"bad name", map[string]any{"name": "travis", "config": map[string]any{"url": "https://example.com/b"}}, `"field":"name"`},
		{"bad content type", map[string]any{"config": map[string]any{"url": "https://example.com/c", "content_type": "xml"}}, `"field":"content_type"`},
		{"bad insecure_ssl", map[string]any{"config": map[string]any{"url": "https://example.com/d", "insecure_ssl": "2"}}, `"field":"insecure_ssl"`},
		{"duplicate", map[string]any{"config": map[string]any{"url": f.recv.URL}, "events": []string{"push", "issues"}}, "Hook already exists on this repository"},
		{"unknown field", map[string]any{"config": map[string]any{"url": "https://example.com/e"}, "colour": "red"}, "Invalid request"},
	} {
		r := f.e.Do("POST", path, f.token, c.body)
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), c.want) {
			t.Errorf("%s: %d %s, want 422 with %s", c.name, r.StatusCode, r.Body, c.want)
		}
	}
	list, _, err := f.gh.Repositories.ListHooks(ctx, "mona", "app", nil)
	if err != nil || len(list) != 1 {
		t.Fatalf("hooks after refusals: %d %v", len(list), err)
	}
	id := itoa(list[0].GetID())
	for _, c := range []struct {
		path string
		body any
		want string
	}{
		{"/" + id, map[string]any{"events": []string{"bogus"}}, `"field":"events"`},
		{"/" + id, map[string]any{"config": map[string]any{"content_type": "json"}}, "Config must contain URL"},
		{"/" + id + "/config", map[string]any{"url": "not a url"}, "not valid"},
		{"/" + id + "/config", map[string]any{"insecure_ssl": "yes"}, "insecure_ssl"},
	} {
		r := f.e.Do("PATCH", path+c.path, f.token, c.body)
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), c.want) {
			t.Errorf("PATCH %s %v: %d %s, want 422 with %s", c.path, c.body, r.StatusCode, r.Body, c.want)
		}
	}
	if h, _, err := f.gh.Repositories.GetHook(ctx, "mona", "app", list[0].GetID()); err != nil || h.Config.GetURL() != f.recv.URL || strings.Join(h.Events, ",") != "push" {
		t.Errorf("refused edits changed the hook: %+v %v", h, err)
	}
}

// TestLoopbackRefused: without the operator's allow list, a hook on this
// machine is refused (as GitHub refuses hosts off the public Internet).
func TestLoopbackRefused(t *testing.T) {
	t.Setenv("HUBD_HOOK_ALLOW", "")
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app")}); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"http://127.0.0.1:9/x", "http://localhost/x", "http://[::1]/x", "http://10.1.2.3/x", "http://169.254.169.254/latest"} {
		r := e.Do("POST", "/repos/mona/app/hooks", tok, map[string]any{"config": map[string]any{"url": u}})
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), "isn't reachable over the public Internet") {
			t.Errorf("%s: %d %s", u, r.StatusCode, r.Body)
		}
	}
}

// TestRepoHookPermissions: administrators manage hooks; others get
// GitHub's 401, 403 or 404, and tokens need a hook or repo scope.
func TestRepoHookPermissions(t *testing.T) {
	f := newFixture(t)
	h := f.hook("", "json", "push")
	hp := "/repos/mona/app/hooks/" + itoa(h.GetID())
	writer, writerTok := f.e.NewUser("writer", false)
	_, strangerTok := f.e.NewUser("stranger", false)
	if err := f.e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, f.repoID, writer.ID, authz.Write) }); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	noScope := f.e.Token(mustUser(t, f.e, "mona"), "")
	hookScope := f.e.Token(mustUser(t, f.e, "mona"), "admin:repo_hook")
	readHook := f.e.Token(mustUser(t, f.e, "mona"), "read:repo_hook")
	for _, c := range []struct {
		name, method, path, token string
		want                      int
	}{
		{"anonymous list", "GET", "/repos/mona/app/hooks", "", http.StatusUnauthorized},
		{"stranger list", "GET", "/repos/mona/app/hooks", strangerTok, http.StatusForbidden},
		{"writer list", "GET", "/repos/mona/app/hooks", writerTok, http.StatusForbidden},
		{"writer ping", "POST", hp + "/pings", writerTok, http.StatusForbidden},
		{"stranger private", "GET", "/repos/mona/secret/hooks", strangerTok, http.StatusNotFound},
		{"no scope", "GET", "/repos/mona/app/hooks", noScope, http.StatusNotFound},
		{"no scope delete", "DELETE", hp, noScope, http.StatusNotFound},
		{"read scope edits", "PATCH", hp, readHook, http.StatusNotFound},
		{"read scope reads", "GET", hp, readHook, http.StatusOK},
		{"hook scope reads", "GET", hp + "/config", hookScope, http.StatusOK},
		{"hook scope pings", "POST", hp + "/pings", hookScope, http.StatusNoContent},
		{"other repo's hook", "GET", "/repos/mona/secret/hooks/" + itoa(h.GetID()), f.token, http.StatusNotFound},
	} {
		var body any
		if c.method == "PATCH" {
			body = map[string]any{"active": false}
		}
		if r := f.e.Do(c.method, c.path, c.token, body); r.StatusCode != c.want {
			t.Errorf("%s: %s %s = %d, want %d: %s", c.name, c.method, c.path, r.StatusCode, c.want, r.Body)
		}
	}
	if got, _, _ := f.gh.Repositories.GetHook(ctx, "mona", "app", h.GetID()); !got.GetActive() {
		t.Error("a refused edit deactivated the hook")
	}
	hookstest.Drain(t, f.e)
}

func mustUser(t *testing.T, e *apitest.Env, login string) *model.Account {
	t.Helper()
	a, err := e.Store.R().AccountByLogin(ctx, login)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
