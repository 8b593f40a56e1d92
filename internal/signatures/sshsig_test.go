package signatures

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// sshsig builds an armored SSHSIG of message, as ssh-keygen -Y sign does.
func sshsig(t *testing.T, signer ssh.Signer, namespace string, message []byte) string {
	t.Helper()
	str := func(b []byte, f []byte) []byte { return append(binary.BigEndian.AppendUint32(b, uint32(len(f))), f...) }
	h := sha512.Sum512(message)
	signed := []byte(sshSigMagic)
	for _, f := range [][]byte{[]byte(namespace), nil, []byte("sha512"), h[:]} {
		signed = str(signed, f)
	}
	sig, err := signer.Sign(rand.Reader, signed)
	if err != nil {
		t.Fatal(err)
	}
	blob := binary.BigEndian.AppendUint32([]byte(sshSigMagic), 1)
	for _, f := range [][]byte{signer.PublicKey().Marshal(), []byte(namespace), nil, []byte("sha512"), ssh.Marshal(sig)} {
		blob = str(blob, f)
	}
	return sshArmor + "\n" + base64.StdEncoding.EncodeToString(blob) + "\n-----END SSH SIGNATURE-----\n"
}

// An SSH signature verifies over its message only; any cut of it is an
// error, never a panic.
func TestSSHSignature(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	armored := sshsig(t, signer, "git", []byte("tree 123\n\nmessage\n"))
	s, err := parseSSHSignature(armored)
	if err != nil || s.namespace != "git" {
		t.Fatalf("parse: %v %+v", err, s)
	}
	if err := s.verify([]byte("tree 123\n\nmessage\n")); err != nil {
		t.Fatalf("verify: %v", err)
	}
	if s.verify([]byte("tree 124\n\nmessage\n")) == nil {
		t.Fatal("another message verified")
	}
	body := strings.Split(armored, "\n")[1]
	raw, _ := base64.StdEncoding.DecodeString(body)
	for n := 0; n < len(raw); n++ {
		cut := sshArmor + "\n" + base64.StdEncoding.EncodeToString(raw[:n]) + "\n-----END SSH SIGNATURE-----\n"
		if _, err := parseSSHSignature(cut); err == nil {
			t.Fatalf("a signature cut at %d bytes parsed", n)
		}
	}
	for _, bad := range []string{sshArmor, sshArmor + "\n!!!\n-----END SSH SIGNATURE-----", "nothing"} {
		if _, err := parseSSHSignature(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// Malformed OpenPGP signatures are errors, never panics.
func TestPGPSignatureMalformed(t *testing.T) {
	for _, bad := range []string{
		pgpArmor + "\n\n-----END PGP SIGNATURE-----\n",
		pgpArmor + "\n\nwcBcBAABCAAQBQJ=\n-----END PGP SIGNATURE-----\n",
		"-----BEGIN PGP MESSAGE-----\n\nowGbwMvMwMEYxJ\n-----END PGP MESSAGE-----\n",
	} {
		if _, _, err := parsePGPSignature(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
