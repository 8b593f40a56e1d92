package metrics_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/store"
)

// visit GETs a web page the way a browser does, with a Referer and
// optionally a token.
func visit(t *testing.T, e *apitest.Env, path, referer, token string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", e.URL+path, nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	if referer != "" {
		req.Header.Set("Referer", referer)
	}
	if token != "" {
		req.SetBasicAuth("x-access-token", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func TestTraffic(t *testing.T) {
	e := apitest.New(t)
	now := time.Date(2024, 6, 12, 15, 0, 0, 0, time.UTC) // a Wednesday
	e.Store.SetClock(func() time.Time { return now })
	_, monaTok := e.NewUser("mona", false)
	_, otherTok := e.NewUser("other", false)
	gh := e.GitHub(monaTok)
	repo := createRepo(t, e, monaTok, "hello", "Hello, world.", false)

	w := newWork(t)
	w.commit(identity{"Mona", "mona@example.com", "2024-06-01T10:00:00Z"}, "first", map[string]*string{"README.md": text("# Hello\n")})
	w.git(nil, "push", "-q", remote(e, "mona", monaTok, "mona", "hello"), "main:main")

	// Clones: two by mona (git sends no credentials to a public repository
	// unless asked, so hers go with a header), one anonymous; ls-remote and
	// a fetch with nothing new are not clones.
	clone := func(token, proto string) {
		c := &work{t: t, dir: t.TempDir()}
		args := []string{"-c", "protocol.version=" + proto}
		if token != "" {
			args = append(args, "-c", "http.extraHeader=Authorization: token "+token)
		}
		c.git(nil, append(args, "clone", "-q", remote(e, "", "", "mona", "hello"), ".")...)
	}
	clone(monaTok, "2")
	clone(monaTok, "0")
	clone("", "2")
	w.git(nil, "ls-remote", remote(e, "mona", monaTok, "mona", "hello"))
	fetcher := &work{t: t, dir: t.TempDir()}
	fetcher.git(nil, "clone", "-q", remote(e, "", "", "mona", "hello"), ".") // anonymous: 4 clones, 2 unique
	fetcher.git(nil, "fetch", "-q", "origin")                                // nothing new: not counted

	// Page views with referrers: the repository's page (three visitors, one
	// of them signed in) and an unknown page, which counts nothing.
	for _, v := range []struct{ referer, token string }{
		{"https://www.google.com/search?q=hello", ""},
		{"https://www.google.de/", ""},
		{"https://news.example.org/item?id=1", monaTok},
		{"", monaTok},
		{"", otherTok},
	} {
		if resp := visit(t, e, "/mona/hello", v.referer, v.token); resp.StatusCode != 200 {
			t.Fatalf("page: %d", resp.StatusCode)
		}
	}
	if resp := visit(t, e, "/mona/nothing-here", "https://www.google.com/", ""); resp.StatusCode != 404 {
		t.Fatalf("missing page: %d", resp.StatusCode)
	}

	// Counts wait in memory until they are written in one batch.
	c, _, err := gh.Repositories.ListTrafficClones(ctx, "mona", "hello", nil)
	if err != nil || c.GetCount() != 0 || len(c.Clones) != 0 {
		t.Fatalf("clones before the write: %v %v", c, err)
	}
	if err := hub(t, e).Flush(context.Background()); err != nil {
		t.Fatal(err)
	}

	today := time.Date(2024, 6, 12, 0, 0, 0, 0, time.UTC)
	monday := time.Date(2024, 6, 10, 0, 0, 0, 0, time.UTC)
	c, _, err = gh.Repositories.ListTrafficClones(ctx, "mona", "hello", nil)
	if err != nil || c.GetCount() != 4 || c.GetUniques() != 2 || len(c.Clones) != 1 ||
		!c.Clones[0].Timestamp.Time.Equal(today) || c.Clones[0].GetCount() != 4 || c.Clones[0].GetUniques() != 2 {
		t.Fatalf("clones: %v %v", github.Stringify(c), err)
	}
	c, _, err = gh.Repositories.ListTrafficClones(ctx, "mona", "hello", &github.TrafficBreakdownOptions{Per: "week"})
	if err != nil || len(c.Clones) != 1 || !c.Clones[0].Timestamp.Time.Equal(monday) {
		t.Fatalf("clones per week: %v %v", c, err)
	}

	v, _, err := gh.Repositories.ListTrafficViews(ctx, "mona", "hello", &github.TrafficBreakdownOptions{Per: "day"})
	if err != nil || v.GetCount() != 5 || v.GetUniques() != 3 || len(v.Views) != 1 || v.Views[0].GetCount() != 5 {
		t.Fatalf("views: %v %v", v, err)
	}
	paths, _, err := gh.Repositories.ListTrafficPaths(ctx, "mona", "hello")
	if err != nil || len(paths) != 1 || paths[0].GetPath() != "/mona/hello" || paths[0].GetTitle() != "mona/hello: Hello, world." ||
		paths[0].GetCount() != 5 || paths[0].GetUniques() != 3 {
		t.Fatalf("paths: %v %v", paths, err)
	}
	refs, _, err := gh.Repositories.ListTrafficReferrers(ctx, "mona", "hello")
	if err != nil || len(refs) != 2 || refs[0].GetReferrer() != "Google" || refs[0].GetCount() != 2 || refs[0].GetUniques() != 1 ||
		refs[1].GetReferrer() != "news.example.org" || refs[1].GetCount() != 1 {
		t.Fatalf("referrers: %v %v", refs, err)
	}

	// Days outside GitHub's 14-day window are left out, and pruned when a
	// later day's counts are written.
	now = now.AddDate(0, 0, 15)
	v, _, err = gh.Repositories.ListTrafficViews(ctx, "mona", "hello", nil)
	if err != nil || v.GetCount() != 0 || len(v.Views) != 0 {
		t.Fatalf("views 15 days later: %v %v", v, err)
	}
	now = now.AddDate(0, 0, 5)
	visit(t, e, "/mona/hello", "", "")
	hub(t, e).Flush(context.Background())
	all, total, err := e.Store.R().TrafficSeries(context.Background(), repo.GetID(), "view", 0, false)
	if err != nil || len(all) != 1 || total.Count != 1 || all[0].Start != today.AddDate(0, 0, 20).Unix() {
		t.Fatalf("views after the prune: %v %v %v", all, total, err)
	}
}

func TestTrafficAccess(t *testing.T) {
	e := apitest.New(t)
	mona, monaTok := e.NewUser("mona", false)
	_, otherTok := e.NewUser("other", false)
	_, readerTok := e.NewUser("reader", false)
	createRepo(t, e, monaTok, "hello", "", false)
	createRepo(t, e, monaTok, "secret", "", true)
	// A token without the repo scope sees no private repository.
	narrow := e.Token(mona, "user")
	for _, tc := range []struct {
		name, path, token string
		status            int
		message           string
	}{
		{"anonymous", "/repos/mona/hello/traffic/views", "", 401, "Requires authentication"},
		{"reader of a public repository", "/repos/mona/hello/traffic/clones", otherTok, 403, "access to Repository."},
		{"reader referrers", "/repos/mona/hello/traffic/popular/referrers", readerTok, 403, "access to Repository."},
		{"private, not a collaborator", "/repos/mona/secret/traffic/popular/paths", otherTok, 404, "Not Found"},
		{"private without repo scope", "/repos/mona/secret/traffic/views", narrow, 404, "Not Found"},
		{"owner", "/repos/mona/secret/traffic/views?per=week", monaTok, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Must(tc.status, "GET", tc.path, tc.token, nil)
			if tc.message != "" && !strings.Contains(string(r.Body), tc.message) {
				t.Fatalf("body: %s", r.Body)
			}
		})
	}
}

// TestTrafficWriteSkipsDeletedRepositories: counts of a repository deleted
// before the write are dropped, the rest written.
func TestTrafficWriteSkipsDeletedRepositories(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	r := createRepo(t, e, monaTok, "hello", "", false)
	ctx := context.Background()
	day := e.Store.Now().Unix() / 86400 * 86400
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		return tx.AddTraffic(ctx, map[store.TrafficKey]store.TrafficCount{
			{RepoID: r.GetID(), Kind: "clone", Day: day, Visitor: "u1"}:                     {Count: 2},
			{RepoID: 999999, Kind: "clone", Day: day, Visitor: "u1"}:                        {Count: 1},
			{RepoID: r.GetID(), Kind: "view", Day: day, Visitor: "u1", Path: "/mona/hello"}: {Count: 1, Title: "t"},
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	list, total, err := e.Store.R().TrafficSeries(ctx, r.GetID(), "clone", day, false)
	if err != nil || len(list) != 1 || total.Count != 2 || total.Uniques != 1 {
		t.Fatalf("series: %v %v %v", list, total, err)
	}
}
