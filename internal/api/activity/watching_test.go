package activity_test

import (
	"errors"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

// Watching through go-github: the creator of a repository watches it from
// its creation; others watch, ignore and stop watching it; the watchers,
// the watched lists and subscribers_count follow.
func TestWatchThroughGoGitHub(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	mona, gh := e.GitHub(monaTok), e.GitHub(hubotTok)
	create(t, mona, "app", false)

	sub, _, err := mona.Activity.GetRepositorySubscription(ctx, "mona", "app")
	if err != nil || sub == nil || !sub.GetSubscribed() || sub.GetIgnored() || sub.Reason != nil || sub.GetCreatedAt().IsZero() ||
		sub.GetURL() != e.API+"/repos/mona/app/subscription" || sub.GetRepositoryURL() != e.API+"/repos/mona/app" {
		t.Fatalf("the creator's subscription: %+v %v", sub, err)
	}
	if _, _, subs := counts(t, e, "mona/app", ""); subs != 1 {
		t.Errorf("subscribers_count after creation: %v", subs)
	}
	if sub, resp, err := gh.Activity.GetRepositorySubscription(ctx, "mona", "app"); err != nil || sub != nil || resp.StatusCode != 404 {
		t.Fatalf("hubot before watching: %+v %v", sub, err)
	}

	sub, _, err = gh.Activity.SetRepositorySubscription(ctx, "mona", "app", &github.Subscription{Subscribed: github.Ptr(true)})
	if err != nil || !sub.GetSubscribed() || sub.GetIgnored() {
		t.Fatalf("watch: %+v %v", sub, err)
	}
	watchers, _, err := gh.Activity.ListWatchers(ctx, "mona", "app", nil)
	if err != nil || logins(watchers) != "mona hubot" {
		t.Fatalf("ListWatchers: %q %v", logins(watchers), err)
	}
	if _, _, subs := counts(t, e, "mona/app", ""); subs != 2 {
		t.Errorf("subscribers_count after hubot watches: %v", subs)
	}
	for _, who := range []string{"", "hubot"} {
		list, _, err := gh.Activity.ListWatched(ctx, who, nil)
		if err != nil || len(list) != 1 || list[0].GetFullName() != "mona/app" {
			t.Fatalf("ListWatched(%q): %v %v", who, list, err)
		}
	}

	// Ignoring: no longer a watcher, but a subscription that says so.
	sub, _, err = gh.Activity.SetRepositorySubscription(ctx, "mona", "app", &github.Subscription{Ignored: github.Ptr(true)})
	if err != nil || sub.GetSubscribed() || !sub.GetIgnored() {
		t.Fatalf("ignore: %+v %v", sub, err)
	}
	if got, _, err := gh.Activity.GetRepositorySubscription(ctx, "mona", "app"); err != nil || got == nil || !got.GetIgnored() ||
		!got.GetCreatedAt().Equal(sub.GetCreatedAt()) {
		t.Fatalf("the ignoring subscription: %+v %v", got, err)
	}
	if watchers, _, _ := gh.Activity.ListWatchers(ctx, "mona", "app", nil); logins(watchers) != "mona" {
		t.Errorf("watchers while hubot ignores: %q", logins(watchers))
	}
	if list, _, _ := gh.Activity.ListWatched(ctx, "", nil); len(list) != 0 {
		t.Errorf("hubot's watched repositories while ignoring: %v", list)
	}
	if _, _, subs := counts(t, e, "mona/app", ""); subs != 1 {
		t.Errorf("subscribers_count while hubot ignores: %v", subs)
	}

	// Deleting the subscription: 404 again; deleting none is no error.
	for i := 0; i < 2; i++ {
		if resp, err := gh.Activity.DeleteRepositorySubscription(ctx, "mona", "app"); err != nil || resp.StatusCode != 204 {
			t.Fatalf("delete #%d: %v", i+1, err)
		}
	}
	if sub, _, err := gh.Activity.GetRepositorySubscription(ctx, "mona", "app"); err != nil || sub != nil {
		t.Fatalf("after delete: %+v %v", sub, err)
	}

	// Neither watching nor ignoring is the default: no subscription.
	r := e.Must(200, "PUT", "/repos/mona/app/subscription", hubotTok, map[string]any{"subscribed": false, "ignored": false}).Map(t)
	if r["subscribed"] != false || r["ignored"] != false || r["reason"] != nil {
		t.Errorf("neither: %v", r)
	}
	e.Must(404, "GET", "/repos/mona/app/subscription", hubotTok, nil)

	// The creator stops watching: no watcher is left.
	if _, err := mona.Activity.DeleteRepositorySubscription(ctx, "mona", "app"); err != nil {
		t.Fatal(err)
	}
	if _, _, subs := counts(t, e, "mona/app", ""); subs != 0 {
		t.Errorf("subscribers_count with no watcher: %v", subs)
	}
	if n := len(events(t, e, "repository_subscription")); n != 4 {
		t.Errorf("%d repository_subscription events, want 4 (watch, ignore, delete, creator's delete)", n)
	}
}

// Who may read or change a subscription: a signed-in user who sees the
// repository, with the notifications scope on a classic token (GitHub
// answers 404 without it, even to a token with repo).
func TestSubscriptionAuthorization(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	create(t, e.GitHub(monaTok), "app", false)
	create(t, e.GitHub(monaTok), "secret", true)
	repoOnly := e.Token(mona, "repo")
	fine := fineGrained(t, e, mona)
	cases := []struct {
		name, method, path, token string
		want                      int
	}{
		{"anonymous get", "GET", "/repos/mona/app/subscription", "", 401},
		{"anonymous set", "PUT", "/repos/mona/app/subscription", "", 401},
		{"anonymous delete", "DELETE", "/repos/mona/app/subscription", "", 401},
		{"anonymous own list", "GET", "/user/subscriptions", "", 401},
		{"hidden get", "GET", "/repos/mona/secret/subscription", hubotTok, 404},
		{"hidden set", "PUT", "/repos/mona/secret/subscription", hubotTok, 404},
		{"hidden watchers", "GET", "/repos/mona/secret/subscribers", hubotTok, 404},
		{"no notifications scope get", "GET", "/repos/mona/app/subscription", repoOnly, 404},
		{"no notifications scope set", "PUT", "/repos/mona/app/subscription", repoOnly, 404},
		{"no notifications scope delete", "DELETE", "/repos/mona/app/subscription", repoOnly, 404},
		{"fine-grained without watching", "GET", "/repos/mona/app/subscription", fine, 403},
		{"fine-grained own list", "GET", "/user/subscriptions", fine, 403},
		{"no such user", "GET", "/users/nobody/subscriptions", "", 404},
	}
	for _, c := range cases {
		var body any
		if c.method == "PUT" {
			body = map[string]any{"subscribed": true}
		}
		r := e.Do(c.method, c.path, c.token, body)
		if r.StatusCode != c.want {
			t.Errorf("%s: %s %s = %d, want %d: %s", c.name, c.method, c.path, r.StatusCode, c.want, r.Body)
		}
	}
	// Nothing refused changed a subscription: mona still watches both.
	for _, n := range []string{"app", "secret"} {
		if _, _, subs := counts(t, e, "mona/"+n, monaTok); subs != 1 {
			t.Errorf("mona/%s subscribers_count %v", n, subs)
		}
	}
	r := e.Must(200, "GET", "/repos/mona/app/subscription", monaTok, nil)
	if got := r.Header.Get("X-Accepted-OAuth-Scopes"); got != "notifications" {
		t.Errorf("X-Accepted-OAuth-Scopes: %q", got)
	}
	// The watched lists show only what the caller may see.
	for _, c := range []struct{ path, token, want string }{
		{"/users/mona/subscriptions", "", "mona/app"},
		{"/users/mona/subscriptions", hubotTok, "mona/app"},
		{"/users/mona/subscriptions", monaTok, "mona/app mona/secret"},
		{"/user/subscriptions", monaTok, "mona/app mona/secret"},
		{"/user/subscriptions", e.Token(mona, "notifications"), "mona/app"},
	} {
		if got := names(t, e.Must(200, "GET", c.path, c.token, nil)); got != c.want {
			t.Errorf("%s as %.8s: %q, want %q", c.path, c.token, got, c.want)
		}
	}
}

// Who creates a repository watches it: in an organization its creator,
// not the organization's other admins; a fork its creator.
func TestCreatorsWatch(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	e.Must(201, "POST", "/orgs/acme/repos", monaTok, map[string]any{"name": "lib"})
	create(t, e.GitHub(monaTok), "app", false)
	// go-github reports the 202 of a fork as an AcceptedError.
	var accepted *github.AcceptedError
	if _, _, err := e.GitHub(hubotTok).Repositories.CreateFork(ctx, "mona", "app", nil); !errors.As(err, &accepted) {
		t.Fatalf("fork: %v", err)
	}
	for _, c := range []struct{ full, want string }{
		{"acme/lib", "mona"}, {"mona/app", "mona"}, {"hubot/app", "hubot"},
	} {
		var users []map[string]any
		e.Must(200, "GET", "/repos/"+c.full+"/subscribers", "", nil).JSON(t, &users)
		if len(users) != 1 || users[0]["login"] != c.want {
			t.Errorf("%s watchers: %v, want %s", c.full, users, c.want)
		}
	}
	if _, _, subs := counts(t, e, "hubot/app", ""); subs != 1 {
		t.Errorf("the fork's subscribers_count: %v", subs)
	}
}
