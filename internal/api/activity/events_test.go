package activity_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

// sync renders the activity events of everything written so far.
func sync(t *testing.T, e *apitest.Env) {
	t.Helper()
	if err := e.Deps.Outbox.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}

// types are the types of a list of events, space separated.
func types(list []*github.Event) string {
	out := make([]string, len(list))
	for i, ev := range list {
		out[i] = ev.GetType()
	}
	return strings.Join(out, " ")
}

// Events through go-github: a repository's activity (push, create, issues,
// comments, stars, forks, releases) as GitHub's events with their
// payloads, newest first, in every list that includes them; a private
// repository's events only to those who may read it.
func TestEventsThroughGoGitHub(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	mona, hubot := e.GitHub(monaTok), e.GitHub(hubotTok)
	create(t, mona, "app", false)
	create(t, mona, "secret", true)
	for _, repo := range []string{"app", "secret"} {
		_, _, err := mona.Repositories.CreateFile(ctx, "mona", repo, "README.md", &github.RepositoryContentFileOptions{
			Message: github.Ptr("first"), Content: []byte("hello\n")})
		if err != nil {
			t.Fatal(err)
		}
	}
	is, _, err := mona.Issues.Create(ctx, "mona", "app", github.CreateIssueRequest{Title: "a bug"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := hubot.Issues.CreateComment(ctx, "mona", "app", is.GetNumber(), github.IssueCommentRequest{Body: "me too"}); err != nil {
		t.Fatal(err)
	}
	if _, err := hubot.Activity.Star(ctx, "mona", "app"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := mona.Repositories.CreateRelease(ctx, "mona", "app", github.CreateReleaseRequest{TagName: "v1.0.0"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := mona.Issues.Create(ctx, "mona", "secret", github.CreateIssueRequest{Title: "hidden"}); err != nil {
		t.Fatal(err)
	}
	sync(t, e)

	list, resp, err := hubot.Activity.ListRepositoryEvents(ctx, "mona", "app", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := types(list), "CreateEvent ReleaseEvent WatchEvent IssueCommentEvent IssuesEvent CreateEvent PushEvent"; got != want {
		t.Fatalf("repository events: %s, want %s", got, want)
	}
	if resp.Header.Get("X-Poll-Interval") != "60" {
		t.Errorf("X-Poll-Interval %q", resp.Header.Get("X-Poll-Interval"))
	}
	byType := map[string]*github.Event{}
	for _, ev := range list {
		if byType[ev.GetType()] == nil {
			byType[ev.GetType()] = ev // the newest
		}
		if ev.GetRepo().GetName() != "mona/app" || ev.GetRepo().GetURL() != e.API+"/repos/mona/app" || !ev.GetPublic() ||
			ev.GetID() == "" || ev.GetCreatedAt().IsZero() {
			t.Errorf("%s: %+v", ev.GetType(), ev)
		}
	}
	if a := byType["WatchEvent"].GetActor(); a.GetLogin() != "hubot" || a.GetURL() != e.API+"/users/hubot" {
		t.Errorf("WatchEvent actor %+v", a)
	}
	payload := func(typ string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal(byType[typ].GetRawPayload(), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if p := payload("PushEvent"); p["ref"] != "refs/heads/main" || p["size"] != float64(1) || len(p["head"].(string)) != 40 {
		t.Errorf("PushEvent payload %v", p)
	}
	if p := payload("IssuesEvent"); p["action"] != "opened" || p["issue"].(map[string]any)["title"] != "a bug" || p["repository"] != nil || p["sender"] != nil {
		t.Errorf("IssuesEvent payload %v", p)
	}
	if p := payload("IssueCommentEvent"); p["action"] != "created" || p["comment"].(map[string]any)["body"] != "me too" {
		t.Errorf("IssueCommentEvent payload %v", p)
	}
	if p := payload("WatchEvent"); p["action"] != "started" {
		t.Errorf("WatchEvent payload %v", p)
	}
	if p := payload("ReleaseEvent"); p["action"] != "published" || p["release"].(map[string]any)["tag_name"] != "v1.0.0" {
		t.Errorf("ReleaseEvent payload %v", p)
	}
	if p := payload("CreateEvent"); p["ref"] != "v1.0.0" || p["ref_type"] != "tag" {
		t.Errorf("CreateEvent payload %v", p)
	}
	// go-github decodes the payloads into its own types.
	if ie, err := byType["IssuesEvent"].ParsePayload(); err != nil || ie.(*github.IssuesEvent).GetIssue().GetNumber() != is.GetNumber() {
		t.Errorf("ParsePayload: %v %v", ie, err)
	}

	// Pagination in SQL with a Link header.
	page, resp, err := hubot.Activity.ListRepositoryEvents(ctx, "mona", "app", &github.ListOptions{PerPage: 4})
	if err != nil || len(page) != 4 || resp.NextPage != 2 || resp.LastPage != 2 {
		t.Fatalf("page 1: %d next %d last %d %v", len(page), resp.NextPage, resp.LastPage, err)
	}
	page2, _, err := hubot.Activity.ListRepositoryEvents(ctx, "mona", "app", &github.ListOptions{PerPage: 4, Page: 2})
	if err != nil || types(page2) != "IssuesEvent CreateEvent PushEvent" {
		t.Fatalf("page 2: %s %v", types(page2), err)
	}

	// A private repository: hidden from outsiders everywhere.
	if _, resp, err := hubot.Activity.ListRepositoryEvents(ctx, "mona", "secret", nil); err == nil || resp.StatusCode != 404 {
		t.Fatalf("an outsider read a private repository's events: %v", err)
	}
	mine, _, err := mona.Activity.ListRepositoryEvents(ctx, "mona", "secret", nil)
	if err != nil || types(mine) != "IssuesEvent CreateEvent PushEvent" || mine[0].GetPublic() {
		t.Fatalf("the owner's private events: %s %v", types(mine), err)
	}
	count := func(list []*github.Event, repo string) int {
		n := 0
		for _, ev := range list {
			if ev.GetRepo().GetName() == repo {
				n++
			}
		}
		return n
	}
	own, _, err := mona.Activity.ListEventsPerformedByUser(ctx, "mona", false, nil)
	if err != nil || count(own, "mona/secret") != 3 || count(own, "mona/app") != 5 {
		t.Fatalf("mona's own events: %s %v", types(own), err)
	}
	for _, c := range []*github.Client{hubot, e.GitHub("")} {
		for _, public := range []bool{false, true} {
			seen, _, err := c.Activity.ListEventsPerformedByUser(ctx, "mona", public, nil)
			if err != nil || count(seen, "mona/secret") != 0 || count(seen, "mona/app") != 5 {
				t.Fatalf("mona's events as others see them (public %v): %s %v", public, types(seen), err)
			}
		}
		all, _, err := c.Activity.ListEvents(ctx, nil)
		if err != nil || count(all, "mona/secret") != 0 || count(all, "mona/app") != 7 {
			t.Fatalf("public events: %s %v", types(all), err)
		}
	}
	ownPublic, _, err := mona.Activity.ListEventsPerformedByUser(ctx, "mona", true, nil)
	if err != nil || count(ownPublic, "mona/secret") != 0 {
		t.Fatalf("mona's public events: %s %v", types(ownPublic), err)
	}

	// Received events: those of the repositories the user watches.
	if _, _, err := hubot.Activity.SetRepositorySubscription(ctx, "mona", "app", &github.Subscription{Subscribed: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	for _, public := range []bool{false, true} {
		got, _, err := hubot.Activity.ListEventsReceivedByUser(ctx, "hubot", public, nil)
		if err != nil || count(got, "mona/app") != 7 || len(got) != 7 {
			t.Fatalf("hubot's received events (public %v): %s %v", public, types(got), err)
		}
	}
	got, _, err := mona.Activity.ListEventsReceivedByUser(ctx, "mona", false, nil)
	if err != nil || count(got, "mona/secret") != 3 {
		t.Fatalf("mona's received events: %s %v", types(got), err)
	}
	got, _, err = hubot.Activity.ListEventsReceivedByUser(ctx, "mona", false, nil)
	if err != nil || count(got, "mona/secret") != 0 {
		t.Fatalf("mona's received events as hubot sees them: %s %v", types(got), err)
	}
	// The network of a repository: its forks' events too.
	net, _, err := hubot.Activity.ListEventsForRepoNetwork(ctx, "mona", "app", nil)
	if err != nil || len(net) != 7 {
		t.Fatalf("network events: %s %v", types(net), err)
	}
	if _, resp, err := hubot.Activity.ListEventsForRepoNetwork(ctx, "mona", "secret", nil); err == nil || resp.StatusCode != 404 {
		t.Fatalf("an outsider read a private network's events: %v", err)
	}
	// The window: no more than 300 events, never a page past it.
	if list, _, err := hubot.Activity.ListRepositoryEvents(ctx, "mona", "app", &github.ListOptions{Page: 11, PerPage: 30}); err != nil || len(list) != 0 {
		t.Fatalf("page 11: %d %v", len(list), err)
	}
	// Conditional requests: the ETag of an unchanged page answers 304.
	r1 := e.Must(200, "GET", "/repos/mona/app/events", hubotTok, nil)
	if tag := r1.Header.Get("ETag"); tag == "" {
		t.Error("no ETag")
	} else {
		e.Must(304, "GET", "/repos/mona/app/events", hubotTok, nil, "If-None-Match: "+tag)
	}
}

// Organization events: the public ones for anyone, the member's dashboard
// (private repositories included) for the member alone.
func TestOrganizationEvents(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	mona, hubot := e.GitHub(monaTok), e.GitHub(hubotTok)
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "octo", "admin": "mona"})
	for _, c := range []struct {
		name    string
		private bool
	}{{"pub", false}, {"priv", true}} {
		if _, _, err := mona.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr(c.name), Private: github.Ptr(c.private)}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := mona.Issues.Create(ctx, "octo", c.name, github.CreateIssueRequest{Title: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	sync(t, e)
	pub, _, err := hubot.Activity.ListEventsForOrganization(ctx, "octo", nil)
	if err != nil || types(pub) != "IssuesEvent" || pub[0].GetOrg().GetLogin() != "octo" || pub[0].GetRepo().GetName() != "octo/pub" {
		t.Fatalf("public organization events: %s %v", types(pub), err)
	}
	dash, _, err := mona.Activity.ListUserEventsForOrganization(ctx, "octo", "mona", nil)
	if err != nil || types(dash) != "IssuesEvent IssuesEvent" {
		t.Fatalf("mona's organization dashboard: %s %v", types(dash), err)
	}
	if _, resp, err := hubot.Activity.ListUserEventsForOrganization(ctx, "octo", "mona", nil); err == nil || resp.StatusCode != 404 {
		t.Fatalf("hubot read mona's dashboard: %v", err)
	}
	if _, resp, err := hubot.Activity.ListUserEventsForOrganization(ctx, "octo", "hubot", nil); err == nil || resp.StatusCode != 404 {
		t.Fatalf("a non-member read the organization dashboard: %v", err)
	}
}
