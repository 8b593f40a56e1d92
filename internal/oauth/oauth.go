// Package oauth is the user authorization service of OAuth apps and GitHub
// Apps, after GitHub's "Authorizing OAuth apps" and "Generating a user
// access token for a GitHub App": OAuth apps (client id, hashed secret,
// callback URL), the web flow's authorization codes, the device flow's
// device and user codes, the tokens they give (gho_ with classic scopes for
// OAuth apps; ghu_ user access tokens of 8 hours with ghr_ refresh tokens
// of 6 months for GitHub Apps, rotated on use), the /applications/{client_id}
// token operations, and the web sign-in the flow pages need: passwords
// (PBKDF2) and sessions. Every secret is stored as a hash only.
package oauth

import (
	"context"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hubd/hubd/internal/authz"
	"github.com/hubd/hubd/internal/model"
	"github.com/hubd/hubd/internal/store"
)

// Lifetimes, as GitHub has them.
const (
	CodeTTL         = 10 * time.Minute       // web flow authorization codes
	DeviceTTL       = 15 * time.Minute       // device and user codes
	UserTokenTTL    = 8 * time.Hour          // user access tokens (ghu_)
	RefreshTokenTTL = 15811200 * time.Second // refresh tokens (ghr_), about 6 months
	SessionTTL      = 14 * 24 * time.Hour    // web sessions
	DefaultInterval = 5                      // device flow polling, seconds
)

// Service applies the rules of the authorization flows.
type Service struct {
	Store *store.Store
	// Revoked is called after tokens stop working: the server's
	// authentication cache forgets them. Nil does nothing.
	Revoked func()
	// Interval is the device flow's polling interval in seconds (0: 5).
	Interval int
	// PasswordIterations is PBKDF2's work factor (0: 600,000).
	PasswordIterations int
}

func (s *Service) revoked() {
	if s.Revoked != nil {
		s.Revoked()
	}
}

// Error is an error of the token endpoints as GitHub sends it: an error
// code, its description and a link.
type Error struct {
	Status      int // HTTP status (GitHub answers most with 200)
	Code        string
	Description string
	URI         string
	Interval    int // slow_down: the new interval
}

func (e *Error) Error() string { return e.Code + ": " + e.Description }

const docs = "https://docs.github.com/enterprise-server@3.19/"

func oerr(code, desc, anchor string) *Error {
	return &Error{Status: 200, Code: code, Description: desc, URI: docs + anchor}
}

const (
	webErrors    = "apps/oauth-apps/maintaining-oauth-apps/troubleshooting-oauth-app-access-token-request-errors"
	deviceErrors = "apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps#error-codes-for-the-device-flow"
)

// GitHub's token endpoint errors.
func errBadCode() *Error {
	return oerr("bad_verification_code", "The code passed is incorrect or expired.", webErrors+"#bad-verification-code")
}
func errClientCredentials() *Error {
	return oerr("incorrect_client_credentials", "The client_id and/or client_secret passed are incorrect.", webErrors+"#incorrect-client-credentials")
}
func errRedirectMismatch() *Error {
	return oerr("redirect_uri_mismatch", "The redirect_uri MUST match the registered callback URL for this application.", webErrors+"#redirect-uri-mismatch2")
}
func errBadRefresh() *Error {
	return oerr("bad_refresh_token", "The refresh token passed is incorrect or expired.", "apps/creating-github-apps/authenticating-with-a-github-app/refreshing-user-access-tokens")
}
func errUnsupportedGrant() *Error {
	return oerr("unsupported_grant_type", "The grant type is not supported.", deviceErrors)
}

// NewSecret is a random client secret (40 hex digits, as GitHub's).
func NewSecret() string {
	b := make([]byte, 20)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func randomFrom(alphabet string, n int) string {
	b := make([]byte, n)
	max := big.NewInt(int64(len(alphabet)))
	for i := range b {
		v, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic(err)
		}
		b[i] = alphabet[v.Int64()]
	}
	return string(b)
}

// CreateInput is a new OAuth app.
type CreateInput struct {
	Owner       *model.Account
	Name        string
	URL         string
	CallbackURL string
	DeviceFlow  bool
}

func invalid(field, code string) error { return model.Invalid("OauthApplication", field, code) }

// CreateApp registers an OAuth app with GitHub's current form of client id
// (Ov23li and 14 characters); the secret is returned once.
func (s *Service) CreateApp(ctx context.Context, actorID int64, in CreateInput) (*model.OAuthClient, string, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return nil, "", invalid("name", "missing_field")
	}
	if in.Owner == nil || in.Owner.Type == model.TypeBot {
		return nil, "", invalid("owner", "invalid")
	}
	cb, err := url.Parse(in.CallbackURL)
	if in.CallbackURL == "" {
		return nil, "", invalid("callback_url", "missing_field")
	}
	if err != nil || (cb.Scheme != "http" && cb.Scheme != "https") || cb.Host == "" || cb.Fragment != "" {
		return nil, "", invalid("callback_url", "invalid")
	}
	secret := NewSecret()
	c := &model.OAuthClient{ClientID: "Ov23li" + randomFrom(base62, 14), Name: name, URL: strings.TrimSpace(in.URL),
		OwnerID: in.Owner.ID, CallbackURL: in.CallbackURL, DeviceFlow: in.DeviceFlow}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateOAuthApp(ctx, c, store.HashToken(secret)); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "oauth_application.create", actorID, 0, 0, map[string]any{
			"oauth_application_id": c.OAuthAppID, "client_id": c.ClientID, "owner_id": c.OwnerID})
	})
	if err != nil {
		return nil, "", err
	}
	return c, secret, nil
}

// Apps lists the OAuth apps a page at a time, with their total.
func (s *Service) Apps(ctx context.Context, limit, offset int) ([]*model.OAuthClient, int, error) {
	return s.Store.R().OAuthApps(ctx, limit, offset)
}

// DeleteApp removes an OAuth app (a site administrator's act): its tokens
// stop working at once, its codes, refresh tokens and remembered consents
// go with it. model.ErrNotFound when no OAuth app has the client id (a
// GitHub App is deleted as an app, not here).
func (s *Service) DeleteApp(ctx context.Context, actorID int64, clientID string) error {
	c, err := s.Client(ctx, clientID)
	if err != nil {
		return err
	}
	if c.GitHubApp() {
		return model.ErrNotFound
	}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		ok, err := tx.DeleteOAuthApp(ctx, clientID)
		if err != nil {
			return err
		}
		if !ok {
			return model.ErrNotFound
		}
		return tx.AppendEvent(ctx, "oauth_application.destroy", actorID, 0, 0, map[string]any{
			"oauth_application_id": c.OAuthAppID, "client_id": c.ClientID, "owner_id": c.OwnerID})
	})
	if err == nil {
		s.revoked()
	}
	return err
}

// Client finds an OAuth app or GitHub App by client id.
func (s *Service) Client(ctx context.Context, clientID string) (*model.OAuthClient, error) {
	if clientID == "" {
		return nil, model.ErrNotFound
	}
	c, _, err := s.Store.R().OAuthClient(ctx, clientID)
	return c, err
}

// VerifyClient checks a client id and secret; ok is false when either is
// wrong.
func (s *Service) VerifyClient(ctx context.Context, clientID, secret string) (*model.OAuthClient, bool, error) {
	if clientID == "" || secret == "" {
		return nil, false, nil
	}
	c, hash, err := s.Store.R().OAuthClient(ctx, clientID)
	if errors.Is(err, model.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if subtle.ConstantTimeCompare([]byte(hash), []byte(store.HashToken(secret))) != 1 {
		return nil, false, nil
	}
	return c, true, nil
}

// LooksLikeClientID reports whether s has the form of a client id: GitHub
// Apps' (Iv1. and 16 hex digits, or Iv23 and 16 characters), OAuth apps'
// (Ov23 and 16 characters, or 20 hex digits before 2023).
func LooksLikeClientID(s string) bool {
	switch {
	case strings.HasPrefix(s, "Iv1.") && len(s) == 20,
		(strings.HasPrefix(s, "Iv23") || strings.HasPrefix(s, "Ov23")) && len(s) == 20:
		return true
	}
	if len(s) != 20 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// RedirectAllowed applies GitHub's rules for a redirect_uri against the
// registered callback URL: the same scheme, the host or one of its
// subdomains, the same port, and the callback's path or one below it. A
// loopback callback (localhost, 127.0.0.1, ::1) accepts any loopback host
// on any port, as native apps listen on a port of their choosing.
func RedirectAllowed(callback, redirect string) bool {
	cb, err1 := url.Parse(callback)
	rd, err2 := url.Parse(redirect)
	if err1 != nil || err2 != nil || rd.User != nil || rd.Fragment != "" || rd.Opaque != "" || !strings.EqualFold(cb.Scheme, rd.Scheme) {
		return false
	}
	ch, rh := strings.ToLower(cb.Hostname()), strings.ToLower(rd.Hostname())
	if rh == "" {
		return false
	}
	switch {
	case loopback(ch) && loopback(rh):
	case ch == rh || strings.HasSuffix(rh, "."+ch):
		if port(cb) != port(rd) {
			return false
		}
	default:
		return false
	}
	cp, rp := cb.EscapedPath(), rd.EscapedPath()
	if strings.Contains(rp, "/../") || strings.HasSuffix(rp, "/..") || strings.Contains(rp, "%2e") || strings.Contains(rp, "%2E") {
		return false
	}
	cp = strings.TrimSuffix(cp, "/")
	rp = strings.TrimSuffix(rp, "/")
	return rp == cp || strings.HasPrefix(rp, cp+"/")
}

func loopback(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// PKCEChallenge is the S256 code challenge of a PKCE code verifier (the
// only method GitHub accepts).
func PKCEChallenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// ValidChallenge reports whether a code challenge and its method are ones
// GitHub accepts: S256, 43 base64url characters.
func ValidChallenge(challenge, method string) bool {
	if method != "S256" || len(challenge) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(challenge)
	return err == nil
}

// NormalizeScopes keeps the scopes GitHub knows, in the order asked, once
// each, as the comma list GitHub answers.
func NormalizeScopes(s string) string {
	var out []string
	seen := map[string]bool{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '+' }) {
		if authz.Known[f] && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	return strings.Join(out, ",")
}

// Authorize is a user's consent in the web flow: an authorization code for
// the client, good once for ten minutes, bound to the redirect_uri asked
// and, with PKCE, to a code challenge (S256).
//
// The consent is remembered: the scopes granted so far are merged with
// the ones granted now (the code carries the ones asked for).
func (s *Service) Authorize(ctx context.Context, user *model.Account, c *model.OAuthClient, redirectURI, scopes, codeChallenge string) (string, error) {
	return s.authorize(ctx, user, c, redirectURI, scopes, codeChallenge, true)
}

// Remembered is the web flow without its consent page: when the user
// already authorized the client and the request asks for no scope beyond
// the granted ones, GitHub completes the step at once — with the scopes
// asked for, or, when the request names none, every scope the user granted
// the client so far (GitHub's example: a flow with user, another with
// repo, then one without scope gets a user,repo token). ok is false when
// the user must be asked.
func (s *Service) Remembered(ctx context.Context, user *model.Account, c *model.OAuthClient, scopes string) (string, bool, error) {
	granted, ok, err := s.Store.R().OAuthGrant(ctx, c.ClientID, user.ID)
	if err != nil || !ok {
		return "", false, err
	}
	if scopes == "" {
		return granted, true, nil
	}
	have := map[string]bool{}
	for _, g := range strings.Split(granted, ",") {
		have[g] = true
	}
	for _, w := range strings.Split(scopes, ",") {
		if !have[w] {
			return "", false, nil
		}
	}
	return scopes, true, nil
}

// AuthorizeRemembered makes the code of a remembered consent (the scopes
// come from Remembered; the grant is left as it is).
func (s *Service) AuthorizeRemembered(ctx context.Context, user *model.Account, c *model.OAuthClient, redirectURI, scopes, codeChallenge string) (string, error) {
	return s.authorize(ctx, user, c, redirectURI, scopes, codeChallenge, false)
}

func (s *Service) authorize(ctx context.Context, user *model.Account, c *model.OAuthClient, redirectURI, scopes, codeChallenge string, consent bool) (string, error) {
	code := randomFrom("0123456789abcdef", 20)
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		if consent {
			if _, err := s.grant(ctx, tx, c.ClientID, user.ID, scopes); err != nil {
				return err
			}
		}
		oc := &model.OAuthCode{Kind: model.OAuthCodeWeb, ClientID: c.ClientID, UserID: user.ID, Scopes: scopes, RedirectURI: redirectURI,
			CodeChallenge: codeChallenge, State: model.DeviceApproved, ExpiresAt: s.Store.Now().Add(CodeTTL)}
		return tx.CreateOAuthCode(ctx, oc, store.HashToken(code), "")
	})
	return code, err
}

// grant records a consent: the scopes granted now merged with the earlier
// ones, in GitHub's order of asking (earlier first); it returns them.
func (s *Service) grant(ctx context.Context, tx store.Q, clientID string, userID int64, scopes string) (string, error) {
	prev, _, err := tx.OAuthGrant(ctx, clientID, userID)
	if err != nil {
		return "", err
	}
	merged := NormalizeScopes(prev + "," + scopes)
	return merged, tx.SaveOAuthGrant(ctx, clientID, userID, merged)
}

// Grant is what the token endpoint gives: an access token and, for a
// GitHub App, its refresh token and lifetimes.
type Grant struct {
	AccessToken           string
	Scope                 string
	ExpiresIn             int // seconds; 0 for tokens that do not expire
	RefreshToken          string
	RefreshTokenExpiresIn int
}

// TokenRequest is the parameters of POST /login/oauth/access_token.
type TokenRequest struct {
	ClientID, ClientSecret string
	GrantType              string
	Code, RedirectURI      string
	DeviceCode             string
	RefreshToken           string
	CodeVerifier           string // PKCE
}

// DeviceGrant is the device flow's grant type.
const DeviceGrant = "urn:ietf:params:oauth:grant-type:device_code"

// Token answers the token endpoint: a code, a device code or a refresh
// token exchanged for tokens, or GitHub's error.
func (s *Service) Token(ctx context.Context, in TokenRequest) (*Grant, error) {
	switch in.GrantType {
	case DeviceGrant:
		return s.pollDevice(ctx, in)
	case "refresh_token":
		return s.refresh(ctx, in)
	case "", "authorization_code":
		return s.exchangeCode(ctx, in)
	}
	return nil, errUnsupportedGrant()
}

// clientCode checks the client's id and secret and finds its live code of
// a kind; bad is the error for a code that is unknown, another client's or
// expired.
func (s *Service) clientCode(ctx context.Context, in TokenRequest, kind, secret string, bad func() *Error) (*model.OAuthClient, *model.OAuthCode, error) {
	c, ok, err := s.VerifyClient(ctx, in.ClientID, in.ClientSecret)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, errClientCredentials()
	}
	code, err := s.Store.R().OAuthCodeByHash(ctx, kind, store.HashToken(secret))
	if errors.Is(err, model.ErrNotFound) || (err == nil && (code.ClientID != c.ClientID || !code.ExpiresAt.After(s.Store.Now()))) {
		return nil, nil, bad()
	}
	return c, code, err
}

func (s *Service) exchangeCode(ctx context.Context, in TokenRequest) (*Grant, error) {
	c, code, err := s.clientCode(ctx, in, model.OAuthCodeWeb, in.Code, errBadCode)
	if err != nil {
		return nil, err
	}
	if in.RedirectURI != "" && in.RedirectURI != code.RedirectURI {
		return nil, errRedirectMismatch()
	}
	if code.CodeChallenge != "" && PKCEChallenge(in.CodeVerifier) != code.CodeChallenge {
		return nil, errBadCode()
	}
	return s.issue(ctx, c, code, errBadCode)
}

// issue consumes a code (or refresh token) and issues the client's tokens
// for its user, in one transaction: a code another request consumed first
// gives nothing but spent's error.
func (s *Service) issue(ctx context.Context, c *model.OAuthClient, code *model.OAuthCode, spent func() *Error) (*Grant, error) {
	var g *Grant
	err := s.Store.Tx(ctx, func(tx store.Q) error {
		ok, err := tx.ConsumeOAuthCode(ctx, code.ID)
		if err != nil {
			return err
		}
		if !ok {
			return spent()
		}
		g, err = s.issueTx(ctx, tx, c, code.UserID, code.Scopes)
		return err
	})
	return g, err
}

func (s *Service) issueTx(ctx context.Context, tx store.Q, c *model.OAuthClient, userID int64, scopes string) (*Grant, error) {
	now := tx.Now()
	if !c.GitHubApp() {
		plain, t, err := tx.CreateClientToken(ctx, authz.OAuthApp, userID, c.ClientID, 0, authz.ParseScopes(scopes), nil)
		if err != nil {
			return nil, err
		}
		return &Grant{AccessToken: plain, Scope: scopes}, tx.AppendEvent(ctx, "oauth_access.create", userID, 0, 0,
			map[string]any{"client_id": c.ClientID, "token_id": t.ID, "scopes": scopes})
	}
	exp := now.Add(UserTokenTTL)
	plain, t, err := tx.CreateClientToken(ctx, authz.UserToServer, userID, c.ClientID, c.AppID, nil, &exp)
	if err != nil {
		return nil, err
	}
	refresh := "ghr_" + randomFrom(base62, 76)
	rc := &model.OAuthCode{Kind: model.OAuthCodeRefresh, ClientID: c.ClientID, UserID: userID, State: model.DeviceApproved,
		TokenID: t.ID, ExpiresAt: now.Add(RefreshTokenTTL)}
	if err := tx.CreateOAuthCode(ctx, rc, store.HashToken(refresh), ""); err != nil {
		return nil, err
	}
	return &Grant{AccessToken: plain, ExpiresIn: int(UserTokenTTL / time.Second), RefreshToken: refresh,
			RefreshTokenExpiresIn: int(RefreshTokenTTL / time.Second)},
		tx.AppendEvent(ctx, "oauth_access.create", userID, 0, 0, map[string]any{"client_id": c.ClientID, "token_id": t.ID, "app_id": c.AppID})
}

// refresh rotates a GitHub App's refresh token: a new user access token and
// a new refresh token; the one presented is spent.
func (s *Service) refresh(ctx context.Context, in TokenRequest) (*Grant, error) {
	c, rc, err := s.clientCode(ctx, in, model.OAuthCodeRefresh, in.RefreshToken, errBadRefresh)
	if err != nil {
		return nil, err
	}
	return s.issue(ctx, c, rc, errBadRefresh)
}

// DeviceStart is the answer of POST /login/device/code.
type DeviceStart struct {
	DeviceCode string
	UserCode   string
	ExpiresIn  int
	Interval   int
}

// userCodeAlphabet avoids vowels (no words) and look-alike characters.
const userCodeAlphabet = "BCDFGHJKLMNPQRSTVWXZ23456789"

// StartDevice begins the device flow for a client with device flow
// enabled.
func (s *Service) StartDevice(ctx context.Context, clientID, scope string) (*DeviceStart, error) {
	c, err := s.Client(ctx, clientID)
	if errors.Is(err, model.ErrNotFound) {
		e := errClientCredentials()
		e.Status = 400
		return nil, e
	}
	if err != nil {
		return nil, err
	}
	if !c.DeviceFlow {
		e := oerr("device_flow_disabled", "Device Flow must be explicitly enabled for this App", deviceErrors)
		e.Status = 400
		return nil, e
	}
	interval := s.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	scopes := ""
	if !c.GitHubApp() {
		scopes = NormalizeScopes(scope)
	}
	d := &DeviceStart{DeviceCode: randomFrom("0123456789abcdef", 40), UserCode: randomFrom(userCodeAlphabet, 8),
		ExpiresIn: int(DeviceTTL / time.Second), Interval: interval}
	d.UserCode = d.UserCode[:4] + "-" + d.UserCode[4:]
	oc := &model.OAuthCode{Kind: model.OAuthCodeDevice, ClientID: c.ClientID, Scopes: scopes, State: model.DevicePending,
		Interval: interval, ExpiresAt: s.Store.Now().Add(DeviceTTL)}
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		return tx.CreateOAuthCode(ctx, oc, store.HashToken(d.DeviceCode), store.HashToken(canonUserCode(d.UserCode)))
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// canonUserCode is a user code as typed, in upper case without the hyphen.
func canonUserCode(s string) string {
	return strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(strings.TrimSpace(s)))
}

// PendingDevice finds the pending, live device code a user typed and its
// client; model.ErrNotFound otherwise.
func (s *Service) PendingDevice(ctx context.Context, userCode string) (*model.OAuthCode, *model.OAuthClient, error) {
	code, err := s.Store.R().DeviceCodeByUserCode(ctx, store.HashToken(canonUserCode(userCode)))
	if err != nil {
		return nil, nil, err
	}
	if code.State != model.DevicePending || !code.ExpiresAt.After(s.Store.Now()) {
		return nil, nil, model.ErrNotFound
	}
	c, err := s.Client(ctx, code.ClientID)
	if err != nil {
		return nil, nil, err
	}
	return code, c, nil
}

// DecideDevice records the signed-in user's answer to a device code.
func (s *Service) DecideDevice(ctx context.Context, user *model.Account, code *model.OAuthCode, approve bool) error {
	state := model.DeviceDenied
	if approve {
		state = model.DeviceApproved
	}
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if approve {
			if _, err := s.grant(ctx, tx, code.ClientID, user.ID, code.Scopes); err != nil {
				return err
			}
		}
		ok, err := tx.DecideDeviceCode(ctx, code.ID, user.ID, state, code.Scopes)
		if err != nil {
			return err
		}
		if !ok {
			return model.ErrNotFound
		}
		return nil
	})
}

// pollDevice answers a poll of the device flow.
func (s *Service) pollDevice(ctx context.Context, in TokenRequest) (*Grant, error) {
	c, err := s.Client(ctx, in.ClientID)
	if errors.Is(err, model.ErrNotFound) {
		return nil, errClientCredentials()
	}
	if err != nil {
		return nil, err
	}
	if !c.DeviceFlow {
		return nil, oerr("device_flow_disabled", "Device Flow must be explicitly enabled for this App", deviceErrors)
	}
	code, err := s.Store.R().OAuthCodeByHash(ctx, model.OAuthCodeDevice, store.HashToken(in.DeviceCode))
	if errors.Is(err, model.ErrNotFound) || (err == nil && code.ClientID != c.ClientID) {
		return nil, oerr("incorrect_device_code", "The device_code provided is not valid.", deviceErrors)
	}
	if err != nil {
		return nil, err
	}
	now := s.Store.Now()
	if !code.ExpiresAt.After(now) {
		return nil, oerr("expired_token", "The device code has expired.", deviceErrors)
	}
	switch code.State {
	case model.DeviceDenied:
		return nil, oerr("access_denied", "The authorization request was denied.", deviceErrors)
	case model.DeviceApproved:
		return s.issue(ctx, c, code, errBadCode)
	}
	// Pending: a poll sooner than the interval slows the client down by
	// five seconds, as GitHub does.
	interval := code.Interval
	tooSoon := code.LastPollAt != nil && now.Sub(*code.LastPollAt) < time.Duration(interval)*time.Second
	if tooSoon {
		interval += 5
	}
	if err := s.Store.Tx(ctx, func(tx store.Q) error { return tx.PolledDeviceCode(ctx, code.ID, now, interval) }); err != nil {
		return nil, err
	}
	if tooSoon {
		e := oerr("slow_down", "Too many requests have been made in the same timeframe.", deviceErrors)
		e.Interval = interval
		return nil, e
	}
	return nil, oerr("authorization_pending", "The authorization request is still pending.", deviceErrors)
}

// Passwords: PBKDF2-HMAC-SHA256 with a random salt, stored as
// "pbkdf2-sha256$iterations$salt$key" (base64).

func (s *Service) iterations() int {
	if s.PasswordIterations > 0 {
		return s.PasswordIterations
	}
	return 600_000
}

// SetPassword sets a user's password for the web sign-in.
func (s *Service) SetPassword(ctx context.Context, user *model.Account, password string) error {
	if len(password) < 8 {
		return errors.New("a password needs at least 8 characters")
	}
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return err
	}
	n := s.iterations()
	key, err := pbkdf2.Key(sha256.New, password, salt, n, 32)
	if err != nil {
		return err
	}
	enc := base64.RawStdEncoding
	hash := fmt.Sprintf("pbkdf2-sha256$%d$%s$%s", n, enc.EncodeToString(salt), enc.EncodeToString(key))
	return s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.SetPassword(ctx, user.ID, hash); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "user.change_password", user.ID, 0, 0, map[string]any{"user_id": user.ID})
	})
}

// ErrSignIn is a failed sign-in (no such user, no password, a wrong one or
// a suspended account: the same answer for all).
var ErrSignIn = errors.New("Incorrect username or password.")

// SignIn checks a login and password and starts a session: the cookie
// value to set (only its hash is stored).
func (s *Service) SignIn(ctx context.Context, login, password string) (*model.Account, string, error) {
	q := s.Store.R()
	u, err := q.AccountByLogin(ctx, strings.TrimSpace(login))
	if errors.Is(err, model.ErrNotFound) {
		return nil, "", ErrSignIn
	}
	if err != nil {
		return nil, "", err
	}
	stored, err := q.PasswordHash(ctx, u.ID)
	if errors.Is(err, model.ErrNotFound) {
		return nil, "", ErrSignIn
	}
	if err != nil {
		return nil, "", err
	}
	if !checkPassword(stored, password) || u.SuspendedAt != nil || u.Type != model.TypeUser {
		return nil, "", ErrSignIn
	}
	cookie := NewSessionSecret()
	err = s.Store.Tx(ctx, func(tx store.Q) error {
		if err := tx.CreateSession(ctx, store.HashToken(cookie), u.ID, tx.Now().Add(SessionTTL)); err != nil {
			return err
		}
		return tx.AppendEvent(ctx, "user.login", u.ID, 0, 0, map[string]any{"user_id": u.ID, "method": "password"})
	})
	return u, cookie, err
}

func checkPassword(stored, password string) bool {
	parts := strings.Split(stored, "$")
	if len(parts) != 4 || parts[0] != "pbkdf2-sha256" {
		return false
	}
	n, err := strconv.Atoi(parts[1])
	enc := base64.RawStdEncoding
	salt, err1 := enc.DecodeString(parts[2])
	want, err2 := enc.DecodeString(parts[3])
	if err != nil || err1 != nil || err2 != nil || n <= 0 {
		return false
	}
	got, err := pbkdf2.Key(sha256.New, password, salt, n, len(want))
	return err == nil && subtle.ConstantTimeCompare(got, want) == 1
}

// NewSessionSecret is a random cookie value (also the CSRF token).
func NewSessionSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// SessionUser is the user of a session cookie; model.ErrNotFound when it
// is unknown or over.
func (s *Service) SessionUser(ctx context.Context, cookie string) (*model.Account, error) {
	if cookie == "" {
		return nil, model.ErrNotFound
	}
	return s.Store.R().SessionUser(ctx, store.HashToken(cookie))
}

// SignOut ends a session.
func (s *Service) SignOut(ctx context.Context, cookie string) error {
	return s.Store.Tx(ctx, func(tx store.Q) error { return tx.DeleteSession(ctx, store.HashToken(cookie)) })
}

// ClientOperations are the operations a client calls with its id and
// secret.
var ClientOperations = map[string]bool{
	"apps/check-token": true, "apps/reset-token": true, "apps/delete-token": true,
	"apps/delete-authorization": true, "apps/scope-token": true,
}
