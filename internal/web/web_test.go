package web_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// page GETs a path like a browser (Accept: text/html unless accept says
// otherwise), without following redirects.
func page(t *testing.T, e *apitest.Env, method, path, token, accept string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, e.URL+path, nil)
	if accept == "" {
		accept = "text/html,application/xhtml+xml,*/*;q=0.8"
	}
	req.Header.Set("Accept", accept)
	if token != "" {
		req.SetBasicAuth("mona", token)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func push(t *testing.T, e *apitest.Env, token, owner, name string, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=Mona", "-c", "user.email=mona@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", ".")
	for name, content := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	run("add", ".")
	run("commit", "-q", "-m", "Add the files")
	u, _ := url.Parse(e.URL + "/" + owner + "/" + name + ".git")
	u.User = url.UserPassword("mona", token)
	run("push", "-q", u.String(), "main:main")
}

func TestRepositoryPage(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("hello"), Description: github.Ptr("Says <hello>."), Homepage: github.Ptr("javascript:alert(1)")}); err != nil {
		t.Fatal(err)
	}
	// An empty repository has a page too.
	resp, body := page(t, e, "GET", "/mona/hello", "", "")
	if resp.StatusCode != 200 || !strings.Contains(body, "This repository is empty.") || !strings.Contains(body, "<title>mona/hello: Says &lt;hello&gt;.</title>") {
		t.Fatalf("empty: %d %s", resp.StatusCode, body)
	}
	if strings.Contains(body, "javascript:alert") && !strings.Contains(body, "#ZgotmplZ") {
		t.Fatalf("unsafe homepage link: %s", body)
	}
	push(t, e, tok, "mona", "hello", map[string]string{
		"README.md": "# Hello\n\nSee *docs*.\n\n<script>alert(1)</script>\n",
		"docs/a.md": "a\n",
	})
	resp, body = page(t, e, "GET", "/mona/hello", "", "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
		!strings.Contains(body, "Hello</h1>") || !strings.Contains(body, "<em>docs</em>") ||
		strings.Contains(body, "<script>") || !strings.Contains(body, "docs") || !strings.Contains(body, "Add the files") ||
		!strings.Contains(body, e.URL+"/mona/hello.git") {
		t.Fatalf("page: %d %s", resp.StatusCode, body)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Fatalf("csp: %q", csp)
	}

	for _, tc := range []struct {
		name, method, path, token, accept string
		status                            int
		location, contains                string
	}{
		{"HEAD", "HEAD", "/mona/hello", "", "", 200, "", ""},
		{"trailing slash", "GET", "/mona/hello/", "", "", 200, "", "Hello"},
		{"canonical case", "GET", "/Mona/HELLO", "", "", 301, "/mona/hello", ""},
		{"clone URL", "GET", "/mona/hello.git", "", "", 301, "/mona/hello", ""},
		{"unknown repository", "GET", "/mona/nope", "", "", 404, "", "not the page"},
		{"unknown repository, not a browser", "GET", "/mona/nope", "", "application/json", 404, "", `"message":"Not Found"`},
		{"not a page", "GET", "/mona/hello/wiki", "", "", 404, "", `"message":"Not Found"`},
		{"API paths are not pages", "GET", "/api/v3/mona/hello", "", "", 404, "", `"message":"Not Found"`},
		{"bad credentials", "GET", "/mona/hello", "nope", "", 401, "", "Bad credentials"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := page(t, e, tc.method, tc.path, tc.token, tc.accept)
			if resp.StatusCode != tc.status || (tc.location != "" && resp.Header.Get("Location") != e.URL+tc.location) || !strings.Contains(body, tc.contains) {
				t.Fatalf("%d %s %s", resp.StatusCode, resp.Header.Get("Location"), body)
			}
		})
	}

	// A renamed repository's pages redirect to the new name.
	if _, _, err := gh.Repositories.Edit(ctx, "mona", "hello", &github.Repository{Name: github.Ptr("world")}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/mona/hello":                         "/mona/world",
		"/mona/hello/blob/main/docs/a.md":     "/mona/world/blob/main/docs/a.md",
		"/mona/hello/issues?state=closed":     "/mona/world/issues?state=closed",
		"/mona/hello/tree/main/docs%20x/y%3F": "/mona/world/tree/main/docs%20x/y%3F",
	} {
		resp, _ = page(t, e, "GET", path, "", "")
		if resp.StatusCode != 301 || resp.Header.Get("Location") != e.URL+want {
			t.Errorf("renamed %s: %d %s", path, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}

func TestPrivateRepositoryPage(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	_, otherTok := e.NewUser("other", false)
	if _, _, err := e.GitHub(tok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, token string
		status      int
	}{
		{"anonymous", "", 404},
		{"another user", otherTok, 404},
		{"the owner", tok, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if resp, body := page(t, e, "GET", "/mona/secret", tc.token, ""); resp.StatusCode != tc.status {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
		})
	}
}

func TestIssuePage(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	r, _, err := e.GitHub(tok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("hello")})
	if err != nil {
		t.Fatal(err)
	}
	body := "It **breaks**.\n\n<img src=x onerror=alert(1)>"
	issue := &model.Issue{RepoID: r.GetID(), Title: "Crash on <start>", Body: &body, UserID: mona.ID}
	pull := &model.Issue{RepoID: r.GetID(), Title: "Fix the crash", UserID: mona.ID, IsPull: true}
	err = e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateIssue(ctx, issue); err != nil {
			return err
		}
		return tx.CreateIssue(ctx, pull)
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, html := page(t, e, "GET", "/mona/hello/issues/1", "", "")
	if resp.StatusCode != 200 || !strings.Contains(html, "<title>Crash on &lt;start&gt; · Issue #1 · mona/hello</title>") ||
		!strings.Contains(html, "<strong>breaks</strong>") || strings.Contains(html, "<img src=x") || !strings.Contains(html, "mona") {
		t.Fatalf("issue: %d %s", resp.StatusCode, html)
	}
	for _, tc := range []struct {
		path     string
		status   int
		location string
	}{
		{"/mona/hello/pull/2", 200, ""},
		{"/mona/hello/issues/2", 301, "/mona/hello/pull/2"},
		{"/mona/hello/pull/1", 301, "/mona/hello/issues/1"},
		{"/mona/hello/issues/3", 404, ""},
		{"/mona/hello/issues/x", 404, ""},
	} {
		resp, html := page(t, e, "GET", tc.path, "", "")
		if resp.StatusCode != tc.status || (tc.location != "" && resp.Header.Get("Location") != e.URL+tc.location) {
			t.Errorf("%s: %d %s %.200s", tc.path, resp.StatusCode, resp.Header.Get("Location"), html)
		}
	}
}
