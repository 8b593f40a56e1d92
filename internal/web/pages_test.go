package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/store"
)

// work is a git working copy that pushes to a hubd repository.
type work struct {
	t   testing.TB
	dir string
}

func newWork(t testing.TB) *work {
	w := &work{t: t, dir: t.TempDir()}
	w.git("init", "-q", ".")
	return w
}

func (w *work) git(args ...string) {
	w.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Mona", "-c", "user.email=mona@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = w.dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func (w *work) write(files map[string]string) {
	for name, content := range files {
		p := filepath.Join(w.dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			w.t.Fatal(err)
		}
	}
}

func (w *work) commit(msg string, files map[string]string) {
	w.t.Helper()
	w.write(files)
	w.git("add", "-A")
	w.git("commit", "-q", "-m", msg)
}

func (w *work) push(e *apitest.Env, token, owner, name string, refs ...string) {
	w.t.Helper()
	u, _ := url.Parse(e.URL + "/" + owner + "/" + name + ".git")
	u.User = url.UserPassword("mona", token)
	w.git(append([]string{"push", "-q", u.String()}, refs...)...)
}

// browse GETs an html_url as a browser does, following redirects, and
// checks that it is a page (and that the anchor of its fragment exists).
func browse(t *testing.T, e *apitest.Env, htmlURL, token string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", htmlURL, nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
	if token != "" {
		req.SetBasicAuth("mona", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	body := string(b)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("%s: %d %s %.300s", htmlURL, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if _, frag, ok := strings.Cut(htmlURL, "#"); ok && !strings.Contains(body, `id="`+frag+`"`) {
		t.Fatalf("%s: no anchor %q in the page", htmlURL, frag)
	}
	return body
}

// htmlURLs collects every html_url (and _links.html, blob_url) of a JSON
// document.
func htmlURLs(t *testing.T, body []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%v: %.200s", err, body)
	}
	var out []string
	var walk func(v any, key string)
	walk = func(v any, key string) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if s, ok := c.(string); ok && (k == "html_url" || k == "blob_url" || (k == "html" && key == "_links")) && s != "" {
					out = append(out, s)
				}
				walk(c, k)
			}
		case []any:
			for _, c := range x {
				walk(c, key)
			}
		}
	}
	walk(v, "")
	return out
}

// TestEveryHTMLURLIsAPage follows every html_url of the API's answers for a
// repository with content, issues, comments, a milestone and labels.
func TestEveryHTMLURLIsAPage(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello"})
	w := newWork(t)
	w.commit("First", map[string]string{"README.md": "# Hi\n", "docs/a.md": "a\n", "src/x.go": "package x\n"})
	w.commit("Second", map[string]string{"src/x.go": "package x // changed\n", "docs/b.txt": "b\n"})
	w.git("checkout", "-q", "-b", "feature/x")
	w.commit("Feature", map[string]string{"f.txt": "f\n"})
	w.git("checkout", "-q", "main")
	w.git("tag", "v1")
	w.push(e, tok, "mona", "hello", "main", "feature/x", "v1")
	e.Must(201, "POST", "/repos/mona/hello/milestones", tok, map[string]any{"title": "v1.0"})
	e.Must(201, "POST", "/repos/mona/hello/labels", tok, map[string]any{"name": "needs triage/now", "color": "ff0000"})
	e.Must(201, "POST", "/repos/mona/hello/issues", tok, map[string]any{"title": "One", "milestone": 1, "labels": []string{"needs triage/now"}})
	e.Must(201, "POST", "/repos/mona/hello/issues/1/comments", tok, map[string]any{"body": "first"})
	e.Must(201, "POST", "/repos/mona/hello/issues/1/comments", tok, map[string]any{"body": "second"})
	e.Must(201, "POST", "/repos/mona/hello/releases", tok, map[string]any{"tag_name": "v1", "body": "Notes"})

	var urls []string
	for _, p := range []string{
		"/users/mona", "/repos/mona/hello", "/repos/mona/hello/issues/1", "/repos/mona/hello/issues/comments",
		"/repos/mona/hello/milestones/1", "/repos/mona/hello/contents/", "/repos/mona/hello/contents/docs",
		"/repos/mona/hello/contents/README.md", "/repos/mona/hello/commits", "/repos/mona/hello/commits/main",
		"/repos/mona/hello/branches/feature/x", "/repos/mona/hello/compare/main...feature/x",
		"/repos/mona/hello/git/commits/" + mustSHA(t, e, tok), "/repos/mona/hello/readme", "/repos/mona/hello/releases",
	} {
		r := e.Do("GET", p, tok, nil)
		if r.StatusCode != 200 {
			t.Fatalf("%s: %d %.200s", p, r.StatusCode, r.Body)
		}
		urls = append(urls, htmlURLs(t, r.Body)...)
	}
	seen := map[string]bool{}
	kinds := map[string]bool{}
	for _, u := range urls {
		if seen[u] {
			continue
		}
		seen[u] = true
		browse(t, e, u, tok)
		p := strings.TrimPrefix(u, e.URL)
		segs := strings.Split(strings.Trim(p, "/"), "/")
		switch {
		case len(segs) == 1:
			kinds["account"] = true
		case len(segs) == 2:
			kinds["repository"] = true
		default:
			kinds[strings.SplitN(segs[2], "#", 2)[0]] = true
		}
	}
	for _, k := range []string{"account", "repository", "issues", "milestone", "commit", "tree", "blob", "compare", "releases"} {
		if !kinds[k] {
			t.Errorf("no html_url of kind %q was followed (%v)", k, kinds)
		}
	}
	// The raw_url of a commit's files leads to the bytes.
	r := e.Must(200, "GET", "/repos/mona/hello/commits/main", tok, nil)
	var c struct {
		Files []struct {
			RawURL string `json:"raw_url"`
		} `json:"files"`
	}
	r.JSON(t, &c)
	if len(c.Files) == 0 {
		t.Fatal("no files")
	}
	for _, f := range c.Files {
		resp, err := http.Get(f.RawURL)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") || len(b) == 0 {
			t.Fatalf("%s: %d %s", f.RawURL, resp.StatusCode, b)
		}
	}
}

// content is a page without its head, for failure messages.
func content(body string) string {
	if _, after, ok := strings.Cut(body, "<body>"); ok {
		return after
	}
	return body
}

func mustSHA(t *testing.T, e *apitest.Env, tok string) string {
	t.Helper()
	var ref struct {
		Object struct{ SHA string } `json:"object"`
	}
	e.Must(200, "GET", "/repos/mona/hello/git/ref/heads/main", tok, nil).JSON(t, &ref)
	return ref.Object.SHA
}

func TestCodePages(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello"})
	w := newWork(t)
	big := strings.Repeat("0123456789abcdef\n", 70000) // > 1 MB
	long := strings.Repeat("x\n", 12000)               // short, but too many lines
	w.commit("Add the files <b>", map[string]string{
		"README.md":     "# Hello\n\nSee [the guide](docs/guide.md) and ![logo](docs/logo.png), [usage](#usage).\n\n## Usage\n",
		"docs/guide.md": "# Guide\n\nBack to [the readme](../README.md), [out](https://example.com/x).\n\n<script>alert(1)</script>\n",
		"docs/logo.png": "\x89PNG\r\n\x1a\n\x00\x00\x00binary",
		"src/main.go":   "package main\n\n// says <hello> & \"bye\"\nfunc main() {}\n",
		"src/big.txt":   big,
		"src/long.txt":  long,
		"weird <dir>/<img src=x onerror=alert(1)>.txt": "hostile\n",
	})
	w.git("checkout", "-q", "-b", "feature/x")
	w.commit("On a branch", map[string]string{"src/feature.txt": "feature\n"})
	w.git("checkout", "-q", "main")
	w.git("tag", "-a", "-m", "Release", "v1.0")
	w.push(e, tok, "mona", "hello", "main", "feature/x", "v1.0")

	for _, tc := range []struct {
		name, path   string
		status       int
		location     string
		contains     []string
		notContained []string
	}{
		{"root listing links files and directories", "/mona/hello", 200, "",
			[]string{`href="/mona/hello/tree/main/docs"`, `href="/mona/hello/blob/main/README.md"`,
				`href="/mona/hello/tree/main/weird%20%3Cdir%3E"`, `href="/mona/hello/blob/main/docs/guide.md"`,
				`src="` + e.URL + `/_raw/mona/hello/main/docs/logo.png"`, `href="#user-content-usage"`, `id="user-content-usage"`, `<svg class="icon"`, `Add the files &lt;b&gt;`},
			[]string{"📁", "📄"}},
		{"directory", "/mona/hello/tree/main/docs", 200, "",
			[]string{`href="/mona/hello/blob/main/docs/guide.md"`, `href="/mona/hello/blob/main/docs/logo.png"`, `href="/mona/hello/tree/main">hello</a>`},
			nil},
		{"hostile names are escaped", "/mona/hello/tree/main/weird%20%3Cdir%3E", 200, "",
			[]string{`&lt;img src=x onerror=alert(1)&gt;.txt`, `weird &lt;dir&gt;`, `href="/mona/hello/blob/main/weird%20%3Cdir%3E/%3Cimg%20src=x%20onerror=alert%281%29%3E.txt"`},
			[]string{`<img src=x`}},
		{"hostile file", "/mona/hello/blob/main/weird%20%3Cdir%3E/%3Cimg%20src=x%20onerror=alert%281%29%3E.txt", 200, "",
			[]string{"hostile", `&lt;img src=x onerror=alert(1)&gt;.txt`}, []string{`<img src=x`}},
		{"text file with line anchors", "/mona/hello/blob/main/src/main.go", 200, "",
			[]string{`id="L3"`, `// says &lt;hello&gt; &amp; &#34;bye&#34;`, "4 lines", "_raw/mona/hello/main/src/main.go"}, nil},
		{"markdown is rendered, relative links lead to pages", "/mona/hello/blob/main/docs/guide.md", 200, "",
			[]string{"Guide</h1>", `href="/mona/hello/blob/main/README.md"`, `href="https://example.com/x"`, `?plain=1`},
			[]string{"<script>"}},
		{"markdown source", "/mona/hello/blob/main/docs/guide.md?plain=1", 200, "", []string{"# Guide", `id="L1"`}, nil},
		{"binary file", "/mona/hello/blob/main/docs/logo.png", 200, "", []string{"Binary file", "_raw/mona/hello/main/docs/logo.png"}, []string{"PNG"}},
		{"huge file", "/mona/hello/blob/main/src/big.txt", 200, "", []string{"too large to show", "1.1 MB", "_raw/mona/hello/main/src/big.txt"}, []string{"0123456789abcdef"}},
		{"many lines", "/mona/hello/blob/main/src/long.txt", 200, "", []string{"too large to show", "23.4 KB"}, []string{`id="L1"`}},
		{"branch with a slash", "/mona/hello/tree/feature/x/src", 200, "", []string{`href="/mona/hello/blob/feature/x/src/feature.txt"`}, nil},
		{"branch root", "/mona/hello/tree/feature/x", 200, "", []string{"On a branch"}, nil},
		{"tag", "/mona/hello/tree/v1.0/src", 200, "", []string{`href="/mona/hello/blob/v1.0/src/main.go"`}, []string{"feature.txt"}},
		{"file on a branch with a slash", "/mona/hello/blob/feature/x/src/feature.txt", 200, "", []string{"feature"}, nil},
		{"tree of a file", "/mona/hello/tree/main/src/main.go", 301, "/mona/hello/blob/main/src/main.go", nil, nil},
		{"blob of a directory", "/mona/hello/blob/main/src", 301, "/mona/hello/tree/main/src", nil, nil},
		{"raw", "/mona/hello/raw/main/src/main.go", 302, "/_raw/mona/hello/main/src/main.go", nil, nil},
		{"history", "/mona/hello/commits", 200, "", []string{"Add the files &lt;b&gt;", "1 commit<"}, nil},
		{"history of a branch", "/mona/hello/commits/feature/x", 200, "", []string{"On a branch", "2 commits"}, nil},
		{"history of a file", "/mona/hello/commits/feature/x/src/feature.txt", 200, "", []string{"On a branch", "1 commit<"}, []string{"Add the files"}},
		{"commit by branch name", "/mona/hello/commit/feature/x", 200, "", []string{"On a branch", "src/feature.txt", `<span class="add">&#43;feature</span>`, "1 addition"}, nil},
		{"compare", "/mona/hello/compare/main...feature/x", 200, "", []string{"On a branch", "1 changed file"}, nil},
		{"unknown ref", "/mona/hello/tree/nope", 404, "", []string{"not the page"}, nil},
		{"unknown path", "/mona/hello/blob/main/nope.txt", 404, "", nil, nil},
		{"unknown commit", "/mona/hello/commit/0123456789012345678901234567890123456789", 404, "", nil, nil},
		{"path escaping the tree", "/mona/hello/blob/main/../../secret", 404, "", nil, nil},
		{"compare without a range", "/mona/hello/compare/main", 404, "", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := page(t, e, "GET", tc.path, "", "")
			if resp.StatusCode != tc.status || (tc.location != "" && resp.Header.Get("Location") != e.URL+tc.location) {
				t.Fatalf("%d %s %.400s", resp.StatusCode, resp.Header.Get("Location"), body)
			}
			for _, s := range tc.contains {
				if !strings.Contains(body, s) {
					t.Errorf("no %q in %s", s, content(body))
				}
			}
			for _, s := range tc.notContained {
				if strings.Contains(body, s) {
					t.Errorf("%q in %s", s, body)
				}
			}
		})
	}
}

// TestPrivatePages: every page of a private repository is a 404 for
// anonymous callers and unrelated users, exactly like the API.
func TestPrivatePages(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	_, otherTok := e.NewUser("other", false)
	collab, collabTok := e.NewUser("collab", false)
	var repo struct{ ID int64 }
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "secret", "private": true}).JSON(t, &repo)
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, repo.ID, collab.ID, authz.Read) }); err != nil {
		t.Fatal(err)
	}
	w := newWork(t)
	w.commit("Secret commit", map[string]string{"a.txt": "a\n", "d/b.md": "# B\n"})
	w.push(e, tok, "mona", "secret", "main")
	e.Must(201, "POST", "/repos/mona/secret/milestones", tok, map[string]any{"title": "m"})
	e.Must(201, "POST", "/repos/mona/secret/issues", tok, map[string]any{"title": "Secret issue", "milestone": 1, "labels": []string{"bug"}})
	e.Must(201, "POST", "/repos/mona/secret/issues/1/comments", tok, map[string]any{"body": "hush"})
	sha := ""
	{
		var ref struct {
			Object struct{ SHA string } `json:"object"`
		}
		e.Must(200, "GET", "/repos/mona/secret/git/ref/heads/main", tok, nil).JSON(t, &ref)
		sha = ref.Object.SHA
	}
	paths := []string{"/mona/secret", "/mona/secret/issues", "/mona/secret/issues?state=closed", "/mona/secret/issues/1",
		"/mona/secret/milestone/1", "/mona/secret/milestones", "/mona/secret/labels", "/mona/secret/labels/bug",
		"/mona/secret/tree/main/d", "/mona/secret/blob/main/a.txt", "/mona/secret/commit/" + sha, "/mona/secret/commits",
		"/mona/secret/compare/" + sha + "..." + sha}
	for _, p := range paths {
		for _, who := range []struct {
			name, token string
			status      int
		}{{"anonymous", "", 404}, {"unrelated user", otherTok, 404}, {"collaborator", collabTok, 200}, {"owner", tok, 200}} {
			resp, body := page(t, e, "GET", p, who.token, "")
			if resp.StatusCode != who.status {
				t.Errorf("%s as %s: %d %.200s", p, who.name, resp.StatusCode, body)
			}
			if who.status == 404 && (strings.Contains(body, "Secret") || strings.Contains(body, "hush")) {
				t.Errorf("%s as %s leaks: %s", p, who.name, body)
			}
		}
	}
	// The owner's profile lists the private repository only to those who
	// may see it.
	for _, who := range []struct {
		name, token string
		listed      bool
	}{{"anonymous", "", false}, {"unrelated user", otherTok, false}, {"collaborator", collabTok, true}, {"owner", tok, true}} {
		_, body := page(t, e, "GET", "/mona", who.token, "")
		if strings.Contains(body, `href="/mona/secret"`) != who.listed {
			t.Errorf("profile as %s: listed=%v: %s", who.name, !who.listed, body)
		}
	}
}

func TestAccountPages(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	e.Must(200, "PATCH", "/user", tok, map[string]any{"name": "Mona <script>", "bio": "Builds <things> & more", "blog": "javascript:alert(1)", "location": "Paris"})
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello", "description": "Says <b>hi</b>"})
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "octo", "admin": "mona"})
	e.Must(201, "POST", "/orgs/octo/repos", tok, map[string]any{"name": "tools"})
	e.Must(204, "PUT", "/orgs/octo/public_members/mona", tok, nil)

	resp, body := page(t, e, "GET", "/mona", "", "")
	if resp.StatusCode != 200 || !strings.Contains(body, "Mona &lt;script&gt;") || !strings.Contains(body, "Builds &lt;things&gt; &amp; more") ||
		!strings.Contains(body, `href="/mona/hello"`) || !strings.Contains(body, "Says &lt;b&gt;hi&lt;/b&gt;") ||
		!strings.Contains(body, "1 repository<") || !strings.Contains(body, `Organizations: <a href="/octo">octo</a>`) || !strings.Contains(body, `src="`+e.URL+`/avatars/u/`) ||
		strings.Contains(body, "javascript:") || strings.Contains(body, "<script>") || !strings.Contains(body, `<time datetime="`) {
		t.Fatalf("profile: %d %s", resp.StatusCode, content(body))
	}
	resp, body = page(t, e, "GET", "/octo", "", "")
	if resp.StatusCode != 200 || !strings.Contains(body, "Organization") || !strings.Contains(body, `href="/octo/tools"`) || !strings.Contains(body, `People: <a href="/mona">mona</a>`) {
		t.Fatalf("organization: %d %s", resp.StatusCode, body)
	}
	for _, tc := range []struct {
		name, path, accept string
		status             int
		location, contains string
	}{
		{"canonical case", "/MONA", "", 301, "/mona", ""},
		{"unknown account", "/nobody", "", 404, "", "not the page"},
		{"unknown account, not a browser", "/nobody", "application/json", 404, "", `"message":"Not Found"`},
		{"HEAD", "/mona", "", 200, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := "GET"
			if tc.name == "HEAD" {
				method = "HEAD"
			}
			resp, body := page(t, e, method, tc.path, "", tc.accept)
			if resp.StatusCode != tc.status || (tc.location != "" && resp.Header.Get("Location") != e.URL+tc.location) || !strings.Contains(body, tc.contains) {
				t.Fatalf("%d %s %.300s", resp.StatusCode, resp.Header.Get("Location"), body)
			}
		})
	}
}

func TestIssuePages(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello"})
	e.Must(201, "POST", "/repos/mona/hello/milestones", tok, map[string]any{"title": "v1 <beta>", "description": "The **first**."})
	e.Must(201, "POST", "/repos/mona/hello/labels", tok, map[string]any{"name": "good first/issue", "color": "7057ff"})
	e.Must(201, "POST", "/repos/mona/hello/issues", tok, map[string]any{"title": "Crash on <start>", "body": "It **breaks**.\n\n<img src=x onerror=alert(1)>",
		"milestone": 1, "labels": []string{"good first/issue"}})
	var comment struct {
		HTMLURL string `json:"html_url"`
	}
	e.Must(201, "POST", "/repos/mona/hello/issues/1/comments", hubotTok, map[string]any{"body": "Thanks <script>x</script> @mona"}).JSON(t, &comment)
	for i := 2; i <= 27; i++ {
		e.Must(201, "POST", "/repos/mona/hello/issues", tok, map[string]any{"title": fmt.Sprintf("Issue %d", i)})
	}
	e.Must(200, "PATCH", "/repos/mona/hello/issues/2", tok, map[string]any{"state": "closed"})

	// The issue: its author, labels, milestone and comments with anchors.
	body := browse(t, e, comment.HTMLURL, "")
	for _, s := range []string{`<a href="/hubot"><strong>hubot</strong></a>`, "1 comment<", `id="issuecomment-`, "<strong>breaks</strong>",
		`href="/mona/hello/labels/good%20first%2Fissue"`, `href="/mona/hello/milestone/1"`, "v1 &lt;beta&gt;", "Crash on &lt;start&gt;",
		`<a href="/mona"><strong>mona</strong></a>`} {
		if !strings.Contains(body, s) {
			t.Errorf("issue: no %q in %s", s, body)
		}
	}
	for _, s := range []string{"<script>", "<img src=x onerror", "ghost", "1 comments"} {
		if strings.Contains(body, s) {
			t.Errorf("issue: %q in %s", s, body)
		}
	}

	// The list: newest first, 25 a page, open and closed counts.
	_, body = page(t, e, "GET", "/mona/hello/issues", "", "")
	if !strings.Contains(body, "26 Open") || !strings.Contains(body, "1 Closed") || !strings.Contains(body, "Issue 27") ||
		strings.Contains(body, ">Crash on") || !strings.Contains(body, `href="/mona/hello/issues?page=2"`) {
		t.Fatalf("list: %s", content(body))
	}
	_, body = page(t, e, "GET", "/mona/hello/issues?page=2", "", "")
	if !strings.Contains(body, "Crash on &lt;start&gt;") || strings.Contains(body, "Issue 27") || !strings.Contains(body, `href="/mona/hello/issues"`) {
		t.Fatalf("page 2: %s", content(body))
	}
	_, body = page(t, e, "GET", "/mona/hello/issues?state=closed", "", "")
	if !strings.Contains(body, "Issue 2<") || strings.Contains(body, "Issue 3<") {
		t.Fatalf("closed: %s", content(body))
	}
	// A milestone and a label list their issues.
	_, body = page(t, e, "GET", "/mona/hello/milestone/1", "", "")
	if !strings.Contains(body, "Crash on &lt;start&gt;") || strings.Contains(body, "Issue 3<") || !strings.Contains(body, "<strong>first</strong>") || !strings.Contains(body, "1 Open") {
		t.Fatalf("milestone: %s", content(body))
	}
	_, body = page(t, e, "GET", "/mona/hello/labels/good%20first%2Fissue", "", "")
	if !strings.Contains(body, "Crash on &lt;start&gt;") || strings.Contains(body, "Issue 3<") || !strings.Contains(body, "color:#ffffff") {
		t.Fatalf("label: %s", content(body))
	}
	_, body = page(t, e, "GET", "/mona/hello/labels", "", "")
	if !strings.Contains(body, `href="/mona/hello/labels/good%20first%2Fissue"`) {
		t.Fatalf("labels: %s", content(body))
	}
	_, body = page(t, e, "GET", "/mona/hello/milestones", "", "")
	if !strings.Contains(body, `href="/mona/hello/milestone/1"`) || !strings.Contains(body, "1 Open") {
		t.Fatalf("milestones: %s", content(body))
	}
	for _, tc := range []struct {
		path     string
		status   int
		location string
	}{
		{"/mona/hello/milestone/9", 404, ""},
		{"/mona/hello/labels/nope", 404, ""},
		{"/mona/hello/issues/99", 404, ""},
		{"/mona/hello/issues/0", 404, ""},
		{"/MONA/Hello/issues?state=closed", 301, "/mona/hello/issues?state=closed"},
	} {
		resp, html := page(t, e, "GET", tc.path, "", "")
		if resp.StatusCode != tc.status || (tc.location != "" && resp.Header.Get("Location") != e.URL+tc.location) {
			t.Errorf("%s: %d %s %.200s", tc.path, resp.StatusCode, resp.Header.Get("Location"), html)
		}
	}
	// Issues disabled: the list and the issues lead to the repository.
	e.Must(200, "PATCH", "/repos/mona/hello", tok, map[string]any{"has_issues": false})
	for _, p := range []string{"/mona/hello/issues", "/mona/hello/issues/1"} {
		if resp, _ := page(t, e, "GET", p, "", ""); resp.StatusCode != 301 || resp.Header.Get("Location") != e.URL+"/mona/hello" {
			t.Errorf("%s with issues disabled: %d %s", p, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}

// TestPagesCountTraffic: every page of a repository is a view of its path.
func TestPagesCountTraffic(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello"})
	e.Must(201, "POST", "/repos/mona/hello/issues", tok, map[string]any{"title": "One"})
	for _, p := range []string{"/mona/hello", "/mona/hello/", "/mona/hello/issues", "/mona/hello/issues/1", "/mona/hello/issues/2"} {
		page(t, e, "GET", p, "", "")
	}
	hub, ok := e.Deps.Metrics.(interface{ Flush(context.Context) error })
	if !ok {
		t.Fatal("no metrics hub installed")
	}
	if err := hub.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	paths, _, err := e.GitHub(tok).Repositories.ListTrafficPaths(ctx, "mona", "hello")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, p := range paths {
		got[p.GetPath()] = p.GetCount()
	}
	want := map[string]int{"/mona/hello": 2, "/mona/hello/issues": 1, "/mona/hello/issues/1": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("paths: %v, want %v (%s)", got, want, github.Stringify(paths))
	}
}

// TestPagesAreSafe: headers every page carries, and no page uses a glyph a
// default font may lack.
func TestPagesAreSafe(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello"})
	w := newWork(t)
	w.commit("c", map[string]string{"d/a.txt": "a\n"})
	w.push(e, tok, "mona", "hello", "main")
	e.Must(201, "POST", "/repos/mona/hello/issues", tok, map[string]any{"title": "One"})
	odd := regexp.MustCompile(`[\x{2190}-\x{2BFF}\x{1F000}-\x{1FAFF}]`) // arrows, symbols, emoji
	for _, p := range []string{"/mona", "/mona/hello", "/mona/hello/tree/main/d", "/mona/hello/blob/main/d/a.txt", "/mona/hello/commits",
		"/mona/hello/commit/main", "/mona/hello/issues", "/mona/hello/issues/1", "/mona/hello/labels", "/mona/hello/milestones", "/mona/nope"} {
		resp, body := page(t, e, "GET", p, "", "")
		h := resp.Header
		if !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'none'") || h.Get("X-Content-Type-Options") != "nosniff" ||
			h.Get("X-Frame-Options") != "deny" || !strings.HasPrefix(body, "<!DOCTYPE html>") {
			t.Errorf("%s: %d %v", p, resp.StatusCode, h)
		}
		if m := odd.FindString(body); m != "" {
			t.Errorf("%s: glyph %q", p, m)
		}
		if strings.Contains(body, "<script") {
			t.Errorf("%s: script", p)
		}
	}
}

// TestReleasePage: a release's html_url shows its notes rendered as
// Markdown and links its assets at their browser_download_url; a draft's
// page (its untagged-... key) is seen only by those who may push.
func TestReleasePage(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("hello"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	rel, _, err := gh.Repositories.CreateRelease(ctx, "mona", "hello", github.CreateReleaseRequest{TagName: "v1.0/rc",
		Name: github.Ptr("First <release>"), Body: github.Ptr("## Changes\n\n* **bold** fix\n")})
	if err != nil {
		t.Fatal(err)
	}
	as, _, err := gh.Repositories.UploadReleaseAssetFromRelease(ctx, rel, &github.UploadOptions{Name: "app.tar.gz", Label: "Linux"},
		strings.NewReader("bytes"), 5)
	if err != nil {
		t.Fatal(err)
	}
	body := content(browse(t, e, rel.GetHTMLURL(), ""))
	for _, want := range []string{"First &lt;release&gt;", "Changes</h2>", "<strong>bold</strong>",
		`href="` + as.GetBrowserDownloadURL() + `"`, ">app.tar.gz</a>", "Linux", `href="` + rel.GetZipballURL() + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("release page lacks %q:\n%.3000s", want, body)
		}
	}
	draft, _, err := gh.Repositories.CreateRelease(ctx, "mona", "hello", github.CreateReleaseRequest{TagName: "v2", Draft: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(browse(t, e, draft.GetHTMLURL(), tok), "Draft") {
		t.Error("the draft's page does not say so")
	}
	for _, u := range []string{draft.GetHTMLURL(), e.URL + "/mona/hello/releases/tag/v9", e.URL + "/mona/hello/releases/tag"} {
		req, _ := http.NewRequest("GET", u, nil)
		req.Header.Set("Accept", "text/html")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("anonymous %s: %d", u, resp.StatusCode)
		}
	}
}
