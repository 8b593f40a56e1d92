package repos_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

func TestAutoInitMakesTheFirstCommit(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	repo, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("hello"), Description: github.Ptr("says hello"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if repo.PushedAt == nil || repo.GetDefaultBranch() != "main" {
		t.Fatalf("created: pushed_at %v default %q", repo.PushedAt, repo.GetDefaultBranch())
	}
	dir := t.TempDir()
	cmd := exec.Command("git", "clone", "-q", e.URL+"/mona/hello.git", dir)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clone: %v %s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil || string(b) != "# hello\nsays hello\n" {
		t.Fatalf("README.md = %q, %v", b, err)
	}
	log := exec.Command("git", "log", "--format=%an <%ae>|%s")
	log.Dir = dir
	out, err := log.Output()
	if err != nil || !strings.HasPrefix(string(out), "mona <") || !strings.Contains(string(out), "+mona@users.noreply.") || !strings.Contains(string(out), "|Initial commit") {
		t.Fatalf("log: %q %v", out, err)
	}
}

func TestDeleteRemovesStorage(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	repo, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("gone"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	path := e.Deps.Git.Path(repo.GetID())
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no storage at %s: %v", path, err)
	}
	if _, err := gh.Repositories.Delete(ctx, "mona", "gone"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("storage survived the delete: %v", err)
	}
}
