package activity_test

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

// Starring through go-github: a star is idempotent, shows in the
// stargazers (with starred_at under the star media type), in the starred
// lists and in the counters of the repository object; unstarring undoes
// all of it. Each change appends its domain events.
func TestStarThroughGoGitHub(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	hubot, hubotTok := e.NewUser("hubot", false)
	mona, gh := e.GitHub(monaTok), e.GitHub(hubotTok)
	repo := create(t, mona, "app", false)

	if ok, _, err := gh.Activity.IsStarred(ctx, "mona", "app"); err != nil || ok {
		t.Fatalf("IsStarred before: %v %v", ok, err)
	}
	for i := 0; i < 2; i++ { // the second star changes nothing
		resp, err := gh.Activity.Star(ctx, "mona", "app")
		if err != nil || resp.StatusCode != 204 {
			t.Fatalf("Star #%d: %v", i+1, err)
		}
	}
	if ok, resp, err := gh.Activity.IsStarred(ctx, "mona", "app"); err != nil || !ok || resp.StatusCode != 204 {
		t.Fatalf("IsStarred after: %v %v", ok, err)
	}
	if stars, watchers, _ := counts(t, e, "mona/app", ""); stars != 1 || watchers != 1 {
		t.Errorf("after the star: stargazers_count %v watchers_count %v, want 1", stars, watchers)
	}

	// Stargazers: star+json (go-github) and the plain simple users.
	sg, _, err := gh.Activity.ListStargazers(ctx, "mona", "app", nil)
	if err != nil || len(sg) != 1 || sg[0].GetUser().GetLogin() != "hubot" || sg[0].GetStarredAt().IsZero() {
		t.Fatalf("ListStargazers: %+v %v", sg, err)
	}
	if d := time.Since(sg[0].GetStarredAt().Time); d < 0 || d > time.Hour {
		t.Errorf("starred_at %v is not the time of the star", sg[0].GetStarredAt())
	}
	var plain []map[string]any
	e.Must(200, "GET", "/repos/mona/app/stargazers", "", nil).JSON(t, &plain)
	if len(plain) != 1 || plain[0]["login"] != "hubot" || plain[0]["starred_at"] != nil {
		t.Errorf("plain stargazers: %v", plain)
	}

	// Starred lists: the caller's own and by login, both media types.
	for _, who := range []string{"", "hubot"} {
		list, _, err := gh.Activity.ListStarred(ctx, who, nil)
		if err != nil || len(list) != 1 || list[0].GetRepository().GetFullName() != "mona/app" ||
			list[0].GetStarredAt().Time != sg[0].GetStarredAt().Time || list[0].GetRepository().GetStargazersCount() != 1 {
			t.Fatalf("ListStarred(%q): %+v %v", who, list, err)
		}
	}
	for _, path := range []string{"/user/starred", "/users/hubot/starred"} {
		if got := names(t, e.Must(200, "GET", path, hubotTok, nil)); got != "mona/app" {
			t.Errorf("%s: %q", path, got)
		}
	}
	var starred []map[string]any
	e.Must(200, "GET", "/users/hubot/starred", "", nil, "Accept: application/vnd.github.star+json").JSON(t, &starred)
	if len(starred) != 1 || starred[0]["starred_at"] == nil || starred[0]["repo"].(map[string]any)["full_name"] != "mona/app" {
		t.Errorf("starred with star+json: %v", starred)
	}

	// Events: WatchEvent's "watch" (started) and the star webhook's
	// "star.created", once, by hubot on the repository.
	w, c := events(t, e, "watch"), events(t, e, "star.created")
	if len(w) != 1 || len(c) != 1 || w[0].ActorID != hubot.ID || w[0].RepoID != repo.GetID() || c[0].RepoID != repo.GetID() {
		t.Fatalf("events: watch %+v star.created %+v", w, c)
	}
	var payload map[string]any
	if err := json.Unmarshal(w[0].Payload, &payload); err != nil || payload["action"] != "started" {
		t.Errorf("watch payload: %s", w[0].Payload)
	}

	for i := 0; i < 2; i++ {
		if resp, err := gh.Activity.Unstar(ctx, "mona", "app"); err != nil || resp.StatusCode != 204 {
			t.Fatalf("Unstar #%d: %v", i+1, err)
		}
	}
	if ok, _, err := gh.Activity.IsStarred(ctx, "mona", "app"); err != nil || ok {
		t.Fatalf("IsStarred after Unstar: %v %v", ok, err)
	}
	if stars, _, _ := counts(t, e, "mona/app", ""); stars != 0 {
		t.Errorf("after Unstar: stargazers_count %v", stars)
	}
	if sg, _, err := gh.Activity.ListStargazers(ctx, "mona", "app", nil); err != nil || len(sg) != 0 {
		t.Errorf("stargazers after Unstar: %v %v", sg, err)
	}
	if d := events(t, e, "star.deleted"); len(d) != 1 || d[0].ActorID != hubot.ID {
		t.Errorf("star.deleted events: %+v", d)
	}
	if n := len(events(t, e, "watch")); n != 1 {
		t.Errorf("%d watch events after unstarring, want 1", n)
	}
}

// Who may star what: a repository the caller cannot see is not found, an
// anonymous caller must sign in, a classic token needs public_repo (repo
// for a private repository) and GitHub answers 404 without it; GitHub Apps
// and fine-grained tokens without the starring permission are refused.
func TestStarAuthorization(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	create(t, e.GitHub(monaTok), "app", false)
	create(t, e.GitHub(monaTok), "secret", true)
	noScope := e.Token(mona, "")
	publicOnly := e.Token(mona, "public_repo")
	fine := fineGrained(t, e, mona)

	cases := []struct {
		name, method, path, token string
		want                      int
	}{
		{"anonymous star", "PUT", "/user/starred/mona/app", "", 401},
		{"anonymous check", "GET", "/user/starred/mona/app", "", 401},
		{"anonymous unstar", "DELETE", "/user/starred/mona/app", "", 401},
		{"anonymous own list", "GET", "/user/starred", "", 401},
		{"hidden repository", "PUT", "/user/starred/mona/secret", hubotTok, 404},
		{"hidden repository check", "GET", "/user/starred/mona/secret", hubotTok, 404},
		{"hidden repository unstar", "DELETE", "/user/starred/mona/secret", hubotTok, 404},
		{"hidden stargazers", "GET", "/repos/mona/secret/stargazers", hubotTok, 404},
		{"no such repository", "PUT", "/user/starred/mona/nothing", hubotTok, 404},
		{"no such user", "GET", "/users/nobody/starred", hubotTok, 404},
		{"no scope", "PUT", "/user/starred/mona/app", noScope, 404},
		{"no scope unstar", "DELETE", "/user/starred/mona/app", noScope, 404},
		{"public_repo on a private repository", "PUT", "/user/starred/mona/secret", publicOnly, 404},
		{"fine-grained without starring", "PUT", "/user/starred/mona/app", fine, 403},
		{"fine-grained own list", "GET", "/user/starred", fine, 403},
		{"fine-grained check", "GET", "/user/starred/mona/app", fine, 403},
	}
	for _, c := range cases {
		r := e.Do(c.method, c.path, c.token, nil)
		if r.StatusCode != c.want {
			t.Errorf("%s: %s %s = %d, want %d: %s", c.name, c.method, c.path, r.StatusCode, c.want, r.Body)
		}
	}
	if m := e.Do("PUT", "/user/starred/mona/app", fine, nil).Map(t)["message"]; m != "Resource not accessible by personal access token" {
		t.Errorf("fine-grained message: %v", m)
	}
	if stars, _, _ := counts(t, e, "mona/app", ""); stars != 0 {
		t.Fatalf("a refused star counted: %v", stars)
	}
	// The accepted scopes are named, and a token with public_repo stars a
	// public repository.
	r := e.Must(204, "PUT", "/user/starred/mona/app", publicOnly, nil)
	if got := r.Header.Get("X-Accepted-OAuth-Scopes"); got != "public_repo, repo" {
		t.Errorf("X-Accepted-OAuth-Scopes: %q", got)
	}
	if r.ContentLength > 0 {
		t.Errorf("204 with a body of %d bytes", r.ContentLength)
	}
	e.Must(204, "PUT", "/user/starred/mona/secret", monaTok, nil)
	if stars, _, _ := counts(t, e, "mona/secret", monaTok); stars != 1 {
		t.Errorf("mona/secret stargazers_count %v", stars)
	}
}

// The starred lists hold only the repositories the caller may see.
func TestStarredListsHideWhatTheCallerCannotSee(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	create(t, e.GitHub(monaTok), "app", false)
	create(t, e.GitHub(monaTok), "secret", true)
	for _, n := range []string{"app", "secret"} {
		e.Must(204, "PUT", "/user/starred/mona/"+n, monaTok, nil)
	}
	noRepo := e.Token(mona, "public_repo")
	for _, c := range []struct{ path, token, want string }{
		{"/users/mona/starred", "", "mona/app"},
		{"/users/mona/starred", hubotTok, "mona/app"},
		{"/users/mona/starred", monaTok, "mona/secret mona/app"},
		{"/users/mona/starred", noRepo, "mona/app"},
		{"/user/starred", monaTok, "mona/secret mona/app"},
		{"/user/starred", noRepo, "mona/app"},
	} {
		if got := names(t, e.Must(200, "GET", c.path, c.token, nil)); got != c.want {
			t.Errorf("%s as %.8s: %q, want %q", c.path, c.token, got, c.want)
		}
	}
}

// Starred lists sort by the time of the star (newest first by default) or
// by the repositories' last push, page in SQL with GitHub's Link header,
// and cost the same queries however many repositories a page holds.
func TestStarredSortAndPages(t *testing.T) {
	// No job workers: their polling would count in the queries measured
	// below.
	e := apitest.New(t, apitest.Options{ManualJobs: true})
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	var now atomic.Int64
	now.Store(time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC).Unix())
	e.Store.SetClock(func() time.Time { return time.Unix(now.Load(), 0).UTC() })
	for _, n := range []string{"a", "b", "c"} { // pushed at creation, an hour apart
		create(t, e.GitHub(monaTok), n, false)
		now.Add(3600)
	}
	for _, n := range []string{"c", "a", "b"} {
		e.Must(204, "PUT", "/user/starred/mona/"+n, hubotTok, nil)
		now.Add(60)
	}
	for _, c := range []struct{ query, want string }{
		{"", "mona/b mona/a mona/c"},
		{"?direction=asc", "mona/c mona/a mona/b"},
		{"?sort=created&direction=desc", "mona/b mona/a mona/c"},
		{"?sort=updated", "mona/c mona/b mona/a"},
		{"?sort=updated&direction=asc", "mona/a mona/b mona/c"},
		{"?sort=bogus&direction=bogus", "mona/b mona/a mona/c"},
	} {
		for _, path := range []string{"/user/starred", "/users/hubot/starred"} {
			if got := names(t, e.Must(200, "GET", path+c.query, hubotTok, nil)); got != c.want {
				t.Errorf("%s%s: %q, want %q", path, c.query, got, c.want)
			}
		}
	}

	// Pages of two through go-github, following the Link header.
	var all []string
	opts := &github.ActivityListStarredOptions{ListOptions: github.ListOptions{PerPage: 2}}
	for page := 0; ; page++ {
		list, resp, err := e.GitHub(hubotTok).Activity.ListStarred(ctx, "hubot", opts)
		if err != nil {
			t.Fatal(err)
		}
		if page == 0 && (resp.NextPage != 2 || resp.LastPage != 2) {
			t.Errorf("first page: next %d last %d (Link %q)", resp.NextPage, resp.LastPage, resp.Header.Get("Link"))
		}
		for _, s := range list {
			all = append(all, s.GetRepository().GetFullName())
		}
		if resp.NextPage == 0 {
			if resp.PrevPage != 1 || resp.FirstPage != 1 {
				t.Errorf("last page: prev %d first %d", resp.PrevPage, resp.FirstPage)
			}
			break
		}
		opts.Page = resp.NextPage
	}
	if got := strings.Join(all, " "); got != "mona/b mona/a mona/c" {
		t.Errorf("pages: %q", got)
	}

	// Stargazers page too, oldest star first.
	_, carolTok := e.NewUser("carol", false)
	e.Must(204, "PUT", "/user/starred/mona/a", carolTok, nil)
	list, resp, err := e.GitHub("").Activity.ListStargazers(ctx, "mona", "a", &github.ListOptions{PerPage: 1})
	if err != nil || len(list) != 1 || list[0].GetUser().GetLogin() != "hubot" || resp.NextPage != 2 || resp.LastPage != 2 {
		t.Fatalf("stargazers page 1: %v %v %+v", list, err, resp)
	}
	list, _, err = e.GitHub("").Activity.ListStargazers(ctx, "mona", "a", &github.ListOptions{PerPage: 1, Page: 2})
	if err != nil || len(list) != 1 || list[0].GetUser().GetLogin() != "carol" {
		t.Fatalf("stargazers page 2: %v %v", list, err)
	}

	// The query count of a page does not grow with its length (counted
	// with the read caches off, so both pay for every batch they load).
	cost := func(perPage string) int64 {
		if err := e.Deps.Outbox.Sync(ctx); err != nil { // the stars' events are consumed
			t.Fatal(err)
		}
		return e.LeastReads(func() {
			e.Must(200, "GET", "/users/hubot/starred?per_page="+perPage, "", nil, "Accept: application/vnd.github.star+json")
		})
	}
	// Both pages carry a Link header (whose rewrite to the id form costs
	// a lookup of its own).
	if one, two := cost("1"), cost("2"); one != two {
		t.Errorf("a page of 1 costs %d queries, a page of 2 costs %d", one, two)
	}
}

// A renamed repository is starred under its old name too.
func TestStarUnderOldName(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	create(t, e.GitHub(monaTok), "app", false)
	e.Must(200, "PATCH", "/repos/mona/app", monaTok, map[string]any{"name": "tool"})
	e.Must(204, "PUT", "/user/starred/mona/app", hubotTok, nil)
	e.Must(204, "GET", "/user/starred/mona/tool", hubotTok, nil)
	if stars, _, _ := counts(t, e, "mona/tool", ""); stars != 1 {
		t.Errorf("mona/tool stargazers_count %v", stars)
	}
}

// Deleting a user takes their star and watch off the counters of the
// repositories they were on.
func TestDeletedUserLeavesTheCounters(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	create(t, e.GitHub(monaTok), "app", false)
	e.Must(204, "PUT", "/user/starred/mona/app", hubotTok, nil)
	e.Must(200, "PUT", "/repos/mona/app/subscription", hubotTok, map[string]any{"subscribed": true})
	if stars, _, subs := counts(t, e, "mona/app", ""); stars != 1 || subs != 2 {
		t.Fatalf("before: %v stars %v watchers", stars, subs)
	}
	e.Must(204, "DELETE", "/admin/users/hubot", e.AdminToken, nil)
	if stars, _, subs := counts(t, e, "mona/app", ""); stars != 0 || subs != 1 {
		t.Errorf("after deleting hubot: %v stars %v watchers, want 0 and 1", stars, subs)
	}
}
