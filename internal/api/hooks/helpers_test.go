package hooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/hooks/hookstest"
)

var ctx = context.Background()

// fixture is mona/app (public, auto-initialised with a README on main)
// and a receiver on this machine, which the delivery policy admits.
type fixture struct {
	t      *testing.T
	e      *apitest.Env
	gh     *github.Client
	token  string
	repoID int64
	recv   *hookstest.Receiver
	sch    *hookstest.Schemas
}

func newFixture(t *testing.T, opts ...apitest.Options) *fixture {
	t.Helper()
	t.Setenv("HUBD_HOOK_ALLOW", "127.0.0.0/8,::1")
	sch, err := hookstest.Load()
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.New(t, opts...)
	_, tok := e.NewUser("mona", false)
	f := &fixture{t: t, e: e, gh: e.GitHub(tok), token: tok, recv: hookstest.NewReceiver(t), sch: sch}
	repo, _, err := f.gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	f.repoID = repo.GetID()
	return f
}

// hook creates a hook of mona/app delivering events to the receiver.
func (f *fixture) hook(secret, contentType string, events ...string) *github.Hook {
	f.t.Helper()
	cfg := &github.HookConfig{URL: github.Ptr(f.recv.URL), ContentType: github.Ptr(contentType)}
	if secret != "" {
		cfg.Secret = github.Ptr(secret)
	}
	h, _, err := f.gh.Repositories.CreateHook(ctx, "mona", "app", &github.Hook{Config: cfg, Events: events, Active: github.Ptr(true)})
	if err != nil {
		f.t.Fatalf("create hook: %v", err)
	}
	return h
}

// check validates a delivery against GitHub's webhook schema and its
// signatures against secret.
func (f *fixture) check(d *hookstest.Delivery, secret string) {
	f.t.Helper()
	if err := f.sch.Validate(d.Event(), d.Payload); err != nil {
		f.t.Errorf("schema: %v\npayload: %.1500s", err, d.Payload)
	}
	verify(f.t, d, secret)
}

// verify checks both signatures of a delivery with HMAC computed here.
func verify(t *testing.T, d *hookstest.Delivery, secret string) {
	t.Helper()
	s256, s1 := d.Header.Get("X-Hub-Signature-256"), d.Header.Get("X-Hub-Signature")
	if secret == "" {
		if s256 != "" || s1 != "" {
			t.Errorf("unsigned hook sent signatures %q %q", s256, s1)
		}
		return
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(d.Body)
	if want := "sha256=" + hex.EncodeToString(m.Sum(nil)); !hmac.Equal([]byte(want), []byte(s256)) {
		t.Errorf("X-Hub-Signature-256 %q, want %q", s256, want)
	}
	m1 := hmac.New(sha1.New, []byte(secret))
	m1.Write(d.Body)
	if want := "sha1=" + hex.EncodeToString(m1.Sum(nil)); s1 != want {
		t.Errorf("X-Hub-Signature %q, want %q", s1, want)
	}
}

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

// clone clones mona/app into a temporary directory with credentials.
func (f *fixture) clone() string { return f.cloneOf("mona/app") }

// cloneOf clones a repository as mona.
func (f *fixture) cloneOf(full string) string {
	f.t.Helper()
	u, _ := url.Parse(f.e.URL + "/" + full + ".git")
	u.User = url.UserPassword("mona", f.token)
	dir := filepath.Join(f.t.TempDir(), "work")
	git(f.t, filepath.Dir(dir), "clone", "-q", u.String(), dir)
	return dir
}

// commit writes a file and commits it in dir.
func commit(t *testing.T, dir, name, content, msg string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", msg)
}
