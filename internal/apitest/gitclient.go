package apitest

import (
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The real git client as tests drive it (many packages keep a copy of
// these; new tests use them).

// Git runs git in dir, isolated from the machine's configuration, and
// answers its combined output.
func Git(t testing.TB, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Mona Lisa", "-c", "user.email=mona@example.com",
		"-c", "init.defaultBranch=main", "-c", "protocol.version=2"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_ASKPASS=", "SSH_ASKPASS=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// MustGit is Git failing the test when git fails.
func MustGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := Git(t, dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// Remote is the smart HTTP URL of owner/name with login and token as the
// credentials.
func (e *Env) Remote(owner, name, login, token string) string {
	u, _ := url.Parse(e.URL + "/" + owner + "/" + name + ".git")
	u.User = url.UserPassword(login, token)
	return u.String()
}
