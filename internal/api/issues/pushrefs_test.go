package issues_test

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-github/v92/github"
)

// A pushed commit that mentions #N records a "referenced" event on issue N
// with the commit's id; commits already on a branch do not again.
func TestPushedCommitsReferenceIssues(t *testing.T) {
	w := newWorld(t)
	first := w.issue(t, "first")
	second := w.issue(t, "second")
	dir := t.TempDir()
	u, _ := url.Parse(w.e.URL + "/mona/hello.git")
	u.User = url.UserPassword("mona", w.monaT)
	git := func(args ...string) string {
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
	git("init", "-q")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644)
	git("add", ".")
	git("commit", "-q", "-m", "Start, see #1")
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b"), 0o644)
	git("add", ".")
	git("commit", "-q", "-m", "Fixes #2 and mona/hello#1, not #99")
	git("push", "-q", u.String(), "HEAD:refs/heads/main")
	// The same commits on a second branch reference nothing again, even
	// when it is pushed before the first push's job ran.
	git("push", "-q", u.String(), "HEAD:refs/heads/copy")
	// The commits are walked in the job queue (closing.push), not while
	// pushing.
	w.e.RunJobs()

	count := func(number int) (n int, commit string) {
		var events []map[string]any
		w.e.Must(200, "GET", "/repos/mona/hello/issues/"+itoa(int64(number))+"/events", w.monaT, nil).JSON(t, &events)
		for _, ev := range events {
			if ev["event"] == "referenced" {
				n++
				commit, _ = ev["commit_id"].(string)
				if ev["commit_url"] == nil {
					t.Errorf("referenced event without commit_url: %v", ev)
				}
			}
		}
		return n, commit
	}
	if n, _ := count(first.GetNumber()); n != 2 { // "see #1" and "mona/hello#1"
		t.Fatalf("issue #1 has %d referenced events, want 2", n)
	}
	n, commit := count(second.GetNumber())
	if n != 1 || len(commit) != 40 {
		t.Fatalf("issue #2: %d referenced events, commit %q", n, commit)
	}
	// The timeline shows it too.
	var timeline []map[string]any
	w.e.Must(200, "GET", "/repos/mona/hello/issues/2/timeline", w.monaT, nil).JSON(t, &timeline)
	found := false
	for _, ev := range timeline {
		if ev["event"] == "referenced" && ev["commit_id"] == commit {
			found = true
		}
	}
	if !found {
		t.Fatalf("timeline lacks the referenced event: %v", timeline)
	}
}

// The repository's open_issues_count follows its issues.
func TestOpenIssuesCount(t *testing.T) {
	w := newWorld(t)
	w.issue(t, "one")
	two := w.issue(t, "two")
	repo, _, err := w.mg.Repositories.Get(ctx, "mona", "hello")
	if err != nil || repo.GetOpenIssuesCount() != 2 || repo.GetOpenIssues() != 2 {
		t.Fatalf("open issues %d/%d, %v", repo.GetOpenIssuesCount(), repo.GetOpenIssues(), err)
	}
	if _, _, err := w.mg.Issues.Update(ctx, "mona", "hello", two.GetNumber(), github.UpdateIssueRequest{State: github.Ptr("closed")}); err != nil {
		t.Fatal(err)
	}
	list, _, err := w.mg.Repositories.ListByAuthenticatedUser(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list {
		if r.GetName() == "hello" && r.GetOpenIssuesCount() != 1 {
			t.Fatalf("after closing one: %d", r.GetOpenIssuesCount())
		}
	}
}
