package secrets

import (
	"context"
	"crypto/rand"
	"encoding/base64"

	"golang.org/x/crypto/nacl/box"

	"github.com/hubd/hubd/internal/model"
)

// Seal seals a plaintext value with the scope's current public key, as
// a client of the API does before it sends a secret: a transport that
// receives plaintext (the web's secret forms) hands Set the same sealed
// box an API client would, so every secret takes the one path that
// checks and stores it.
func (s *Service) Seal(ctx context.Context, sc model.SecretScope, value string) (Put, error) {
	pk, err := s.PublicKey(ctx, sc)
	if err != nil {
		return Put{}, err
	}
	raw, err := base64.StdEncoding.DecodeString(pk.Key)
	if err != nil || len(raw) != 32 {
		return Put{}, ErrBadBox
	}
	var pub [32]byte
	copy(pub[:], raw)
	ct, err := box.SealAnonymous(nil, []byte(value), &pub, rand.Reader)
	if err != nil {
		return Put{}, err
	}
	return Put{KeyID: pk.ID, EncryptedValue: base64.StdEncoding.EncodeToString(ct)}, nil
}
