package gitssh_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
	gossh "golang.org/x/crypto/ssh"

	"github.com/hubd/hubd/internal/apitest"
)

var ctx = context.Background()

// key is an ed25519 key pair kept in a file for ssh -i.
type key struct {
	path string // the private key
	pub  string // authorized_keys format
}

func newKey(t *testing.T) key {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	sp, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return key{path: path, pub: strings.TrimSpace(string(gossh.MarshalAuthorizedKey(sp))) + " test@hubd"}
}

// git runs the real git client over the real ssh client with key, isolated
// from the machine's configuration.
func git(t *testing.T, e *apitest.Env, k key, dir string, args ...string) (string, error) {
	t.Helper()
	_, port, _ := net.SplitHostPort(e.SSHAddr)
	cmd := exec.Command("git", append([]string{"-c", "user.name=Mona Lisa", "-c", "user.email=mona@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_SSH_COMMAND=ssh -i "+k.path+" -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -p "+port)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustGit(t *testing.T, e *apitest.Env, k key, dir string, args ...string) string {
	t.Helper()
	out, err := git(t, e, k, dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func refuseGit(t *testing.T, e *apitest.Env, k key, dir, want string, args ...string) {
	t.Helper()
	out, err := git(t, e, k, dir, args...)
	if err == nil || !strings.Contains(out, want) {
		t.Fatalf("git %s: want a refusal with %q, got err %v:\n%s", strings.Join(args, " "), want, err, out)
	}
}

func commitFile(t *testing.T, e *apitest.Env, k key, dir, file, content string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	mustGit(t, e, k, dir, "add", file)
	mustGit(t, e, k, dir, "commit", "-q", "-m", "add "+file)
	return strings.TrimSpace(mustGit(t, e, k, dir, "rev-parse", "HEAD"))
}

// TestCloneAndPushWithUserKey: a user's key clones and pushes their
// private repository at its ssh_url (and the other path forms), protocol
// v0 and v2; the push is recorded as theirs.
func TestCloneAndPushWithUserKey(t *testing.T) {
	e := apitest.New(t, apitest.Options{SSH: true})
	mona, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	repo, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("hello"), Private: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if want := "ssh://git@" + e.SSHAddr + "/mona/hello.git"; repo.GetSSHURL() != want {
		t.Fatalf("ssh_url %q, want %q", repo.GetSSHURL(), want)
	}
	k := newKey(t)
	if _, _, err := gh.Users.CreateKey(ctx, github.CreateUserKeyRequest{Title: github.Ptr("laptop"), Key: k.pub}); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	out := mustGit(t, e, k, work, "clone", repo.GetSSHURL(), "a")
	if !strings.Contains(out, "empty repository") {
		t.Fatalf("clone of an empty repository: %s", out)
	}
	a := filepath.Join(work, "a")
	first := commitFile(t, e, k, a, "README.md", "# hello\n")
	mustGit(t, e, k, a, "push", "-q", "origin", "HEAD:refs/heads/main")
	events, _ := e.Store.R().EventsAfter(ctx, 0, 1000)
	pushes := 0
	for _, ev := range events {
		if ev.Type == "push" && ev.ActorID == mona.ID && strings.Contains(string(ev.Payload), first) {
			pushes++
		}
	}
	if pushes != 1 {
		t.Fatalf("%d push events for the push", pushes)
	}
	got, _, err := gh.Repositories.Get(ctx, "mona", "hello")
	if err != nil || got.GetDefaultBranch() != "main" || got.PushedAt == nil {
		t.Fatalf("after the push: default %q pushed_at %v err %v", got.GetDefaultBranch(), got.PushedAt, err)
	}

	// Without .git, without the leading slash (scp-like), protocol v0.
	_, port, _ := net.SplitHostPort(e.SSHAddr)
	host, _, _ := net.SplitHostPort(e.SSHAddr)
	for i, u := range []string{"ssh://git@" + e.SSHAddr + "/mona/hello", "git@" + host + ":mona/hello.git"} {
		dir := filepath.Join(work, "c"+string(rune('0'+i)))
		mustGit(t, e, k, work, "-c", "protocol.version=0", "clone", "-q", u, dir)
		if head := strings.TrimSpace(mustGit(t, e, k, dir, "rev-parse", "HEAD")); head != first {
			t.Fatalf("clone of %s: HEAD %s, want %s", u, head, first)
		}
	}
	_ = port
	// Protocol v2: the server answers in version 2.
	cmd := exec.Command("git", "-c", "protocol.version=2", "ls-remote", repo.GetSSHURL())
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TRACE_PACKET=1",
		"GIT_SSH_COMMAND=ssh -i "+k.path+" -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -p "+port)
	trace, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(trace), "< version 2") || !strings.Contains(string(trace), first) {
		t.Fatalf("ls-remote over protocol v2: %v\n%s", err, trace)
	}

	// The key's last use is recorded.
	keys, _, err := gh.Users.ListKeys(ctx, "", nil)
	if err != nil || len(keys) != 1 || keys[0].LastUsed == nil {
		t.Fatalf("keys after use: %+v %v", keys, err)
	}
}
