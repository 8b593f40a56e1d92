package gitssh_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-github/v92/github"
	gossh "golang.org/x/crypto/ssh"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/store"
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

// TestRefusals: an unknown key is refused at sign-in; a user sees only
// what they may (a private repository of another is not found, a public
// one is read-only to them); a read-only deploy key clones its repository
// and may not push; a deploy key reaches no other repository; a
// read-write deploy key pushes.
func TestRefusals(t *testing.T) {
	e := apitest.New(t, apitest.Options{SSH: true})
	_, tok := e.NewUser("mona", false)
	_, bobTok := e.NewUser("bob", false)
	gh, bob := e.GitHub(tok), e.GitHub(bobTok)
	for _, r := range []*github.Repository{
		{Name: github.Ptr("secret"), Private: github.Ptr(true), AutoInit: github.Ptr(true)},
		{Name: github.Ptr("open"), AutoInit: github.Ptr(true)},
		{Name: github.Ptr("other"), Private: github.Ptr(true), AutoInit: github.Ptr(true)},
	} {
		if _, _, err := gh.Repositories.Create(ctx, "", r); err != nil {
			t.Fatal(err)
		}
	}
	url := func(name string) string { return "ssh://git@" + e.SSHAddr + "/mona/" + name + ".git" }
	work := t.TempDir()

	stranger := newKey(t)
	refuseGit(t, e, stranger, work, "Permission denied (publickey)", "ls-remote", url("open"))

	bk := newKey(t)
	if _, _, err := bob.Users.CreateKey(ctx, github.CreateUserKeyRequest{Key: bk.pub}); err != nil {
		t.Fatal(err)
	}
	refuseGit(t, e, bk, work, "ERROR: Repository not found.", "clone", url("secret"), "s")
	refuseGit(t, e, bk, work, "ERROR: Repository not found.", "ls-remote", "ssh://git@"+e.SSHAddr+"/mona/nothing.git")
	mustGit(t, e, bk, work, "clone", "-q", url("open"), "open")
	open := filepath.Join(work, "open")
	commitFile(t, e, bk, open, "b.txt", "bob\n")
	refuseGit(t, e, bk, open, "ERROR: Permission to mona/open.git denied to bob.", "push", "origin", "HEAD:refs/heads/bob")

	// A read-only deploy key on secret.
	ro := newKey(t)
	if _, _, err := gh.Repositories.CreateKey(ctx, "mona", "secret", github.CreateDeployKeyRequest{Title: github.Ptr("ci"), Key: ro.pub, ReadOnly: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	mustGit(t, e, ro, work, "clone", "-q", url("secret"), "secret")
	secret := filepath.Join(work, "secret")
	commitFile(t, e, ro, secret, "d.txt", "deploy\n")
	refuseGit(t, e, ro, secret, "ERROR: The key you are authenticating with has been marked as read only.", "push", "origin", "HEAD:refs/heads/deploy")
	refuseGit(t, e, ro, work, "ERROR: Repository not found.", "ls-remote", url("other"))
	refuseGit(t, e, ro, work, "ERROR: Repository not found.", "ls-remote", url("open"))

	// A read-write deploy key on other pushes there, and only there.
	rw := newKey(t)
	if _, _, err := gh.Repositories.CreateKey(ctx, "mona", "other", github.CreateDeployKeyRequest{Key: rw.pub, ReadOnly: github.Ptr(false)}); err != nil {
		t.Fatal(err)
	}
	mustGit(t, e, rw, work, "clone", "-q", url("other"), "other")
	other := filepath.Join(work, "other")
	sha := commitFile(t, e, rw, other, "d.txt", "deploy\n")
	mustGit(t, e, rw, other, "push", "-q", "origin", "HEAD:refs/heads/deploy")
	if b, _, err := gh.Repositories.GetBranch(ctx, "mona", "other", "deploy", 0); err != nil || b.GetCommit().GetSHA() != sha {
		t.Fatalf("branch pushed with the deploy key: %+v %v", b, err)
	}
	mustGit(t, e, rw, secret, "remote", "set-url", "origin", url("secret"))
	refuseGit(t, e, rw, secret, "ERROR: Repository not found.", "push", "origin", "HEAD:refs/heads/deploy")

	// A deleted key no longer signs in.
	keys, _, err := gh.Repositories.ListKeys(ctx, "mona", "other", nil)
	if err != nil || len(keys) != 1 {
		t.Fatalf("deploy keys: %v %v", keys, err)
	}
	if _, err := gh.Repositories.DeleteKey(ctx, "mona", "other", keys[0].GetID()); err != nil {
		t.Fatal(err)
	}
	refuseGit(t, e, rw, work, "Permission denied (publickey)", "ls-remote", url("other"))
}

// defaultBranchRuleset makes an active ruleset of rules on the repository's
// default branch.
func defaultBranchRuleset(t *testing.T, gh *github.Client, owner, repo string, rules *github.RepositoryRulesetRules) *github.RepositoryRuleset {
	t.Helper()
	rs, _, err := gh.Repositories.CreateRuleset(ctx, owner, repo, github.RepositoryRuleset{Name: "default branch", Enforcement: "active",
		Conditions: &github.RepositoryRulesetConditions{RefName: &github.RepositoryRulesetRefConditionParameters{
			Include: []string{"~DEFAULT_BRANCH"}, Exclude: []string{}}},
		Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestPushRules: pushes over SSH pass the same checks as smart HTTP: the
// repository's rules refuse a force push with GitHub's words before any
// ref moves, and a pack over the size limit is refused.
func TestPushRules(t *testing.T) {
	e := apitest.New(t, apitest.Options{SSH: true, MaxPush: 64 << 10})
	_, tok := e.NewUser("mona", false)
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("app"), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	defaultBranchRuleset(t, gh, "mona", "app", &github.RepositoryRulesetRules{NonFastForward: &github.EmptyRuleParameters{}})
	k := newKey(t)
	if _, _, err := gh.Users.CreateKey(ctx, github.CreateUserKeyRequest{Key: k.pub}); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	url := "ssh://git@" + e.SSHAddr + "/mona/app.git"
	mustGit(t, e, k, work, "clone", "-q", url, "w")
	w := filepath.Join(work, "w")
	first := commitFile(t, e, k, w, "a.txt", "first\n")
	mustGit(t, e, k, w, "push", "-q", "origin", "HEAD:main")
	mustGit(t, e, k, w, "commit", "-q", "--amend", "-m", "rewritten")
	out, err := git(t, e, k, w, "push", "--force", "origin", "HEAD:main")
	if err == nil || !strings.Contains(out, "remote: error: GH013: Repository rule violations found for refs/heads/main.") ||
		!strings.Contains(out, "Cannot force-push to this branch.") || !strings.Contains(out, "[remote rejected]") {
		t.Fatalf("force push: %v\n%s", err, out)
	}
	if got := strings.Fields(mustGit(t, e, k, work, "ls-remote", url, "refs/heads/main"))[0]; got != first {
		t.Fatalf("main is %s after a refused push, want %s", got, first)
	}

	big := make([]byte, 1<<20)
	rand.Read(big) // incompressible: the pack stays over the limit
	if err := os.WriteFile(filepath.Join(w, "blob.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	mustGit(t, e, k, w, "add", ".")
	mustGit(t, e, k, w, "commit", "-q", "-m", "big")
	if out, err := git(t, e, k, w, "push", "origin", "HEAD:refs/heads/big"); err == nil {
		t.Fatalf("a push over the limit was accepted:\n%s", out)
	}
	if out := mustGit(t, e, k, work, "ls-remote", url, "refs/heads/big"); strings.TrimSpace(out) != "" {
		t.Fatalf("refs after a refused push: %s", out)
	}
}

// TestCiphers: the server offers AES (GCM, then CTR) and not
// chacha20-poly1305, which Go computes without assembly on amd64; a client
// that insists on chacha20 finds no common cipher, one that lists it first
// gets AES.
func TestCiphers(t *testing.T) {
	e := apitest.New(t, apitest.Options{SSH: true})
	dial := func(ciphers ...string) error {
		cfg := &gossh.ClientConfig{User: "git", HostKeyCallback: gossh.InsecureIgnoreHostKey(),
			Config: gossh.Config{Ciphers: ciphers}, Auth: []gossh.AuthMethod{gossh.Password("x")}}
		c, err := gossh.Dial("tcp", e.SSHAddr, cfg)
		if c != nil {
			c.Close()
		}
		return err
	}
	if err := dial(gossh.CipherChaCha20Poly1305); err == nil || !strings.Contains(err.Error(), "no common algorithm for client to server cipher") {
		t.Fatalf("chacha20 only: %v", err)
	}
	for _, c := range []string{gossh.CipherAES128GCM, gossh.CipherAES256GCM, gossh.CipherAES128CTR, gossh.CipherAES256CTR} {
		// The key exchange succeeds; the password is then refused.
		if err := dial(gossh.CipherChaCha20Poly1305, c); err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
			t.Fatalf("chacha20 then %s: %v", c, err)
		}
	}
}

// TestDeployKeyPolicy: a read-write deploy key of an organization's
// repository is held by its ruleset until the ruleset names DeployKey
// among its bypass actors; when the organization disables deploy keys
// (deploy_keys_enabled_for_repositories), the existing key is refused for
// git and shown disabled, and a new one is refused with GitHub's 422;
// enabled again, the key works.
func TestDeployKeyPolicy(t *testing.T) {
	e := apitest.New(t, apitest.Options{SSH: true})
	olga, tok := e.NewUser("olga", false)
	org := store.NewOrg("octo")
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.CreateOrg(ctx, org, olga.ID) }); err != nil {
		t.Fatal(err)
	}
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "octo", &github.Repository{Name: github.Ptr("app"), Private: github.Ptr(true), AutoInit: github.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	k := newKey(t)
	dk, _, err := gh.Repositories.CreateKey(ctx, "octo", "app", github.CreateDeployKeyRequest{Title: github.Ptr("deploy"), Key: k.pub, ReadOnly: github.Ptr(false)})
	if err != nil || !dk.GetEnabled() {
		t.Fatalf("deploy key: %+v %v", dk, err)
	}
	rs := defaultBranchRuleset(t, gh, "octo", "app", &github.RepositoryRulesetRules{Update: &github.UpdateRuleParameters{}})
	work := t.TempDir()
	url := "ssh://git@" + e.SSHAddr + "/octo/app.git"
	mustGit(t, e, k, work, "clone", "-q", url, "w")
	w := filepath.Join(work, "w")
	head := commitFile(t, e, k, w, "deploy.txt", "v1\n")
	out, err := git(t, e, k, w, "push", "origin", "HEAD:main")
	if err == nil || !strings.Contains(out, "Cannot update this protected ref.") {
		t.Fatalf("push to main without a bypass: %v\n%s", err, out)
	}
	rs.BypassActors = []*github.BypassActor{{ActorType: github.Ptr(github.BypassActorTypeDeployKey), BypassMode: github.Ptr(github.BypassModeAlways)}}
	if _, _, err := gh.Repositories.UpdateRuleset(ctx, "octo", "app", rs.GetID(), *rs); err != nil {
		t.Fatal(err)
	}
	mustGit(t, e, k, w, "push", "-q", "origin", "HEAD:main")
	if got := strings.Fields(mustGit(t, e, k, work, "ls-remote", url, "refs/heads/main"))[0]; got != head {
		t.Fatalf("main is %s after the deploy key's bypass, want %s", got, head)
	}
	// The bypass is the deploy key's: the owner's own key is still held.
	uk := newKey(t)
	if _, _, err := gh.Users.CreateKey(ctx, github.CreateUserKeyRequest{Key: uk.pub}); err != nil {
		t.Fatal(err)
	}
	commitFile(t, e, k, w, "user.txt", "olga\n")
	if out, err := git(t, e, uk, w, "push", "origin", "HEAD:main"); err == nil || !strings.Contains(out, "Cannot update this protected ref.") {
		t.Fatalf("push to main with a user key: %v\n%s", err, out)
	}

	setPolicy := func(on bool) {
		t.Helper()
		o, _, err := gh.Organizations.Edit(ctx, "octo", &github.Organization{DeployKeysEnabledForRepositories: github.Ptr(on)})
		if err != nil || o.GetDeployKeysEnabledForRepositories() != on {
			t.Fatalf("deploy_keys_enabled_for_repositories=%v: %v", on, err)
		}
	}
	setPolicy(false)
	refuseGit(t, e, k, work, "ERROR: Deploy keys are disabled for this repository.", "ls-remote", url)
	refuseGit(t, e, k, w, "ERROR: Deploy keys are disabled for this repository.", "push", "origin", "HEAD:refs/heads/other")
	keys, _, err := gh.Repositories.ListKeys(ctx, "octo", "app", nil)
	if err != nil || len(keys) != 1 || keys[0].GetEnabled() {
		t.Fatalf("keys while disabled: %+v %v", keys, err)
	}
	if got, _, err := gh.Repositories.GetKey(ctx, "octo", "app", dk.GetID()); err != nil || got.GetEnabled() {
		t.Fatalf("key while disabled: %+v %v", got, err)
	}
	_, _, err = gh.Repositories.CreateKey(ctx, "octo", "app", github.CreateDeployKeyRequest{Title: github.Ptr("another"), Key: newKey(t).pub})
	var ge *github.ErrorResponse
	if !errors.As(err, &ge) || ge.Response.StatusCode != 422 || ge.Message != "Validation Failed" || len(ge.Errors) != 1 ||
		ge.Errors[0].Resource != "PublicKey" || ge.Errors[0].Code != "custom" || ge.Errors[0].Message != "Deploy keys are disabled for this repository" {
		t.Fatalf("a deploy key added while disabled: %v", err)
	}
	// A user's repository is not under any organization's policy.
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("mine")}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := gh.Repositories.CreateKey(ctx, "olga", "mine", github.CreateDeployKeyRequest{Title: github.Ptr("mine"), Key: newKey(t).pub}); err != nil {
		t.Fatalf("a user's repository: %v", err)
	}

	setPolicy(true)
	mustGit(t, e, k, work, "ls-remote", url)
	if got, _, err := gh.Repositories.GetKey(ctx, "octo", "app", dk.GetID()); err != nil || !got.GetEnabled() {
		t.Fatalf("key enabled again: %+v %v", got, err)
	}
}
