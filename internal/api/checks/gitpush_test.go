package checks_test

import (
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
)

// git runs git in dir with no user or system configuration.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Mona", "-c", "user.email=mona@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_ASKPASS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// A git push over smart HTTP makes a suite for each branch head it moves or
// creates (and none for a deleted branch or a tag).
func TestGitPushMakesSuites(t *testing.T) {
	f := newFixture(t)
	u, _ := url.Parse(f.e.URL + "/mona/app.git")
	u.User = url.UserPassword("mona", f.token)
	dir := t.TempDir()
	git(t, dir, "clone", "-q", u.String(), ".")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "pushed over git")
	head := git(t, dir, "rev-parse", "HEAD")
	git(t, dir, "push", "-q", "origin", "HEAD:main", "HEAD:refs/heads/side", "HEAD:refs/tags/v9", ":feature")

	res, _, err := f.gh.Checks.ListCheckSuitesForRef(ctx, "mona", "app", head, nil)
	if err != nil || res.GetTotal() != 1 {
		t.Fatalf("suites of the pushed head: %+v %v", res, err)
	}
	s := res.CheckSuites[0]
	if s.GetStatus() != "queued" || s.GetAfterSHA() != head || s.GetHeadCommit().GetMessage() != "pushed over git" ||
		(s.GetHeadBranch() != "main" && s.GetHeadBranch() != "side") {
		t.Errorf("pushed suite %+v", s)
	}
	// A run on the pushed head joins that suite.
	r := f.run(t, github.CreateCheckRunOptions{Name: "ci", HeadSHA: head})
	if r.GetCheckSuite().GetID() != s.GetID() {
		t.Errorf("run in suite %d, want %d", r.GetCheckSuite().GetID(), s.GetID())
	}
}
