package signingkeys_test

import (
	"bytes"
	"crypto"
	"encoding/pem"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/google/go-github/v92/github"
	"golang.org/x/crypto/ssh"

	"github.com/hubd/hubd/internal/apitest"
)

// rawSign signs payload with a key packet as git's gpg does (a detached
// binary signature), whatever the key's flags and expiry say.
func rawSign(t *testing.T, priv *packet.PrivateKey, payload string, when time.Time) string {
	t.Helper()
	id := priv.KeyId
	sig := &packet.Signature{Version: 4, SigType: packet.SigTypeBinary, PubKeyAlgo: priv.PubKeyAlgo, Hash: crypto.SHA256,
		CreationTime: when, IssuerKeyId: &id}
	h, err := sig.PrepareSign(nil)
	if err != nil {
		t.Fatal(err)
	}
	h.Write([]byte(payload))
	if err := sig.Sign(h, priv, nil); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, err := armor.Encode(&b, "PGP SIGNATURE", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := sig.Serialize(w); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return b.String() + "\n"
}

// signedCommits makes commits through the Git database API, signed by
// go-github's signer with the signature sign computes over the payload.
type signedCommits struct {
	t          *testing.T
	gh         *github.Client
	tree, base string
	n          int
}

func (s *signedCommits) make(email string, sign func(payload string) string) *github.Commit {
	s.t.Helper()
	s.n++
	who := &github.CommitAuthor{Name: github.Ptr("Mona Lisa"), Email: github.Ptr(email), Date: &github.Timestamp{Time: time.Now().Add(-time.Minute).Truncate(time.Second)}}
	signer := github.MessageSignerFunc(func(w io.Writer, r io.Reader) error {
		b, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, sign(string(b)))
		return err
	})
	c, _, err := s.gh.Git.CreateCommit(ctx, "mona", "sig", github.Commit{Message: github.Ptr("signed " + itoa(int64(s.n))), Tree: &github.Tree{SHA: &s.tree},
		Parents: []*github.Commit{{SHA: &s.base}}, Author: who, Committer: who}, &github.CreateCommitOptions{Signer: signer})
	if err != nil {
		s.t.Fatal(err)
	}
	return c
}

// reason reads a commit's verification through the commits API and the
// Git database API, which must agree.
func reason(t *testing.T, e *apitest.Env, gh *github.Client, sha string) (string, bool) {
	t.Helper()
	c, _, err := gh.Repositories.GetCommit(ctx, "mona", "sig", sha, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := gh.Git.GetCommit(ctx, "mona", "sig", sha)
	if err != nil {
		t.Fatal(err)
	}
	v, gv := c.GetCommit().GetVerification(), g.GetVerification()
	if v.GetReason() != gv.GetReason() || v.GetVerified() != gv.GetVerified() {
		t.Fatalf("commit %s: commits API %+v, git API %+v", sha, v, gv)
	}
	m := e.Must(200, "GET", "/repos/mona/sig/git/commits/"+sha, "", nil).Map(t)["verification"].(map[string]any)
	if (m["verified_at"] != nil) != v.GetVerified() || (m["signature"] == nil) != (v.GetReason() == "unsigned") || (m["payload"] == nil) != (m["signature"] == nil) {
		t.Fatalf("verification %v", m)
	}
	return v.GetReason(), v.GetVerified()
}

// TestCommitVerification verifies OpenPGP signatures (computed in Go) of
// commits made through the API, with each of GitHub's reasons, and SSH
// signatures of commits and tags made by the real git and pushed.
func TestCommitVerification(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	setEmail(t, e, mona, "mona@example.com")
	bob, _ := e.NewUser("bob", false)
	setEmail(t, e, bob, "bob@example.com")
	gh := e.GitHub(tok)
	if _, _, err := gh.Repositories.Create(ctx, "", &github.Repository{Name: github.Ptr("sig"), Private: github.Ptr(false)}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	apitest.MustGit(t, dir, "init", "-q")
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# sig\n"), 0o644)
	apitest.MustGit(t, dir, "add", ".")
	apitest.MustGit(t, dir, "commit", "-q", "-m", "unsigned")
	apitest.MustGit(t, dir, "remote", "add", "origin", e.Remote("mona", "sig", "mona", tok))
	apitest.MustGit(t, dir, "push", "-q", "origin", "main")
	base := strings.TrimSpace(apitest.MustGit(t, dir, "rev-parse", "HEAD"))
	tree := strings.TrimSpace(apitest.MustGit(t, dir, "rev-parse", "HEAD^{tree}"))
	if r, ok := reason(t, e, gh, base); r != "unsigned" || ok {
		t.Fatalf("unsigned commit: %s", r)
	}
	sc := &signedCommits{t: t, gh: gh, tree: tree, base: base}

	ent := newEntity(t, nil, "mona@example.com", "alt@example.com")
	detach := func(ent *openpgp.Entity) func(string) string {
		return func(payload string) string {
			var b bytes.Buffer
			if err := openpgp.ArmoredDetachSign(&b, ent, strings.NewReader(payload), nil); err != nil {
				t.Fatal(err)
			}
			return b.String() + "\n"
		}
	}
	good := sc.make("mona@example.com", detach(ent))
	if v := good.GetVerification(); v.GetReason() != "unknown_key" || v.GetVerified() {
		t.Fatalf("before the key is added: %+v", v)
	}
	key, _, err := gh.Users.CreateGPGKey(ctx, armored(t, ent))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := reason(t, e, gh, good.GetSHA()); r != "valid" || !ok {
		t.Fatalf("signed by mona's key: %s", r)
	}
	// The list shows it too, and the created commit answers at once.
	list, _, err := gh.Repositories.ListCommits(ctx, "mona", "sig", &github.CommitsListOptions{SHA: good.GetSHA()})
	if err != nil || len(list) != 2 || list[0].GetCommit().GetVerification().GetReason() != "valid" || list[1].GetCommit().GetVerification().GetReason() != "unsigned" {
		t.Fatalf("list: %v %v", list, err)
	}
	if v := sc.make("mona@example.com", detach(ent)).GetVerification(); !v.GetVerified() || v.GetReason() != "valid" {
		t.Fatalf("created signed commit: %+v", v)
	}

	noreply := itoa(mona.ID) + "+mona@" + e.Deps.URLs.NoreplyDomain()
	expired := newEntity(t, &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA, Time: func() time.Time { return time.Now().Add(-2 * time.Hour) },
		KeyLifetimeSecs: 3600}, "mona@example.com")
	e.Must(201, "POST", "/user/gpg_keys", tok, map[string]any{"armored_public_key": armored(t, expired)})
	noSign := newEntity(t, nil, "mona@example.com")
	for _, id := range noSign.Identities {
		id.SelfSignature.FlagSign = false
		if err := id.SelfSignature.SignUserId(id.UserId.Id, noSign.PrimaryKey, noSign.PrivateKey, nil); err != nil {
			t.Fatal(err)
		}
	}
	e.Must(201, "POST", "/user/gpg_keys", tok, map[string]any{"armored_public_key": armored(t, noSign)})
	stranger := newEntity(t, nil, "mona@example.com")
	cases := []struct {
		name, email string
		sign        func(string) string
		want        string
	}{
		{"nobody's address", "other@example.com", detach(ent), "no_user"},
		{"someone else's address", "bob@example.com", detach(ent), "bad_email"},
		{"mona's address not in the key", noreply, detach(ent), "bad_email"},
		{"an address only the key claims", "alt@example.com", detach(ent), "unverified_email"},
		{"a key nobody added", "mona@example.com", detach(stranger), "unknown_key"},
		{"another payload", "mona@example.com", func(p string) string { return detach(ent)(p + "x") }, "invalid"},
		{"an expired key", "mona@example.com", func(p string) string { return rawSign(t, expired.PrivateKey, p, time.Now()) }, "expired_key"},
		{"a key that may not sign", "mona@example.com", func(p string) string { return rawSign(t, noSign.PrivateKey, p, time.Now()) }, "not_signing_key"},
		{"garbage", "mona@example.com", func(string) string {
			return "-----BEGIN PGP SIGNATURE-----\n\nbm90IGEgc2lnbmF0dXJl\n-----END PGP SIGNATURE-----\n"
		}, "malformed_signature"},
		{"another kind", "mona@example.com", func(string) string {
			return "-----BEGIN SIGNED MESSAGE-----\nMIAGCSqGSIb3DQEHAqCAMIACAQExDzANBglghkgBZQMEAgEFADCABgkqhkiG9w0BBwEAAKCAMIIF\n-----END SIGNED MESSAGE-----\n"
		}, "unknown_signature_type"},
	}
	for _, c := range cases {
		sha := sc.make(c.email, c.sign).GetSHA()
		if r, ok := reason(t, e, gh, sha); r != c.want || ok {
			t.Errorf("%s: reason %s, want %s", c.name, r, c.want)
		}
	}

	// Removing the key takes the verification back (the cache is dropped).
	if _, err := gh.Users.DeleteGPGKey(ctx, key.GetID()); err != nil {
		t.Fatal(err)
	}
	if r, _ := reason(t, e, gh, good.GetSHA()); r != "unknown_key" {
		t.Fatalf("after the key was removed: %s", r)
	}

	// SSH signatures, made by git and ssh-keygen.
	priv, line := newSSHKey(t)
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	sshGit := func(args ...string) string {
		return apitest.MustGit(t, dir, append([]string{"-c", "gpg.format=ssh", "-c", "user.signingkey=" + keyFile}, args...)...)
	}
	os.WriteFile(filepath.Join(dir, "ssh.txt"), []byte("ssh\n"), 0o644)
	apitest.MustGit(t, dir, "add", ".")
	sshGit("commit", "-q", "-S", "-m", "ssh signed")
	sshGit("tag", "-s", "-m", "ssh signed tag", "v1")
	apitest.MustGit(t, dir, "push", "-q", "origin", "main", "v1")
	sshSHA := strings.TrimSpace(apitest.MustGit(t, dir, "rev-parse", "HEAD"))
	tagSHA := strings.TrimSpace(apitest.MustGit(t, dir, "rev-parse", "v1"))
	if r, _ := reason(t, e, gh, sshSHA); r != "unknown_key" {
		t.Fatalf("ssh commit before the key is added: %s", r)
	}
	if _, _, err := gh.Users.CreateSSHSigningKey(ctx, github.CreateSSHSigningKeyRequest{Key: line}); err != nil {
		t.Fatal(err)
	}
	if r, ok := reason(t, e, gh, sshSHA); r != "valid" || !ok {
		t.Fatalf("ssh commit: %s", r)
	}
	tag, _, err := gh.Git.GetTag(ctx, "mona", "sig", tagSHA)
	if err != nil || !tag.GetVerification().GetVerified() || tag.GetVerification().GetReason() != "valid" {
		t.Fatalf("ssh tag: %+v %v", tag.GetVerification(), err)
	}
	// Signed by mona's key as someone else: bad_email; an SSH signature of
	// another namespace: invalid.
	os.WriteFile(filepath.Join(dir, "ssh.txt"), []byte("bob\n"), 0o644)
	apitest.MustGit(t, dir, "add", ".")
	sshGit("-c", "user.email=bob@example.com", "commit", "-q", "-S", "-m", "as bob")
	apitest.MustGit(t, dir, "push", "-q", "origin", "main")
	if r, _ := reason(t, e, gh, strings.TrimSpace(apitest.MustGit(t, dir, "rev-parse", "HEAD"))); r != "bad_email" {
		t.Fatalf("ssh commit as bob: %s", r)
	}
	if r, _ := reason(t, e, gh, sc.make("mona@example.com", func(p string) string {
		return sshSign(t, keyFile, dir, "file", p)
	}).GetSHA()); r != "invalid" {
		t.Fatalf("namespace file: %s", r)
	}
}

// sshSign signs payload with ssh-keygen in a namespace.
func sshSign(t *testing.T, keyFile, dir, namespace, payload string) string {
	t.Helper()
	f := filepath.Join(dir, "..", "payload")
	if err := os.WriteFile(f, []byte(payload), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := execOut("ssh-keygen", "-Y", "sign", "-n", namespace, "-f", keyFile, f)
	if err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	sig, err := os.ReadFile(f + ".sig")
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(f + ".sig")
	return string(sig)
}
