package ghcli_test

import (
	"strings"
	"testing"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// TestGhIssueDevelop: gh issue develop end to end — it checks that
// LinkedBranch exists by introspection, creates a branch linked to the
// issue (named from the issue, --name, from --base, in --branch-repo),
// --checkout fetches and checks it out, --list lists the links, and a
// deleted branch leaves the list.
func TestGhIssueDevelop(t *testing.T) {
	e := apitest.New(t)
	w := newWorld(t, e)
	e.Must(201, "POST", "/user/repos", w.tok, map[string]any{"name": "other", "auto_init": true})
	g := ghcli.Start(t, e)
	g.LoginAs("mona", w.tok)
	dir := t.TempDir()
	g.MustIn(dir, "", "repo", "clone", "mona/hello")
	clone := dir + "/hello"
	gh := func(args ...string) string { return g.MustIn(clone, "", args...) }
	refSHA := func(repo, branch string) string {
		t.Helper()
		ref := e.Must(200, "GET", "/repos/"+repo+"/git/ref/heads/"+branch, w.tok, nil).Map(t)
		return ref["object"].(map[string]any)["sha"].(string)
	}

	// The name GitHub gives: the issue's number and title.
	out := gh("issue", "develop", "1")
	if !strings.HasSuffix(strings.TrimSpace(out), "/mona/hello/tree/1-first-bug") {
		t.Fatalf("gh issue develop printed %q", out)
	}
	if sha := refSHA("mona/hello", "1-first-bug"); sha != w.mainSHA {
		t.Fatalf("1-first-bug at %s, want main's %s", sha, w.mainSHA)
	}

	// --name and --base: the branch starts at the base; --checkout checks
	// it out in the clone, with the base remembered for gh pr create.
	gh("issue", "develop", "1", "--name", "fix-it", "--base", "feature", "--checkout")
	if sha := refSHA("mona/hello", "fix-it"); sha != w.featSHA {
		t.Fatalf("fix-it at %s, want feature's %s", sha, w.featSHA)
	}
	if head := strings.TrimSpace(g.Git(clone, "rev-parse", "--abbrev-ref", "HEAD")); head != "fix-it" {
		t.Fatalf("checked out %q, want fix-it", head)
	}
	if base := strings.TrimSpace(g.Git(clone, "config", "branch.fix-it.gh-merge-base")); base != "feature" {
		t.Fatalf("merge base config %q", base)
	}
	// A base that does not exist.
	if r := g.RunIn(clone, "", "issue", "develop", "2", "--base", "nope"); r.Err == nil || !strings.Contains(r.Stderr, `could not find branch "nope" in mona/hello`) {
		t.Fatalf("--base nope: %s", r)
	}
	// A name taken by a branch that is not linked.
	if r := g.RunIn(clone, "", "issue", "develop", "2", "--name", "feature"); r.Err == nil || !strings.Contains(r.Stderr, "already exists") {
		t.Fatalf("--name of an existing branch: %s", r)
	}

	// --branch-repo: the branch lives in another repository.
	out = gh("issue", "develop", "2", "--branch-repo", "mona/other", "--name", "elsewhere")
	if !strings.HasSuffix(strings.TrimSpace(out), "/mona/other/tree/elsewhere") {
		t.Fatalf("gh issue develop --branch-repo printed %q", out)
	}
	refSHA("mona/other", "elsewhere")

	// --list, for the issue's repository given with -R from anywhere.
	list := g.Must("issue", "develop", "--list", "1", "-R", "mona/hello")
	for _, want := range []string{"1-first-bug\t", "/mona/hello/tree/1-first-bug", "fix-it\t", "/mona/hello/tree/fix-it"} {
		if !strings.Contains(list, want) {
			t.Fatalf("gh issue develop --list 1 lacks %q:\n%s", want, list)
		}
	}
	if list := g.Must("issue", "develop", "--list", "2", "-R", "mona/hello"); !strings.Contains(list, "/mona/other/tree/elsewhere") {
		t.Fatalf("gh issue develop --list 2:\n%s", list)
	}

	// A deleted branch is no longer linked.
	e.Must(204, "DELETE", "/repos/mona/hello/git/refs/heads/1-first-bug", w.tok, nil)
	list = g.Must("issue", "develop", "--list", "1", "-R", "mona/hello")
	if strings.Contains(list, "1-first-bug") || !strings.Contains(list, "fix-it") {
		t.Fatalf("after deleting 1-first-bug, --list 1:\n%s", list)
	}
	// None: gh says nothing when not on a terminal.
	if r := g.Run("issue", "develop", "--list", "3", "-R", "mona/hello"); r.Err != nil || strings.TrimSpace(r.Stdout) != "" {
		t.Fatalf("--list of an issue without links: %s", r)
	}
}
