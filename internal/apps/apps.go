// Package apps is the GitHub Apps service: apps (with their bot account,
// client secret and private keys, of which only hashes and public halves
// are kept), installations on users and organizations with all or selected
// repositories, app JSON web tokens, and installation access tokens (ghs_)
// that act as the app's bot with the installation's permissions on its
// repositories. Every write appends a domain event in its transaction.
package apps

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"math/big"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Service applies the rules of GitHub Apps.
type Service struct {
	Store *store.Store
	// Revoked is called after tokens stop working (an installation deleted,
	// suspended or a token revoked): the server's authentication cache
	// forgets them. Nil does nothing.
	Revoked func()
	// KeyBits is the size of generated private keys (GitHub's are 2048
	// bits; 0 means 2048).
	KeyBits int
}

// MaxNameLength is the longest app name GitHub accepts.
const MaxNameLength = 34

// CreateInput is a new app.
type CreateInput struct {
	Owner       *model.Account
	Name        string
	Description string
	ExternalURL string
	// Permissions and Events the app asks for; metadata: read is added
	// to any repository permission, as GitHub does.
	Permissions map[string]string
	Events      []string
	// CallbackURL is where the user authorization flows send users back
	// (internal/oauth); the device flow is enabled for every app.
	CallbackURL string
}

// Created is a new app with the secrets shown once: its client secret and
// the PEM of its first private key.
type Created struct {
	App           *model.App
	ClientSecret  string
	PrivateKeyPEM string
}

var (
	slugRun  = regexp.MustCompile(`[^a-z0-9]+`)
	eventsRE = regexp.MustCompile(`^[a-z][a-z_]*$`)
)

// Slug is GitHub's slug of an app name: lower case, every run of other
// characters than letters and digits one hyphen, none at either end.
func Slug(name string) string {
	return strings.Trim(slugRun.ReplaceAllString(strings.ToLower(name), "-"), "-")
}

func invalid(field, code string) error { return model.Invalid("Integration", field, code) }

// ParsePermissions reads "issues:write,contents:read" (the form of `hubd
// app create --permissions`).
func ParsePermissions(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
		name, level, ok := strings.Cut(f, ":")
		if !ok {
			level = "read"
		}
		if !authz.ValidPermission(name, level) {
			return nil, errors.New("unknown permission or level " + f)
		}
		out[name] = level
	}
	return out, nil
}

// Create registers an app owned by a user or an organization, with its bot
// account, a client secret and a first private key.
func (s *Service) Create(ctx context.Context, actorID int64, in CreateInput) (*Created, error) {
	name := strings.TrimSpace(in.Name)
	switch {
	case name == "":
		return nil, invalid("name", "missing_field")
	case utf8.RuneCountInString(name) > MaxNameLength || Slug(name) == "":
		return nil, invalid("name", "invalid")
	}
	if in.Owner == nil || in.Owner.Type == model.TypeBot {
		return nil, invalid("owner", "invalid")
	}
	perms := map[string]string{}
	for k, v := range in.Permissions {
		if !authz.ValidPermission(k, v) {
			return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Integration", Field: "default_permissions", Code: "invalid", Value: k + ":" + v}}}
		}
		perms[k] = v
	}
	perms = authz.WithMetadata(perms)
	events := []string{}
	seen := map[string]bool{}
	for _, e := range in.Events {
		e = strings.TrimSpace(e)
		if !eventsRE.MatchString(e) {
			return nil, &model.ValidationError{Errors: []model.FieldError{{Resource: "Integration", Field: "default_events", Code: "invalid", Value: e}}}
		}
		if !seen[e] {
			seen[e] = true
			events = append(events, e)
		}
	}
	sort.Strings(events)
	key, pubPEM, fingerprint, err := s.newKey()
	if err != nil {
		return nil, err
	}
	secret := randomHex(20)
	app := &model.App{Slug: Slug(name), Name: name, OwnerID: in.Owner.ID, Owner: in.Owner, ExternalURL: strings.TrimSpace(in.ExternalURL),
		ClientID: "Iv23li" + randomBase62(14), Permissions: perms, Events: events}
	if d := strings.TrimSpace(in.Description); d != "" {
		app.Description = &d
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		bot := &model.Account{Login: app.Slug + "[bot]", Type: model.TypeBot}
		if err := tx.CreateAccount(ctx, bot); err != nil {
			return err
		}
		app.BotID = bot.ID
		if err := tx.CreateApp(ctx, app, store.HashToken(secret)); err != nil {
			return err
		}
		if err := tx.AddAppKey(ctx, &model.AppKey{AppID: app.ID, PublicPEM: pubPEM, Fingerprint: fingerprint}); err != nil {
			return err
		}
		if in.CallbackURL != "" {
			if err := tx.SetAppCallback(ctx, app.ID, in.CallbackURL, true); err != nil {
				return err
			}
		}
		return tx.AppendEvent(ctx, "integration.created", actorID, 0, orgID(in.Owner), map[string]any{
			"app_id": app.ID, "slug": app.Slug, "owner_id": app.OwnerID, "permissions": perms, "events": events})
	})
	if errors.Is(err, store.ErrDuplicate) {
		return nil, invalid("name", "already_exists")
	}
	if err != nil {
		return nil, err
	}
	return &Created{App: app, ClientSecret: secret, PrivateKeyPEM: key}, nil
}

func orgID(a *model.Account) int64 {
	if a != nil && a.IsOrg() {
		return a.ID
	}
	return 0
}

// newKey makes an RSA private key: its PEM (PKCS #1, as GitHub hands them
// out), the PEM of its public half and the public key's fingerprint.
func (s *Service) newKey() (priv, pub, fingerprint string, err error) {
	bits := s.KeyBits
	if bits == 0 {
		bits = 2048
	}
	k, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		return "", "", "", err
	}
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		return "", "", "", err
	}
	sum := sha256.Sum256(der)
	priv = string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
	pub = string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	return priv, pub, "SHA256:" + base64.StdEncoding.EncodeToString(sum[:]), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func randomBase62(n int) string {
	b := make([]byte, n)
	max := big.NewInt(int64(len(base62)))
	for i := range b {
		v, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic(err)
		}
		b[i] = base62[v.Int64()]
	}
	return string(b)
}

func (s *Service) revoked() {
	if s.Revoked != nil {
		s.Revoked()
	}
}
