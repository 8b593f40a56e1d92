package ghcli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// gh's REST side, which needs no GraphQL: auth status, the token checks of
// auth login, gh api reads and writes, and hubd's errors as gh shows them.
func TestGhREST(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "hello", "auto_init": true})
	g0 := ghcli.Start(t, e)

	t.Run("not logged in", func(t *testing.T) {
		g := g0.For(t)
		// gh api sends an enterprise host's request without a token when
		// it has none, and shows GitHub's 401 message.
		r := g.Run("api", "user")
		if r.Code != 1 || !strings.Contains(r.Stderr, "gh: Requires authentication (HTTP 401)") || len(r.Requests) != 1 || r.Requests[0].Auth != "" {
			t.Fatalf("want gh's 401 message for a request without a token:\n%s", r)
		}
		// With GH_HOST set, gh checks the host with no token: hubd's root
		// answers 401 and gh reports the login as failed.
		r = g.Run("auth", "status")
		if r.Code != 1 || !strings.Contains(r.Stderr, "Failed to log in to hubd.test") {
			t.Fatalf("want a failed login:\n%s", r)
		}
	})

	t.Run("auth status with a bad token", func(t *testing.T) {
		g := g0.For(t)
		g.LoginAs("mona", "ghp_"+strings.Repeat("0", 36))
		r := g.Run("auth", "status", "--hostname", ghcli.Host)
		if r.Code != 1 || !strings.Contains(r.Stdout+r.Stderr, "Failed to log in to hubd.test account mona") {
			t.Fatalf("want a failed login:\n%s", r)
		}
	})

	t.Run("auth status with too few scopes", func(t *testing.T) {
		g := g0.For(t)
		g.LoginAs("mona", e.Token(mona, "repo"))
		r := g.Run("auth", "status", "--hostname", ghcli.Host)
		out := r.Stdout + r.Stderr
		if !strings.Contains(out, "Token scopes: 'repo'") || !strings.Contains(out, "Missing required token scopes: 'read:org'") {
			t.Fatalf("want the missing read:org scope:\n%s", r)
		}
	})

	// gh auth login --with-token checks the token's scopes on the REST root
	// before it asks GraphQL who the token belongs to (TestGhGraphQL logs
	// in for real).
	t.Run("auth login refuses a token without read:org", func(t *testing.T) {
		g := g0.For(t)
		weak := e.Token(mona, "repo,user")
		r := g.RunIn(g.Home, weak+"\n", "auth", "login", "--hostname", ghcli.Host, "--with-token", "--insecure-storage")
		if r.Code != 1 || !strings.Contains(r.Stderr, "error validating token: missing required scope 'read:org'") {
			t.Fatalf("want gh's missing scope error:\n%s", r)
		}
		if hosts, _ := os.ReadFile(filepath.Join(g.ConfigDir, "hosts.yml")); strings.Contains(string(hosts), weak) {
			t.Fatalf("gh stored the refused token:\n%s", hosts)
		}
	})

	t.Run("auth login refuses a bad token", func(t *testing.T) {
		g := g0.For(t)
		r := g.RunIn(g.Home, "ghp_"+strings.Repeat("1", 36)+"\n", "auth", "login", "--hostname", ghcli.Host, "--with-token", "--insecure-storage")
		if r.Code != 1 || !strings.Contains(r.Stderr, "error validating token: HTTP 401: Bad credentials (https://hubd.test/api/v3/)") {
			t.Fatalf("want gh's bad credentials error:\n%s", r)
		}
	})

	g0.LoginAs("mona", tok)

	t.Run("auth status", func(t *testing.T) {
		g := g0.For(t)
		out := g.Must("auth", "status", "--hostname", ghcli.Host)
		for _, want := range []string{
			"Logged in to hubd.test account mona (" + filepath.Join(g.ConfigDir, "hosts.yml") + ")",
			"Active account: true",
			"Git operations protocol: https",
			"Token: ghp_****",
			"Token scopes: 'admin:gpg_key', 'admin:org', 'admin:org_hook', 'admin:public_key', 'admin:repo_hook', 'admin:ssh_signing_key', 'delete_repo', 'gist', 'notifications', 'repo', 'site_admin', 'user', 'workflow'",
		} {
			if !strings.Contains(out, want) {
				t.Fatalf("gh auth status lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "Missing required token scopes") {
			t.Fatalf("gh finds scopes missing:\n%s", out)
		}
	})

	t.Run("api user", func(t *testing.T) {
		g := g0.For(t)
		var u struct {
			Login string `json:"login"`
			Type  string `json:"type"`
		}
		r := g.Run("api", "user")
		if r.Err != nil || len(r.Requests) != 1 || r.Requests[0].Auth != "token" {
			t.Fatalf("want one request with gh's token:\n%s", r)
		}
		decode(t, r.Stdout, &u)
		if u.Login != "mona" || u.Type != "User" {
			t.Fatalf("gh api user = %+v", u)
		}
	})

	t.Run("api repo", func(t *testing.T) {
		g := g0.For(t)
		var repo struct {
			FullName      string `json:"full_name"`
			DefaultBranch string `json:"default_branch"`
			Private       bool   `json:"private"`
		}
		decode(t, g.Must("api", "repos/mona/hello"), &repo)
		if repo.FullName != "mona/hello" || repo.DefaultBranch != "main" || repo.Private {
			t.Fatalf("gh api repos/mona/hello = %+v", repo)
		}
	})

	t.Run("api create issue", func(t *testing.T) {
		g := g0.For(t)
		var is struct {
			Number int    `json:"number"`
			Title  string `json:"title"`
			User   struct {
				Login string `json:"login"`
			} `json:"user"`
		}
		decode(t, g.Must("api", "-X", "POST", "repos/mona/hello/issues", "-f", "title=Made by gh", "-f", "body=from the CLI"), &is)
		if is.Number != 1 || is.Title != "Made by gh" || is.User.Login != "mona" {
			t.Fatalf("created issue = %+v", is)
		}
		got := e.Must(200, "GET", "/repos/mona/hello/issues/1", tok, nil).Map(t)
		if got["title"] != "Made by gh" || got["body"] != "from the CLI" || got["state"] != "open" {
			t.Fatalf("stored issue = %v", got)
		}
	})

	t.Run("api errors", func(t *testing.T) {
		g := g0.For(t)
		r := g.Run("api", "repos/mona/nope")
		if r.Code != 1 || !strings.Contains(r.Stderr, "Not Found (HTTP 404)") {
			t.Fatalf("want gh's 404 message:\n%s", r)
		}
		r = g.Run("api", "-X", "POST", "repos/mona/hello/issues", "-f", "body=no title")
		if r.Code != 1 || !strings.Contains(r.Stderr, "(HTTP 422)") {
			t.Fatalf("want gh's 422 message:\n%s", r)
		}
	})
}

// git reaches https://hubd.test through the harness's proxy and TLS
// listener and takes its credentials from gh (gh auth setup-git), as after
// gh repo clone: a private repository clones, and a push lands.
func TestGhGitCredentials(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	e.Must(201, "POST", "/user/repos", tok, map[string]any{"name": "secret", "private": true, "auto_init": true})
	g := ghcli.Start(t, e)
	g.LoginAs("mona", tok)

	// Without gh as its helper git gets no credentials: the private
	// repository is hidden.
	r := g.RunGit(g.Home, "clone", "https://hubd.test/mona/secret.git", "nocreds")
	if r.Err == nil || !strings.Contains(r.Stderr, "Authentication failed") && !strings.Contains(r.Stderr, "could not read Username") {
		t.Fatalf("clone without credentials: %s", r)
	}

	g.Must("auth", "setup-git", "--hostname", ghcli.Host)
	g.Git(g.Home, "clone", "https://hubd.test/mona/secret.git")
	dir := filepath.Join(g.Home, "secret")
	var branch struct {
		Commit struct {
			SHA string `json:"sha"`
		} `json:"commit"`
	}
	e.Must(200, "GET", "/repos/mona/secret/branches/main", tok, nil).JSON(t, &branch)
	if head := g.Git(dir, "rev-parse", "HEAD"); head != branch.Commit.SHA {
		t.Fatalf("clone HEAD %s, branch main %s", head, branch.Commit.SHA)
	}
	if b := g.Git(dir, "symbolic-ref", "--short", "HEAD"); b != "main" {
		t.Fatalf("clone is on %q, want main", b)
	}

	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("pushed through gh's credentials\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.Git(dir, "add", "notes.txt")
	g.Git(dir, "commit", "-m", "Add notes")
	g.Git(dir, "push", "origin", "main")
	pushedSHA := g.Git(dir, "rev-parse", "HEAD")
	e.Must(200, "GET", "/repos/mona/secret/branches/main", tok, nil).JSON(t, &branch)
	if branch.Commit.SHA != pushedSHA {
		t.Fatalf("branch main is %s after the push of %s", branch.Commit.SHA, pushedSHA)
	}
	var file struct {
		Path string `json:"path"`
	}
	e.Must(200, "GET", "/repos/mona/secret/contents/notes.txt", tok, nil).JSON(t, &file)
	if file.Path != "notes.txt" {
		t.Fatalf("contents/notes.txt = %+v", file)
	}
	// git asked without credentials first, then with gh's (Basic, the
	// token as password) for both the fetch and the push.
	var fetched, pushed401, pushedBasic bool
	for _, rq := range g.Requests() {
		fetched = fetched || rq.Path == "/mona/secret.git/info/refs?service=git-upload-pack" && rq.Auth == "Basic" && rq.Status == 200
		pushed401 = pushed401 || rq.Path == "/mona/secret.git/info/refs?service=git-receive-pack" && rq.Auth == "" && rq.Status == 401
		pushedBasic = pushedBasic || rq.Method == "POST" && rq.Path == "/mona/secret.git/git-receive-pack" && rq.Auth == "Basic" && rq.Status == 200
	}
	if !fetched || !pushed401 || !pushedBasic {
		t.Fatalf("git's requests (fetch with credentials %v, push challenged %v, push with credentials %v):\n%v", fetched, pushed401, pushedBasic, g.Requests())
	}
}

func decode(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("decode gh output: %v\n%s", err, s)
	}
}
