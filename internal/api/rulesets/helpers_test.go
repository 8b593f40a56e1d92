package rulesets_test

import (
	"context"
	"errors"
	"net/http"
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

// fixture is mona/app (public, auto-initialised, branches main and
// feature) owned by mona.
type fixture struct {
	e      *apitest.Env
	gh     *github.Client
	token  string
	repoID int64
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	f := &fixture{e: e, gh: e.GitHub(tok), token: tok}
	repo, _, err := f.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	f.repoID = repo.GetID()
	f.branch(t, "app", "feature")
	return f
}

// user makes another user, a collaborator of mona/app with perm when perm
// is above none.
func (f *fixture) user(t *testing.T, login string, perm authz.Permission) (*model.Account, string) {
	t.Helper()
	u, tok := f.e.NewUser(login, false)
	if perm > authz.None {
		if err := f.e.Store.Tx(ctx, func(tx store.Q) error { return tx.SetCollaborator(ctx, f.repoID, u.ID, perm) }); err != nil {
			t.Fatal(err)
		}
	}
	return u, tok
}

// branch makes a branch of mona/<repo> at main.
func (f *fixture) branch(t *testing.T, repo, name string) string {
	t.Helper()
	b, _, err := f.gh.Repositories.GetBranch(ctx, "mona", repo, "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	sha := b.GetCommit().GetSHA()
	if _, _, err := f.gh.Git.CreateRef(ctx, "mona", repo, github.CreateRef{Ref: "refs/heads/" + name, SHA: sha}); err != nil {
		t.Fatal(err)
	}
	return sha
}

// write commits a new file on a branch of mona/app through the contents
// API and returns the commit id.
func (f *fixture) write(t *testing.T, gh *github.Client, branch, path string) string {
	t.Helper()
	res, _, err := gh.Repositories.CreateFile(ctx, "mona", "app", path, &github.RepositoryContentFileOptions{
		Message: github.Ptr("write " + path), Content: []byte(path + "\n"), Branch: github.Ptr(branch)})
	if err != nil {
		t.Fatalf("write %s on %s: %v", path, branch, err)
	}
	return res.GetSHA()
}

// create makes a ruleset of mona/app through go-github.
func (f *fixture) create(t *testing.T, rs github.RepositoryRuleset) *github.RepositoryRuleset {
	t.Helper()
	out, _, err := f.gh.Repositories.CreateRuleset(ctx, "mona", "app", rs)
	if err != nil {
		t.Fatalf("create ruleset %s: %v", rs.Name, err)
	}
	return out
}

// onDefault is a ruleset condition on the default branch.
func onDefault() *github.RepositoryRulesetConditions {
	return &github.RepositoryRulesetConditions{RefName: &github.RepositoryRulesetRefConditionParameters{
		Include: []string{"~DEFAULT_BRANCH"}, Exclude: []string{}}}
}

// status is the HTTP status and message of a go-github error.
func status(err error) (int, string) {
	var ge *github.ErrorResponse
	if errors.As(err, &ge) {
		return ge.Response.StatusCode, ge.Message
	}
	if err == nil {
		return http.StatusOK, ""
	}
	return 0, err.Error()
}

// git runs the real git client, isolated from the machine's configuration.
func git(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Mona Lisa", "-c", "user.email=mona@example.com",
		"-c", "init.defaultBranch=main", "-c", "protocol.version=2"}, args...)...)
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

// remote is the clone URL of owner/name with a user's credentials.
func remote(e *apitest.Env, login, token, owner, name string) string {
	u, _ := url.Parse(e.URL + "/" + owner + "/" + name + ".git")
	u.User = url.UserPassword(login, token)
	return u.String()
}

// clone clones mona/app as a user and returns the work tree.
func (f *fixture) clone(t *testing.T, login, token string) string {
	t.Helper()
	dir := t.TempDir()
	mustGit(t, dir, "clone", "-q", remote(f.e, login, token, "mona", "app"), "w")
	return filepath.Join(dir, "w")
}

func commitFile(t *testing.T, dir, file, msg string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(file+" "+msg+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustGit(t, dir, "add", file)
	mustGit(t, dir, "commit", "-q", "-m", msg)
	return strings.TrimSpace(mustGit(t, dir, "rev-parse", "HEAD"))
}

// remoteRef is the commit a ref of mona/app points to ("" when missing).
func (f *fixture) remoteRef(t *testing.T, ref string) string {
	t.Helper()
	out := mustGit(t, t.TempDir(), "ls-remote", remote(f.e, "mona", f.token, "mona", "app"), ref)
	if fields := strings.Fields(out); len(fields) > 0 {
		return fields[0]
	}
	return ""
}
