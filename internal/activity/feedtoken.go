package activity

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"
)

// Feed tokens: the ?token= of a user's private feed URLs. A token is an
// HMAC of the user's id under a server key kept in the database
// (server_keys "feeds"), not a stored random value: /feeds can show it
// again on every call without a write, checking one reads nothing but the
// key (cached), every hubd process sharing the database agrees, and it is
// never one of the user's API tokens (it grants reading their feeds and
// nothing else). Deleting the key revokes every feed token.
type feedKey struct {
	mu  sync.Mutex
	key []byte
}

const feedKeyName = "feeds"

func (s *Service) feedKey(ctx context.Context) ([]byte, error) {
	s.feeds.mu.Lock()
	defer s.feeds.mu.Unlock()
	if s.feeds.key != nil {
		return s.feeds.key, nil
	}
	// The first process of the database's life stores the key (one
	// write, ever, made by New at startup); the others read it once.
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	secret, err := s.Store.ServerKey(ctx, feedKeyName, hex.EncodeToString(b))
	if err != nil {
		return nil, err
	}
	s.feeds.key = []byte(secret)
	return s.feeds.key, nil
}

// FeedToken is the feed token of a user.
func (s *Service) FeedToken(ctx context.Context, userID int64) (string, error) {
	key, err := s.feedKey(ctx)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("feed\x00" + strconv.FormatInt(userID, 10)))
	return hex.EncodeToString(m.Sum(nil)[:20]), nil
}

// ValidFeedToken reports whether tok is the user's feed token.
func (s *Service) ValidFeedToken(ctx context.Context, userID int64, tok string) (bool, error) {
	want, err := s.FeedToken(ctx, userID)
	if err != nil {
		return false, err
	}
	return hmac.Equal([]byte(tok), []byte(want)), nil
}
