package graphql_test

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/google/go-github/v92/github"

	"github.com/hubd/hubd/internal/store"
)

// TestCommitSignature: Commit.signature is null for an unsigned commit,
// and for a GPG-signed one a GpgSignature whose state follows the
// signatures service: UNKNOWN_KEY before the signer's key is added,
// VALID after.
func TestCommitSignature(t *testing.T) {
	w := newWorld(t)
	e, tok := w.e, w.monaTok
	w.mona.Email = "mona@example.com"
	if err := e.Store.Tx(ctx, func(tx store.Q) error { return tx.UpdateAccount(ctx, w.mona) }); err != nil {
		t.Fatal(err)
	}
	e.Deps.Tokens.Flush()
	ent, err := openpgp.NewEntity("Mona Lisa", "", "mona@example.com", &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA})
	if err != nil {
		t.Fatal(err)
	}
	gh := e.GitHub(tok)
	head, _, err := gh.Repositories.GetBranch(ctx, "mona", "app", "main", 0)
	if err != nil {
		t.Fatal(err)
	}
	base, tree := head.GetCommit().GetSHA(), head.GetCommit().GetCommit().GetTree().GetSHA()
	who := &github.CommitAuthor{Name: github.Ptr("Mona Lisa"), Email: github.Ptr("mona@example.com"),
		Date: &github.Timestamp{Time: time.Now().Add(-time.Minute).Truncate(time.Second)}}
	signer := github.MessageSignerFunc(func(w io.Writer, r io.Reader) error {
		var b bytes.Buffer
		if err := openpgp.ArmoredDetachSign(&b, ent, r, nil); err != nil {
			return err
		}
		_, err := io.WriteString(w, b.String()+"\n")
		return err
	})
	c, _, err := gh.Git.CreateCommit(ctx, "mona", "app", github.Commit{Message: github.Ptr("signed"), Tree: &github.Tree{SHA: &tree},
		Parents: []*github.Commit{{SHA: &base}}, Author: who, Committer: who}, &github.CreateCommitOptions{Signer: signer})
	if err != nil {
		t.Fatal(err)
	}
	q := `query($signed: GitObjectID!, $plain: GitObjectID!) { repository(owner: "mona", name: "app") {
		signed: object(oid: $signed) { ... on Commit { signature { __typename email isValid state signature payload wasSignedByGitHub verifiedAt } } }
		plain: object(oid: $plain) { ... on Commit { signature { state } } } } }`
	vars := map[string]any{"signed": c.GetSHA(), "plain": base}
	d := mustData(t, post(t, e, tok, q, vars))
	sig := dig(d, "repository", "signed", "signature")
	if dig(sig, "__typename") != "GpgSignature" || dig(sig, "state") != "UNKNOWN_KEY" || dig(sig, "isValid") != false ||
		dig(sig, "email") != "mona@example.com" || !strings.HasPrefix(dig(sig, "signature").(string), "-----BEGIN PGP SIGNATURE-----") ||
		!strings.HasPrefix(dig(sig, "payload").(string), "tree "+tree) || dig(sig, "verifiedAt") != nil {
		t.Fatalf("before the key: %v", sig)
	}
	if v, ok := dig(d, "repository", "plain").(map[string]any)["signature"]; !ok || v != nil {
		t.Fatalf("unsigned: %v", dig(d, "repository", "plain"))
	}
	var key bytes.Buffer
	aw, _ := armor.Encode(&key, openpgp.PublicKeyType, nil)
	if err := ent.Serialize(aw); err != nil {
		t.Fatal(err)
	}
	aw.Close()
	e.Must(201, "POST", "/user/gpg_keys", tok, map[string]any{"armored_public_key": key.String()})
	d = mustData(t, post(t, e, tok, q, vars))
	sig = dig(d, "repository", "signed", "signature")
	if dig(sig, "state") != "VALID" || dig(sig, "isValid") != true || dig(sig, "verifiedAt") == nil {
		t.Fatalf("after the key: %v", sig)
	}
}
