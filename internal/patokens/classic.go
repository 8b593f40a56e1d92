package patokens

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// MaxNoteLength is the longest note of a classic token.
const MaxNoteLength = 255

// ClassicInput is a new classic personal access token.
type ClassicInput struct {
	User   *model.Account
	Note   string
	Scopes []string
	// ExpiresIn is the lifetime (0: the token never expires, as GitHub
	// allows for a classic token).
	ExpiresIn time.Duration
}

// CreateClassic validates and stores a classic token (ghp_) and appends
// its personal_access_token.created event; the plaintext is returned
// once and stored only as a hash.
func (s *Service) CreateClassic(ctx context.Context, in ClassicInput) (string, *store.Token, error) {
	const res = "PersonalAccessToken"
	in.Note = strings.TrimSpace(in.Note)
	switch {
	case in.Note == "":
		return "", nil, model.Invalid(res, "note", "missing_field")
	case utf8.RuneCountInString(in.Note) > MaxNoteLength:
		return "", nil, model.Invalid(res, "note", "invalid")
	case in.ExpiresIn < 0 || in.ExpiresIn > MaxLifetime:
		return "", nil, model.Invalid(res, "expires_at", "invalid")
	}
	sc := authz.ParseScopes(strings.Join(in.Scopes, ","))
	for name := range sc {
		if !authz.Known[name] {
			return "", nil, model.Invalid(res, "scopes", "invalid")
		}
	}
	var exp *time.Time
	if in.ExpiresIn > 0 {
		t := s.Store.Now().Add(in.ExpiresIn).UTC()
		exp = &t
	}
	var plain string
	var tok *store.Token
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		var err error
		if plain, tok, err = tx.CreateToken(ctx, in.User.ID, authz.ClassicPAT, sc, in.Note, exp); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "personal_access_token.created", in.User.ID, 0, 0,
			map[string]any{"token_id": tok.ID, "note": in.Note, "scopes": sc.String()})
	})
	if err != nil {
		return "", nil, err
	}
	return plain, tok, nil
}
