package forks_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// git runs the real git client, isolated from the machine's configuration.
func git(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Mona Lisa", "-c", "user.email=mona@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_ASKPASS=", "SSH_ASKPASS=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := git(t, dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// remote is the clone URL of owner/name with login's credentials.
func remote(e *apitest.Env, login, token, owner, name string) string {
	u, _ := url.Parse(e.URL + "/" + owner + "/" + name + ".git")
	u.User = url.UserPassword(login, token)
	return u.String()
}

// seeded creates login/name and pushes with the real git client two
// commits on main, a branch dev one commit ahead and a tag v1; it returns
// main's head.
func seeded(t *testing.T, e *apitest.Env, login, tok, name string, private bool) string {
	t.Helper()
	if _, _, err := e.GitHub(tok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr(name), Private: github.Ptr(private)}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mustGit(t, dir, "init", "-q")
	for _, f := range []string{"README.md", "main.go"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("# "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		mustGit(t, dir, "add", f)
		mustGit(t, dir, "commit", "-q", "-m", "add "+f)
	}
	mustGit(t, dir, "tag", "v1")
	mustGit(t, dir, "checkout", "-q", "-b", "dev")
	mustGit(t, dir, "commit", "-q", "--allow-empty", "-m", "dev work")
	mustGit(t, dir, "push", "-q", remote(e, login, tok, login, name), "main:refs/heads/main", "dev:refs/heads/dev", "refs/tags/v1")
	return strings.TrimSpace(mustGit(t, dir, "rev-parse", "main"))
}

// fork calls CreateFork, expecting 202 (go-github reports it as an
// AcceptedError holding the repository).
func fork(t *testing.T, gh *github.Client, owner, name string, opts *github.RepositoryCreateForkOptions) *github.Repository {
	t.Helper()
	r, resp, err := gh.Repositories.CreateFork(ctx, owner, name, opts)
	var acc *github.AcceptedError
	if !errors.As(err, &acc) || resp.StatusCode != 202 || r == nil {
		t.Fatalf("fork %s/%s: %v (%v)", owner, name, err, resp)
	}
	return r
}

// refs lists the refs of a clone of owner/name as login.
func refs(t *testing.T, e *apitest.Env, login, tok, owner, name string) map[string]string {
	t.Helper()
	out := mustGit(t, t.TempDir(), "ls-remote", remote(e, login, tok, owner, name))
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			m[f[1]] = f[0]
		}
	}
	return m
}

// org creates an organization with admin as its first admin and members as
// active members.
func org(t *testing.T, e *apitest.Env, login string, admin *model.Account, members ...*model.Account) *model.Account {
	t.Helper()
	o := store.NewOrg(login)
	err := e.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOrg(ctx, o, admin.ID); err != nil {
			return err
		}
		for _, m := range members {
			if err := tx.SetMembership(ctx, &model.Membership{OrgID: o.ID, UserID: m.ID, Role: model.RoleMember, State: store.StateActive}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// list decodes a JSON array of objects.
func list(t *testing.T, r *apitest.Response) []map[string]any {
	t.Helper()
	var out []map[string]any
	r.JSON(t, &out)
	return out
}
