package ghcli_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"golang.org/x/crypto/ssh"

	"github.com/hubd/hubd/internal/apitest"
	"github.com/hubd/hubd/internal/clients/ghcli"
)

// TestGhGPGKeys runs `gh gpg-key add`, `list` and `delete`, and `gh
// ssh-key add --type signing`, asserting on gh's output and hubd's state.
func TestGhGPGKeys(t *testing.T) {
	e := apitest.New(t)
	_, tok := e.NewUser("mona", false)
	g := ghcli.Start(t, e)
	g.LoginAs("mona", tok)

	ent, err := openpgp.NewEntity("Mona Lisa", "", "mona@example.com", &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, _ := armor.Encode(&b, openpgp.PublicKeyType, nil)
	if err := ent.Serialize(w); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := os.WriteFile(filepath.Join(g.Home, "key.asc"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	keyID := strings.ToUpper(ent.PrimaryKey.KeyIdString())
	g.Must("gpg-key", "add", "key.asc", "--title", "laptop") // quiet without a terminal
	var keys []map[string]any
	e.Must(200, "GET", "/user/gpg_keys", tok, nil).JSON(t, &keys)
	if len(keys) != 1 || keys[0]["key_id"] != keyID || keys[0]["name"] != "laptop" {
		t.Fatalf("keys after gh gpg-key add: %v", keys)
	}
	// The same key again: gh recognizes GitHub's duplicate answer.
	if r := g.Run("gpg-key", "add", "key.asc"); r.Err == nil || !strings.Contains(r.Stderr+r.Stdout, "already exists") {
		t.Fatalf("duplicate gh gpg-key add: %s", r)
	}
	out := g.Must("gpg-key", "list")
	if !strings.Contains(out, keyID) || !strings.Contains(out, "mona@example.com") {
		t.Fatalf("gh gpg-key list:\n%s", out)
	}
	g.Must("gpg-key", "delete", keyID, "--yes")
	if e.Must(200, "GET", "/user/gpg_keys", tok, nil).JSON(t, &keys); len(keys) != 0 {
		t.Fatalf("keys after gh gpg-key delete: %v", keys)
	}

	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sp, _ := ssh.NewPublicKey(pub)
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sp)))
	if err := os.WriteFile(filepath.Join(g.Home, "id.pub"), []byte(line+" mona@laptop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.Must("ssh-key", "add", "id.pub", "--type", "signing", "--title", "signer")
	var signing []map[string]any
	e.Must(200, "GET", "/user/ssh_signing_keys", tok, nil).JSON(t, &signing)
	if len(signing) != 1 || signing[0]["key"] != line || signing[0]["title"] != "signer" {
		t.Fatalf("signing keys after gh ssh-key add: %v", signing)
	}
}
