package signingkeys_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/google/go-github/v92/github"
	"golang.org/x/crypto/ssh"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

var ctx = context.Background()

// newEntity makes an OpenPGP key (ed25519, with an encryption subkey) for
// the emails, the first being the primary user id; cfg may set the
// algorithm, creation time and lifetime.
func newEntity(t *testing.T, cfg *packet.Config, emails ...string) *openpgp.Entity {
	t.Helper()
	if cfg == nil {
		cfg = &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA}
	}
	e, err := openpgp.NewEntity("Mona Lisa", "", emails[0], cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range emails[1:] {
		if err := e.AddUserId("Mona Lisa", "", m, cfg); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// armored is an entity's public key block.
func armored(t *testing.T, e *openpgp.Entity) string {
	t.Helper()
	var b bytes.Buffer
	w, err := armor.Encode(&b, openpgp.PublicKeyType, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Serialize(w); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return b.String()
}

// newSSHKey makes an ed25519 key: its signer and authorized_keys line.
func newSSHKey(t *testing.T) (ed25519.PrivateKey, string) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return priv, strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sp)))
}

// setEmail gives a user an email (hubd's accounts hold one, verified).
func setEmail(t *testing.T, e *apitest.Env, u *model.Account, email string) {
	t.Helper()
	u.Email = email
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.UpdateAccount(ctx, u) }); err != nil {
		t.Fatal(err)
	}
	e.Deps.Tokens.Flush()
}

func fieldMessage(t *testing.T, r *apitest.Response) (string, string) {
	t.Helper()
	var body struct {
		Message string
		Errors  []struct{ Resource, Field, Code, Message string }
	}
	r.JSON(t, &body)
	if body.Message != "Validation Failed" || len(body.Errors) != 1 {
		t.Fatalf("422 body: %s", r.Body)
	}
	return body.Errors[0].Field, body.Errors[0].Message
}

// TestGPGKeys adds, lists, reads and deletes GPG keys through go-github,
// with GitHub's refusals and the scopes of each operation.
func TestGPGKeys(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	setEmail(t, e, mona, "mona@example.com")
	_, bobTok := e.NewUser("bob", false)
	gh := e.GitHub(tok)

	ent := newEntity(t, nil, "mona@example.com", "alt@example.com")
	arm := armored(t, ent) // (the order of user ids differs from one serialization to the next)
	key, _, err := gh.Users.CreateGPGKey(ctx, arm)
	if err != nil {
		t.Fatal(err)
	}
	wantID := strings.ToUpper(ent.PrimaryKey.KeyIdString())
	if key.GetKeyID() != wantID || key.PrimaryKeyID != nil || !key.GetCanSign() || !key.GetCanCertify() || key.GetCanEncryptComms() ||
		key.GetRawKey() != arm || key.GetPublicKey() == "" || key.ExpiresAt != nil {
		t.Fatalf("created key: %+v", key)
	}
	emails := map[string]bool{}
	for _, m := range key.Emails {
		emails[m.GetEmail()] = m.GetVerified()
	}
	if len(emails) != 2 || !emails["mona@example.com"] || emails["alt@example.com"] {
		t.Fatalf("emails: %+v", key.Emails)
	}
	if len(key.Subkeys) != 1 || key.Subkeys[0].GetKeyID() != strings.ToUpper(ent.Subkeys[0].PublicKey.KeyIdString()) ||
		key.Subkeys[0].GetPrimaryKeyID() != key.GetID() || key.Subkeys[0].GetCanSign() || !key.Subkeys[0].GetCanEncryptComms() {
		t.Fatalf("subkeys: %+v", key.Subkeys)
	}
	named := e.Must(201, "POST", "/user/gpg_keys", tok, map[string]any{"name": "laptop", "armored_public_key": armored(t, newEntity(t, nil, "mona@example.com"))}).Map(t)
	if named["name"] != "laptop" || named["raw_key"] == nil {
		t.Fatalf("named key: %v", named)
	}

	list, resp, err := gh.Users.ListGPGKeys(ctx, "", &github.ListOptions{PerPage: 1})
	if err != nil || len(list) != 1 || list[0].GetID() != key.GetID() || resp.NextPage != 2 {
		t.Fatalf("list: %v %+v %v", list, resp, err)
	}
	public, _, err := e.GitHub("").Users.ListGPGKeys(ctx, "mona", nil)
	if err != nil || len(public) != 2 || public[1].GetID() != int64(named["id"].(float64)) {
		t.Fatalf("public list: %v %v", public, err)
	}
	got, _, err := gh.Users.GetGPGKey(ctx, key.GetID())
	if err != nil || got.GetKeyID() != wantID || len(got.Subkeys) != 1 {
		t.Fatalf("get: %+v %v", got, err)
	}
	e.Must(404, "GET", "/user/gpg_keys/"+itoa(key.GetID()), bobTok, nil) // someone else's
	e.Must(404, "GET", "/users/nobody/gpg_keys", "", nil)
	var l []any
	if e.Must(200, "GET", "/users/bob/gpg_keys", "", nil).JSON(t, &l); len(l) != 0 {
		t.Fatalf("bob's keys: %v", l)
	}

	// Refusals: the same key (here or on another account), a subkey
	// another key holds, garbage, a private key.
	r := e.Must(422, "POST", "/user/gpg_keys", tok, map[string]any{"armored_public_key": armored(t, ent)})
	if f, m := fieldMessage(t, r); f != "key_id" || m != "key_id already exists" {
		t.Fatalf("duplicate: %s", r.Body)
	}
	e.Must(422, "POST", "/user/gpg_keys", bobTok, map[string]any{"armored_public_key": armored(t, ent)})
	r = e.Must(422, "POST", "/user/gpg_keys", tok, map[string]any{"armored_public_key": "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nnot a key\n-----END PGP PUBLIC KEY BLOCK-----\n"})
	if _, m := fieldMessage(t, r); m != "We got an error doing that." {
		t.Fatalf("garbage: %s", r.Body)
	}
	var priv bytes.Buffer
	w, _ := armor.Encode(&priv, openpgp.PrivateKeyType, nil)
	if err := newEntity(t, nil, "mona@example.com").SerializePrivate(w, nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	e.Must(422, "POST", "/user/gpg_keys", tok, map[string]any{"armored_public_key": priv.String()})
	e.Must(422, "POST", "/user/gpg_keys", tok, map[string]any{"name": "x"})
	if n := countRows(t, e, "gpg_keys", mona.ID); n != 2 {
		t.Fatalf("mona has %d keys after the refusals, want 2", n)
	}

	// Scopes: read for reads, write to add, admin to delete; 404 without.
	none, read, write := e.Token(mona, ""), e.Token(mona, "read:gpg_key"), e.Token(mona, "write:gpg_key")
	e.Must(404, "GET", "/user/gpg_keys", none, nil)
	e.Must(200, "GET", "/user/gpg_keys", read, nil)
	e.Must(404, "POST", "/user/gpg_keys", read, map[string]any{"armored_public_key": armored(t, newEntity(t, nil, "x@example.com"))})
	e.Must(201, "POST", "/user/gpg_keys", write, map[string]any{"armored_public_key": armored(t, newEntity(t, nil, "x@example.com"))})
	e.Must(404, "DELETE", "/user/gpg_keys/"+itoa(key.GetID()), write, nil)
	e.Must(401, "GET", "/user/gpg_keys", "", nil)
	// A fine-grained token needs the "GPG keys" permission it lacks here;
	// anyone's public keys need none.
	fine := fineGrained(t, e, mona)
	e.Must(403, "GET", "/user/gpg_keys", fine, nil)
	e.Must(403, "POST", "/user/gpg_keys", fine, map[string]any{"armored_public_key": armored(t, newEntity(t, nil, "y@example.com"))})
	e.Must(200, "GET", "/users/mona/gpg_keys", fine, nil)

	if _, err := gh.Users.DeleteGPGKey(ctx, key.GetID()); err != nil {
		t.Fatal(err)
	}
	e.Must(404, "GET", "/user/gpg_keys/"+itoa(key.GetID()), tok, nil)
	e.Must(404, "DELETE", "/user/gpg_keys/"+itoa(key.GetID()), tok, nil)
	// Its subkeys went with it: the key can be added again.
	e.Must(201, "POST", "/user/gpg_keys", tok, map[string]any{"armored_public_key": armored(t, ent)})
	if n := countEvents(t, e, "gpg_key.created"); n != 4 {
		t.Fatalf("%d gpg_key.created events, want 4", n)
	}
	if n := countEvents(t, e, "gpg_key.deleted"); n != 1 {
		t.Fatalf("%d gpg_key.deleted events, want 1", n)
	}
}

// TestSSHSigningKeys adds, lists, reads and deletes SSH signing keys
// through go-github.
func TestSSHSigningKeys(t *testing.T) {
	e := apitest.New(t)
	mona, tok := e.NewUser("mona", false)
	_, bobTok := e.NewUser("bob", false)
	gh := e.GitHub(tok)
	_, line := newSSHKey(t)

	k, _, err := gh.Users.CreateSSHSigningKey(ctx, github.CreateSSHSigningKeyRequest{Title: github.Ptr("laptop"), Key: line + " mona@laptop"})
	if err != nil {
		t.Fatal(err)
	}
	if k.GetKey() != line || k.GetTitle() != "laptop" || k.GetID() == 0 || k.CreatedAt == nil {
		t.Fatalf("created: %+v", k)
	}
	got, _, err := gh.Users.GetSSHSigningKey(ctx, k.GetID())
	if err != nil || got.GetKey() != line {
		t.Fatalf("get: %+v %v", got, err)
	}
	_, line2 := newSSHKey(t)
	if _, _, err := gh.Users.CreateSSHSigningKey(ctx, github.CreateSSHSigningKeyRequest{Key: line2}); err != nil {
		t.Fatal(err)
	}
	list, resp, err := gh.Users.ListSSHSigningKeys(ctx, "", &github.ListOptions{PerPage: 1, Page: 2})
	if err != nil || len(list) != 1 || list[0].GetKey() != line2 || resp.PrevPage != 1 {
		t.Fatalf("list: %v %+v %v", list, resp, err)
	}
	public, _, err := e.GitHub("").Users.ListSSHSigningKeys(ctx, "mona", nil)
	if err != nil || len(public) != 2 {
		t.Fatalf("public: %v %v", public, err)
	}

	r := e.Must(422, "POST", "/user/ssh_signing_keys", bobTok, map[string]any{"key": line})
	if f, m := fieldMessage(t, r); f != "key" || m != "key is already in use" {
		t.Fatalf("duplicate: %s", r.Body)
	}
	r = e.Must(422, "POST", "/user/ssh_signing_keys", tok, map[string]any{"key": "ssh-ed25519 AAAAnotbase64"})
	if f, m := fieldMessage(t, r); f != "key" || !strings.HasPrefix(m, "key is invalid") {
		t.Fatalf("invalid: %s", r.Body)
	}
	e.Must(422, "POST", "/user/ssh_signing_keys", tok, map[string]any{"key": "not a key"})
	e.Must(404, "GET", "/user/ssh_signing_keys/"+itoa(k.GetID()), bobTok, nil)

	none, read, write := e.Token(mona, "read:gpg_key"), e.Token(mona, "read:ssh_signing_key"), e.Token(mona, "write:ssh_signing_key")
	e.Must(404, "GET", "/user/ssh_signing_keys", none, nil)
	e.Must(200, "GET", "/user/ssh_signing_keys/"+itoa(k.GetID()), read, nil)
	_, line3 := newSSHKey(t)
	e.Must(404, "POST", "/user/ssh_signing_keys", read, map[string]any{"key": line3})
	e.Must(404, "POST", "/user/ssh_signing_keys", read, map[string]any{"key": "no"}) // the caller first, then the body
	e.Must(201, "POST", "/user/ssh_signing_keys", write, map[string]any{"key": line3})
	e.Must(404, "DELETE", "/user/ssh_signing_keys/"+itoa(k.GetID()), write, nil)
	fine := fineGrained(t, e, mona)
	e.Must(403, "GET", "/user/ssh_signing_keys", fine, nil)
	e.Must(200, "GET", "/users/mona/ssh_signing_keys", fine, nil)

	if _, err := gh.Users.DeleteSSHSigningKey(ctx, k.GetID()); err != nil {
		t.Fatal(err)
	}
	e.Must(404, "GET", "/user/ssh_signing_keys/"+itoa(k.GetID()), tok, nil)
	// Freed, the key can be added by another account.
	e.Must(201, "POST", "/user/ssh_signing_keys", bobTok, map[string]any{"key": line})
	if n := countEvents(t, e, "ssh_signing_key.created"); n != 4 {
		t.Fatalf("%d ssh_signing_key.created events, want 4", n)
	}
	if n := countEvents(t, e, "ssh_signing_key.deleted"); n != 1 {
		t.Fatalf("%d ssh_signing_key.deleted events, want 1", n)
	}
}
