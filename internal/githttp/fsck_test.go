package githttp_test

import (
	"bytes"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

// hashObject writes raw object bytes with git's plumbing, bypassing its own
// checks (--literally), as an attacker's client could.
func hashObject(t *testing.T, dir, typ string, data []byte) string {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-w", "--literally", "-t", typ, "--stdin")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hash-object: %v %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// rawTree is a tree object with the entries as given (mode, name, id),
// unsorted and unchecked.
func rawTree(t *testing.T, entries ...[3]string) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		raw, err := hex.DecodeString(e[2])
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(e[0] + " " + e[1] + "\x00")
		b.Write(raw)
	}
	return b.Bytes()
}

// TestPushChecksObjects pushes commits whose trees git forbids, each crafted
// with plumbing: every push is refused and the branch stays where it was.
// A tree with zero-padded modes (as old histories have) is still taken.
func TestPushChecksObjects(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	if _, _, err := e.GitHub(tok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("fsck")}); err != nil {
		t.Fatal(err)
	}
	url := remote(e, "mona", tok, "mona", "fsck")
	w := filepath.Join(t.TempDir(), "w")
	mustGit(t, filepath.Dir(w), "clone", "-q", url, "w")
	base := commitFile(t, w, "README.md", "hello\n", "base")
	mustGit(t, w, "push", "-q", "origin", "HEAD:refs/heads/main")
	blob := hashObject(t, w, "blob", []byte("x\n"))
	sub := hashObject(t, w, "tree", rawTree(t, [3]string{"100644", "config", blob}))

	commit := func(tree string) string {
		return strings.TrimSpace(mustGit(t, w, "commit-tree", tree, "-p", base, "-m", "crafted"))
	}
	head := func() string {
		return strings.Fields(mustGit(t, w, "ls-remote", url, "refs/heads/main"))[0]
	}
	for _, tc := range []struct {
		name  string
		entry [3]string
		msgid string
	}{
		{".git", [3]string{"40000", ".git", sub}, "hasDotgit"},
		{".GIT", [3]string{"40000", ".GIT", sub}, "hasDotgit"},
		{".git.", [3]string{"40000", ".git.", sub}, "hasDotgit"},
		{"git~1", [3]string{"40000", "git~1", sub}, "hasDotgit"},
		{".g\u200cit", [3]string{"40000", ".g\u200cit", sub}, "hasDotgit"},
		{"..", [3]string{"40000", "..", sub}, "hasDotdot"},
		{".", [3]string{"40000", ".", sub}, "hasDot"},
		{"a/b", [3]string{"100644", "a/b", blob}, "fullPathname"},
		{".gitmodules symlink", [3]string{"120000", ".gitmodules", blob}, "gitmodulesSymlink"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree := hashObject(t, w, "tree", rawTree(t, tc.entry))
			c := commit(tree)
			out, err := git(t, w, "push", "origin", c+":refs/heads/main")
			if err == nil {
				t.Fatalf("push accepted:\n%s", out)
			}
			if !strings.Contains(out, tc.msgid) {
				t.Errorf("refusal does not name %s:\n%s", tc.msgid, out)
			}
			if h := head(); h != base {
				t.Fatalf("main moved to %s", h)
			}
		})
	}

	// A repository made before the checks were written to its config (or
	// whose config says otherwise) is checked all the same.
	v, err := e.Store.R().RepoByName(ctx, "mona", "fsck", 0)
	if err != nil {
		t.Fatal(err)
	}
	repoDir := e.Deps.Git.Path(v.Repo.ID)
	mustGit(t, repoDir, "config", "receive.fsckObjects", "false")
	mustGit(t, repoDir, "config", "receive.fsck.hasDotgit", "ignore")
	bad := commit(hashObject(t, w, "tree", rawTree(t, [3]string{"40000", ".git", sub})))
	if out, err := git(t, w, "push", "origin", bad+":refs/heads/main"); err == nil || !strings.Contains(out, "hasDotgit") {
		t.Fatalf("push to an old repository: %v\n%s", err, out)
	}
	if h := head(); h != base {
		t.Fatalf("main moved to %s", h)
	}

	// Zero-padded modes are a warning GitHub lets through.
	padded := hashObject(t, w, "tree", rawTree(t, [3]string{"100644", "README.md", blob}, [3]string{"040000", "dir", sub}))
	c := commit(padded)
	mustGit(t, w, "push", "-q", "origin", c+":refs/heads/main")
	if h := head(); h != c {
		t.Fatalf("main is %s after pushing %s", h, c)
	}
}
