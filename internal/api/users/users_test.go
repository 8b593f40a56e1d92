package users_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

func TestAuthenticatedUser(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)

	u, _, err := gh.Users.Get(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if u.GetLogin() != "mona" || u.GetType() != "User" || u.GetSiteAdmin() {
		t.Fatalf("GET /user = %+v", u)
	}

	edited, _, err := gh.Users.Update(ctx, github.UserUpdateRequest{Name: github.Ptr("Mona Lisa"), Bio: github.Ptr("paints"), Hireable: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if edited.GetName() != "Mona Lisa" || edited.GetBio() != "paints" || !edited.GetHireable() {
		t.Fatalf("PATCH /user = %+v", edited)
	}
	// An empty string clears a field (the description types bio a string,
	// so the request schema refuses null), absent keeps it.
	m := e.Must(200, "PATCH", "/user", tok, map[string]any{"bio": ""}).Map(t)
	if m["bio"] != nil || m["name"] != "Mona Lisa" {
		t.Fatalf("bio=%v name=%v", m["bio"], m["name"])
	}
	again, _, err := gh.Users.Get(ctx, "")
	if err != nil || again.GetName() != "Mona Lisa" {
		t.Fatalf("after edit: %+v %v", again, err)
	}
}

func TestUserErrors(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	readOnly := e.Token(e.Admin, "repo")
	for _, tc := range []struct {
		name         string
		method, path string
		token        string
		body         any
		status       int
		message      string
	}{
		{"anonymous GET /user", "GET", "/user", "", nil, 401, "Requires authentication"},
		{"bad token", "GET", "/user", "ghp_nope", nil, 401, "Bad credentials"},
		{"bad token on a public endpoint", "GET", "/users/mona", "ghp_nope", nil, 401, "Bad credentials"},
		{"unknown user", "GET", "/users/nobody", tok, nil, 404, "Not Found"},
		{"unknown path", "GET", "/no/such/path", tok, nil, 404, "Not Found"},
		{"wrong method", "DELETE", "/users/mona", tok, nil, 404, "Not Found"},
		{"malformed JSON", "PATCH", "/user", tok, `{"name":`, 400, "Problems parsing JSON"},
		{"not an object", "PATCH", "/user", tok, `[1,2]`, 400, "Body should be a JSON object"},
		{"wrong type", "PATCH", "/user", tok, `{"name": 12}`, 422, "Invalid request.\n\nFor 'properties/name', 12 is not a string."},
		{"bad email", "PATCH", "/user", tok, `{"email": "not-an-email"}`, 422, "Validation Failed"},
		{"scope missing", "PATCH", "/user", readOnly, `{"name": "x"}`, 403, "Resource not accessible by personal access token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Do(tc.method, tc.path, tc.token, tc.body)
			if r.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", r.StatusCode, tc.status, r.Body)
			}
			m := r.Map(t)
			if m["message"] != tc.message || m["documentation_url"] == nil {
				t.Fatalf("body %s", r.Body)
			}
		})
	}
}

func TestPublicProfilesAndList(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	for _, l := range []string{"u1", "u2", "u3", "u4"} {
		e.NewUser(l, false)
	}
	gh := e.GitHub("")
	u, _, err := gh.Users.Get(ctx, "U2") // logins ignore case
	if err != nil || u.GetLogin() != "u2" {
		t.Fatalf("%+v %v", u, err)
	}
	byID, _, err := gh.Users.GetByID(ctx, u.GetID())
	if err != nil || byID.GetLogin() != "u2" {
		t.Fatalf("%+v %v", byID, err)
	}
	// GET /users pages by since with a next link.
	var all []string
	opt := &github.UserListOptions{PerPage: 2}
	for {
		page, resp, err := gh.Users.ListAll(ctx, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range page {
			all = append(all, p.GetLogin())
		}
		if resp.Header.Get("Link") == "" {
			break
		}
		opt.Since = page[len(page)-1].GetID()
	}
	want := []string{"hubadmin", "u1", "u2", "u3", "u4"}
	if len(all) != len(want) {
		t.Fatalf("users = %v, want %v", all, want)
	}
	for i := range want {
		if all[i] != want[i] {
			t.Fatalf("users = %v, want %v", all, want)
		}
	}
	r := e.Must(200, "GET", "/users?per_page=2", "", nil)
	if l := r.Header.Get("Link"); l == "" {
		t.Fatal("no Link header on a full page")
	}
}

func TestConventions(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)

	// Both bases serve the same routes.
	root := e.Must(200, "GET", e.URL+"/users/mona", "", nil)
	v3 := e.Must(200, "GET", "/users/mona", "", nil)
	if string(root.Body) != string(v3.Body) {
		t.Fatal("/ and /api/v3/ differ")
	}
	// ETag round trip: 304, not counted against the rate limit.
	first := e.Must(200, "GET", "/user", tok, nil)
	etag := first.Header.Get("ETag")
	if etag == "" || first.Header.Get("X-GitHub-Request-Id") == "" || first.Header.Get("X-GitHub-Media-Type") != "github.v3; format=json" {
		t.Fatalf("headers: %v", first.Header)
	}
	nm := e.Do("GET", "/user", tok, nil, "If-None-Match: "+etag)
	if nm.StatusCode != http.StatusNotModified || len(nm.Body) != 0 {
		t.Fatalf("If-None-Match: %d %s", nm.StatusCode, nm.Body)
	}
	if nm.Header.Get("X-RateLimit-Used") != first.Header.Get("X-RateLimit-Used") {
		t.Fatalf("a 304 was counted: used %s then %s", first.Header.Get("X-RateLimit-Used"), nm.Header.Get("X-RateLimit-Used"))
	}
	ims := e.Do("GET", "/user", tok, nil, "If-Modified-Since: "+first.Header.Get("Last-Modified"))
	if ims.StatusCode != http.StatusNotModified {
		t.Fatalf("If-Modified-Since: %d", ims.StatusCode)
	}
	// API versions.
	e.Must(200, "GET", "/user", tok, nil, "X-GitHub-Api-Version: 2022-11-28")
	bad := e.Must(400, "GET", "/user", tok, nil, "X-GitHub-Api-Version: 1999-01-01")
	if m := bad.Map(t); m["message"] == nil {
		t.Fatal(string(bad.Body))
	}
	// Credentials: token, Bearer and Basic.
	e.Must(200, "GET", "/user", "", nil, "Authorization: Bearer "+tok)
	e.Must(200, "GET", "/user", "", nil, "Authorization: Basic "+basic("mona", tok))
	e.Must(401, "GET", "/user", "", nil, "Authorization: Basic "+basic("mona", "wrong"))
	// Scopes headers and CORS.
	sc := e.Must(200, "GET", "/user", tok, nil)
	if sc.Header.Get("X-OAuth-Scopes") == "" || sc.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("headers: %v", sc.Header)
	}
	pre := e.Do("OPTIONS", "/user", "", nil, "Origin: http://example.com", "Access-Control-Request-Method: GET")
	if pre.StatusCode != 204 || pre.Header.Get("Access-Control-Allow-Methods") == "" {
		t.Fatalf("preflight: %d %v", pre.StatusCode, pre.Header)
	}
	// Raw media type is echoed.
	raw := e.Must(200, "GET", "/user", tok, nil, "Accept: application/vnd.github.raw+json")
	if raw.Header.Get("X-GitHub-Media-Type") != "github.v3; param=raw; format=json" {
		t.Fatal(raw.Header.Get("X-GitHub-Media-Type"))
	}
}

func basic(user, pass string) string {
	req, _ := http.NewRequest("GET", "/", nil)
	req.SetBasicAuth(user, pass)
	return req.Header.Get("Authorization")[len("Basic "):]
}

func TestOversizedBody(t *testing.T) {
	e := apitest.New(t, apitest.Options{MaxBody: 1024})
	_, tok := e.NewUser("mona", false)
	big := `{"bio":"` + strings.Repeat("x", 4096) + `"}`
	r := e.Must(413, "PATCH", "/user", tok, big)
	if m := r.Map(t); m["message"] == nil || m["documentation_url"] == nil {
		t.Fatalf("body %s", r.Body)
	}
	// Nothing was written.
	if m := e.Must(200, "GET", "/user", tok, nil).Map(t); m["bio"] != nil {
		t.Fatalf("bio = %v", m["bio"])
	}
}

func TestAvatarURLResolves(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	u, _, err := e.GitHub(tok).Users.Get(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	r := e.Must(200, "GET", u.GetAvatarURL(), "", nil)
	if r.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(string(r.Body), "<svg") {
		t.Fatalf("avatar: %s %.80s", r.Header.Get("Content-Type"), r.Body)
	}
	// The same account always draws the same picture; unknown ids are 404.
	if again := e.Must(200, "GET", u.GetAvatarURL(), "", nil); string(again.Body) != string(r.Body) {
		t.Fatal("avatar changed")
	}
	e.Must(404, "GET", e.URL+"/avatars/u/999999", "", nil)
}
