package forks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// commitFile clones owner/name as login, writes file on branch, commits and
// pushes; it returns the branch's new head.
func commitFile(t *testing.T, e *apitest.Env, login, tok, owner, name, branch, file, content string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "w")
	mustGit(t, filepath.Dir(dir), "clone", "-q", "--branch", branch, remote(e, login, tok, owner, name), dir)
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, file)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	mustGit(t, dir, "add", file)
	mustGit(t, dir, "commit", "-q", "-m", "edit "+file)
	mustGit(t, dir, "push", "-q", "origin", branch)
	return strings.TrimSpace(mustGit(t, dir, "rev-parse", "HEAD"))
}

// syncFork calls MergeUpstream through go-github.
func syncFork(t *testing.T, gh *github.Client, owner, name, branch string) *github.RepoMergeUpstreamResult {
	t.Helper()
	res, _, err := gh.Repositories.MergeUpstream(ctx, owner, name, github.RepoMergeUpstreamRequest{Branch: branch})
	if err != nil {
		t.Fatalf("merge-upstream %s/%s %s: %v", owner, name, branch, err)
	}
	return res
}

// head is a branch's head through the API.
func head(t *testing.T, gh *github.Client, owner, name, branch string) *github.RepositoryCommit {
	t.Helper()
	c, _, err := gh.Repositories.GetCommit(ctx, owner, name, branch, nil)
	if err != nil {
		t.Fatalf("commit %s/%s@%s: %v", owner, name, branch, err)
	}
	return c
}

// merge-upstream: nothing to do, a fast-forward, a merge commit when both
// moved and merge cleanly, 409 on a conflict; the refusals; every move is
// a push (the fork's events list it).
func TestMergeUpstream(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	_, eveTok := e.NewUser("eve", false)
	seeded(t, e, "mona", monaTok, "app", false)
	hubot := e.GitHub(hubotTok)
	fork(t, hubot, "mona", "app", nil)
	e.RunJobs()

	res := syncFork(t, hubot, "hubot", "app", "main")
	if res.GetMergeType() != "none" || res.GetBaseBranch() != "mona:main" || res.GetMessage() != "This branch is not behind the upstream mona:main" {
		t.Errorf("nothing to sync: %+v", res)
	}

	up := commitFile(t, e, "mona", monaTok, "mona", "app", "main", "upstream.txt", "one\n")
	res = syncFork(t, hubot, "hubot", "app", "main")
	if res.GetMergeType() != "fast-forward" || res.GetMessage() != "Successfully fetched and fast-forwarded from upstream mona:main" {
		t.Errorf("fast-forward: %+v", res)
	}
	if got := head(t, hubot, "hubot", "app", "main").GetSHA(); got != up {
		t.Errorf("fork main %s, want %s", got, up)
	}
	// The fork ahead of its upstream: nothing to do.
	ours := commitFile(t, e, "hubot", hubotTok, "hubot", "app", "main", "fork.txt", "mine\n")
	if res := syncFork(t, hubot, "hubot", "app", "main"); res.GetMergeType() != "none" {
		t.Errorf("fork ahead: %+v", res)
	}
	// Both moved, different files: a merge commit with both heads.
	theirs := commitFile(t, e, "mona", monaTok, "mona", "app", "main", "upstream.txt", "two\n")
	res = syncFork(t, hubot, "hubot", "app", "main")
	if res.GetMergeType() != "merge" || res.GetBaseBranch() != "mona:main" {
		t.Errorf("merge: %+v", res)
	}
	m := head(t, hubot, "hubot", "app", "main")
	if len(m.Parents) != 2 || m.Parents[0].GetSHA() != ours || m.Parents[1].GetSHA() != theirs {
		t.Errorf("merge commit parents: %v", m.Parents)
	}
	// Both changed one file: 409.
	commitFile(t, e, "hubot", hubotTok, "hubot", "app", "main", "upstream.txt", "fork's\n")
	commitFile(t, e, "mona", monaTok, "mona", "app", "main", "upstream.txt", "upstream's\n")
	r := e.Do("POST", "/repos/hubot/app/merge-upstream", hubotTok, map[string]any{"branch": "main"})
	if r.StatusCode != 409 {
		t.Errorf("conflict: %d %s", r.StatusCode, r.Body)
	}

	// Branches the upstream lacks and repositories that are no forks: 422.
	e.Must(201, "POST", "/repos/hubot/app/branches/dev/rename", hubotTok, map[string]any{"new_name": "feature"})
	cases := []struct {
		name, path, token string
		body              any
		status            int
	}{
		{"no branch in the fork", "/repos/hubot/app/merge-upstream", hubotTok, map[string]any{"branch": "nope"}, 422},
		{"no such upstream branch", "/repos/hubot/app/merge-upstream", hubotTok, map[string]any{"branch": "feature"}, 422},
		{"not a fork", "/repos/mona/app/merge-upstream", monaTok, map[string]any{"branch": "main"}, 422},
		{"branch missing", "/repos/hubot/app/merge-upstream", hubotTok, map[string]any{}, 422},
		{"read access only", "/repos/hubot/app/merge-upstream", eveTok, map[string]any{"branch": "main"}, 403},
		{"anonymous", "/repos/hubot/app/merge-upstream", "", map[string]any{"branch": "main"}, 401},
		{"no such repository", "/repos/hubot/none/merge-upstream", hubotTok, map[string]any{"branch": "main"}, 404},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if r := e.Do("POST", c.path, c.token, c.body); r.StatusCode != c.status {
				t.Errorf("status %d, want %d: %s", r.StatusCode, c.status, r.Body)
			}
		})
	}

	// Upstream commits that change workflows need the workflow scope, as a
	// push would (gh recognises the message).
	hubotAcc, err := e.Store.R().AccountByLogin(ctx, "hubot")
	if err != nil {
		t.Fatal(err)
	}
	up = commitFile(t, e, "mona", monaTok, "mona", "app", "dev", ".github/workflows/ci.yml", "on: push\n")
	e.Must(201, "POST", "/repos/hubot/app/branches/feature/rename", hubotTok, map[string]any{"new_name": "dev"})
	noWorkflow := e.Token(hubotAcc, "repo")
	r = e.Do("POST", "/repos/hubot/app/merge-upstream", noWorkflow, map[string]any{"branch": "dev"})
	if r.StatusCode != 422 || !strings.Contains(r.Map(t)["message"].(string), "refusing to allow") {
		t.Errorf("workflow change without the scope: %d %s", r.StatusCode, r.Body)
	}
	if res := syncFork(t, hubot, "hubot", "app", "dev"); res.GetMergeType() != "fast-forward" || head(t, hubot, "hubot", "app", "dev").GetSHA() != up {
		t.Errorf("workflow change with the scope: %+v", res)
	}

	// Every move was recorded as a push of the fork.
	e.RunJobs()
	var pushes int
	for _, ev := range list(t, e.Must(200, "GET", "/repos/hubot/app/events?per_page=100", hubotTok, nil)) {
		if ev["type"] == "PushEvent" && ev["actor"].(map[string]any)["login"] == "hubot" {
			pushes++
		}
	}
	if pushes < 4 { // two by git, the fast-forward and the merge
		t.Errorf("%d push events on the fork", pushes)
	}
}

// `gh repo sync OWNER/FORK` calls merge-upstream and reports the branch.
func TestGhRepoSync(t *testing.T) {
	e := apitest.New(t)
	_, monaTok := e.NewUser("mona", false)
	_, hubotTok := e.NewUser("hubot", false)
	seeded(t, e, "mona", monaTok, "app", false)
	hubot := e.GitHub(hubotTok)
	fork(t, hubot, "mona", "app", nil)
	e.RunJobs()
	up := commitFile(t, e, "mona", monaTok, "mona", "app", "main", "new.txt", "new\n")

	g := ghcli.Start(t, e)
	g.LoginAs("hubot", hubotTok)
	g.Must("repo", "sync", "hubot/app")
	if got := head(t, hubot, "hubot", "app", "main").GetSHA(); got != up {
		t.Errorf("after gh repo sync: main %s, want %s", got, up)
	}
	// A conflict: gh reports it and fails.
	commitFile(t, e, "hubot", hubotTok, "hubot", "app", "main", "new.txt", "fork\n")
	commitFile(t, e, "mona", monaTok, "mona", "app", "main", "new.txt", "upstream\n")
	if r := g.Run("repo", "sync", "hubot/app"); r.Err == nil {
		t.Errorf("gh repo sync over a conflict succeeded: %s", r.Stdout)
	}
}
