// Package sshkeys is the SSH key service: users' authentication keys and
// repositories' deploy keys. It holds the rules — what a valid key is, that
// a key is in use once across users and repositories, which token may list,
// add or delete them — and finds the key an SSH client signs in with, for
// the SSH transport.
package sshkeys

import (
	"context"
	"errors"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service is the SSH key service.
type Service struct {
	Store *store.Store
	// FlushEvery is how long a key's new last use waits in memory before
	// it is written with the others noted meanwhile (0: a second).
	FlushEvery time.Duration
	uses       uses // last uses not written yet
}

// New makes the service.
func New(s *store.Store) *Service { return &Service{Store: s} }

// userPermission is the fine-grained "Git SSH keys" user permission.
const userPermission = "git_ssh_keys"

// ErrInvalidKey is GitHub's 422 for a key that does not parse.
func ErrInvalidKey(resource string) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: resource, Field: "key", Code: "custom",
		Message: "key is invalid. You must supply a key in OpenSSH public key format"}}}
}

// ErrKeyInUse is GitHub's 422 for a key some user or repository has already.
func ErrKeyInUse(resource string) error {
	return &model.ValidationError{Errors: []model.FieldError{{Resource: resource, Field: "key", Code: "custom",
		Message: "key is already in use"}}}
}

// Parse reads a key in OpenSSH's authorized_keys format ("type base64
// [comment]"): it answers the key without its comment and its SHA256
// fingerprint. Certificates and keys with options are refused.
func Parse(text string) (key, fingerprint string, err error) {
	text = strings.TrimSpace(text)
	if text == "" || strings.ContainsAny(text, "\r\n") {
		return "", "", errors.New("not one key")
	}
	pk, _, options, rest, err := ssh.ParseAuthorizedKey([]byte(text))
	if err != nil {
		return "", "", err
	}
	if len(options) > 0 || len(rest) > 0 {
		return "", "", errors.New("options or several keys")
	}
	if _, cert := pk.(*ssh.Certificate); cert {
		return "", "", errors.New("a certificate")
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk))), ssh.FingerprintSHA256(pk), nil
}

// tokenAllows checks the caller's token for an operation on their own keys:
// classic and OAuth tokens by scope (a token without it does not see the
// keys: 404, as GitHub answers), fine-grained ones by the "Git SSH keys"
// permission (the route gate checks it too; GitHub App user tokens the
// same).
func tokenAllows(c *authz.Caller, scope string, write bool) error {
	if c == nil || c.User == nil || c.Kind == authz.Installation {
		return model.Forbidden("Resource not accessible by integration")
	}
	switch c.Kind {
	case authz.ClassicPAT, authz.OAuthApp:
		if c.HasScope(scope) {
			return nil
		}
		return model.ErrNotFound
	}
	got := c.Permissions[userPermission]
	if got == "write" || got == "admin" || !write && got == "read" {
		return nil
	}
	if c.Kind == authz.UserToServer {
		return model.Forbidden("Resource not accessible by integration")
	}
	return model.Forbidden(authz.ErrPATMessage)
}

// ListMine is a page of the caller's keys and how many they have.
func (s *Service) ListMine(ctx context.Context, c *authz.Caller, limit, offset int) ([]*model.PublicKey, int, error) {
	if err := tokenAllows(c, "read:public_key", false); err != nil {
		return nil, 0, err
	}
	return s.page(s.Store.R().UserPublicKeys(ctx, c.User.ID, limit, offset))
}

// GetMine is one of the caller's keys (another's is not found).
func (s *Service) GetMine(ctx context.Context, c *authz.Caller, id int64) (*model.PublicKey, error) {
	if err := tokenAllows(c, "read:public_key", false); err != nil {
		return nil, err
	}
	k, err := s.Store.R().PublicKey(ctx, id)
	if err != nil {
		return nil, err
	}
	if k.UserID != c.User.ID {
		return nil, model.ErrNotFound
	}
	s.overlay([]*model.PublicKey{k})
	return k, nil
}

// MayAdd refuses a caller whose token may not add keys: transports ask it
// before they read the request, as GitHub checks the caller first.
func (s *Service) MayAdd(c *authz.Caller) error {
	return tokenAllows(c, "write:public_key", true)
}

// AddMine adds a key to the caller's account.
func (s *Service) AddMine(ctx context.Context, c *authz.Caller, title, text string) (*model.PublicKey, error) {
	if err := tokenAllows(c, "write:public_key", true); err != nil {
		return nil, err
	}
	key, fp, err := Parse(text)
	if err != nil {
		return nil, ErrInvalidKey("PublicKey")
	}
	k := &model.PublicKey{UserID: c.User.ID, Title: strings.TrimSpace(title), Key: key, Fingerprint: fp, Verified: true}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreatePublicKey(ctx, k); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "public_key.created", c.User.ID, 0, 0, eventPayload("created", k))
	})
	if errors.Is(err, store.ErrDuplicate) {
		return nil, ErrKeyInUse("PublicKey")
	}
	return k, err
}

// DeleteMine removes one of the caller's keys.
func (s *Service) DeleteMine(ctx context.Context, c *authz.Caller, id int64) error {
	if err := tokenAllows(c, "admin:public_key", true); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		k, err := tx.PublicKey(ctx, id)
		if err != nil {
			return err
		}
		if k.UserID != c.User.ID {
			return model.ErrNotFound
		}
		return remove(ctx, tx, c.User.ID, k)
	})
}

// ListForUser is a page of the keys of the user named login: public.
func (s *Service) ListForUser(ctx context.Context, login string, limit, offset int) ([]*model.PublicKey, int, error) {
	q := s.Store.R()
	u, err := q.AccountByLogin(ctx, login)
	if err != nil {
		return nil, 0, err
	}
	if u.IsOrg() {
		return []*model.PublicKey{}, 0, nil
	}
	return s.page(q.UserPublicKeys(ctx, u.ID, limit, offset))
}

// ListAll is a page of every key created at or after since, for a site
// administrator (the transport checks the caller).
func (s *Service) ListAll(ctx context.Context, since time.Time, sort string, asc bool, limit, offset int) ([]*model.PublicKey, int, error) {
	return s.page(s.Store.R().AllPublicKeys(ctx, since, sort, asc, limit, offset))
}

// DeleteAny removes any key (a site administrator's operation: the
// transport checks the caller).
func (s *Service) DeleteAny(ctx context.Context, c *authz.Caller, id int64) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		k, err := tx.PublicKey(ctx, id)
		if err != nil {
			return err
		}
		return remove(ctx, tx, c.UserID(), k)
	})
}

func remove(ctx context.Context, tx store.Q, actorID int64, k *model.PublicKey) error {
	if _, err := tx.DeletePublicKey(ctx, k.ID); err != nil {
		return err
	}
	typ := "public_key.deleted"
	if k.RepoID != 0 {
		typ = "deploy_key.deleted"
	}
	return tx.AppendEvent(ctx, typ, actorID, k.RepoID, 0, eventPayload("deleted", k))
}

func eventPayload(action string, k *model.PublicKey) map[string]any {
	return map[string]any{"action": action, "key_id": k.ID, "title": k.Title, "fingerprint": k.Fingerprint,
		"user_id": k.UserID, "read_only": k.ReadOnly}
}
