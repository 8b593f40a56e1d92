package githttp_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
)

var ctx = context.Background()

// git runs the real git client, isolated from the machine's configuration.
func git(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Mona Lisa", "-c", "user.email=mona@example.com", "-c", "init.defaultBranch=main", "-c", "protocol.version=2"}, args...)...)
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

// remote is the clone URL of owner/name with credentials (login, token), or
// without when token is "".
func remote(e *apitest.Env, login, token, owner, name string) string {
	u, _ := url.Parse(e.URL + "/" + owner + "/" + name + ".git")
	if token != "" {
		u.User = url.UserPassword(login, token)
	}
	return u.String()
}

func commitFile(t *testing.T, dir, file, content, msg string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	mustGit(t, dir, "add", file)
	mustGit(t, dir, "commit", "-q", "-m", msg)
	return strings.TrimSpace(mustGit(t, dir, "rev-parse", "HEAD"))
}

func TestCloneEmptyPushCloneForcePush(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("hello")}); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	out := mustGit(t, work, "clone", remote(e, "mona", tok, "mona", "hello"), "a")
	if !strings.Contains(out, "empty repository") {
		t.Fatalf("clone of an empty repository: %s", out)
	}
	a := filepath.Join(work, "a")
	first := commitFile(t, a, "README.md", "# hello\n", "first")
	mustGit(t, a, "push", "-q", "origin", "HEAD:refs/heads/trunk")

	// The first push set the default branch and was recorded.
	repo, _, err := gh.Repositories.Get(ctx, "mona", "hello")
	if err != nil || repo.GetDefaultBranch() != "trunk" || repo.PushedAt == nil {
		t.Fatalf("after first push: default %q pushed_at %v err %v", repo.GetDefaultBranch(), repo.PushedAt, err)
	}
	events, _ := e.Store.R().EventsAfter(ctx, 0, 1000)
	pushes := 0
	for _, ev := range events {
		if ev.Type == "push" && ev.ActorID == mona.ID && strings.Contains(string(ev.Payload), first) {
			pushes++
		}
	}
	if pushes != 1 {
		t.Fatalf("%d push events for the first push", pushes)
	}

	// A fresh clone (anonymous: the repository is public) checks out trunk.
	mustGit(t, work, "clone", "-q", remote(e, "", "", "mona", "hello"), "b")
	b := filepath.Join(work, "b")
	if got := strings.TrimSpace(mustGit(t, b, "rev-parse", "HEAD")); got != first {
		t.Fatalf("fresh clone HEAD %s, want %s", got, first)
	}
	if br := strings.TrimSpace(mustGit(t, b, "symbolic-ref", "--short", "HEAD")); br != "trunk" {
		t.Fatalf("checked out %q", br)
	}

	// Force-push a rewritten history.
	mustGit(t, a, "commit", "-q", "--amend", "-m", "rewritten")
	rewritten := strings.TrimSpace(mustGit(t, a, "rev-parse", "HEAD"))
	if out, err := git(t, a, "push", "origin", "HEAD:refs/heads/trunk"); err == nil {
		t.Fatalf("a non-fast-forward push was accepted:\n%s", out)
	}
	mustGit(t, a, "push", "-q", "--force", "origin", "HEAD:refs/heads/trunk")
	if got := strings.Fields(mustGit(t, work, "ls-remote", remote(e, "", "", "mona", "hello"), "refs/heads/trunk"))[0]; got != rewritten {
		t.Fatalf("after force push trunk is %s, want %s", got, rewritten)
	}
	// Fetch with protocol v2 and with v0 both work.
	mustGit(t, b, "-c", "protocol.version=0", "fetch", "-q", "origin")
	mustGit(t, b, "fetch", "-q", "origin")

	// The default branch cannot be deleted.
	if out, err := git(t, a, "push", "origin", ":refs/heads/trunk"); err == nil {
		t.Fatalf("deleting the default branch was accepted:\n%s", out)
	}
}

func TestPrivateRepositoryNeedsCredentials(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	_, otherTok := e.NewUser("hubot", false)
	if _, _, err := e.GitHub(tok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("secret"), Private: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	out, err := git(t, work, "clone", remote(e, "", "", "mona", "secret"), "anon")
	if err == nil || !strings.Contains(out, "could not read Username") {
		t.Fatalf("anonymous clone of a private repository was not asked for credentials: %v\n%s", err, out)
	}
	out, err = git(t, work, "clone", remote(e, "hubot", otherTok, "mona", "secret"), "other")
	if err == nil || !strings.Contains(out, "not found") {
		t.Fatalf("another user cloned a private repository: %v\n%s", err, out)
	}
	out, err = git(t, work, "clone", remote(e, "mona", "ghp_wrongwrongwrongwrongwrongwrongwrong1", "mona", "secret"), "bad")
	if err == nil || !strings.Contains(out, "Authentication failed") {
		t.Fatalf("a bad token cloned: %v\n%s", err, out)
	}
	mustGit(t, work, "clone", "-q", remote(e, "mona", tok, "mona", "secret"), "mine")
}

func TestPushNeedsWriteAccess(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	_, readerTok := e.NewUser("reader", false)
	if _, _, err := e.GitHub(tok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("pub")}); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	mustGit(t, work, "clone", "-q", remote(e, "reader", readerTok, "mona", "pub"), "r")
	r := filepath.Join(work, "r")
	commitFile(t, r, "x.txt", "x", "x")
	out, err := git(t, r, "push", "origin", "HEAD:refs/heads/main")
	if err == nil || !strings.Contains(out, "403") {
		t.Fatalf("a reader pushed: %v\n%s", err, out)
	}
	// Anonymous pushes are asked for credentials.
	mustGit(t, r, "remote", "set-url", "origin", remote(e, "", "", "mona", "pub"))
	out, err = git(t, r, "push", "origin", "HEAD:refs/heads/main")
	if err == nil || !strings.Contains(out, "could not read Username") {
		t.Fatalf("anonymous push: %v\n%s", err, out)
	}
}

// Simultaneous pushes to one ref: exactly one wins, the others are rejected
// and nothing that was accepted is lost.
func TestConcurrentPushes(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	if _, _, err := e.GitHub(tok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("race")}); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	seed := filepath.Join(work, "seed")
	mustGit(t, work, "clone", "-q", remote(e, "mona", tok, "mona", "race"), "seed")
	base := commitFile(t, seed, "base.txt", "base", "base")
	mustGit(t, seed, "push", "-q", "origin", "HEAD:refs/heads/main")

	const n = 6
	tips := make([]string, n)
	for i := 0; i < n; i++ {
		dir := filepath.Join(work, fmt.Sprint("c", i))
		mustGit(t, work, "clone", "-q", remote(e, "mona", tok, "mona", "race"), dir)
		tips[i] = commitFile(t, dir, fmt.Sprint("f", i), fmt.Sprint(i), fmt.Sprint("commit ", i))
	}
	var wg sync.WaitGroup
	won := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if _, err := git(t, filepath.Join(work, fmt.Sprint("c", i)), "push", "-q", "origin", "HEAD:refs/heads/main"); err == nil {
				won <- tips[i]
			}
		}(i)
	}
	wg.Wait()
	close(won)
	var winners []string
	for w := range won {
		winners = append(winners, w)
	}
	if len(winners) != 1 {
		t.Fatalf("%d pushes won from the same base %s", len(winners), base)
	}
	head := strings.Fields(mustGit(t, work, "ls-remote", remote(e, "mona", tok, "mona", "race"), "refs/heads/main"))[0]
	if head != winners[0] {
		t.Fatalf("main is %s, the winner pushed %s", head, winners[0])
	}
	// Every push that git accepted was recorded once.
	events, _ := e.Store.R().EventsAfter(ctx, 0, 1000)
	recorded := 0
	for _, ev := range events {
		if ev.Type == "push" && strings.Contains(string(ev.Payload), winners[0]) {
			recorded++
		}
	}
	if recorded != 1 {
		t.Fatalf("winner recorded %d times", recorded)
	}
}

func TestPushSizeLimit(t *testing.T) {
	e := apitest.New(t, apitest.Options{MaxPush: 64 << 10})
	_, tok := e.NewUser("mona", false)
	if _, _, err := e.GitHub(tok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("big")}); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	mustGit(t, work, "clone", "-q", remote(e, "mona", tok, "mona", "big"), "w")
	w := filepath.Join(work, "w")
	big := make([]byte, 1<<20)
	rand.Read(big) // incompressible: the pack stays over the limit

	if err := os.WriteFile(filepath.Join(w, "blob.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	mustGit(t, w, "add", ".")
	mustGit(t, w, "commit", "-q", "-m", "big")
	if out, err := git(t, w, "push", "origin", "HEAD:refs/heads/main"); err == nil {
		t.Fatalf("a push over the limit was accepted:\n%s", out)
	}
	if out := mustGit(t, work, "ls-remote", remote(e, "mona", tok, "mona", "big")); strings.TrimSpace(out) != "" {
		t.Fatalf("refs after a refused push: %s", out)
	}
}

// A gzip-encoded protocol v2 request (git sends large negotiations that
// way) is understood, and the URL works without ".git" too.
func TestGzipBodyAndPlainURL(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	if _, _, err := e.GitHub(tok).Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("zip"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	var req bytes.Buffer
	for _, line := range []string{"command=ls-refs\n", "agent=test\n"} {
		fmt.Fprintf(&req, "%04x%s", len(line)+4, line)
	}
	req.WriteString("0001") // delimiter
	arg := "ref-prefix refs/heads/\n"
	fmt.Fprintf(&req, "%04x%s0000", len(arg)+4, arg)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(req.Bytes())
	zw.Close()
	r, _ := http.NewRequest("POST", e.URL+"/mona/zip/git-upload-pack", &gz)
	r.Header.Set("Content-Type", "application/x-git-upload-pack-request")
	r.Header.Set("Content-Encoding", "gzip")
	r.Header.Set("Git-Protocol", "version=2")
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), " refs/heads/main") {
		t.Fatalf("gzip ls-refs: %d %q", resp.StatusCode, body)
	}
	// And the real client through the URL without ".git".
	out := mustGit(t, t.TempDir(), "ls-remote", e.URL+"/mona/zip")
	if !strings.Contains(out, "refs/heads/main") {
		t.Fatalf("ls-remote without .git: %s", out)
	}
}
