// TestGhGraphQL runs the gh commands that need hubd's GraphQL endpoint
// (POST /api/graphql) first: auth login, repo clone/view, issue and pr
// list/view/create, pr checkout, release list; TestGhCommands
// (commands_test.go) runs the rest.

package ghcli_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// world is the data the GraphQL tests and the capture tool run gh on:
// mona's repository hello (a README on main, issues 1 and 2 open with 1
// labelled bug, issue 3 closed, pull request 4 from branch feature) and the
// organization acme, of which mona is a member.
type world struct {
	e       *apitest.Env
	tok     string
	mainSHA string
	featSHA string
}

func newWorld(t *testing.T, e *apitest.Env) *world {
	t.Helper()
	_, tok := e.NewUser("mona", false)
	w := &world{e: e, tok: tok}
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello", "description": "A repository for gh", "auto_init": true})
	e.Must(201, "POST", "/admin/organizations", e.AdminToken, map[string]any{"login": "acme", "admin": "mona"})
	e.Must(201, "POST", "/repos/mona/hello/issues", tok, map[string]any{"title": "First bug", "body": "It breaks.", "labels": []string{"bug"}})
	e.Must(201, "POST", "/repos/mona/hello/issues", tok, map[string]any{"title": "Second issue", "body": "Another one."})
	e.Must(201, "POST", "/repos/mona/hello/issues", tok, map[string]any{"title": "Old issue"})
	e.Must(200, "PATCH", "/repos/mona/hello/issues/3", tok, map[string]any{"state": "closed"})
	w.mainSHA = branchSHA(t, e, tok, "mona/hello", "main")
	e.Must(201, "POST", "/repos/mona/hello/git/refs", tok, map[string]any{"ref": "refs/heads/feature", "sha": w.mainSHA})
	e.Must(201, "PUT", "/repos/mona/hello/contents/feature.txt", tok, map[string]any{"message": "Add feature", "branch": "feature",
		"content": base64.StdEncoding.EncodeToString([]byte("a feature\n"))})
	w.featSHA = branchSHA(t, e, tok, "mona/hello", "feature")
	pr := e.Must(201, "POST", "/repos/mona/hello/pulls", tok, map[string]any{"title": "Add a feature", "head": "feature", "base": "main", "body": "Please merge."}).Map(t)
	if pr["number"] != float64(4) {
		t.Fatalf("pull request number = %v, want 4", pr["number"])
	}
	return w
}

func branchSHA(t *testing.T, e *apitest.Env, tok, repo, branch string) string {
	t.Helper()
	var b struct {
		Commit struct {
			SHA string `json:"sha"`
		} `json:"commit"`
	}
	e.Must(200, "GET", "/repos/"+repo+"/branches/"+branch, tok, nil).JSON(t, &b)
	return b.Commit.SHA
}

// rows splits gh's non-terminal table output into tab-separated fields.
func rows(out string) map[string][]string {
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, "\t")
		m[f[0]] = f
	}
	return m
}

func TestGhGraphQL(t *testing.T) {
	e := apitest.New(t)
	w := newWorld(t, e)
	probe := e.Do("POST", e.URL+"/api/graphql", w.tok, map[string]any{"query": "query UserCurrent{viewer{login}}"})
	if probe.StatusCode != 200 || !strings.Contains(string(probe.Body), `"login":"mona"`) {
		t.Fatalf("hubd answers POST /api/graphql {viewer{login}} with %d %.300s: gh needs GraphQL for these tests (auth login, repo clone, issue and pr commands)",
			probe.StatusCode, probe.Body)
	}
	g0 := ghcli.Start(t, e)

	t.Run("auth login --with-token", func(t *testing.T) {
		g := g0.For(t)
		g.MustIn(g.Home, w.tok+"\n", "auth", "login", "--hostname", ghcli.Host, "--with-token", "--insecure-storage", "--git-protocol", "https")
		hosts, err := os.ReadFile(filepath.Join(g.ConfigDir, "hosts.yml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"hubd.test:", "user: mona", "oauth_token: " + w.tok, "git_protocol: https"} {
			if !strings.Contains(string(hosts), want) {
				t.Fatalf("hosts.yml lacks %q:\n%s", want, hosts)
			}
		}
		out := g.Must("auth", "status", "--hostname", ghcli.Host)
		if !strings.Contains(out, "Logged in to hubd.test account mona") {
			t.Fatalf("gh auth status:\n%s", out)
		}
	})
	// The later subtests need the login whether or not the one above passed.
	g0.LoginAs("mona", w.tok)

	t.Run("repo clone", func(t *testing.T) {
		g := g0.For(t)
		g.Must("repo", "clone", "mona/hello")
		dir := filepath.Join(g.Home, "hello")
		if head := g.Git(dir, "rev-parse", "HEAD"); head != w.mainSHA {
			t.Fatalf("clone HEAD %s, branch main %s", head, w.mainSHA)
		}
		if b := g.Git(dir, "symbolic-ref", "--short", "HEAD"); b != "main" {
			t.Fatalf("clone is on %q, want main", b)
		}
		if u := g.Git(dir, "remote", "get-url", "origin"); u != "https://hubd.test/mona/hello.git" {
			t.Fatalf("origin = %q", u)
		}
	})

	t.Run("repo view", func(t *testing.T) {
		g := g0.For(t)
		out := g.Must("repo", "view", "mona/hello")
		for _, want := range []string{"name:\tmona/hello\n", "description:\tA repository for gh\n", "--\n", "# hello"} {
			if !strings.Contains(out, want) {
				t.Fatalf("gh repo view lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("issue list", func(t *testing.T) {
		g := g0.For(t)
		got := rows(g.Must("issue", "list", "-R", "mona/hello"))
		if r := got["1"]; len(r) < 4 || r[1] != "OPEN" || r[2] != "First bug" || r[3] != "bug" {
			t.Fatalf("issue 1 row = %q (all: %q)", r, got)
		}
		if r := got["2"]; len(r) < 3 || r[1] != "OPEN" || r[2] != "Second issue" {
			t.Fatalf("issue 2 row = %q (all: %q)", r, got)
		}
		if _, ok := got["3"]; ok {
			t.Fatalf("closed issue 3 listed: %q", got)
		}
		if _, ok := got["4"]; ok {
			t.Fatalf("pull request 4 listed as an issue: %q", got)
		}
		closed := rows(g.Must("issue", "list", "-R", "mona/hello", "--state", "closed"))
		if r := closed["3"]; len(r) < 3 || r[1] != "CLOSED" || r[2] != "Old issue" || len(closed) != 1 {
			t.Fatalf("closed issues = %q", closed)
		}
	})
	t.Run("issue create", func(t *testing.T) {
		g := g0.For(t)
		out := strings.TrimSpace(g.Must("issue", "create", "-R", "mona/hello", "--title", "Made by gh", "--body", "gh issue create wrote this", "--label", "bug"))
		if !strings.HasSuffix(out, "/mona/hello/issues/5") {
			t.Fatalf("gh issue create printed %q, want the URL of issue 5", out)
		}
		got := e.Must(200, "GET", "/repos/mona/hello/issues/5", w.tok, nil).Map(t)
		labels, _ := got["labels"].([]any)
		if got["title"] != "Made by gh" || got["body"] != "gh issue create wrote this" || got["state"] != "open" || len(labels) != 1 {
			t.Fatalf("stored issue 5 = %v", got)
		}
	})

	t.Run("pr list", func(t *testing.T) {
		g := g0.For(t)
		got := rows(g.Must("pr", "list", "-R", "mona/hello"))
		if r := got["4"]; len(r) < 4 || r[1] != "Add a feature" || r[2] != "feature" || r[3] != "OPEN" {
			t.Fatalf("pull request 4 row = %q (all: %q)", r, got)
		}
	})
	t.Run("pr checkout", func(t *testing.T) {
		g := g0.For(t)
		dir := filepath.Join(g.Home, "hello")
		if _, err := os.Stat(dir); err != nil {
			g.Must("repo", "clone", "mona/hello")
		}
		g.MustIn(dir, "", "pr", "checkout", "4")
		if b := g.Git(dir, "symbolic-ref", "--short", "HEAD"); b != "feature" {
			t.Fatalf("on branch %q after gh pr checkout, want feature", b)
		}
		if head := g.Git(dir, "rev-parse", "HEAD"); head != w.featSHA {
			t.Fatalf("HEAD %s after gh pr checkout, want %s", head, w.featSHA)
		}
	})

	t.Run("pr create", func(t *testing.T) {
		g := g0.For(t)
		dir := filepath.Join(g.Home, "hello")
		if _, err := os.Stat(dir); err != nil {
			g.Must("repo", "clone", "mona/hello")
		}
		g.Git(dir, "checkout", "-B", "topic", "origin/main")
		if err := os.WriteFile(filepath.Join(dir, "topic.txt"), []byte("a topic\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		g.Git(dir, "add", "topic.txt")
		g.Git(dir, "commit", "-m", "Add topic")
		// gh repo clone gives git gh's credentials for the clone only; a
		// push takes them from gh auth setup-git, as a user's would.
		g.Must("auth", "setup-git", "--hostname", ghcli.Host)
		g.Git(dir, "push", "origin", "topic")
		out := strings.TrimSpace(g.MustIn(dir, "", "pr", "create", "--title", "A topic", "--body", "From gh pr create", "--base", "main", "--head", "topic"))
		if !strings.HasSuffix(out, "/mona/hello/pull/6") {
			t.Fatalf("gh pr create printed %q, want the URL of pull request 6", out)
		}
		got := e.Must(200, "GET", "/repos/mona/hello/pulls/6", w.tok, nil).Map(t)
		head, _ := got["head"].(map[string]any)
		if got["title"] != "A topic" || got["body"] != "From gh pr create" || head["ref"] != "topic" || head["sha"] != g.Git(dir, "rev-parse", "HEAD") {
			t.Fatalf("stored pull request 6 = %v", got)
		}
	})
	t.Run("issue view", func(t *testing.T) {
		g := g0.For(t)
		out := g.Must("issue", "view", "1", "-R", "mona/hello")
		for _, want := range []string{"title:\tFirst bug\n", "state:\tOPEN\n", "author:\tmona\n", "labels:\tbug\n", "number:\t1\n", "It breaks."} {
			if !strings.Contains(out, want) {
				t.Fatalf("gh issue view lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("pr view", func(t *testing.T) {
		g := g0.For(t)
		out := g.Must("pr", "view", "4", "-R", "mona/hello")
		for _, want := range []string{"title:\tAdd a feature\n", "state:\tOPEN\n", "author:\tmona\n", "number:\t4\n", "Please merge."} {
			if !strings.Contains(out, want) {
				t.Fatalf("gh pr view lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("issue list --label", func(t *testing.T) {
		g := g0.For(t)
		var list []struct {
			Number int    `json:"number"`
			Title  string `json:"title"`
			State  string `json:"state"`
			Author struct {
				Login string `json:"login"`
			} `json:"author"`
			Labels []struct {
				Name string `json:"name"`
			} `json:"labels"`
		}
		decode(t, g.Must("issue", "list", "-R", "mona/hello", "--label", "bug", "--json", "number,title,state,author,labels"), &list)
		// Issue 1 and issue 5 (made by gh issue create above) carry bug.
		if len(list) != 2 || list[0].Number != 5 || list[1].Number != 1 || list[1].State != "OPEN" || list[1].Author.Login != "mona" ||
			len(list[1].Labels) != 1 || list[1].Labels[0].Name != "bug" {
			t.Fatalf("issue list --label bug --json = %+v", list)
		}

	})
	t.Run("release list", func(t *testing.T) {
		g := g0.For(t)
		for _, tag := range []string{"v1.0.0", "v1.1.0"} {
			e.Must(201, "POST", "/repos/mona/hello/releases", w.tok, map[string]any{"tag_name": tag, "name": "Release " + tag})
		}
		out := g.Must("release", "list", "-R", "mona/hello")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "Release v1.1.0\tLatest\tv1.1.0\t") || !strings.HasPrefix(lines[1], "Release v1.0.0\t\tv1.0.0\t") {
			t.Fatalf("gh release list:\n%s", out)
		}
	})
}
