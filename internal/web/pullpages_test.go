package web_test

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
)

const htmlAccept = "text/html,application/xhtml+xml,*/*;q=0.8"

// loop is a repository mona owns with a main branch, a feature branch
// changing a.txt and an issue (#1) the feature fixes; rita may read it.
type loop struct {
	e          *apitest.Env
	monaTok    string
	ritaTok    string
	mona, rita *apitest.Browser
	dir        string
}

func newLoop(t *testing.T) *loop {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, ritaTok := e.NewUser("rita", false)
	e.SetPassword("mona", "correct horse battery")
	e.SetPassword("rita", "correct horse battery")
	e.Must(201, "POST", "/user/repos", monaTok, map[string]any{"name": "app"})
	dir := t.TempDir()
	apitest.MustGit(t, dir, "init", "-q", ".")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	apitest.MustGit(t, dir, "add", ".")
	apitest.MustGit(t, dir, "commit", "-q", "-m", "First")
	apitest.MustGit(t, dir, "push", "-q", e.Remote("mona", "app", "mona", monaTok), "main:main")
	l := &loop{e: e, monaTok: monaTok, ritaTok: ritaTok, dir: dir}
	l.branch(t, "feature", "a.txt", "one\nTWO\nthree\nfour\n", "Shout two")
	e.Must(201, "POST", "/repos/mona/app/issues", monaTok, map[string]any{"title": "Two is too quiet"})
	l.mona, l.rita = e.Browser(), e.Browser()
	l.mona.Accept, l.rita.Accept = htmlAccept, htmlAccept
	l.mona.SignIn("mona", "correct horse battery")
	l.rita.SignIn("rita", "correct horse battery")
	return l
}

// branch pushes a branch off main with one commit changing file.
func (l *loop) branch(t *testing.T, name, file, content, msg string) {
	apitest.MustGit(t, l.dir, "checkout", "-q", "-B", name, "main")
	os.WriteFile(filepath.Join(l.dir, file), []byte(content), 0o644)
	apitest.MustGit(t, l.dir, "commit", "-q", "-am", msg)
	apitest.MustGit(t, l.dir, "push", "-q", l.e.Remote("mona", "app", "mona", l.monaTok), name+":"+name)
	apitest.MustGit(t, l.dir, "checkout", "-q", "main")
}

// collaborator makes rita a collaborator with write access (she accepts
// mona's invitation).
func (l *loop) collaborator(t *testing.T) {
	var inv struct {
		ID int64 `json:"id"`
	}
	l.e.Must(201, "PUT", "/repos/mona/app/collaborators/rita", l.monaTok, map[string]any{"permission": "push"}).JSON(t, &inv)
	l.e.Must(204, "PATCH", "/user/repository_invitations/"+strconv.FormatInt(inv.ID, 10), l.ritaTok, nil)
}

func must(t *testing.T, p *apitest.Page, status int, wants ...string) {
	t.Helper()
	if p.Status != status {
		t.Fatalf("status %d, want %d (Location %q)\n%.3000s", p.Status, status, p.Location, p.Body)
	}
	for _, w := range wants {
		if !strings.Contains(p.Body, w) {
			t.Fatalf("page lacks %q:\n%s", w, p.Body)
		}
	}
}

func post(t *testing.T, b *apitest.Browser, page *apitest.Page, action string, fields ...string) *apitest.Page {
	t.Helper()
	v := page.FormFor(action)
	if v == nil {
		t.Fatalf("no form posting to %s in:\n%s", action, page.Body)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		v.Set(fields[i], fields[i+1])
	}
	return b.Post(action, v)
}

// TestHome: / is the API root for API clients, a landing page for an
// anonymous browser and a dashboard for a signed-in one.
func TestHome(t *testing.T) {
	l := newLoop(t)
	e := l.e
	// API clients: JSON, as GitHub's api host.
	r := e.Do("GET", "/", "", nil)
	if r.StatusCode != 200 || !strings.Contains(string(r.Body), `"current_user_url"`) {
		t.Fatalf("API root: %d %s", r.StatusCode, r.Body)
	}
	r = e.Do("GET", "/", l.monaTok, nil, "Accept: text/html")
	if r.StatusCode != 200 || !strings.Contains(string(r.Body), `"current_user_url"`) {
		t.Fatalf("API root with a token: %d %s", r.StatusCode, r.Body)
	}
	anon := e.Browser()
	anon.Accept = htmlAccept
	must(t, anon.Get("/"), 200, `class="signin" href="/login?return_to=%2f"`, "<h1><strong>")
	// mona's dashboard: her repository, the issue assigned to her, the
	// pull request asking her review.
	e.Must(200, "PATCH", "/repos/mona/app/issues/1", l.monaTok, map[string]any{"assignees": []string{"mona"}})
	e.Must(201, "POST", "/repos/mona/app/pulls", l.monaTok, map[string]any{"title": "Shout", "head": "feature", "base": "main"})
	l.collaborator(t)
	e.RunJobs()
	home := l.mona.Get("/")
	must(t, home, 200, `<a href="/mona/app">mona/app</a>`, "Two is too quiet", `action="/logout"`, "Dashboard")
	// The header's sign-out form needs the CSRF token.
	if p := l.mona.Post("/logout", url.Values{}); p.Status != http.StatusForbidden {
		t.Fatalf("sign out without CSRF: %d", p.Status)
	}
	e.Must(201, "POST", "/repos/mona/app/pulls/2/requested_reviewers", l.monaTok, map[string]any{"reviewers": []string{"rita"}})
	must(t, l.rita.Get("/"), 200, "Review requests", `href="/mona/app/pull/2"`)
	if p := post(t, l.mona, home, "/logout"); p.Status != http.StatusFound {
		t.Fatalf("sign out: %d", p.Status)
	}
	must(t, l.mona.Get("/"), 200, "Sign in")
	// The header's jump box.
	if p := anon.Get("/search?q=mona/app"); p.Status != http.StatusFound || p.Location != "/mona/app" {
		t.Fatalf("jump: %d %s", p.Status, p.Location)
	}
	must(t, anon.Get("/search?q=nobody/nothing"), 200, "No repository or account you may see")
}

// TestPullRequestLoop opens a pull request from the compare page, reviews
// it with an inline comment from the diff as another user, merges it with
// squash, sees the linked issue closed and deletes the branch: every step
// a form of the pages.
func TestPullRequestLoop(t *testing.T) {
	l := newLoop(t)
	e := l.e
	l.collaborator(t)
	cmp := l.mona.Get("/mona/app/compare/main...feature")
	must(t, cmp, 200, "Open a pull request", `value="Shout two"`)
	action := "/mona/app/compare/main...feature"
	// A form without the CSRF token is refused, and writes nothing.
	if p := l.mona.Post(action, url.Values{"title": {"x"}}); p.Status != http.StatusForbidden {
		t.Fatalf("no CSRF: %d", p.Status)
	}
	// Anonymous readers are asked to sign in.
	anon := e.Browser()
	anon.Accept = htmlAccept
	must(t, anon.Get(action), 200, "to open a pull request")
	opened := post(t, l.mona, cmp, action, "title", "Shout two", "body", "Fixes #1")
	if opened.Status != http.StatusSeeOther || opened.Location != e.URL+"/mona/app/pull/2" {
		t.Fatalf("open: %d %s\n%s", opened.Status, opened.Location, opened.Body)
	}
	must(t, l.mona.Get(action), 200, "A pull request of these branches is open")
	e.RunJobs()
	pr := l.mona.Get("/mona/app/pull/2")
	must(t, pr, 200, `<span class="state open">`, `<code class="branch">main</code> ← <code class="branch">feature</code>`,
		`aria-current="page">Pull requests`, "Shout two", "Merge pull request", `value="squash"`)
	// rita opens a comment form on line 2 of the new a.txt from the diff.
	files := l.rita.Get("/mona/app/pull/2/files")
	must(t, files, 200, "a.txt", "Review changes", `href="?line=a.txt:RIGHT:2#LRIGHT2-diff-0"`)
	form := l.rita.Get("/mona/app/pull/2/files?line=a.txt:RIGHT:2")
	must(t, form, 200, "Comment on new line 2", `name="comment_body"`)
	// The form of the line is the second /review form (the first is the
	// review box at the top); post its fields.
	v := url.Values{}
	for _, f := range []string{"authenticity_token", "commit_id"} {
		v.Set(f, form.FormFor("/mona/app/pull/2/review").Get(f))
	}
	v.Set("path", "a.txt")
	v.Set("side", "RIGHT")
	v.Set("line", "2")
	v.Set("comment_body", "Louder is *better*.")
	v.Set("event", "APPROVE")
	rv := l.rita.Post("/mona/app/pull/2/review", v)
	if rv.Status != http.StatusSeeOther || strings.Contains(rv.Location, "flash=") {
		t.Fatalf("review: %d %s", rv.Status, rv.Location)
	}
	must(t, l.rita.Get("/mona/app/pull/2/files"), 200, "Louder is <em>better</em>.")
	// A bad line comes back as the service's refusal.
	v.Set("line", "99")
	bad := l.rita.Post("/mona/app/pull/2/review", v)
	if bad.Status != http.StatusSeeOther || !strings.Contains(bad.Location, "flash=") {
		t.Fatalf("bad line: %d %s", bad.Status, bad.Location)
	}
	pr = l.mona.Get("/mona/app/pull/2")
	must(t, pr, 200, "approved these changes", "Louder is <em>better</em>.", "a.txt", "&#43;TWO</span>")
	must(t, l.mona.Get("/mona/app/pulls"), 200, "Shout two", "Approved")
	must(t, l.mona.Get("/mona/app/pull/2/commits"), 200, "Shout two")
	// mona comments, then merges with squash.
	if p := post(t, l.mona, pr, "/mona/app/pull/2/comments", "body", "Thanks!"); p.Status != http.StatusSeeOther {
		t.Fatalf("comment: %d", p.Status)
	}
	pr = l.mona.Get("/mona/app/pull/2")
	must(t, pr, 200, "Thanks!")
	merged := post(t, l.mona, pr, "/mona/app/pull/2/merge", "merge_method", "squash")
	if merged.Status != http.StatusSeeOther || strings.Contains(merged.Location, "flash=") {
		t.Fatalf("merge: %d %s", merged.Status, merged.Location)
	}
	e.RunJobs()
	pr = l.mona.Get("/mona/app/pull/2")
	must(t, pr, 200, `<span class="state merged">`, "Pull request successfully merged and closed", "Delete branch")
	r := e.Must(200, "GET", "/repos/mona/app/issues/1", l.monaTok, nil)
	if !strings.Contains(string(r.Body), `"state":"closed"`) {
		t.Fatalf("the linked issue is open: %s", r.Body)
	}
	must(t, l.mona.Get("/mona/app/issues/1"), 200, "Closed")
	// rita may write too; anonymous readers may not delete the branch.
	if p := anon.Post("/mona/app/pull/2/delete-branch", url.Values{}); p.Status != http.StatusForbidden {
		t.Fatalf("anonymous delete: %d", p.Status)
	}
	if p := post(t, l.mona, pr, "/mona/app/pull/2/delete-branch"); p.Status != http.StatusSeeOther || strings.Contains(p.Location, "flash=") {
		t.Fatalf("delete branch: %d %s", p.Status, p.Location)
	}
	e.Must(404, "GET", "/repos/mona/app/branches/feature", l.monaTok, nil)
	must(t, l.mona.Get("/mona/app/pull/2"), 200, "The head branch was deleted.")
	must(t, l.mona.Get("/mona/app/pulls?state=closed"), 200, "Shout two", `<span class="state merged small"`)
}

// TestMergeBlocked: branch protection's required review blocks the merge
// box with GitHub's reason, and a merge posted anyway is refused.
func TestMergeBlocked(t *testing.T) {
	l := newLoop(t)
	e := l.e
	e.Must(200, "PUT", "/repos/mona/app/branches/main/protection", l.monaTok, map[string]any{
		"required_status_checks": nil, "enforce_admins": true, "restrictions": nil,
		"required_pull_request_reviews": map[string]any{"required_approving_review_count": 1}})
	e.Must(201, "POST", "/repos/mona/app/pulls", l.monaTok, map[string]any{"title": "Shout", "head": "feature", "base": "main"})
	e.RunJobs()
	pr := l.mona.Get("/mona/app/pull/2")
	must(t, pr, 200, "Merging is blocked", "approving review")
	p := post(t, l.mona, pr, "/mona/app/pull/2/merge", "merge_method", "merge")
	if p.Status != http.StatusSeeOther || !strings.Contains(p.Location, "flash=") {
		t.Fatalf("blocked merge: %d %s", p.Status, p.Location)
	}
	must(t, l.mona.Get(strings.TrimPrefix(p.Location, e.URL)), 200, `role="alert"`, "approving review")
	// rita may read the public repository but not merge.
	must(t, l.rita.Get("/mona/app/pull/2"), 200, "Only those with write access")
}

// TestPrivatePullPages: a private repository's pull request pages are 404
// to anonymous readers and to signed-in users without access.
func TestPrivatePullPages(t *testing.T) {
	l := newLoop(t)
	e := l.e
	e.Must(200, "PATCH", "/repos/mona/app", l.monaTok, map[string]any{"private": true})
	e.Must(201, "POST", "/repos/mona/app/pulls", l.monaTok, map[string]any{"title": "Shout", "head": "feature", "base": "main"})
	anon := e.Browser()
	anon.Accept = htmlAccept
	for _, path := range []string{"/mona/app/pulls", "/mona/app/pull/2", "/mona/app/pull/2/files", "/mona/app/pull/2/commits", "/mona/app/compare/main...feature"} {
		must(t, anon.Get(path), 404)
		must(t, l.rita.Get(path), 404)
		must(t, l.mona.Get(path), 200)
	}
	// A form to a page rita may not see is a 404 too (after the CSRF
	// check), and writes nothing.
	v := l.mona.Get("/mona/app/pull/2").FormFor("/mona/app/pull/2/comments")
	ritaHome := l.rita.Get("/")
	v.Set("authenticity_token", ritaHome.FormFor("/logout").Get("authenticity_token"))
	v.Set("body", "sneaky")
	if p := l.rita.Post("/mona/app/pull/2/comments", v); p.Status != 404 {
		t.Fatalf("rita's comment: %d", p.Status)
	}
	if r := e.Must(200, "GET", "/repos/mona/app/issues/2/comments", l.monaTok, nil); strings.Contains(string(r.Body), "sneaky") {
		t.Fatal("rita commented")
	}
}

// TestIssueForms: an issue's page comments, closes and reopens through
// the issues service, with its events in the timeline.
func TestIssueForms(t *testing.T) {
	l := newLoop(t)
	e := l.e
	is := l.rita.Get("/mona/app/issues/1")
	must(t, is, 200, "Add a comment", "Close as not planned")
	if p := l.rita.Post("/mona/app/issues/1/comments", url.Values{"body": {"no token"}}); p.Status != http.StatusForbidden {
		t.Fatalf("no CSRF: %d", p.Status)
	}
	if p := post(t, l.rita, is, "/mona/app/issues/1/comments", "body", "Me too, **loudly**."); p.Status != http.StatusSeeOther || strings.Contains(p.Location, "flash=") {
		t.Fatalf("rita's comment: %d %s", p.Status, p.Location)
	}
	// rita may comment on mona's public issue but not close it.
	p := post(t, l.rita, is, "/mona/app/issues/1/close")
	if p.Status != http.StatusSeeOther || !strings.Contains(p.Location, "flash=") {
		t.Fatalf("rita closes: %d %s", p.Status, p.Location)
	}
	is = l.mona.Get("/mona/app/issues/1")
	must(t, is, 200, "Me too, <strong>loudly</strong>.", `<span class="state">`)
	if p := post(t, l.mona, is, "/mona/app/issues/1/comments", "body", "Fixed by hand.", "close", "1"); p.Status != http.StatusSeeOther || strings.Contains(p.Location, "flash=") {
		t.Fatalf("close with comment: %d %s", p.Status, p.Location)
	}
	is = l.mona.Get("/mona/app/issues/1")
	must(t, is, 200, "Fixed by hand.", `<span class="state closed">`, "closed this", "Reopen issue")
	if p := post(t, l.mona, is, "/mona/app/issues/1/reopen"); p.Status != http.StatusSeeOther {
		t.Fatalf("reopen: %d", p.Status)
	}
	must(t, l.mona.Get("/mona/app/issues/1"), 200, "reopened this", "Close as not planned")
	r := e.Must(200, "GET", "/repos/mona/app/issues/1", l.monaTok, nil)
	if !strings.Contains(string(r.Body), `"state":"open"`) || !strings.Contains(string(r.Body), `"comments":2`) {
		t.Fatalf("issue: %s", r.Body)
	}
	// The forms' addresses are not pages.
	must(t, l.mona.Get("/mona/app/issues/1/close"), 404)
}
