package contents_test

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// git runs the real git client, isolated from the machine's configuration.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Mona Lisa", "-c", "user.email=mona@example.com", "-c", "init.defaultBranch=main", "-c", "protocol.version=2"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_ASKPASS=", "SSH_ASKPASS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// remote is the clone URL of owner/name with credentials.
func remote(e *apitest.Env, login, token, owner, name string) string {
	u, _ := url.Parse(e.URL + "/" + owner + "/" + name + ".git")
	u.User = url.UserPassword(login, token)
	return u.String()
}

// newRepo creates login/name (private when private is true).
func newRepo(t *testing.T, gh *github.Client, name string, private bool) *github.Repository {
	t.Helper()
	r, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr(name), Private: github.Ptr(private)})
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return r
}

// push makes a commit in a fresh work tree (setup writes its files, then
// staged, if any, edits the index) and pushes it to refs/heads/main of
// owner/name; it returns the work tree.
func push(t *testing.T, e *apitest.Env, login, token, owner, name string, setup func(dir string), staged ...func(dir string)) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	setup(dir)
	git(t, dir, "add", "-A")
	for _, f := range staged {
		f(dir)
	}
	git(t, dir, "commit", "-q", "-m", "content")
	git(t, dir, "push", "-q", remote(e, login, token, owner, name), "HEAD:refs/heads/main")
	return dir
}

func write(t *testing.T, dir, name, content string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func collaborator(t *testing.T, e *apitest.Env, owner, name string, u *model.Account, p authz.Permission) {
	t.Helper()
	v, err := e.Store.R().RepoByName(ctx, owner, name, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, v.Repo.ID, u.ID, p) }); err != nil {
		t.Fatal(err)
	}
}

// ghStatus is the status of a go-github error (0 when there is none).
func ghStatus(err error) int {
	if er, ok := err.(*github.ErrorResponse); ok {
		return er.Response.StatusCode
	}
	return 0
}
