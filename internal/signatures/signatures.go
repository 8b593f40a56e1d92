// Package signatures is the signing-key and signature-verification
// service: users' GPG keys and SSH signing keys (parsed with real OpenPGP
// and SSH libraries), and the verification of the signatures of commits
// and tags against them, with GitHub's reasons (valid, unsigned,
// unknown_key, bad_email, ...). Results are kept in memory per object id,
// so that reading commits stays fast and writes nothing; a key change in
// this process drops them, and they expire after a few minutes so that
// changes made elsewhere (another hubd process, a user's email) show.
package signatures

import (
	"context"
	"sync"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service is the signatures service.
type Service struct {
	Store *store.Store
	// Users maps commit addresses (lower case) to the users they belong
	// to: a user's email or this instance's no-reply address.
	Users func(ctx context.Context, emails []string) (map[string]*model.Account, error)
	// TTL bounds how long a verification is reused (0: cacheTTL).
	TTL time.Duration

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	v  model.Verification
	at time.Time
}

const (
	cacheTTL  = 5 * time.Minute
	cacheSize = 20000 // entries; the cache starts over when full
)

// New makes the service.
func New(s *store.Store, users func(ctx context.Context, emails []string) (map[string]*model.Account, error)) *Service {
	svc := &Service{Store: s, Users: users, cache: map[string]cached{}}
	if s != nil {
		s.OnBroadcast(TopicKeys, svc.InvalidateLocal)
	}
	return svc
}

// Invalidate forgets every verification (a key was added or removed),
// here and on the other nodes of the database.
func (s *Service) Invalidate() {
	s.InvalidateLocal()
	if s.Store != nil {
		s.Store.Broadcast(context.Background(), TopicKeys)
	}
}

// TopicKeys is the store broadcast of a signing key change.
const TopicKeys = "signing-keys"

// InvalidateLocal forgets this process's verifications (another node
// changed a key).
func (s *Service) InvalidateLocal() {
	s.mu.Lock()
	s.cache = map[string]cached{}
	s.mu.Unlock()
}

func (s *Service) cached(oid string, now time.Time) (model.Verification, bool) {
	if oid == "" {
		return model.Verification{}, false
	}
	ttl := s.TTL
	if ttl == 0 {
		ttl = cacheTTL
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.cache[oid]
	if !ok || now.Sub(c.at) > ttl {
		return model.Verification{}, false
	}
	return c.v, true
}

func (s *Service) remember(oid string, v model.Verification, now time.Time) {
	if oid == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.cache) >= cacheSize {
		s.cache = map[string]cached{}
	}
	s.cache[oid] = cached{v: v, at: now}
}

// Scopes and fine-grained permissions of the two families of keys.
type family struct {
	read, write, admin string // classic scopes
	resource           string // of validation errors
}

var (
	gpgFamily = family{read: "read:gpg_key", write: "write:gpg_key", admin: "admin:gpg_key", resource: "GpgKey"}
	sshFamily = family{read: "read:ssh_signing_key", write: "write:ssh_signing_key", admin: "admin:ssh_signing_key",
		resource: "SshSigningKey"}
)

// MayAddGPGKey refuses a caller who may not add GPG keys; handlers call it
// before they read the body, as GitHub checks the caller before it
// validates.
func MayAddGPGKey(c *authz.Caller) error { return actor(c, gpgFamily.write) }

// MayAddSSHSigningKey refuses a caller who may not add SSH signing keys.
func MayAddSSHSigningKey(c *authz.Caller) error { return actor(c, sshFamily.write) }

// actor checks a caller acting on their own keys with scope (fine-grained
// permissions are checked before the route runs, by the one permission
// table). A classic token without the scope gets 404, as GitHub answers
// (and gh takes as "insufficient OAuth scopes").
func actor(c *authz.Caller, scope string) error {
	if c == nil || !c.Authenticated() {
		return &model.HTTPError{Status: 401, Message: "Requires authentication"}
	}
	if c.User == nil {
		return model.Forbidden("Resource not accessible by integration")
	}
	if !c.HasScope(scope) {
		return model.ErrNotFound
	}
	return nil
}
