// Package secrets is hubd's one secrets store, for every scope GitHub has
// secrets at: repository, organization and environment secrets of Actions,
// the agents' secrets, Codespaces' (with users' own secrets, kind "user",
// through internal/codespaces/secrets), and later Dependabot's. Each scope has
// an X25519 key pair whose public half clients seal values with
// (libsodium's sealed box, as gh and every GitHub client do); the value
// opened from the box is kept encrypted with the server's key (AES-256-GCM)
// and leaves the service only towards the jobs that may use it, never
// through an API and never into a log.
package secrets

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/crypto/nacl/box"

	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// GitHub's limits.
const (
	MaxValue        = 48 * 1024 // bytes of a secret's value
	MaxRepoSecrets  = 100
	MaxOrgSecrets   = 1000
	MaxEnvSecrets   = 100
	MaxUserSecrets  = 100
	maxNameLength   = 255
	maxEncodedValue = (MaxValue+box.AnonymousOverhead+2)/3*4 + 4
)

// Service keeps secrets.
type Service struct {
	Store *store.Store
	// Keys is the operator's key list (ParseKeys); empty: the server key
	// kept in the database's server_keys table, made on first use.
	Keys [][]byte

	once sync.Once
	ring []*serverKey
	err  error
}

// keyring loads the server keys once.
func (s *Service) keyring(ctx context.Context) ([]*serverKey, error) {
	s.once.Do(func() {
		keys := s.Keys
		if len(keys) == 0 {
			enc, err := s.Store.ServerKey(ctx, "secrets", NewKey())
			if err != nil {
				s.err = err
				return
			}
			if keys, err = ParseKeys(enc); err != nil {
				s.err = err
				return
			}
		} else {
			// The key the database kept before the operator gave one is
			// a former key: its values move to the operator's.
			enc, _, err := s.Store.R().StoredServerKey(ctx, "secrets")
			if err != nil {
				s.err = err
				return
			}
			if old, err := ParseKeys(enc); enc != "" && err == nil && !slices.ContainsFunc(keys, func(k []byte) bool { return bytes.Equal(k, old[0]) }) {
				keys = append(slices.Clip(keys), old[0])
			}
		}
		for _, k := range keys {
			sk, err := newServerKey(k)
			if err != nil {
				s.err = err
				return
			}
			s.ring = append(s.ring, sk)
		}
	})
	if s.err != nil {
		// Retry on the next call (the database may come back).
		err := s.err
		s.once, s.err, s.ring = sync.Once{}, nil, nil
		return nil, err
	}
	return s.ring, nil
}

// Load reads (the first process of a database's life: makes) the server
// key, once at startup, so that no request writes it.
func (s *Service) Load(ctx context.Context) error {
	_, err := s.keyring(ctx)
	return err
}

// scopeName identifies a scope for key derivation and value binding.
func scopeName(sc model.SecretScope) string {
	return sc.App + "/" + sc.Kind + "/" + strconv.FormatInt(sc.OwnerID, 10) + "/" + sc.Env
}

// PublicKey is a scope's current public key.
type PublicKey struct{ ID, Key string }

// PublicKey answers the key clients seal a scope's secrets with.
func (s *Service) PublicKey(ctx context.Context, sc model.SecretScope) (PublicKey, error) {
	ring, err := s.keyring(ctx)
	if err != nil {
		return PublicKey{}, err
	}
	b, err := ring[0].boxKeyOf(scopeName(sc))
	if err != nil {
		return PublicKey{}, err
	}
	return PublicKey{ID: b.id, Key: b.encodedPub}, nil
}

// ErrBadBox is GitHub's answer to a value that was not sealed with the
// scope's key (or names a key id the scope does not have).
var ErrBadBox = model.Unprocessable("Bad request - validation failed due to an improperly encrypted secret")

// open opens a sealed box sent for a scope with key keyID.
func (s *Service) open(ctx context.Context, sc model.SecretScope, keyID, encrypted string) ([]byte, error) {
	ring, err := s.keyring(ctx)
	if err != nil {
		return nil, err
	}
	if len(encrypted) > maxEncodedValue {
		return nil, model.Unprocessable(fmt.Sprintf("Secret value is too large: secrets are limited to %d KB.", MaxValue/1024))
	}
	ct, err := base64.StdEncoding.DecodeString(encrypted)
	if err != nil {
		return nil, ErrBadBox
	}
	for _, k := range ring {
		b, err := k.boxKeyOf(scopeName(sc))
		if err != nil {
			return nil, err
		}
		if b.id != keyID {
			continue
		}
		v, ok := box.OpenAnonymous(nil, ct, &b.pub, &b.priv)
		if !ok {
			return nil, ErrBadBox
		}
		if len(v) > MaxValue {
			return nil, model.Unprocessable(fmt.Sprintf("Secret value is too large: secrets are limited to %d KB.", MaxValue/1024))
		}
		return v, nil
	}
	return nil, ErrBadBox
}

var nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Name checks a secret name against GitHub's rules and returns it as
// stored (upper-case: names are case-insensitive).
func Name(name string) (string, error) {
	if !nameRE.MatchString(name) || len(name) > maxNameLength {
		return "", model.Unprocessable("Secret names can only contain alphanumeric characters ([a-z], [A-Z], [0-9]) or underscores (_). Spaces are not allowed. Must start with a letter ([a-z], [A-Z]) or underscores (_).")
	}
	up := strings.ToUpper(name)
	if strings.HasPrefix(up, "GITHUB_") {
		return "", model.Unprocessable("Secret names must not start with GITHUB_.")
	}
	return up, nil
}

// Put is a create-or-update of a secret: the sealed value, and for
// organization secrets the visibility and (with "selected") repositories.
type Put struct {
	KeyID, EncryptedValue string
	Visibility            string  // organization secrets; "" keeps the current one (all for a new secret)
	RepoIDs               []int64 // with visibility "selected"; nil keeps the current list
}

// Actor is who changes secrets, for the audit event.
type Actor struct{ UserID int64 }

// Visibilities of organization secrets.
var visibilities = map[string]bool{"all": true, "private": true, "selected": true}

// Set creates or updates a secret (created reports which); the write and
// its audit event share one transaction.
func (s *Service) Set(ctx context.Context, sc model.SecretScope, actorID int64, name string, in Put) (created bool, err error) {
	name, err = Name(name)
	if err != nil {
		return false, err
	}
	switch sc.Kind {
	case model.SecretOrganization:
		if in.Visibility != "" && !visibilities[in.Visibility] {
			return false, model.Invalid("Secret", "visibility", "invalid")
		}
		if in.RepoIDs != nil && in.Visibility != "selected" {
			return false, model.Unprocessable("Selected repositories can only be set when visibility is 'selected'.")
		}
	case model.SecretUser:
		// A user's secret reaches only the repositories selected for it
		// (their caller checked the user may see them).
		in.Visibility = "selected"
	default:
		in.Visibility, in.RepoIDs = "", nil // organization secrets only
	}
	value, err := s.open(ctx, sc, in.KeyID, in.EncryptedValue)
	if err != nil {
		return false, err
	}
	if err := s.checkRepos(ctx, sc, in.RepoIDs); err != nil {
		return false, err
	}
	ring, err := s.keyring(ctx)
	if err != nil {
		return false, err
	}
	sealed := ring[0].seal(value, scopeName(sc)+"/"+name)
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		old, err := tx.Secret(ctx, sc, name)
		if err != nil && err != model.ErrNotFound {
			return err
		}
		vis := in.Visibility
		var id int64
		if old == nil {
			if err := s.checkLimit(ctx, tx, sc); err != nil {
				return err
			}
			if vis == "" && sc.Kind == model.SecretOrganization {
				vis = "all"
			}
			created = true
			if id, err = tx.CreateSecret(ctx, &model.Secret{Scope: sc, Name: name, Value: sealed, Visibility: vis}); err != nil {
				return err
			}
		} else {
			if vis == "" {
				vis = old.Visibility
			}
			id = old.ID
			if err := tx.UpdateSecret(ctx, id, sealed, vis); err != nil {
				return err
			}
		}
		if in.RepoIDs != nil || (sc.Kind == model.SecretOrganization && (vis != "selected" || in.Visibility != "")) {
			// A visibility other than selected drops the list; selected
			// given without repositories selects none, as on GitHub.
			if err := tx.SetSecretRepos(ctx, id, in.RepoIDs); err != nil {
				return err
			}
		}
		verb := "update"
		if created {
			verb = "create"
		}
		return appendEvent(ctx, tx, sc, verb, actorID, map[string]any{"name": name, "visibility": vis, "selected_repository_ids": in.RepoIDs})
	})
	return created, err
}

// checkLimit refuses a secret beyond GitHub's count for the scope.
func (s *Service) checkLimit(ctx context.Context, tx store.Q, sc model.SecretScope) error {
	limit := MaxRepoSecrets
	switch sc.Kind {
	case model.SecretOrganization:
		limit = MaxOrgSecrets
	case model.SecretEnvironment:
		limit = MaxEnvSecrets
	case model.SecretUser:
		limit = MaxUserSecrets
	}
	n, err := tx.CountSecrets(ctx, sc)
	if err != nil {
		return err
	}
	if n >= limit {
		return model.Unprocessable(fmt.Sprintf("You have reached the maximum number of secrets (%d) for this %s.", limit, sc.Kind))
	}
	return nil
}

// appendEvent records a secret change (an audit event: secrets make no
// webhook), as GitHub's audit log names them: repo.create_actions_secret,
// org.remove_agents_secret, environment.update_actions_secret, ...
func appendEvent(ctx context.Context, tx store.Q, sc model.SecretScope, verb string, actorID int64, payload map[string]any) error {
	level, repoID, orgID := "repo", sc.OwnerID, int64(0)
	switch sc.Kind {
	case model.SecretOrganization:
		level, repoID, orgID = "org", 0, sc.OwnerID
	case model.SecretEnvironment:
		level = "environment"
		payload["environment"] = sc.Env
	case model.SecretUser:
		level, repoID = "user", 0
	case model.SecretEnterprise:
		level, repoID = "business", 0
	}
	return tx.AppendEvent(ctx, level+"."+verb+"_"+sc.App+"_secret", actorID, repoID, orgID, payload)
}

// checkRepos checks the repositories selected for a secret: an
// organization's must be its own; a user's were checked by the caller
// (internal/codespaces/secrets: repositories the user may see).
func (s *Service) checkRepos(ctx context.Context, sc model.SecretScope, ids []int64) error {
	if ids == nil || sc.Kind == model.SecretUser {
		return nil
	}
	return s.ownedRepos(ctx, sc.OwnerID, ids)
}

// ownedRepos answers 422 unless every id is a repository of the
// organization.
func (s *Service) ownedRepos(ctx context.Context, orgID int64, ids []int64) error {
	owned, err := s.Store.R().OrgRepoIDs(ctx, orgID, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if !owned[id] {
			return model.Unprocessable(fmt.Sprintf("Repository %d is not a repository of the organization.", id))
		}
	}
	return nil
}

// Get is one secret (without its value) by name, any case.
func (s *Service) Get(ctx context.Context, sc model.SecretScope, name string) (*model.Secret, error) {
	return s.Store.R().Secret(ctx, sc, strings.ToUpper(name))
}

// List is a page of a scope's secrets and their count.
func (s *Service) List(ctx context.Context, sc model.SecretScope, limit, offset int) ([]*model.Secret, int, error) {
	return s.Store.R().Secrets(ctx, sc, limit, offset)
}

// Delete removes a secret.
func (s *Service) Delete(ctx context.Context, sc model.SecretScope, actorID int64, name string) error {
	return s.Store.Tx(ctx, func(tx store.Q) error {
		old, err := tx.Secret(ctx, sc, strings.ToUpper(name))
		if err != nil {
			return err
		}
		if err := tx.DeleteSecret(ctx, old.ID); err != nil {
			return err
		}
		return appendEvent(ctx, tx, sc, "remove", actorID, map[string]any{"name": old.Name})
	})
}

// ErrNotSelected is GitHub's 409 for the repository list of an
// organization secret whose visibility is not "selected".
var ErrNotSelected = &model.HTTPError{Status: 409, Message: "The visibility of the secret is not set to 'selected'."}

// selectedSecret is an organization secret whose repositories may change.
func selectedSecret(ctx context.Context, tx store.Q, sc model.SecretScope, name string) (*model.Secret, error) {
	sec, err := tx.Secret(ctx, sc, strings.ToUpper(name))
	if err != nil {
		return nil, err
	}
	if sec.Visibility != "selected" {
		return nil, ErrNotSelected
	}
	return sec, nil
}

// SelectedRepos is a page of the repository ids selected for an
// organization secret, with their count.
func (s *Service) SelectedRepos(ctx context.Context, sc model.SecretScope, name string, limit, offset int) ([]int64, int, error) {
	sec, err := s.Store.R().Secret(ctx, sc, strings.ToUpper(name))
	if err != nil {
		return nil, 0, err
	}
	return s.Store.R().SecretRepoIDs(ctx, sec.ID, limit, offset)
}

// SetRepos replaces the repositories of a selected organization secret.
func (s *Service) SetRepos(ctx context.Context, sc model.SecretScope, actorID int64, name string, ids []int64) error {
	if err := s.checkRepos(ctx, sc, ids); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		sec, err := selectedSecret(ctx, tx, sc, name)
		if err != nil {
			return err
		}
		if err := tx.SetSecretRepos(ctx, sec.ID, ids); err != nil {
			return err
		}
		if err := tx.TouchSecret(ctx, sec.ID); err != nil {
			return err
		}
		return appendEvent(ctx, tx, sc, "update", actorID, map[string]any{"name": sec.Name, "selected_repository_ids": ids})
	})
}

// AddRepo selects one more repository for an organization secret; remove
// unselects it.
func (s *Service) AddRepo(ctx context.Context, sc model.SecretScope, actorID int64, name string, repoID int64, remove bool) error {
	if err := s.checkRepos(ctx, sc, []int64{repoID}); err != nil {
		return err
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		sec, err := selectedSecret(ctx, tx, sc, name)
		if err != nil {
			return err
		}
		verb := "added"
		if remove {
			verb = "removed"
			err = tx.RemoveSecretRepo(ctx, sec.ID, repoID)
		} else {
			err = tx.AddSecretRepo(ctx, sec.ID, repoID)
		}
		if err != nil {
			return err
		}
		if err := tx.TouchSecret(ctx, sec.ID); err != nil {
			return err
		}
		return appendEvent(ctx, tx, sc, "update", actorID, map[string]any{"name": sec.Name, "repository_" + verb: repoID})
	})
}

// OrgSecretsForRepo is a page of the organization's secrets of app a
// repository of it may use, with their count.
func (s *Service) OrgSecretsForRepo(ctx context.Context, app string, repo *model.Repo, limit, offset int) ([]*model.Secret, int, error) {
	if repo.Owner == nil || repo.Owner.Type != model.TypeOrganization {
		return nil, 0, nil
	}
	return s.Store.R().OrgSecretsForRepo(ctx, app, repo.OwnerID, repo.ID, repo.Private(), limit, offset)
}

// Values are the plain values of the secrets of app a job of the
// repository may see, by name: the organization's it may use, then its
// own, which win over the organization's of the same name.
func (s *Service) Values(ctx context.Context, app string, repo *model.Repo) (map[string]string, error) {
	var orgID int64
	if repo.Owner != nil && repo.Owner.Type == model.TypeOrganization {
		orgID = repo.OwnerID
	}
	list, err := s.Store.R().SecretsForRepo(ctx, app, repo.ID, orgID, repo.Private())
	if err != nil {
		return nil, err
	}
	ring, err := s.keyring(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	// Organization secrets first ("organization" sorts before
	// "repository"), so the repository's own overwrite them.
	for _, sec := range list {
		v, err := openValue(ring, sec.Value, scopeName(sec.Scope)+"/"+sec.Name)
		if err != nil {
			return nil, fmt.Errorf("secret %s: %w", sec.Name, err)
		}
		out[sec.Name] = string(v)
	}
	return out, nil
}

// Open is the plain values of stored secrets, by name, in list order (a
// later secret of a name wins): for the services that hand secrets to
// what runs with them (Codespaces).
func (s *Service) Open(ctx context.Context, list []*model.Secret, into map[string]string) error {
	if len(list) == 0 {
		return nil
	}
	ring, err := s.keyring(ctx)
	if err != nil {
		return err
	}
	for _, sec := range list {
		v, err := openValue(ring, sec.Value, scopeName(sec.Scope)+"/"+sec.Name)
		if err != nil {
			return fmt.Errorf("secret %s: %w", sec.Name, err)
		}
		into[sec.Name] = string(v)
	}
	return nil
}

// EnvironmentValues are the plain values of a repository environment's
// secrets (at most GitHub's 100), by name; a job in the environment sees
// them over the repository's and organization's of the same name.
func (s *Service) EnvironmentValues(ctx context.Context, app string, repo *model.Repo, env string) (map[string]string, error) {
	sc := model.SecretScope{App: app, Kind: model.SecretEnvironment, OwnerID: repo.ID, Env: strings.ToLower(env)}
	list, _, err := s.Store.R().Secrets(ctx, sc, 1000, 0)
	if err != nil || len(list) == 0 {
		return map[string]string{}, err
	}
	ring, err := s.keyring(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(list))
	for _, sec := range list {
		v, err := openValue(ring, sec.Value, scopeName(sec.Scope)+"/"+sec.Name)
		if err != nil {
			return nil, fmt.Errorf("secret %s: %w", sec.Name, err)
		}
		out[sec.Name] = string(v)
	}
	return out, nil
}

// Reencrypt moves every value under a former server key to the current
// one (after the operator rotated --secrets-key); it logs counts, never
// values.
func (s *Service) Reencrypt(ctx context.Context) error {
	ring, err := s.keyring(ctx)
	if err != nil || len(ring) < 2 {
		return err
	}
	moved := 0
	for {
		list, err := s.Store.R().SecretsUnderKey(ctx, ring[0].tag, 100)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			break
		}
		for _, sec := range list {
			bind := scopeName(sec.Scope) + "/" + sec.Name
			v, err := openValue(ring, sec.Value, bind)
			if err != nil {
				return fmt.Errorf("secret %d: %w", sec.ID, err)
			}
			if err := s.Store.Tx(ctx, func(tx store.Q) error {
				return tx.ReplaceSecretValue(ctx, sec.ID, sec.Value, ring[0].seal(v, bind))
			}); err != nil {
				return err
			}
			moved++
		}
	}
	if moved > 0 {
		slog.Info("secrets: re-encrypted under the current key", "secrets", moved)
	}
	return nil
}

// DropScope deletes every secret of a scope, in the caller's transaction:
// for an environment being deleted (whose deletion is the event;
// repositories and organizations take their secrets with them).
func DropScope(ctx context.Context, tx store.Q, sc model.SecretScope) error {
	return tx.DeleteSecretScope(ctx, sc)
}
