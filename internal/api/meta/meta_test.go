package meta_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/ratelimit"
)

func TestRoot(t *testing.T) {
	e := apitest.New(t)
	for _, u := range []string{e.URL + "/", e.API, e.API + "/"} {
		m := e.Must(200, "GET", u, "", nil).Map(t)
		want := map[string]string{
			"current_user_url":                     e.API + "/user",
			"current_user_authorizations_html_url": e.URL + "/settings/connections/applications{/client_id}",
			"repository_url":                       e.API + "/repos/{owner}/{repo}",
			"rate_limit_url":                       e.API + "/rate_limit",
			"code_search_url":                      e.API + "/search/code?q={query}{&page,per_page,sort,order}",
			"user_repositories_url":                e.API + "/users/{user}/repos{?type,page,per_page,sort}",
			"authorizations_url":                   e.API + "/authorizations",
			"hub_url":                              e.API + "/hub",
		}
		for k, v := range want {
			if m[k] != v {
				t.Errorf("%s: %s = %v, want %s", u, k, m[k], v)
			}
		}
	}
	// The root pattern does not swallow unknown paths.
	for _, p := range []string{"/no/such/path", "/users/mona/nothing"} {
		m := e.Must(404, "GET", p, e.AdminToken, nil).Map(t)
		if m["message"] != "Not Found" || m["documentation_url"] != "https://docs.github.com/rest" {
			t.Fatalf("%s: %v", p, m)
		}
	}
	e.Must(404, "POST", "/", e.AdminToken, nil)
}

// TestVersion20260310 checks the fields API version 2026-03-10 removes. The
// harness validates against the unversioned schema, which still requires
// them, so this environment skips validation.
func TestVersion20260310(t *testing.T) {
	e := apitest.New(t, apitest.Options{NoVerify: true})
	const v = "X-GitHub-Api-Version: 2026-03-10"
	root := e.Must(200, "GET", "/", "", nil, v).Map(t)
	if _, ok := root["authorizations_url"]; ok {
		t.Fatal("authorizations_url in 2026-03-10")
	}
	if _, ok := root["hub_url"]; ok {
		t.Fatal("hub_url in 2026-03-10")
	}
	if root["current_user_url"] != e.API+"/user" {
		t.Fatal(root)
	}
	rl := e.Must(200, "GET", "/rate_limit", e.AdminToken, nil, v).Map(t)
	if _, ok := rl["rate"]; ok {
		t.Fatal("rate in 2026-03-10")
	}
	if _, ok := rl["resources"].(map[string]any)["core"]; !ok {
		t.Fatal(rl)
	}
}

func header(t *testing.T, h http.Header, name string) int {
	t.Helper()
	v := h.Get(name)
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s = %q", name, v)
	}
	return n
}

// checkRate asserts the X-RateLimit-* headers of one response.
func checkRate(t *testing.T, h http.Header, limit, used int, resource string) {
	t.Helper()
	if l, u, rem := header(t, h, "X-RateLimit-Limit"), header(t, h, "X-RateLimit-Used"), header(t, h, "X-RateLimit-Remaining"); l != limit || u != used || rem != limit-used {
		t.Fatalf("limit/used/remaining = %d/%d/%d, want %d/%d/%d", l, u, rem, limit, used, limit-used)
	}
	if reset := header(t, h, "X-RateLimit-Reset"); time.Until(time.Unix(int64(reset), 0)) <= 0 {
		t.Fatalf("reset %d is not in the future", reset)
	}
	if h.Get("X-RateLimit-Resource") != resource {
		t.Fatalf("X-RateLimit-Resource = %q", h.Get("X-RateLimit-Resource"))
	}
}

func TestRateLimit(t *testing.T) {
	e := apitest.New(t, apitest.Options{Limits: &ratelimit.Limits{Anonymous: 3, Authenticated: 5, Installation: 5, Search: 3, SearchAnon: 2, Window: time.Hour}})
	ctx := context.Background()
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)

	// A fresh window: nothing used, and asking does not count.
	for i := 0; i < 3; i++ {
		rl, resp, err := gh.RateLimit.Get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		checkRate(t, resp.Header, 5, 0, "core")
		if rl.Core.Limit != 5 || rl.Core.Used != 0 || rl.Core.Remaining != 5 || rl.Search.Limit != 3 || rl.GraphQL.Limit != 5 {
			t.Fatalf("rate_limit = %+v", rl)
		}
	}

	// Each request counts once and says so in its headers.
	first, resp, err := gh.Users.Get(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	checkRate(t, resp.Header, 5, 1, "core")
	etag := resp.Header.Get("ETag")
	// A 304 is not counted.
	nm := e.Do("GET", "/user", tok, nil, "If-None-Match: "+etag)
	if nm.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match: %d", nm.StatusCode)
	}
	checkRate(t, nm.Header, 5, 1, "core")
	// Errors count too, and carry the headers.
	r := e.Must(404, "GET", "/users/nobody", tok, nil)
	checkRate(t, r.Header, 5, 2, "core")
	r = e.Must(200, "GET", "/users/"+first.GetLogin(), tok, nil)
	checkRate(t, r.Header, 5, 3, "core")

	rl, _, err := gh.RateLimit.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rl.Core.Used != 3 || rl.Core.Remaining != 2 || rl.Core.Reset.Unix() != int64(header(t, r.Header, "X-RateLimit-Reset")) {
		t.Fatalf("core after 3 requests = %+v", rl.Core)
	}
	raw := e.Must(200, "GET", "/rate_limit", tok, nil).Map(t)
	if rate := raw["rate"].(map[string]any); rate["used"] != float64(3) || rate["limit"] != float64(5) {
		t.Fatalf("rate = %v", rate)
	}

	// The anonymous window is separate and smaller.
	anon := e.GitHub("")
	arl, resp, err := anon.RateLimit.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkRate(t, resp.Header, 3, 0, "core")
	if arl.Core.Limit != 3 || arl.Core.Used != 0 || arl.Search.Limit != 2 || arl.GraphQL.Limit != 0 {
		t.Fatalf("anonymous rate_limit = %+v", arl)
	}
	for i := 1; i <= 3; i++ {
		_, resp, err := anon.Users.Get(ctx, "mona")
		if err != nil {
			t.Fatalf("anonymous request %d: %v", i, err)
		}
		checkRate(t, resp.Header, 3, i, "core")
	}
	// Exhausted: GitHub's 403 with remaining 0, which go-github reports as a
	// RateLimitError (a fresh client, so that it asks the server).
	_, _, err = e.GitHub("").Users.Get(ctx, "mona")
	var rle *github.RateLimitError
	if !errors.As(err, &rle) {
		t.Fatalf("anonymous over the limit: %T %v", err, err)
	}
	if rle.Response.StatusCode != 403 || rle.Rate.Limit != 3 || rle.Rate.Remaining != 0 || !strings.HasPrefix(rle.Message, "API rate limit exceeded for 127.0.0.1.") {
		t.Fatalf("rate limit error: %d %+v %q", rle.Response.StatusCode, rle.Rate, rle.Message)
	}
	over := e.Must(403, "GET", "/users/mona", "", nil)
	checkRate(t, over.Header, 3, 3, "core")
	if over.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	// GET /rate_limit still answers while exhausted, and reports it.
	arl, _, err = e.GitHub("").RateLimit.Get(ctx)
	if err != nil || arl.Core.Remaining != 0 || arl.Core.Used != 3 {
		t.Fatalf("anonymous rate_limit when exhausted: %+v %v", arl, err)
	}
	// The authenticated user is unaffected by the anonymous window.
	if _, resp, err := gh.Users.Get(ctx, ""); err != nil {
		t.Fatal(err)
	} else {
		checkRate(t, resp.Header, 5, 4, "core")
	}
	if _, resp, err := gh.Users.Get(ctx, ""); err != nil {
		t.Fatal(err)
	} else {
		checkRate(t, resp.Header, 5, 5, "core")
	}
	// The same client now knows it is out and does not even ask.
	_, _, err = gh.Users.Get(ctx, "")
	if !errors.As(err, &rle) {
		t.Fatalf("user over the limit (client side): %T %v", err, err)
	}
	// A fresh client asks and gets the server's answer.
	_, _, err = e.GitHub(tok).Users.Get(ctx, "")
	if !errors.As(err, &rle) || rle.Response.StatusCode != 403 {
		t.Fatalf("user over the limit: %T %v", err, err)
	}
	want := "API rate limit exceeded for user ID " + strconv.FormatInt(first.GetID(), 10) + "."
	if rle.Message != want {
		t.Fatalf("message %q, want %q", rle.Message, want)
	}
	// Writes are refused as well; rate_limit still reports the state.
	e.Must(403, "PATCH", "/user", tok, map[string]string{"name": "x"})
	rl, _, err = e.GitHub(tok).RateLimit.Get(ctx)
	if err != nil || rl.Core.Remaining != 0 || rl.Core.Used != 5 {
		t.Fatalf("user rate_limit when exhausted: %+v %v", rl, err)
	}
	// Another user has a window of their own.
	_, other := e.NewUser("hubot", false)
	r = e.Must(200, "GET", "/user", other, nil)
	checkRate(t, r.Header, 5, 1, "core")
	// Bad credentials are answered with headers too.
	r = e.Must(401, "GET", "/user", "ghp_nope", nil)
	if r.Header.Get("X-RateLimit-Limit") == "" || r.Header.Get("X-RateLimit-Resource") != "core" {
		t.Fatalf("401 headers: %v", r.Header)
	}
}
