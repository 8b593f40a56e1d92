package signatures

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash"
	"strings"

	"golang.org/x/crypto/ssh"
)

// sshSignature is an SSHSIG signature (OpenSSH's PROTOCOL.sshsig), as
// `git -c gpg.format=ssh` writes them: the public key, the namespace, the
// hash algorithm and the signature over the hashed message.
type sshSignature struct {
	pub       ssh.PublicKey
	namespace string
	reserved  []byte
	hashAlg   string
	sig       *ssh.Signature
}

const sshSigMagic = "SSHSIG"

var errSSHSig = errors.New("malformed SSH signature")

// parseSSHSignature reads an armored SSHSIG blob.
func parseSSHSignature(armored string) (*sshSignature, error) {
	body := strings.TrimSpace(armored)
	body, ok := strings.CutPrefix(body, sshArmor)
	if !ok {
		return nil, errSSHSig
	}
	body, ok = strings.CutSuffix(strings.TrimSpace(body), "-----END SSH SIGNATURE-----")
	if !ok {
		return nil, errSSHSig
	}
	raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(body), ""))
	if err != nil || !bytes.HasPrefix(raw, []byte(sshSigMagic)) {
		return nil, errSSHSig
	}
	b := raw[len(sshSigMagic):]
	if len(b) < 4 || binary.BigEndian.Uint32(b) != 1 {
		return nil, errSSHSig
	}
	b = b[4:]
	var fields [5][]byte
	for i := range fields {
		if fields[i], b, ok = sshString(b); !ok {
			return nil, errSSHSig
		}
	}
	if len(b) != 0 {
		return nil, errSSHSig
	}
	pub, err := ssh.ParsePublicKey(fields[0])
	if err != nil {
		return nil, errSSHSig
	}
	sig := new(ssh.Signature)
	if err := ssh.Unmarshal(fields[4], sig); err != nil {
		return nil, errSSHSig
	}
	s := &sshSignature{pub: pub, namespace: string(fields[1]), reserved: fields[2], hashAlg: string(fields[3]), sig: sig}
	if s.newHash() == nil {
		return nil, errSSHSig
	}
	return s, nil
}

func (s *sshSignature) newHash() hash.Hash {
	switch s.hashAlg {
	case "sha256":
		return sha256.New()
	case "sha512":
		return sha512.New()
	}
	return nil
}

// verify checks the signature over message.
func (s *sshSignature) verify(message []byte) error {
	h := s.newHash()
	h.Write(message)
	signed := []byte(sshSigMagic)
	for _, f := range [][]byte{[]byte(s.namespace), s.reserved, []byte(s.hashAlg), h.Sum(nil)} {
		signed = binary.BigEndian.AppendUint32(signed, uint32(len(f)))
		signed = append(signed, f...)
	}
	return s.pub.Verify(signed, s.sig)
}

// sshString splits an SSH wire string (uint32 length, bytes) off b.
func sshString(b []byte) ([]byte, []byte, bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	n := binary.BigEndian.Uint32(b)
	if uint64(n) > uint64(len(b)-4) {
		return nil, nil, false
	}
	return b[4 : 4+n], b[4+n:], true
}
