package pulls_test

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v92/github"
)

// git runs the real git client in dir.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Mona", "-c", "user.email=mona@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// remote is mona/app's clone URL with mona's credentials.
func (f *fixture) remote() string {
	u, _ := url.Parse(f.e.URL + "/mona/app.git")
	u.User = url.UserPassword("mona", f.token)
	return u.String()
}

// lsRemote maps the refs git sees on the server to their commits.
func lsRemote(t *testing.T, dir, remote string) map[string]string {
	refs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(git(t, dir, "ls-remote", remote)), "\n") {
		sha, name, _ := strings.Cut(line, "\t")
		refs[name] = sha
	}
	return refs
}

// The real git client pushes a branch, a pull request is opened from it,
// a later push to the head moves refs/pull/1/head, which git fetches like
// any ref; after the merge, git pulls the merged main.
func TestGitClient(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	git(t, dir, "clone", "-q", f.remote(), "w")
	w := filepath.Join(dir, "w")
	git(t, w, "checkout", "-q", "-b", "topic")
	os.WriteFile(filepath.Join(w, "topic.txt"), []byte("first\n"), 0o644)
	git(t, w, "add", ".")
	git(t, w, "commit", "-q", "-m", "topic: first")
	git(t, w, "push", "-q", "origin", "topic")
	first := strings.TrimSpace(git(t, w, "rev-parse", "HEAD"))

	pr := f.open(t, "topic", "From git")
	if refs := lsRemote(t, w, "origin"); refs["refs/pull/1/head"] != first {
		t.Fatalf("refs/pull/1/head after open: %v", refs)
	}
	f.e.RunJobs()
	if refs := lsRemote(t, w, "origin"); refs["refs/pull/1/merge"] == "" {
		t.Fatalf("no refs/pull/1/merge: %v", refs)
	}

	os.WriteFile(filepath.Join(w, "topic.txt"), []byte("second\n"), 0o644)
	git(t, w, "commit", "-q", "-am", "topic: second")
	git(t, w, "push", "-q", "origin", "topic")
	second := strings.TrimSpace(git(t, w, "rev-parse", "HEAD"))
	f.e.RunJobs()
	if refs := lsRemote(t, w, "origin"); refs["refs/pull/1/head"] != second {
		t.Fatalf("refs/pull/1/head after the push: %v, want %s", refs, second)
	}
	got := f.get(t, pr.GetNumber())
	if got.GetHead().GetSHA() != second || got.GetCommits() != 2 {
		t.Fatalf("pull request after the push: head %s commits %d", got.GetHead().GetSHA(), got.GetCommits())
	}
	// A reviewer fetches the pull request by its ref, as `gh pr checkout` does.
	git(t, w, "fetch", "-q", "origin", "pull/1/head:pr-1")
	if sha := strings.TrimSpace(git(t, w, "rev-parse", "pr-1")); sha != second {
		t.Fatalf("fetched pull/1/head = %s", sha)
	}
	res, _, err := f.gh.PullRequests.Merge(ctx, "mona", "app", 1, "", &github.PullRequestOptions{MergeMethod: "merge"})
	if err != nil {
		t.Fatal(err)
	}
	git(t, w, "checkout", "-q", "main")
	git(t, w, "pull", "-q", "origin", "main")
	if sha := strings.TrimSpace(git(t, w, "rev-parse", "HEAD")); sha != res.GetSHA() {
		t.Fatalf("pulled main %s, merge %s", sha, res.GetSHA())
	}
	if b, _ := os.ReadFile(filepath.Join(w, "topic.txt")); string(b) != "second\n" {
		t.Fatalf("merged content %q", b)
	}
}

// A merge racing a push to the base loses nothing: when the merge lands
// first the push (made on the old base) is refused as non-fast-forward by
// git; when the push lands while the merge is computed, the merge answers
// 405 "Base branch was modified"; the base always holds whatever succeeded.
func TestConcurrentMergeAndPush(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	git(t, dir, "clone", "-q", f.remote(), "w")
	w := filepath.Join(dir, "w")
	for round := range 6 {
		b := "race-" + itoa(round)
		f.branch(t, b)
		f.write(t, b, b+".txt", b)
		pr := f.open(t, b, "race "+b)
		git(t, w, "pull", "-q", "--ff-only", "origin", "main")
		os.WriteFile(filepath.Join(w, "push-"+itoa(round)+".txt"), []byte("pushed"), 0o644)
		git(t, w, "add", ".")
		git(t, w, "commit", "-q", "-m", "pushed in round "+itoa(round))
		pushed := strings.TrimSpace(git(t, w, "rev-parse", "HEAD"))

		var wg sync.WaitGroup
		var pushErr error
		var mergeStatus int
		var mergeSHA string
		wg.Add(2)
		go func() {
			defer wg.Done()
			cmd := exec.Command("git", "push", "-q", "origin", "main")
			cmd.Dir = w
			cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
			_, pushErr = cmd.CombinedOutput()
		}()
		go func() {
			defer wg.Done()
			r := f.e.Do("PUT", "/repos/mona/app/pulls/"+itoa(pr.GetNumber())+"/merge", f.token, map[string]any{"merge_method": "squash"})
			mergeStatus = r.StatusCode
			if r.StatusCode == 200 {
				mergeSHA, _ = r.Map(t)["sha"].(string)
			}
		}()
		wg.Wait()
		main := f.ref(t, "refs/heads/main")
		g := f.e.Deps.Git.Open(f.repoID)
		contains := func(sha string) bool {
			ok, err := g.IsAncestor(ctx, sha, main)
			return err == nil && ok
		}
		// Whatever succeeded is on main; what failed failed cleanly.
		if pushErr == nil && !contains(pushed) {
			t.Fatalf("round %d: the push succeeded but main %s lacks %s", round, main, pushed)
		}
		if mergeStatus == 200 && !contains(mergeSHA) {
			t.Fatalf("round %d: the merge succeeded but main %s lacks %s", round, main, mergeSHA)
		}
		if mergeStatus != 200 && mergeStatus != 405 {
			t.Fatalf("round %d: merge answered %d", round, mergeStatus)
		}
		if pushErr != nil {
			if mergeStatus != 200 {
				t.Fatalf("round %d: neither landed: push %v, merge %d", round, pushErr, mergeStatus)
			}
			git(t, w, "reset", "-q", "--hard", "HEAD~1") // the refused commit goes away
		}
	}
}

// A pull request from a fork: the fork's owner pushes a branch with git,
// opens the pull request as owner:branch, pushes again (refs/pull/1/head
// follows in the base repository) and the base's owner merges it.
func TestPullFromFork(t *testing.T) {
	f := newFixture(t)
	octo, octoTok := f.user(t, "octo", 0)
	fork, resp, err := octo.Repositories.CreateFork(ctx, "mona", "app", nil)
	if err != nil && (resp == nil || resp.StatusCode != 202) {
		t.Fatalf("fork: %v", err)
	}
	f.e.RunJobs()
	dir := t.TempDir()
	u, _ := url.Parse(f.e.URL + "/octo/app.git")
	u.User = url.UserPassword("octo", octoTok)
	git(t, dir, "clone", "-q", u.String(), "w")
	w := filepath.Join(dir, "w")
	git(t, w, "checkout", "-q", "-b", "idea")
	os.WriteFile(filepath.Join(w, "idea.txt"), []byte("an idea\n"), 0o644)
	git(t, w, "add", ".")
	git(t, w, "commit", "-q", "-m", "An idea")
	git(t, w, "push", "-q", "origin", "idea")
	first := strings.TrimSpace(git(t, w, "rev-parse", "HEAD"))

	pr, _, err := octo.PullRequests.Create(ctx, "mona", "app", github.CreatePullRequest{Title: github.Ptr("From my fork"), Head: "octo:idea", Base: "main"})
	if err != nil {
		t.Fatalf("open from the fork: %v", err)
	}
	if pr.GetHead().GetRepo().GetFullName() != fork.GetFullName() || pr.GetHead().GetLabel() != "octo:idea" || pr.GetHead().GetSHA() != first ||
		pr.GetBase().GetRepo().GetFullName() != "mona/app" || !pr.GetMaintainerCanModify() {
		t.Fatalf("pull request from a fork: %+v", pr)
	}
	if f.ref(t, "refs/pull/1/head") != first {
		t.Fatal("refs/pull/1/head does not hold the fork's commit")
	}
	os.WriteFile(filepath.Join(w, "idea.txt"), []byte("a better idea\n"), 0o644)
	git(t, w, "commit", "-q", "-am", "Better")
	git(t, w, "push", "-q", "origin", "idea")
	second := strings.TrimSpace(git(t, w, "rev-parse", "HEAD"))
	got := f.get(t, 1)
	if got.GetHead().GetSHA() != second || f.ref(t, "refs/pull/1/head") != second || !got.GetMergeable() {
		t.Fatalf("after a push to the fork: head %s mergeable %v", got.GetHead().GetSHA(), got.Mergeable)
	}
	// The base moves on; mona (a maintainer, allowed to modify the head)
	// updates the fork's branch: the merge commit is made in the fork, whole
	// (git fetches it with its tree).
	f.write(t, "main", "base.txt", "base moved\n")
	if r := f.e.Do("PUT", "/repos/mona/app/pulls/1/update-branch", f.token, nil); r.StatusCode != 202 {
		t.Fatalf("update-branch of a fork's pull request: %d %s", r.StatusCode, r.Body)
	}
	f.e.RunJobs()
	git(t, w, "pull", "-q", "--ff-only", "origin", "idea")
	merged := strings.TrimSpace(git(t, w, "rev-parse", "HEAD"))
	if parents := strings.Fields(git(t, w, "log", "-1", "--format=%P")); len(parents) != 2 || parents[0] != second {
		t.Fatalf("fork head after update-branch: %v", parents)
	}
	if _, err := os.Stat(filepath.Join(w, "base.txt")); err != nil {
		t.Fatalf("the update did not bring the base's file: %v", err)
	}
	git(t, w, "fsck", "--no-progress")
	if got := f.get(t, 1); got.GetHead().GetSHA() != merged {
		t.Fatalf("pull request head %s, fork %s", got.GetHead().GetSHA(), merged)
	}
	second = merged

	// The fork's owner may not merge into mona/app; mona may.
	r := f.e.Do("PUT", "/repos/mona/app/pulls/1/merge", octoTok, nil)
	if r.StatusCode != 403 {
		t.Fatalf("fork owner merging: %d %s", r.StatusCode, r.Body)
	}
	res, _, err := f.gh.PullRequests.Merge(ctx, "mona", "app", 1, "", &github.PullRequestOptions{MergeMethod: "merge"})
	if err != nil {
		t.Fatal(err)
	}
	c, _, _ := f.gh.Git.GetCommit(ctx, "mona", "app", res.GetSHA())
	if len(c.Parents) != 2 || c.Parents[1].GetSHA() != second || !strings.HasPrefix(c.GetMessage(), "Merge pull request #1 from octo/idea") {
		t.Fatalf("merge of a fork's pull request: %+v", c)
	}
	// A head owner without a fork is refused.
	f.user(t, "nofork", 0)
	r = f.e.Do("POST", "/repos/mona/app/pulls", f.token, map[string]any{"title": "x", "head": "nofork:idea", "base": "main"})
	if r.StatusCode != 422 {
		t.Fatalf("head owner without a fork: %d %s", r.StatusCode, r.Body)
	}
}
